// The feature encoder: plane contents by name, perspective and symmetry.
#include "features.h"

#include <string>
#include <vector>

#include "../game/notation.h"
#include "../game/symmetry.h"
#include "../tests/helpers.h"
#include "../tests/testing.h"

using namespace popucom;
using features::FeaturePlane;
using features::FLOATS_PER_POSITION;
using features::NUM_PLANES;

namespace {
float at(const std::vector<float>& f, FeaturePlane plane, const std::string& sq) {
  return f[features::plane_index(plane) * NUM_SQUARES + parse_square(sq)];
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
  using F = FeaturePlane;
  CHECK_EQ(at(f, F::OWN_STONES, "b1"), 1.0f);  // own = White
  CHECK_EQ(at(f, F::OPPONENT_STONES, "a1"), 1.0f);
  CHECK_EQ(at(f, F::OWN_STONES, "a1"), 0.0f);
  CHECK_EQ(at(f, F::OWN_FLOORS, "c1"), 1.0f);
  CHECK_EQ(at(f, F::OPPONENT_FLOORS, "a1"), 1.0f);
  CHECK_EQ(at(f, F::UNPAINTED_FLOORS, "e5"), 1.0f);
  CHECK_EQ(at(f, F::UNPAINTED_FLOORS, "c1"), 0.0f);
  CHECK_EQ(at(f, F::LEGAL_MOVES, "a1"), 0.0f);  // occupied
  CHECK_EQ(at(f, F::LEGAL_MOVES, "c1"), 1.0f);  // own floor
  CHECK_EQ(at(f, F::OWN_MOVES_LEFT, "e5"), 24.0f / 25.0f);
  CHECK_EQ(at(f, F::OPPONENT_MOVES_LEFT, "e5"), 23.0f / 25.0f);
  CHECK_EQ(at(f, F::OWN_FLOOR_COUNT, "i9"), 2.0f / NUM_SQUARES);
  CHECK_EQ(at(f, F::OPPONENT_FLOOR_COUNT, "i9"), 1.0f / NUM_SQUARES);
  CHECK_EQ(at(f, F::KOMI, "i9"), -6.0f / features::KOMI_SCALE);
  CHECK_EQ(at(f, F::BLACK_TO_MOVE, "i9"), 0.0f);
}

// The order of the planes is part of FEATURE_VERSION 1 (the shipped weights
// depend on it): the names, their indices and the zeroed BITS range are pinned.
TEST(features, plane_names_and_order_are_pinned) {
  const char* expected[] = {"own_stones",       "opponent_stones",      "own_floors",     "opponent_floors",
                            "unpainted_floors", "legal_moves",          "own_moves_left", "opponent_moves_left",
                            "own_floor_count",  "opponent_floor_count", "komi",           "black_to_move"};
  CHECK_EQ(NUM_PLANES, 12);
  CHECK_EQ(features::FEATURE_VERSION, 1);
  for (int i = 0; i < NUM_PLANES; ++i) {
    CHECK_EQ(std::string(features::PLANES[i].name), std::string(expected[i]));
    CHECK_EQ(features::plane_index(features::PLANES[i].plane), i);
  }
  CHECK_EQ(features::plane_index(FeaturePlane::LEGAL_MOVES), 5);
  CHECK_EQ(features::NUM_BIT_PLANES, 6);
}

// Each BITS plane of a black-to-move position, found by name, holds exactly
// its squares; each FILL plane is constant.
TEST(features, each_named_plane_holds_its_squares) {
  const Bitboard bs = testing::squares("a1"), ws = testing::squares("b1");
  const Bitboard bf = testing::squares("i9 a1"), wf = testing::squares("h9 b1");
  const Position p = Position::from_parts(bs, ws, bf, wf, BLACK, 24, 24, -5);
  std::vector<float> f(FLOATS_PER_POSITION);
  features::encode(p, f.data());
  const auto ones = [&](FeaturePlane plane) {
    Bitboard b;
    for (int sq = 0; sq < NUM_SQUARES; ++sq)
      if (f[features::plane_index(plane) * NUM_SQUARES + sq] == 1.0f) b.set(sq);
    return b;
  };
  using F = FeaturePlane;
  CHECK(ones(F::OWN_STONES) == bs);
  CHECK(ones(F::OPPONENT_STONES) == ws);
  CHECK(ones(F::OWN_FLOORS) == bf);
  CHECK(ones(F::OPPONENT_FLOORS) == wf);
  CHECK(ones(F::UNPAINTED_FLOORS) == ~(bf | wf));
  CHECK(ones(F::LEGAL_MOVES) == p.legal_moves());
  for (int i = features::NUM_BIT_PLANES; i < NUM_PLANES; ++i)
    for (int sq = 1; sq < NUM_SQUARES; ++sq) CHECK_EQ(f[i * NUM_SQUARES + sq], f[i * NUM_SQUARES]);
  CHECK_EQ(at(f, F::KOMI, "e5"), -5.0f / features::KOMI_SCALE);
  CHECK_EQ(at(f, F::BLACK_TO_MOVE, "e5"), 1.0f);
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
  CHECK_EQ(out[FLOATS_PER_POSITION + features::plane_index(FeaturePlane::KOMI) * NUM_SQUARES],
           3.0f / features::KOMI_SCALE);
  batch[1][0] = batch[1][2] = 1;  // a1 black and white at once
  CHECK_THROWS(features::encode_packed(batch.data(), 2, out.data(), nullptr), std::invalid_argument);
  const uint8_t bad_sym[2] = {0, 9};
  batch[1] = Position().pack();
  CHECK_THROWS(features::encode_packed(batch.data(), 2, out.data(), bad_sym), std::invalid_argument);
}
