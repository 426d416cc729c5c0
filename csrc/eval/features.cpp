#include "features.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "../game/symmetry.h"

namespace popucom {
namespace features {

namespace {

void write_bits(Bitboard b, const int8_t* map, float* plane) {
  b.for_each([&](int sq) { plane[map[sq]] = 1.0f; });
}

void fill(float* plane, float value) { std::fill(plane, plane + NUM_SQUARES, value); }

}  // namespace

void encode(const Position& p, float* out, int sym) {
  const int8_t* map = symmetry::TABLES.map[sym];
  const Color me = p.to_move(), them = opponent(me);
  std::memset(out, 0, sizeof(float) * 6 * NUM_SQUARES);
  const auto plane = [&](int i) { return out + i * NUM_SQUARES; };
  write_bits(p.stones(me), map, plane(0));
  write_bits(p.stones(them), map, plane(1));
  write_bits(p.floors(me), map, plane(2));
  write_bits(p.floors(them), map, plane(3));
  write_bits(~(p.floors(me) | p.floors(them)), map, plane(4));
  if (!p.is_terminal()) write_bits(p.legal_moves(), map, plane(5));
  const float own_komi = static_cast<float>(me == BLACK ? p.komi() : -p.komi());
  fill(plane(6), p.moves_left(me) / static_cast<float>(MOVES_PER_PLAYER));
  fill(plane(7), p.moves_left(them) / static_cast<float>(MOVES_PER_PLAYER));
  fill(plane(8), p.floors(me).count() / static_cast<float>(NUM_SQUARES));
  fill(plane(9), p.floors(them).count() / static_cast<float>(NUM_SQUARES));
  fill(plane(10), own_komi / KOMI_SCALE);
  fill(plane(11), me == BLACK ? 1.0f : 0.0f);
}

void encode_packed(const PackedPosition* packed, int64_t n, float* out, const uint8_t* symmetries) {
  for (int64_t i = 0; i < n; ++i) {
    const int sym = symmetries ? symmetries[i] : 0;
    if (sym >= NUM_SYMMETRIES)
      throw std::invalid_argument("symmetry " + std::to_string(sym) + " at index " + std::to_string(i) +
                                  " is not in 0..7");
    Position p;
    try {
      p = Position::unpack(packed[i]);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("packed position " + std::to_string(i) + " is corrupt: " + e.what());
    }
    encode(p, out + i * FLOATS_PER_POSITION, sym);
  }
}

}  // namespace features
}  // namespace popucom
