// The endgame solver against a plain alpha-beta that has none of its
// shortcuts: no table, every legal move searched, the last ply played out.
// The positions mix random play, play that completes lines whenever it can
// (much paint, long lines) and boards mostly painted already (few legal
// moves, so games also end by a player having none).
#include "solver.h"

#include <algorithm>
#include <chrono>
#include <thread>
#include <utility>
#include <vector>

#include "../core/deadline.h"
#include "../core/random.h"
#include "../tests/helpers.h"
#include "../tests/testing.h"

using namespace popucom;

namespace {

// (result, floor margin) for the side to move, compared as it prefers them.
using Outcome = std::pair<int, int>;

Outcome negated(Outcome o) { return {-o.first, -o.second}; }

Outcome terminal_outcome(const Position& p) {
  const Result r = p.result();
  const int sign = p.to_move() == BLACK ? 1 : -1;
  const int margin = static_cast<int>(sign * p.final_margin());
  if (r == Result::DRAW) return {0, margin};
  return {(r == Result::BLACK_WIN) == (sign == 1) ? 1 : -1, margin};
}

// Fail-soft alpha-beta over every legal move; exact with the full window.
Outcome reference(const Position& p, Outcome alpha, Outcome beta) {
  if (p.is_terminal()) return terminal_outcome(p);
  std::vector<Position> children;
  for (Bitboard legal = p.legal_moves(); legal.any();) {
    children.push_back(p);
    children.back().play_unchecked(legal.pop_lowest());
  }
  // The mover's best floor lead first, only to keep the reference quick.
  const int sign = p.to_move() == BLACK ? 1 : -1;
  std::stable_sort(children.begin(), children.end(),
                   [&](const Position& a, const Position& b) { return sign * a.score() > sign * b.score(); });
  Outcome best{-2, 0};
  for (const Position& child : children) {
    best = std::max(best, negated(reference(child, negated(beta), negated(alpha))));
    alpha = std::max(alpha, best);
    if (alpha >= beta) break;
  }
  return best;
}

Outcome reference(const Position& p) { return reference(p, {-2, 0}, {2, 0}); }

// The result alone (+1, 0, -1): far fewer positions than the margin needs.
int reference_value(const Position& p, int alpha, int beta) {
  if (p.is_terminal()) return terminal_outcome(p).first;
  int best = -2;
  for (Bitboard legal = p.legal_moves(); legal.any();) {
    Position next = p;
    next.play_unchecked(legal.pop_lowest());
    best = std::max(best, -reference_value(next, -beta, -alpha));
    alpha = std::max(alpha, best);
    if (alpha >= beta) break;
  }
  return best;
}

int reference_value(const Position& p) { return reference_value(p, -1, 1); }

int random_move(const Position& p, Rng& rng) {
  const Bitboard legal = p.legal_moves();
  return legal.select(static_cast<int>(rng.below(static_cast<uint32_t>(legal.count()))));
}

// A move that paints floors if there is one (a random one of them), else a random move.
int painting_move(const Position& p, Rng& rng) {
  std::vector<int> painting;
  for (Bitboard legal = p.legal_moves(); legal.any();) {
    const int move = legal.pop_lowest();
    Position next = p;
    next.play_unchecked(move);
    if (next.score() != p.score() || next.stones(p.to_move()).count() <= p.stones(p.to_move()).count())
      painting.push_back(move);
  }
  if (painting.empty()) return random_move(p, rng);
  return painting[rng.below(static_cast<uint32_t>(painting.size()))];
}

// A game played to `plies` plies left, by random or painting moves, its komi
// on either side (or to its end, if it ended first).
Position played_to(int plies, bool paint, Rng& rng) {
  Position p(static_cast<int32_t>(rng.below(9)) - 4);
  while (plies_left(p) > plies && !p.is_terminal())
    p.play_unchecked(paint ? painting_move(p, rng) : random_move(p, rng));
  return p;
}

// A board whose floors are nearly all painted, most in one colour, a few
// stones on it, `plies` plies left: the other side has few legal moves, so
// running out of them decides some games.
Position painted_board(int plies, Rng& rng) {
  Bitboard floors[2], stones[2];
  const Color crowded = rng.below(2) == 0 ? BLACK : WHITE;  // whose floors cover the board
  for (int sq = 0; sq < NUM_SQUARES; ++sq) {
    const uint32_t roll = rng.below(100);
    const int colour = roll < 93 ? crowded : roll < 97 ? opponent(crowded) : -1;
    if (colour >= 0) floors[colour].set(sq);
    // Stones on their own colour's floor or an unpainted one.
    const uint32_t stone = rng.below(100);
    if (stone < 12 && colour != WHITE) stones[BLACK].set(sq);
    if (stone >= 12 && stone < 24 && colour != BLACK) stones[WHITE].set(sq);
  }
  const Color to_move = plies % 2 == 0 ? BLACK : WHITE;
  const int black_left = plies / 2, white_left = plies - black_left;
  return Position::from_parts(stones[BLACK], stones[WHITE], floors[BLACK], floors[WHITE], to_move, black_left,
                              white_left, static_cast<int32_t>(rng.below(5)) - 2);
}

// Positions of each kind at `plies` plies left, none of them over.
std::vector<Position> test_positions(int plies, int count, uint64_t seed) {
  Rng rng(seed);
  std::vector<Position> out;
  for (int i = 0; static_cast<int>(out.size()) < count; ++i) {
    const Position p = i % 3 == 2 ? painted_board(plies, rng) : played_to(plies, i % 3 == 1, rng);
    if (!p.is_terminal() && plies_left(p) == plies) out.push_back(p);
  }
  return out;
}

}  // namespace

