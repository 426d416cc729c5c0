// The feature encoder: plane contents, perspective and symmetry.
#include <vector>

#include "../eval/features.h"
#include "../game/notation.h"
#include "../game/symmetry.h"
#include "testing.h"

using namespace popucom;
using features::FLOATS_PER_POSITION;
using features::NUM_PLANES;

namespace {
float at(const std::vector<float>& f, int plane, const std::string& sq) {
  return f[plane * NUM_SQUARES + parse_square(sq)];
}
}  // namespace

TEST(features, planes_from_side_to_move) {
  Bitboard bs, ws, bf, wf;
  bs.set(parse_square("a1"));
  ws.set(parse_square("b1"));
  bf.set(parse_square("a1"));
  wf.set(parse_square("c1"));
  wf.set(parse_square("d1"));
  const Position p = Position::from_parts(bs, ws, bf, wf, WHITE, 23, 24, 6);
  std::vector<float> f(FLOATS_PER_POSITION, -7.0f);
  features::encode(p, f.data());
  for (float v : f) CHECK(v != -7.0f);
  CHECK_EQ(at(f, 0, "b1"), 1.0f);  // own = White
  CHECK_EQ(at(f, 1, "a1"), 1.0f);
  CHECK_EQ(at(f, 0, "a1"), 0.0f);
  CHECK_EQ(at(f, 2, "c1"), 1.0f);
  CHECK_EQ(at(f, 3, "a1"), 1.0f);
  CHECK_EQ(at(f, 4, "e5"), 1.0f);
  CHECK_EQ(at(f, 4, "c1"), 0.0f);
  CHECK_EQ(at(f, 5, "a1"), 0.0f);  // occupied
  CHECK_EQ(at(f, 5, "c1"), 1.0f);  // own floor
  CHECK_EQ(at(f, 6, "e5"), 24.0f / 25.0f);
  CHECK_EQ(at(f, 7, "e5"), 23.0f / 25.0f);
  CHECK_EQ(at(f, 8, "i9"), 2.0f / 81.0f);
  CHECK_EQ(at(f, 9, "i9"), 1.0f / 81.0f);
  CHECK_EQ(at(f, 10, "i9"), -6.0f / features::KOMI_SCALE);
  CHECK_EQ(at(f, 11, "i9"), 0.0f);
}

TEST(features, symmetry_moves_cells) {
  Bitboard bs;
  bs.set(parse_square("b1"));
  const Position p = Position::from_parts(bs, {}, {}, {}, WHITE, 24, 25, 0);
  for (int s = 0; s < NUM_SYMMETRIES; ++s) {
    std::vector<float> direct(FLOATS_PER_POSITION), via(FLOATS_PER_POSITION);
    features::encode(p, direct.data(), s);
    features::encode(p.transformed(s), via.data(), 0);
    CHECK(direct == via);
  }
}

TEST(features, packed_batch_rejects_corrupt_positions) {
  std::vector<PackedPosition> batch = {Position().pack(), Position(3).pack()};
  std::vector<float> out(2 * FLOATS_PER_POSITION);
  features::encode_packed(batch.data(), 2, out.data(), nullptr);
  CHECK_EQ(out[FLOATS_PER_POSITION + 10 * NUM_SQUARES], 3.0f / features::KOMI_SCALE);
  batch[1][0] = batch[1][2] = 1;  // a1 black and white at once
  CHECK_THROWS(features::encode_packed(batch.data(), 2, out.data(), nullptr), std::invalid_argument);
  const uint8_t bad_sym[2] = {0, 9};
  batch[1] = Position().pack();
  CHECK_THROWS(features::encode_packed(batch.data(), 2, out.data(), bad_sym), std::invalid_argument);
}
