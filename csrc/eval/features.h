// The network's input features: the single encoder. The C++ search fills its
// leaf batches with it, and Python reaches it through encode_batch (training
// windows, test positions) and encode_position (one position). Positions are
// seen from the side to move ("own" = the player about to move). Layout:
// float32 [planes][9][9] per position, C-contiguous. Changing the plane list
// means bumping FEATURE_VERSION; every exported model records the version it
// was trained on. All functions are pure and thread-safe.
#ifndef POPUCOM_EVAL_FEATURES_H_
#define POPUCOM_EVAL_FEATURES_H_

#include <cstdint>

#include "../game/position.h"

namespace popucom {
namespace features {

constexpr int FEATURE_VERSION = 1;
constexpr float KOMI_SCALE = 16.0f;  // komi planes hold komi / KOMI_SCALE

// The planes, declared once and in order: X(id, name, kind, meaning). The
// FeaturePlane enum, the PLANES table (bound to Python as FEATURE_PLANES and
// FEATURE_PLANE_NAMES) and the zeroed range of encode() all come from here.
// kind BITS: 1 on some squares, 0 elsewhere; FILL: one value on every square.
#define POPUCOM_FEATURE_PLANES(X)                                                                       \
  X(OWN_STONES, "own_stones", BITS, "1 where the side to move has a stone")                             \
  X(OPPONENT_STONES, "opponent_stones", BITS, "1 where the opponent has a stone")                       \
  X(OWN_FLOORS, "own_floors", BITS, "1 where the floor is painted in the side to move's colour")        \
  X(OPPONENT_FLOORS, "opponent_floors", BITS, "1 where the floor is painted in the opponent's colour")  \
  X(UNPAINTED_FLOORS, "unpainted_floors", BITS, "1 where the floor is unpainted")                       \
  X(LEGAL_MOVES, "legal_moves", BITS, "1 where the side to move may play")                              \
  X(OWN_MOVES_LEFT, "own_moves_left", FILL, "side to move's moves left / 25 (whole plane)")             \
  X(OPPONENT_MOVES_LEFT, "opponent_moves_left", FILL, "opponent's moves left / 25 (whole plane)")       \
  X(OWN_FLOOR_COUNT, "own_floor_count", FILL, "side to move's painted floors / 81 (whole plane)")       \
  X(OPPONENT_FLOOR_COUNT, "opponent_floor_count", FILL, "opponent's painted floors / 81 (whole plane)") \
  X(KOMI, "komi", FILL, "komi in the side to move's favour / KOMI_SCALE (whole plane)")                 \
  X(BLACK_TO_MOVE, "black_to_move", FILL, "1 if Black is to move, else 0 (whole plane)")

enum class FeaturePlane : int {
#define POPUCOM_PLANE_ENUM(id, name, kind, meaning) id,
  POPUCOM_FEATURE_PLANES(POPUCOM_PLANE_ENUM)
#undef POPUCOM_PLANE_ENUM
};

enum class PlaneKind : uint8_t { BITS, FILL };

struct PlaneInfo {
  FeaturePlane plane;
  const char* name;
  PlaneKind kind;
  const char* meaning;
};

constexpr PlaneInfo PLANES[] = {
#define POPUCOM_PLANE_INFO(id, name, kind, meaning) {FeaturePlane::id, name, PlaneKind::kind, meaning},
    POPUCOM_FEATURE_PLANES(POPUCOM_PLANE_INFO)
#undef POPUCOM_PLANE_INFO
};
constexpr int NUM_PLANES = static_cast<int>(sizeof(PLANES) / sizeof(PLANES[0]));
constexpr int FLOATS_PER_POSITION = NUM_PLANES * NUM_SQUARES;

constexpr int plane_index(FeaturePlane plane) { return static_cast<int>(plane); }

// The BITS planes come first, so encode() clears them with one memset and
// then sets bits; the FILL planes after them are written whole.
constexpr int count_leading_bit_planes() {
  int n = 0;
  while (n < NUM_PLANES && PLANES[n].kind == PlaneKind::BITS) ++n;
  return n;
}
constexpr int NUM_BIT_PLANES = count_leading_bit_planes();

constexpr bool planes_well_formed() {
  for (int i = 0; i < NUM_PLANES; ++i) {
    if (plane_index(PLANES[i].plane) != i) return false;
    if ((i < NUM_BIT_PLANES) != (PLANES[i].kind == PlaneKind::BITS)) return false;
  }
  return true;
}
static_assert(planes_well_formed(), "PLANES must list the BITS planes first, each at its enum index");

// Writes FLOATS_PER_POSITION floats for p, seen through board symmetry `sym`
// (0 = as is). Every float of `out` is written.
void encode(const Position& p, float* out, int sym = 0);

// Unpacks and encodes n packed positions; symmetries may be null (identity for
// all) or hold n values in 0..7. Throws std::invalid_argument naming the index
// of the first corrupt packed position or bad symmetry.
void encode_packed(const PackedPosition* packed, int64_t n, float* out, const uint8_t* symmetries);

}  // namespace features
}  // namespace popucom

#endif  // POPUCOM_EVAL_FEATURES_H_
