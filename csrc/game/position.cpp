#include "position.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "geometry.h"
#include "notation.h"
#include "symmetry.h"
#include "zobrist.h"

namespace popucom {

namespace {

using geometry::TABLES;
const zobrist::Keys& Z = zobrist::KEYS;

// The squares walking from sq in direction d up to (not including) the first
// square in `stop`, or to the edge.
Bitboard ray_until(int sq, int d, Bitboard stop) {
  const Bitboard ray = TABLES.ray_mask[sq][d];
  const Bitboard hits = ray & stop;
  return ray & (geometry::walks_up(d) ? hits.below_lowest() : hits.above_highest());
}

// Squares of the maximal run of `own` stones through sq along one axis
// (sq itself included, whether or not it is in `own`).
Bitboard run_through(int sq, int axis, Bitboard own) {
  return Bitboard::square(sq) | ray_until(sq, axis, ~own) | ray_until(sq, axis + geometry::NUM_AXES, ~own);
}

// Squares painted from sq along one axis: both senses, up to the edge or up to
// (not including) the first opponent stone.
Bitboard paint_through(int sq, int axis, Bitboard opponent_stones) {
  return ray_until(sq, axis, opponent_stones) | ray_until(sq, axis + geometry::NUM_AXES, opponent_stones);
}

void require(bool ok, const std::string& message) {
  if (!ok) throw std::invalid_argument(message);
}

}  // namespace

Position::Position(int32_t komi) : komi_(komi) { hash_ = compute_hash(); }

std::pair<int, int> Position::fewest_moves_left(Bitboard black_stones, Bitboard white_stones, Color to_move) {
  if (to_move == BLACK) {
    const int made = std::max(black_stones.count(), white_stones.count());
    return {MOVES_PER_PLAYER - made, MOVES_PER_PLAYER - made};
  }
  const int white_made = std::max({black_stones.count() - 1, white_stones.count(), 0});
  return {MOVES_PER_PLAYER - white_made - 1, MOVES_PER_PLAYER - white_made};
}

Position Position::from_parts(Bitboard black_stones, Bitboard white_stones, Bitboard black_floors,
                              Bitboard white_floors, Color to_move, int black_moves_left, int white_moves_left,
                              int32_t komi) {
  require((black_stones & white_stones).none(), "a square holds both a black and a white stone");
  require((black_floors & white_floors).none(), "a floor is painted both black and white");
  require((black_stones & white_floors).none(), "a black stone stands on a white floor");
  require((white_stones & black_floors).none(), "a white stone stands on a black floor");
  require(to_move == BLACK || to_move == WHITE, "to_move must be BLACK (0) or WHITE (1)");
  for (int ml : {black_moves_left, white_moves_left})
    require(ml >= 0 && ml <= MOVES_PER_PLAYER,
            "moves left must be in 0.." + std::to_string(MOVES_PER_PLAYER) + ", got " + std::to_string(ml));
  // Black moves first and the players alternate, so Black has made as many
  // moves as White when Black is to move, and one more when White is.
  const int expected_white = to_move == BLACK ? black_moves_left : black_moves_left + 1;
  require(white_moves_left == expected_white, std::string("moves left (black ") + std::to_string(black_moves_left) +
                                                  ", white " + std::to_string(white_moves_left) + ") do not fit " +
                                                  (to_move == BLACK ? "Black" : "White") + " to move");
  require(black_stones.count() <= MOVES_PER_PLAYER - black_moves_left, "more black stones than moves Black has made");
  require(white_stones.count() <= MOVES_PER_PLAYER - white_moves_left, "more white stones than moves White has made");
  Position p(komi);
  p.stones_[BLACK] = black_stones;
  p.stones_[WHITE] = white_stones;
  p.floors_[BLACK] = black_floors;
  p.floors_[WHITE] = white_floors;
  p.to_move_ = to_move;
  p.moves_left_[BLACK] = static_cast<uint8_t>(black_moves_left);
  p.moves_left_[WHITE] = static_cast<uint8_t>(white_moves_left);
  p.hash_ = p.compute_hash();
  return p;
}

Position Position::unpack(const PackedPosition& w) {
  const auto board = [&](int i) {
    require((w[2 * i + 1] & ~Bitboard::HI_MASK) == 0, "packed position has bits set beyond square 80");
    return Bitboard(w[2 * i], w[2 * i + 1]);
  };
  const uint64_t meta = w[8];
  require(((meta >> 24) & 0xFF) == 0, "packed position has unused meta bits set");
  const int to_move = static_cast<int>(meta & 0xFF);
  require(to_move <= 1, "packed position has side to move " + std::to_string(to_move) + " (want 0 or 1)");
  return from_parts(board(0), board(1), board(2), board(3), static_cast<Color>(to_move),
                    static_cast<int>((meta >> 8) & 0xFF), static_cast<int>((meta >> 16) & 0xFF),
                    static_cast<int32_t>(static_cast<uint32_t>(meta >> 32)));
}

PackedPosition Position::pack() const {
  return {stones_[BLACK].lo,
          stones_[BLACK].hi,
          stones_[WHITE].lo,
          stones_[WHITE].hi,
          floors_[BLACK].lo,
          floors_[BLACK].hi,
          floors_[WHITE].lo,
          floors_[WHITE].hi,
          static_cast<uint64_t>(to_move_) | (static_cast<uint64_t>(moves_left_[BLACK]) << 8) |
              (static_cast<uint64_t>(moves_left_[WHITE]) << 16) |
              (static_cast<uint64_t>(static_cast<uint32_t>(komi_)) << 32)};
}

void Position::resolve_matches(int sq, unsigned matched_axes) {
  const Color me = to_move_, them = opponent(me);
  const Bitboard own = stones_[me];
  Bitboard removed, painted;
  for (int axis = 0; axis < geometry::NUM_AXES; ++axis) {
    if (!((matched_axes >> axis) & 1)) continue;
    removed |= run_through(sq, axis, own);
    painted |= paint_through(sq, axis, stones_[them]);
  }
  if (removed.none()) return;
  painted |= removed;  // floors under removed stones, the new one included
  stones_[me] ^= removed;
  removed.for_each([&](int s) { hash_ ^= Z.stone[me][s]; });
  (painted & ~floors_[me]).for_each([&](int s) { hash_ ^= Z.floor[me][s]; });
  (painted & floors_[them]).for_each([&](int s) { hash_ ^= Z.floor[them][s]; });
  floors_[me] |= painted;
  floors_[them] &= ~painted;
}

std::string Position::illegal_reason(int sq) const {
  if (sq < 0 || sq >= NUM_SQUARES) return "square " + std::to_string(sq) + " is off the board (want 0..80)";
  if (is_terminal()) return std::string("the game is over (") + result_name(result()) + ")";
  const std::string where = square_to_text(sq);
  if ((stones_[BLACK] | stones_[WHITE]).test(sq)) return where + " already holds a stone";
  if (floors_[opponent(to_move_)].test(sq)) return where + " is painted in the opponent's colour";
  return "";
}

Result Position::result() const {
  if (moves_exhausted()) {
    const int64_t margin = static_cast<int64_t>(score()) + komi_;
    return margin > 0 ? Result::BLACK_WIN : margin < 0 ? Result::WHITE_WIN : Result::DRAW;
  }
  if (legal_moves().none()) return to_move_ == BLACK ? Result::WHITE_WIN : Result::BLACK_WIN;
  return Result::ONGOING;
}

double Position::final_margin() const {
  const double margin = static_cast<double>(score()) + komi_;
  if (end_reason() != EndReason::NO_LEGAL_MOVE) return margin;
  const double sign = result() == Result::BLACK_WIN ? 1.0 : -1.0;
  return sign * std::max(std::abs(margin), 1.0);
}

EndReason Position::end_reason() const {
  if (moves_exhausted()) return EndReason::MOVES_EXHAUSTED;
  if (legal_moves().none()) return EndReason::NO_LEGAL_MOVE;
  return EndReason::NONE;
}

uint64_t Position::compute_hash() const {
  uint64_t h = zobrist::komi_key(komi_);
  for (int c = 0; c < 2; ++c) {
    stones_[c].for_each([&](int s) { h ^= Z.stone[c][s]; });
    floors_[c].for_each([&](int s) { h ^= Z.floor[c][s]; });
    h ^= Z.moves_left[c][moves_left_[c]];
  }
  if (to_move_ == WHITE) h ^= Z.white_to_move;
  return h;
}

Position Position::transformed(int s) const {
  if (s < 0 || s >= NUM_SYMMETRIES) throw std::invalid_argument("symmetry must be in 0..7, got " + std::to_string(s));
  Position p = *this;
  for (int c = 0; c < 2; ++c) {
    p.stones_[c] = symmetry::apply(s, stones_[c]);
    p.floors_[c] = symmetry::apply(s, floors_[c]);
  }
  p.hash_ = p.compute_hash();
  return p;
}

bool Position::operator==(const Position& o) const {
  return stones_[0] == o.stones_[0] && stones_[1] == o.stones_[1] && floors_[0] == o.floors_[0] &&
         floors_[1] == o.floors_[1] && to_move_ == o.to_move_ && moves_left_[0] == o.moves_left_[0] &&
         moves_left_[1] == o.moves_left_[1] && komi_ == o.komi_;
}

std::string Position::diagram() const {
  std::string columns = "  ";
  for (int c = 0; c < BOARD_SIZE; ++c) columns += std::string(" ") + static_cast<char>('a' + c);
  std::string out = "   stones (X black, O white)    floors (x black, o white)\n";
  out += " " + columns + "    " + columns + "\n";
  for (int r = 0; r < BOARD_SIZE; ++r) {
    std::string stones_row = " " + std::to_string(r + 1) + " ";
    std::string floors_row = "   " + std::to_string(r + 1) + " ";
    for (int c = 0; c < BOARD_SIZE; ++c) {
      const int sq = r * BOARD_SIZE + c;
      stones_row += stones_[BLACK].test(sq) ? " X" : stones_[WHITE].test(sq) ? " O" : " .";
      floors_row += floors_[BLACK].test(sq) ? " x" : floors_[WHITE].test(sq) ? " o" : " .";
    }
    out += stones_row + floors_row + "\n";
  }
  std::string status = to_move_ == BLACK ? "Black to move" : "White to move";
  if (end_reason() == EndReason::MOVES_EXHAUSTED)
    status = std::string("game over: ") + result_name(result()) + " (all moves played)";
  else if (end_reason() == EndReason::NO_LEGAL_MOVE)
    status = std::string("game over: ") + result_name(result()) + " (" + (to_move_ == BLACK ? "Black" : "White") +
             " has no legal move)";
  out += status + " | moves left B " + std::to_string(moves_left_[BLACK]) + " W " + std::to_string(moves_left_[WHITE]) +
         " | floors B " + std::to_string(floors_[BLACK].count()) + " W " + std::to_string(floors_[WHITE].count()) +
         " | komi " + std::to_string(komi_);
  return out;
}

const char* result_name(Result r) {
  switch (r) {
    case Result::BLACK_WIN: return "Black wins";
    case Result::WHITE_WIN: return "White wins";
    case Result::DRAW: return "draw";
    default: return "ongoing";
  }
}

}  // namespace popucom
