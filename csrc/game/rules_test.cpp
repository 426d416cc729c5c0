// Golden positions for every rule in docs/rules.md, plus randomized invariants:
// incremental hash == recomputed hash, undo, pack/unpack, symmetry.
#include <stdexcept>

#include "../core/random.h"
#include "../tests/helpers.h"
#include "../tests/testing.h"
#include "game.h"
#include "notation.h"
#include "playout.h"
#include "symmetry.h"

using namespace popucom;

namespace {

// A position with Black to move and the fewest moves made that fit the stones.
Position black_to_move(const std::string& black, const std::string& white, const std::string& black_floors = "",
                       const std::string& white_floors = "", int32_t komi = 0) {
  const Bitboard bs = testing::squares(black), ws = testing::squares(white);
  const int made = std::max(bs.count(), ws.count());
  return Position::from_parts(bs, ws, testing::squares(black_floors), testing::squares(white_floors), BLACK,
                              MOVES_PER_PLAYER - made, MOVES_PER_PLAYER - made, komi);
}

Position after(Position p, const std::string& move) {
  p.play_unchecked(parse_square(move));
  return p;
}

Bitboard row5() { return testing::squares("a5 b5 c5 d5 e5 f5 g5 h5 i5"); }
Bitboard column_e() { return testing::squares("e1 e2 e3 e4 e5 e6 e7 e8 e9"); }
Bitboard main_diagonal() { return testing::squares("a1 b2 c3 d4 e5 f6 g7 h8 i9"); }

}  // namespace

TEST(rules, horizontal_match_paints_row_until_opponent_stone) {
  const Position p = after(black_to_move("d5 f5", "b5"), "e5");
  CHECK(p.stones(BLACK).none());
  CHECK(p.stones(WHITE) == testing::squares("b5"));
  CHECK(p.floors(BLACK) == testing::squares("c5 d5 e5 f5 g5 h5 i5"));
  CHECK(p.floors(WHITE).none());
  CHECK_EQ(p.to_move(), WHITE);
  CHECK_EQ(p.moves_left(BLACK), 22);
}

TEST(rules, vertical_match) {
  const Position p = after(black_to_move("e3 e4", ""), "e5");
  CHECK(p.stones(BLACK).none());
  CHECK(p.floors(BLACK) == column_e());
}

TEST(rules, each_diagonal_matches) {
  const Position main = after(black_to_move("d4 f6", ""), "e5");
  CHECK(main.stones(BLACK).none());
  CHECK(main.floors(BLACK) == main_diagonal());
  const Position anti = after(black_to_move("f4 d6", ""), "e5");
  CHECK(anti.floors(BLACK) == testing::squares("i1 h2 g3 f4 e5 d6 c7 b8 a9"));
}

TEST(rules, two_directions_at_once) {
  const Position p = after(black_to_move("e3 e4 d5 f5", ""), "e5");
  CHECK(p.stones(BLACK).none());
  CHECK(p.floors(BLACK) == (row5() | column_e()));
}

TEST(rules, three_directions_at_once) {
  const Position p = after(black_to_move("e3 e4 d5 f5 c3 d4", "a1"), "e5");
  CHECK(p.stones(BLACK).none());
  // The white stone on a1 stops the diagonal paint at b2.
  CHECK(p.floors(BLACK) == ((row5() | column_e() | main_diagonal()) & ~testing::squares("a1")));
  CHECK(p.stones(WHITE) == testing::squares("a1"));
}

TEST(rules, run_of_four) {
  const Position p = after(black_to_move("a1 b1 d1", ""), "c1");
  CHECK(p.stones(BLACK).none());
  CHECK(p.floors(BLACK) == testing::squares("a1 b1 c1 d1 e1 f1 g1 h1 i1"));
}

TEST(rules, run_of_five) {
  const Position p = after(black_to_move("c7 d7 f7 g7 a7", "h7"), "e7");
  // a7 is not in the run (b7 is empty) but its floor is painted; h7 stops the paint.
  CHECK(p.stones(BLACK) == testing::squares("a7"));
  CHECK(p.floors(BLACK) == testing::squares("a7 b7 c7 d7 e7 f7 g7"));
}

TEST(rules, own_stones_do_not_stop_paint_and_get_painted) {
  const Position p = after(black_to_move("c5 d5 g5", ""), "e5");
  CHECK(p.stones(BLACK) == testing::squares("g5"));
  CHECK(p.floors(BLACK) == row5());
}

