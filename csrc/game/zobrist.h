// Zobrist keys for the 64-bit position hash. The keys are generated at compile
// time from a fixed seed, so a hash means the same thing in every build (the
// search's transposition table and any stored hash rely on that).
#ifndef POPUCOM_GAME_ZOBRIST_H_
#define POPUCOM_GAME_ZOBRIST_H_

#include <array>
#include <cstdint>

#include "../core/random.h"
#include "constants.h"

namespace popucom {
namespace zobrist {

struct Keys {
  uint64_t stone[2][NUM_SQUARES];
  uint64_t floor[2][NUM_SQUARES];
  uint64_t moves_left[2][MOVES_PER_PLAYER + 1];
  uint64_t white_to_move;
  // What one move by colour c with m moves left changes outside the board:
  // moves_left[c][m] ^ moves_left[c][m - 1] ^ white_to_move.
  uint64_t turn_step[2][MOVES_PER_PLAYER + 1];
};

constexpr Keys make_keys() {
  Keys k{};
  uint64_t state = 0x706F7075636F6DULL;  // "popucom"
  for (int c = 0; c < 2; ++c)
    for (int sq = 0; sq < NUM_SQUARES; ++sq) k.stone[c][sq] = splitmix64(state);
  for (int c = 0; c < 2; ++c)
    for (int sq = 0; sq < NUM_SQUARES; ++sq) k.floor[c][sq] = splitmix64(state);
  for (int c = 0; c < 2; ++c)
    for (int m = 0; m <= MOVES_PER_PLAYER; ++m) k.moves_left[c][m] = splitmix64(state);
  k.white_to_move = splitmix64(state);
  for (int c = 0; c < 2; ++c)
    for (int m = 1; m <= MOVES_PER_PLAYER; ++m)
      k.turn_step[c][m] = k.moves_left[c][m] ^ k.moves_left[c][m - 1] ^ k.white_to_move;
  return k;
}

inline constexpr Keys KEYS = make_keys();

// Komi is an unbounded integer, so it is hashed by mixing rather than by table.
// Komi 0 hashes to 0 so the official game needs no komi term.
constexpr uint64_t komi_key(int32_t komi) {
  if (komi == 0) return 0;
  uint64_t state = 0x6B6F6D69ULL ^ (static_cast<uint64_t>(static_cast<uint32_t>(komi)) << 20);
  return splitmix64(state);
}

}  // namespace zobrist
}  // namespace popucom

#endif  // POPUCOM_GAME_ZOBRIST_H_
