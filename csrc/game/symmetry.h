// The 8 symmetries of the square board (the dihedral group D4). The rules are
// invariant under all of them: the four match lines map onto each other.
// Index 0 is the identity; 1..3 rotate by 90/180/270 degrees clockwise;
// 4 mirrors left-right, 5 top-bottom, 6 transposes, 7 anti-transposes.
#ifndef POPUCOM_GAME_SYMMETRY_H_
#define POPUCOM_GAME_SYMMETRY_H_

#include <cstdint>

#include "bitboard.h"
#include "constants.h"

namespace popucom {
namespace symmetry {

struct Tables {
  int8_t map[NUM_SYMMETRIES][NUM_SQUARES];  // square -> transformed square
  int8_t inverse[NUM_SYMMETRIES];           // the symmetry undoing each one
};

constexpr int transform_square(int s, int sq) {
  const int n = BOARD_SIZE - 1, r = sq / BOARD_SIZE, c = sq % BOARD_SIZE;
  int rr = r, cc = c;
  switch (s) {
    case 0:
      rr = r;
      cc = c;
      break;
    case 1:
      rr = c;
      cc = n - r;
      break;
    case 2:
      rr = n - r;
      cc = n - c;
      break;
    case 3:
      rr = n - c;
      cc = r;
      break;
    case 4:
      rr = r;
      cc = n - c;
      break;
    case 5:
      rr = n - r;
      cc = c;
      break;
    case 6:
      rr = c;
      cc = r;
      break;
    default:
      rr = n - c;
      cc = n - r;
      break;
  }
  return rr * BOARD_SIZE + cc;
}

constexpr Tables make_tables() {
  Tables t{};
  for (int s = 0; s < NUM_SYMMETRIES; ++s)
    for (int sq = 0; sq < NUM_SQUARES; ++sq) t.map[s][sq] = static_cast<int8_t>(transform_square(s, sq));
  for (int s = 0; s < NUM_SYMMETRIES; ++s)
    for (int u = 0; u < NUM_SYMMETRIES; ++u) {
      bool is_inverse = true;
      for (int sq = 0; sq < NUM_SQUARES; ++sq)
        if (t.map[u][t.map[s][sq]] != sq) {
          is_inverse = false;
          break;
        }
      if (is_inverse) t.inverse[s] = static_cast<int8_t>(u);
    }
  return t;
}

inline constexpr Tables TABLES = make_tables();

inline int apply(int s, int sq) { return TABLES.map[s][sq]; }
inline int inverse(int s) { return TABLES.inverse[s]; }

inline Bitboard apply(int s, Bitboard b) {
  if (s == 0) return b;
  Bitboard out;
  b.for_each([&](int sq) { out.set(TABLES.map[s][sq]); });
  return out;
}

}  // namespace symmetry
}  // namespace popucom

#endif  // POPUCOM_GAME_SYMMETRY_H_
