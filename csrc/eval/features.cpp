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
  std::memset(out, 0, sizeof(float) * NUM_BIT_PLANES * NUM_SQUARES);
  const auto plane = [&](FeaturePlane f) { return out + plane_index(f) * NUM_SQUARES; };
  using F = FeaturePlane;
  write_bits(p.stones(me), map, plane(F::OWN_STONES));
  write_bits(p.stones(them), map, plane(F::OPPONENT_STONES));
  write_bits(p.floors(me), map, plane(F::OWN_FLOORS));
  write_bits(p.floors(them), map, plane(F::OPPONENT_FLOORS));
  write_bits(~(p.floors(me) | p.floors(them)), map, plane(F::UNPAINTED_FLOORS));
  if (!p.is_terminal()) write_bits(p.legal_moves(), map, plane(F::LEGAL_MOVES));
  const float own_komi = static_cast<float>(me == BLACK ? p.komi() : -p.komi());
  fill(plane(F::OWN_MOVES_LEFT), p.moves_left(me) / static_cast<float>(MOVES_PER_PLAYER));
  fill(plane(F::OPPONENT_MOVES_LEFT), p.moves_left(them) / static_cast<float>(MOVES_PER_PLAYER));
  fill(plane(F::OWN_FLOOR_COUNT), p.floors(me).count() / static_cast<float>(NUM_SQUARES));
  fill(plane(F::OPPONENT_FLOOR_COUNT), p.floors(them).count() / static_cast<float>(NUM_SQUARES));
  fill(plane(F::KOMI), own_komi / KOMI_SCALE);
  fill(plane(F::BLACK_TO_MOVE), me == BLACK ? 1.0f : 0.0f);
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
