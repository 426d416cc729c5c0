// A Match-n-POP position and the rules (stated in docs/rules.md). A Position
// is a small value type (~90 bytes): copy it to branch, which is how search and
// undo work. Not synchronised: share copies, not references, across threads.
#ifndef POPUCOM_GAME_POSITION_H_
#define POPUCOM_GAME_POSITION_H_

#include <array>
#include <cstdint>
#include <string>
#include <utility>

#include "bitboard.h"
#include "constants.h"
#include "geometry.h"
#include "zobrist.h"

namespace popucom {

// Packed form of a position: the compact record used by data files and by the
// batch feature encoder. Words 0..7 are the four bitboards (lo, hi) in the order
// black stones, white stones, black floors, white floors; word 8 holds
// to_move (bits 0-7), Black's moves left (8-15), White's (16-23) and komi as a
// signed 32-bit integer (bits 32-63).
constexpr int PACKED_WORDS = 9;
using PackedPosition = std::array<uint64_t, PACKED_WORDS>;

class Position {
 public:
  // The empty board, Black to move, 25 moves each, the given komi.
  explicit Position(int32_t komi = 0);

  // A position from its parts; throws std::invalid_argument naming the first
  // inconsistency (overlapping stones, a stone on an opponent floor, moves left
  // that do not fit the side to move, ...).
  static Position from_parts(Bitboard black_stones, Bitboard white_stones, Bitboard black_floors, Bitboard white_floors,
                             Color to_move, int black_moves_left, int white_moves_left, int32_t komi);
  // (Black's, White's) moves left after the fewest moves that fit these stones
  // with `to_move` to move: what a set-up position assumes when not told.
  static std::pair<int, int> fewest_moves_left(Bitboard black_stones, Bitboard white_stones, Color to_move);
  static Position unpack(const PackedPosition& packed);  // validates like from_parts
  PackedPosition pack() const;

  // --- rules -------------------------------------------------------------
  Bitboard legal_moves() const { return ~(stones_[BLACK] | stones_[WHITE] | floors_[opponent(to_move_)]); }
  bool is_legal(int sq) const { return sq >= 0 && sq < NUM_SQUARES && !is_terminal() && legal_moves().test(sq); }
  // Why `sq` cannot be played here (off the board, occupied, opponent floor,
  // game over), or an empty string if it can.
  std::string illegal_reason(int sq) const;
  // Plays a move known to be legal (no checks; the hot path of search and
  // playouts). Use Game::play or check is_legal() for untrusted input.
  void play_unchecked(int sq) {
    const Color me = to_move_;
    stones_[me].set(sq);
    hash_ ^= zobrist::KEYS.stone[me][sq];
    if (const unsigned axes = matched_axes(sq, stones_[me])) resolve_matches(sq, axes);
    hash_ ^= zobrist::KEYS.turn_step[me][moves_left_[me]];
    --moves_left_[me];
    to_move_ = opponent(me);
  }

  // Players alternate, so the side to move is out of moves only when both are
  // (reading one byte also keeps the hot loop free of a store-forwarding stall).
  bool moves_exhausted() const { return moves_left_[to_move_] == 0; }
  bool is_terminal() const { return moves_exhausted() || legal_moves().none(); }
  Result result() const;
  EndReason end_reason() const;

  // black floors - white floors (komi not included).
  int score() const { return floors_[BLACK].count() - floors_[WHITE].count(); }
  // The final margin that training targets and the search use, from Black's side, for a
  // finished game: floors + komi, except that a no-legal-move result ignores the floor
  // count, so the margin keeps the result's sign (at least one floor either way).
  double final_margin() const;

  // --- accessors -----------------------------------------------------------
  Bitboard stones(Color c) const { return stones_[c]; }
  Bitboard floors(Color c) const { return floors_[c]; }
  Color to_move() const { return to_move_; }
  int moves_left(Color c) const { return moves_left_[c]; }
  int32_t komi() const { return komi_; }
  int ply() const { return 2 * MOVES_PER_PLAYER - moves_left_[BLACK] - moves_left_[WHITE]; }
  uint64_t hash() const { return hash_; }
  uint64_t compute_hash() const;  // from scratch; equals hash() (tested)

  // The position mapped by one of the 8 board symmetries (see symmetry.h).
  Position transformed(int symmetry) const;

  bool operator==(const Position& o) const;
  bool operator!=(const Position& o) const { return !(*this == o); }

  // Two side-by-side 9x9 grids (stones and floors) plus a status line.
  std::string diagram() const;

 private:
  // Bit a is set if `own` (the mover's stones, sq included) holds three in a
  // row through sq along axis a. Branch-free: every 3-in-a-row inside the
  // 5-square window around sq contains sq.
  static unsigned matched_axes(int sq, Bitboard own) {
    const Bitboard* window = geometry::TABLES.window[sq];
    return three_in_window<geometry::AXIS_STEP[0]>(own & window[0]) |
           three_in_window<geometry::AXIS_STEP[1]>(own & window[1]) << 1 |
           three_in_window<geometry::AXIS_STEP[2]>(own & window[2]) << 2 |
           three_in_window<geometry::AXIS_STEP[3]>(own & window[3]) << 3;
  }
  template <int STEP>
  static unsigned three_in_window(Bitboard w) {
    const Bitboard one = w.shifted_down(STEP), two = w.shifted_down(2 * STEP);
    return ((w.lo & one.lo & two.lo) | (w.hi & one.hi & two.hi)) != 0;
  }
  // Eliminates and paints along the matched axes after the side to move
  // placed a stone on sq.
  void resolve_matches(int sq, unsigned matched_axes);

  Bitboard stones_[2];
  Bitboard floors_[2];
  uint64_t hash_ = 0;
  int32_t komi_ = 0;
  uint8_t moves_left_[2] = {MOVES_PER_PLAYER, MOVES_PER_PLAYER};
  Color to_move_ = BLACK;
};

const char* result_name(Result r);

}  // namespace popucom

#endif  // POPUCOM_GAME_POSITION_H_