SLOW_TEST(solver, values_and_margins_match_plain_alpha_beta) {
  int wins = 0, draws = 0, losses = 0, cramped = 0;
  for (const auto& [plies, count] : {std::pair{4, 160}, std::pair{5, 80}})
    for (const Position& p : test_positions(plies, count, 100 + plies)) {
      const Outcome exact = reference(p);
      int value = 9;
      Solver solver;
      CHECK(solver.solve(p, &value));
      CHECK_EQ(value, exact.first);
      ExactOutcome outcome;
      CHECK(solver.solve_outcome(p, &outcome));  // after the probes' bounds in the table
      CHECK_EQ(outcome.value, exact.first);
      CHECK_EQ(outcome.margin, exact.second);
      Solver fresh;
      CHECK(fresh.solve_outcome(p, &outcome));
      CHECK_EQ(outcome.margin, exact.second);
      wins += value > 0;
      draws += value == 0;
      losses += value < 0;
      const Bitboard their_legal = ~(p.stones(BLACK) | p.stones(WHITE) | p.floors(p.to_move()));
      cramped += std::min(p.legal_moves().count(), their_legal.count()) <= 3;
    }
  // Every kind of result, and boards where moves run short, were among them.
  CHECK(wins > 20 && draws > 5 && losses > 20);
  CHECK(cramped > 5);
}

SLOW_TEST(solver, values_deeper_match_plain_alpha_beta) {
  for (const auto& [plies, count] : {std::pair{6, 40}, std::pair{7, 8}})
    for (const Position& p : test_positions(plies, count, 100 + plies)) {
      int value = 9;
      Solver solver;
      CHECK(solver.solve(p, &value));
      CHECK_EQ(value, reference_value(p));
    }
}

SLOW_TEST(solver, each_move_value_matches_plain_alpha_beta) {
  for (int plies : {4, 5})
    for (const Position& p : test_positions(plies, 24, 200 + plies)) {
      const MoveValues values = solve_moves(p, plies);
      CHECK_EQ(values.value, reference(p).first);
      CHECK_EQ(static_cast<int>(values.moves.size()), p.legal_moves().count());
      int best = -2;
      for (const auto& [move, value] : values.moves) {
        Position next = p;
        next.play_unchecked(move);
        CHECK_EQ(value, -reference(next).first);
        best = std::max(best, value);
      }
      CHECK_EQ(best, values.value);
      CHECK(values.nodes > 0);
    }
}

