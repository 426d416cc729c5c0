// Precomputed board geometry: rays in the 8 directions and neighbour masks.
// Built once at compile time; read-only and therefore thread-safe.
#ifndef POPUCOM_GAME_GEOMETRY_H_
#define POPUCOM_GAME_GEOMETRY_H_

#include <cstdint>

#include "bitboard.h"
#include "constants.h"

namespace popucom {
namespace geometry {

// Direction d and d + 4 are opposite senses of the same line ("axis" d % 4):
// 0 horizontal, 1 vertical, 2 main diagonal, 3 anti-diagonal.
constexpr int NUM_DIRECTIONS = 8;
constexpr int NUM_AXES = 4;
constexpr int DIR_ROW[NUM_DIRECTIONS] = {0, 1, 1, 1, 0, -1, -1, -1};
constexpr int DIR_COL[NUM_DIRECTIONS] = {1, 0, 1, -1, -1, 0, -1, 1};

struct Tables {
  // ray[sq][d] lists the squares walking from sq (exclusive) in direction d.
  int8_t ray[NUM_SQUARES][NUM_DIRECTIONS][BOARD_SIZE - 1];
  int8_t ray_length[NUM_SQUARES][NUM_DIRECTIONS];
  Bitboard ray_mask[NUM_SQUARES][NUM_DIRECTIONS];  // the same squares as a set
  Bitboard neighbours[NUM_SQUARES];                // the up-to-8 adjacent squares
  // window[sq][axis]: the squares within 2 steps of sq along that axis, sq
  // included. Every 3-in-a-row inside such a window contains sq.
  Bitboard window[NUM_SQUARES][NUM_AXES];
};

// Directions 0..3 walk towards higher square indices, 4..7 towards lower.
constexpr bool walks_up(int direction) { return direction < NUM_AXES; }

// Index step of one move along each axis (E, S, SE, SW).
constexpr int AXIS_STEP[NUM_AXES] = {1, BOARD_SIZE, BOARD_SIZE + 1, BOARD_SIZE - 1};

constexpr Tables make_tables() {
  Tables t{};
  for (int sq = 0; sq < NUM_SQUARES; ++sq) {
    const int r0 = sq / BOARD_SIZE, c0 = sq % BOARD_SIZE;
    for (int d = 0; d < NUM_DIRECTIONS; ++d) {
      int n = 0;
      for (int r = r0 + DIR_ROW[d], c = c0 + DIR_COL[d]; r >= 0 && r < BOARD_SIZE && c >= 0 && c < BOARD_SIZE;
           r += DIR_ROW[d], c += DIR_COL[d]) {
        t.ray[sq][d][n++] = static_cast<int8_t>(r * BOARD_SIZE + c);
        t.ray_mask[sq][d].set(r * BOARD_SIZE + c);
      }
      t.ray_length[sq][d] = static_cast<int8_t>(n);
      if (n > 0) t.neighbours[sq].set(t.ray[sq][d][0]);
    }
    for (int axis = 0; axis < NUM_AXES; ++axis) {
      t.window[sq][axis].set(sq);
      for (int d : {axis, axis + NUM_AXES})
        for (int i = 0; i < t.ray_length[sq][d] && i < MATCH_LENGTH - 1; ++i) t.window[sq][axis].set(t.ray[sq][d][i]);
    }
  }
  return t;
}

inline constexpr Tables TABLES = make_tables();

}  // namespace geometry
}  // namespace popucom

#endif  // POPUCOM_GAME_GEOMETRY_H_