TEST(rules, two_in_a_row_does_not_match) {
  const Position p = after(black_to_move("d5", "f5"), "e5");
  CHECK(p.stones(BLACK) == testing::squares("d5 e5"));
  CHECK(p.floors(BLACK).none());
}

TEST(rules, opponent_stones_never_removed_and_their_floors_unchanged) {
  const Position p = after(black_to_move("d5 f5", "c5 g5", "", "c5 g5"), "e5");
  CHECK(p.stones(WHITE) == testing::squares("c5 g5"));
  CHECK(p.floors(WHITE) == testing::squares("c5 g5"));
  CHECK(p.floors(BLACK) == testing::squares("d5 e5 f5"));
}

TEST(rules, repaints_opponent_floors) {
  const Position p = after(black_to_move("d5 f5", "a1", "", "a5 h5 i5 e9"), "e5");
  CHECK(p.floors(BLACK) == row5());
  CHECK(p.floors(WHITE) == testing::squares("e9"));
}

TEST(rules, white_matches_too) {
  Position p =
      Position::from_parts(testing::squares("a1"), testing::squares("d5 f5"), Bitboard(), Bitboard(), WHITE, 22, 23, 0);
  p.play_unchecked(parse_square("e5"));
  CHECK(p.floors(WHITE) == row5());
  CHECK(p.stones(BLACK) == testing::squares("a1"));
  CHECK_EQ(p.to_move(), BLACK);
}

TEST(rules, move_onto_opponent_floor_is_refused) {
  const Position p = black_to_move("", "a1", "", "e5");
  CHECK(!p.is_legal(parse_square("e5")));
  CHECK(p.is_legal(parse_square("e6")));
  CHECK(!p.is_legal(parse_square("a1")));
  Game g(p);
  CHECK_THROWS(g.play(parse_square("e5")), std::invalid_argument);
  CHECK_THROWS(g.play(parse_square("a1")), std::invalid_argument);
  CHECK_THROWS(g.play(NUM_SQUARES), std::invalid_argument);
  CHECK_THROWS(g.play(-1), std::invalid_argument);
  // A player may play on a floor of its own colour.
  const Position own = black_to_move("", "a1", "e5", "");
  CHECK(own.is_legal(parse_square("e5")));
}

TEST(rules, no_legal_move_loss_real_game) {
  const std::string record =
      "40 36 32 35 41 3 30 75 50 6 46 62 37 9 47 33 39 72 55 44 58 16 49 12 48 43 66 76 50 8 2 78 "
      "11 4 21 54 22 79 67 27 20 57 68 61 17 13 66";
  std::vector<int> moves;
  {
    std::istringstream in(record);
    int sq;
    while (in >> sq) moves.push_back(sq);
  }
  CHECK_EQ(moves.size(), 47u);
  for (int32_t komi : {0, -100}) {
    Game g(komi);
    for (size_t i = 0; i < moves.size(); ++i) {
      CHECK(!g.position().is_terminal());
      g.play(moves[i]);
    }
    const Position& p = g.position();
    CHECK_EQ(p.to_move(), WHITE);
    CHECK(p.is_terminal());
    CHECK(p.legal_moves().none());
    CHECK(p.end_reason() == EndReason::NO_LEGAL_MOVE);
    CHECK(p.result() == Result::BLACK_WIN);  // komi is ignored for this loss
    CHECK_EQ(p.floors(BLACK).count(), 57);
    CHECK_EQ(p.floors(WHITE).count(), 0);
    CHECK_THROWS(g.play(80), std::invalid_argument);
  }
}

TEST(rules, moves_exhausted_draw_and_komi) {
  // White's last move; floors 1 each afterwards.
  const auto last = [](int32_t komi) {
    Position p =
        Position::from_parts(Bitboard(), Bitboard(), testing::squares("a1"), testing::squares("i9"), WHITE, 0, 1, komi);
    p.play_unchecked(parse_square("e5"));
    return p;
  };
  CHECK(last(0).is_terminal());
  CHECK(last(0).end_reason() == EndReason::MOVES_EXHAUSTED);
  CHECK(last(0).result() == Result::DRAW);
  CHECK(last(1).result() == Result::BLACK_WIN);
  CHECK(last(-1).result() == Result::WHITE_WIN);
  CHECK_EQ(last(5).score(), 0);
}