TEST(solver, solve_moves_of_a_finished_game_is_its_result) {
  Rng rng(3);
  Position p;
  while (!p.is_terminal()) p.play_unchecked(random_move(p, rng));
  const MoveValues values = solve_moves(p, 0);
  CHECK_EQ(values.value, terminal_outcome(p).first);
  CHECK(values.moves.empty());
  CHECK_THROWS(solve_moves(Position(), 6), std::invalid_argument);
}

TEST(solver, a_quiet_move_that_takes_the_last_reply_is_kept) {
  // Two plies left; White's one legal square is i9 (every other free square is
  // painted black) and the komi wins for White whatever the floors. Black's
  // quiet moves all look alike, but i9 leaves White no move: only it wins.
  const Bitboard white = testing::squares("a1 d1 g1 a4 d4 g4 a7 d7");
  const Bitboard black_floors = ~white & ~Bitboard::square(80);
  const Position p = Position::from_parts(Bitboard(), white, black_floors, white, BLACK, 1, 1, -70);
  const MoveValues values = solve_moves(p, 2);
  CHECK_EQ(values.value, 1);
  for (const auto& [move, value] : values.moves) CHECK_EQ(value, move == 80 ? 1 : -1);
}

TEST(solver, a_move_audit_agrees_with_every_move_value) {
  int critical = 0, decided = 0;
  for (const auto& [plies, count] : {std::pair{3, 30}, std::pair{4, 30}, std::pair{5, 10}})
    for (const Position& p : test_positions(plies, count, 300 + plies)) {
      const MoveValues values = solve_moves(p, plies);
      int lowest = 2;
      for (const auto& [move, value] : values.moves) lowest = std::min(lowest, value);
      for (const auto& [move, value] : values.moves) {
        const MoveAudit audit = audit_move(p, move, plies);
        CHECK_EQ(audit.best, values.value);
        CHECK_EQ(audit.played, value);
        CHECK_EQ(audit.critical, lowest < values.value);
        critical += audit.critical;
        decided += !audit.critical;
      }
    }
  CHECK(critical > 50 && decided > 50);
  CHECK_THROWS(audit_move(Position(), 40, 6), std::invalid_argument);
  const Position last = test_positions(2, 1, 9)[0];
  CHECK_THROWS(audit_move(last, (last.stones(BLACK) | last.stones(WHITE)).lowest(), 2), std::invalid_argument);
}

TEST(solver, a_passed_deadline_gives_up_before_visiting_a_position) {
  Rng rng(7);
  const Position p = played_to(30, false, rng);
  Deadline deadline;
  deadline.expire();
  Solver solver;
  solver.set_deadline(&deadline);
  int value = 9;
  CHECK(!solver.solve(p, &value));
  CHECK_EQ(value, 9);
  ExactOutcome outcome{9, 9};
  CHECK(!solver.solve_outcome(p, &outcome));
  CHECK_EQ(outcome.value, 9);
  bool below = false;
  CHECK(!solver.is_below(p, 1, &below));
  CHECK(solver.ran_out_of_time());
  CHECK_EQ(solver.nodes(), uint64_t{0});
}

TEST(solver, a_near_deadline_ends_a_solve_that_no_budget_would) {
  // Thirty plies left and no node budget: the solve would run for hours.
  Rng rng(8);
  const Position p = played_to(30, false, rng);
  Deadline deadline;
  deadline.set_from_now(0.02);
  Solver solver;
  solver.set_deadline(&deadline);
  const auto start = Deadline::Clock::now();
  ExactOutcome outcome;
  CHECK(!solver.solve_outcome(p, &outcome));
  const double seconds = std::chrono::duration<double>(Deadline::Clock::now() - start).count();
  CHECK(solver.ran_out_of_time());
  CHECK(solver.nodes() > 0);
  CHECK(seconds < 5.0);  // a fraction of a millisecond past the deadline, on a quiet machine
}

