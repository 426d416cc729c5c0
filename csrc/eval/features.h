// The network's input features: the single encoder used by training,
// self-play, the arena and the GUI. Positions are seen from the side to move
// ("own" = the player about to move). Layout: float32 [planes][9][9] per
// position, C-contiguous. Changing the plane list means bumping
// FEATURE_VERSION; every exported model records the version it was trained on.
// All functions are pure and thread-safe.
#ifndef POPUCOM_EVAL_FEATURES_H_
#define POPUCOM_EVAL_FEATURES_H_

#include <cstdint>

#include "../game/position.h"

namespace popucom {
namespace features {

constexpr int FEATURE_VERSION = 1;
constexpr float KOMI_SCALE = 16.0f;  // komi planes hold komi / KOMI_SCALE

struct PlaneInfo {
  const char* name;
  const char* meaning;
};

constexpr PlaneInfo PLANES[] = {
    {"own_stones", "1 where the side to move has a stone"},
    {"opponent_stones", "1 where the opponent has a stone"},
    {"own_floors", "1 where the floor is painted in the side to move's colour"},
    {"opponent_floors", "1 where the floor is painted in the opponent's colour"},
    {"unpainted_floors", "1 where the floor is unpainted"},
    {"legal_moves", "1 where the side to move may play"},
    {"own_moves_left", "side to move's moves left / 25 (whole plane)"},
    {"opponent_moves_left", "opponent's moves left / 25 (whole plane)"},
    {"own_floor_count", "side to move's painted floors / 81 (whole plane)"},
    {"opponent_floor_count", "opponent's painted floors / 81 (whole plane)"},
    {"komi", "komi in the side to move's favour / KOMI_SCALE (whole plane)"},
    {"black_to_move", "1 if Black is to move, else 0 (whole plane)"},
};
constexpr int NUM_PLANES = static_cast<int>(sizeof(PLANES) / sizeof(PLANES[0]));
constexpr int FLOATS_PER_POSITION = NUM_PLANES * NUM_SQUARES;

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