TEST(rules, from_parts_rejects_inconsistent_positions) {
  CHECK_THROWS(Position::from_parts(testing::squares("a1"), testing::squares("a1"), {}, {}, BLACK, 24, 24, 0),
               std::invalid_argument);
  CHECK_THROWS(Position::from_parts(testing::squares("a1"), {}, {}, testing::squares("a1"), BLACK, 24, 24, 0),
               std::invalid_argument);
  CHECK_THROWS(Position::from_parts({}, {}, {}, {}, BLACK, 25, 24, 0), std::invalid_argument);
  CHECK_THROWS(Position::from_parts({}, {}, {}, {}, BLACK, 26, 26, 0), std::invalid_argument);
  CHECK_THROWS(Position::from_parts(testing::squares("a1 a2 a3"), {}, {}, {}, BLACK, 24, 24, 0), std::invalid_argument);
}

TEST(rules, notation) {
  CHECK_EQ(parse_square("a1"), 0);
  CHECK_EQ(parse_square("I1"), 8);
  CHECK_EQ(parse_square("a9"), 72);
  CHECK_EQ(parse_square("e5"), 40);
  CHECK_EQ(square_to_text(80), std::string("i9"));
  CHECK_THROWS(parse_square("j1"), std::invalid_argument);
  CHECK_THROWS(parse_square("a0"), std::invalid_argument);
  CHECK_THROWS(parse_square("a10"), std::invalid_argument);
  CHECK_THROWS(parse_record("e5 zz"), std::invalid_argument);
  CHECK_THROWS(Game::from_record("e5 e5"), std::invalid_argument);
  CHECK_EQ(Game::from_record("e5 D4 c3").record(), std::string("e5 d4 c3"));
}

TEST(rules, random_games_keep_invariants) {
  Rng rng(12345);
  for (int game = 0; game < 2000; ++game) {
    const int32_t komi = static_cast<int32_t>(rng.below(21)) - 10;
    Game g(komi);
    while (!g.position().is_terminal()) {
      const Position& p = g.position();
      const Bitboard legal = p.legal_moves();
      const int sq = legal.select(static_cast<int>(rng.below(legal.count())));
      const Position before = p;
      g.play(sq);
      const Position& q = g.position();
      CHECK_EQ(q.hash(), q.compute_hash());
      CHECK((q.stones(BLACK) & q.floors(WHITE)).none());
      CHECK((q.stones(WHITE) & q.floors(BLACK)).none());
      CHECK((q.floors(BLACK) & q.floors(WHITE)).none());
      CHECK(Position::unpack(q.pack()) == q);
      // Floors only ever grow for the mover and shrink for the opponent.
      const Color me = before.to_move();
      CHECK((before.floors(me) & ~q.floors(me)).none());
      CHECK((q.floors(opponent(me)) & ~before.floors(opponent(me))).none());
      // Symmetry commutes with play.
      const int s = static_cast<int>(rng.below(NUM_SYMMETRIES));
      Position t = before.transformed(s);
      CHECK(t.is_legal(symmetry::apply(s, sq)));
      t.play_unchecked(symmetry::apply(s, sq));
      CHECK(t == q.transformed(s));
      CHECK_EQ(t.hash(), q.transformed(s).hash());
      CHECK(q.transformed(s).transformed(symmetry::inverse(s)) == q);
    }
    // Undo walks back to the empty board with matching hashes.
    const uint64_t start_hash = g.start().hash();
    while (!g.moves().empty()) g.undo();
    CHECK_EQ(g.position().hash(), start_hash);
    CHECK_THROWS(g.undo(), std::logic_error);
  }
}

TEST(rules, random_playouts_agree_with_checked_games) {
  const PlayoutStats s = random_playouts(500, 7);
  CHECK_EQ(s.games, 500);
  CHECK_EQ(s.black_wins + s.white_wins + s.draws, 500);
  CHECK(s.plies >= 500 * 40);
  CHECK(s.plies <= 500 * MAX_GAME_PLIES);
}

TEST(rules, hashes_distinguish_side_moves_left_and_komi) {
  const Position a(0), b(3);
  CHECK(a.hash() != b.hash());
  const Position c = Position::from_parts({}, {}, {}, {}, BLACK, 24, 24, 0);
  CHECK(a.hash() != c.hash());
  CHECK_EQ(a.hash(), a.compute_hash());
}

TEST(rules, bitboard_select_matches_naive_scan) {
  Rng rng(99);
  for (int trial = 0; trial < 20000; ++trial) {
    Bitboard b(rng.next() & rng.next(), rng.next());
    if (trial % 3 == 0) b = Bitboard(rng.next() & rng.next() & rng.next(), 0);
    int k = 0;
    for (int sq = 0; sq < NUM_SQUARES; ++sq) {
      if (!b.test(sq)) continue;
      CHECK_EQ(b.select(k), sq);
      ++k;
    }
    CHECK_EQ(k, b.count());
  }
}