TEST(solver, a_deadline_expired_by_another_thread_ends_the_solve) {
  Rng rng(9);
  const Position p = played_to(30, false, rng);
  Deadline deadline;
  deadline.set_from_now(3600);
  Solver solver;
  solver.set_deadline(&deadline);
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    deadline.expire();
  });
  int value = 9;
  const bool solved = solver.solve(p, &value);
  stopper.join();
  CHECK(!solved);
  CHECK(solver.ran_out_of_time());
}

TEST(solver, past_a_cleared_deadline_it_solves_again_and_the_budget_is_no_timeout) {
  Rng rng(10);
  const Position p = played_to(4, false, rng);
  Deadline deadline;
  deadline.expire();
  Solver solver(1000000);
  solver.set_deadline(&deadline);
  int value = 9;
  CHECK(!solver.solve(p, &value));
  deadline.clear();
  CHECK(solver.solve(p, &value));
  CHECK_EQ(value, reference_value(p));
  Solver starved(1);
  CHECK(!starved.solve(played_to(12, false, rng), &value));
  CHECK(!starved.ran_out_of_time());
}

TEST(solver, a_time_limit_ends_a_solve_like_its_budget) {
  Rng rng(11);
  const Position p = played_to(30, false, rng);
  Solver solver;
  solver.set_time_limit_from_now(0.02);
  const auto start = Deadline::Clock::now();
  int value = 9;
  CHECK(!solver.solve(p, &value));
  const double seconds = std::chrono::duration<double>(Deadline::Clock::now() - start).count();
  CHECK_EQ(value, 9);
  CHECK(!solver.ran_out_of_time());  // the solver's own limit: given up, as past its budget
  CHECK(seconds < 5.0);
  solver.clear_time_limit();
  const Position near = played_to(4, false, rng);
  CHECK(solver.solve(near, &value));
  CHECK_EQ(value, reference_value(near));
}

TEST(solver, a_table_kept_across_a_game_gives_the_values_of_fresh_ones) {
  // One solver follows each game from 7 plies out to the end, solving every
  // position on the way and a sibling of each (what a session's endgame
  // choices ask): every value is a fresh solver's, and so is every outcome.
  for (const Position& start : test_positions(7, 4, 300)) {
    Solver kept;
    Rng rng(start.hash());
    for (Position p = start; !p.is_terminal();) {
      int value = 9;
      CHECK(kept.solve(p, &value));
      Solver fresh;
      int fresh_value = 8;
      CHECK(fresh.solve(p, &fresh_value));
      CHECK_EQ(value, fresh_value);
      ExactOutcome outcome, fresh_outcome;
      CHECK(kept.solve_outcome(p, &outcome));
      CHECK(Solver().solve_outcome(p, &fresh_outcome));
      CHECK_EQ(outcome.value, fresh_outcome.value);
      CHECK_EQ(outcome.margin, fresh_outcome.margin);
      p.play_unchecked(random_move(p, rng));
    }
    kept.clear();
    CHECK_EQ(kept.table_bytes(), size_t{0});
  }
}

TEST(solver, a_bounded_table_stays_within_its_bytes_and_stays_exact) {
  const size_t bytes = size_t{1} << 16;  // a few thousand entries: full long before the solves end
  Solver small(UINT64_MAX, Solver::slots_within(bytes));
  CHECK(small.max_table_bytes() <= bytes);
  CHECK(Solver::slots_within(0) == Solver::MIN_SLOTS);
  for (const Position& p : test_positions(6, 4, 301)) {
    int value = 9;
    CHECK(small.solve(p, &value));
    CHECK_EQ(value, reference_value(p));
    CHECK(small.table_bytes() <= small.max_table_bytes());
  }
  CHECK(small.nodes() > 4 * Solver::MIN_SLOTS);  // it did have to replace entries
}
