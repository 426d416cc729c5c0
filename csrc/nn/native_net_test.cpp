// The native forward's own checks (the comparison with the torch network is in
// tests/nn/test_native_forward.py): refusals, the outputs' invariants, and that a position's
// outputs do not depend on the batch, its pieces or the threads. Under the sanitizers this
// is what walks the forward's buffers.
#include "native_net.h"

#include <cmath>
#include <cstring>
#include <iostream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "../game/constants.h"
#include "../tests/testing.h"
#include "native_net_file.h"

using namespace popucom;

namespace {

constexpr int T = NUM_SQUARES;

std::vector<float> random_values(std::mt19937& rng, std::size_t n, float scale) {
  std::normal_distribution<float> normal(0.0f, scale);
  std::vector<float> v(n);
  for (float& x : v) x = normal(rng);
  return v;
}

nn::NativeNetWeights tiny_weights() {
  std::mt19937 rng(11);
  nn::NativeNetWeights w;
  w.shape = {12, 32, 2, 2, 64, 32, 3, 1};  // planes, d, layers, heads, mlp_hidden, head_hidden, legal_plane, features
  const std::size_t d = 32, sources = 5, hd = 16;
  w.embed_weight = random_values(rng, d * 12, 0.3f);
  w.embed_bias = random_values(rng, d, 0.1f);
  w.cell_embedding = random_values(rng, T * d, 0.1f);
  w.depth_queries = random_values(rng, sources * d, 0.3f);
  w.norm_eps.assign(sources, 1e-6f);
  for (int l = 0; l < 2; ++l)
    w.layer.push_back({random_values(rng, 3 * d * d, 0.2f), random_values(rng, d * d, 0.2f),
                       random_values(rng, 2 * 2 * T * 2 * hd, 0.5f), random_values(rng, 64 * d, 0.2f),
                       random_values(rng, d * 64, 0.2f)});
  w.token_weight = random_values(rng, 3 * d, 0.2f);
  w.token_bias = random_values(rng, 3, 0.1f);
  w.value_weight1 = random_values(rng, 32 * d, 0.2f);
  w.value_bias1 = random_values(rng, 32, 0.1f);
  w.value_weight2 = random_values(rng, 3 * 32, 0.2f);
  w.value_bias2 = random_values(rng, 3, 0.1f);
  w.score_weight1 = random_values(rng, 32 * d, 0.2f);
  w.score_bias1 = random_values(rng, 32, 0.1f);
  w.score_weight2 = random_values(rng, 32, 0.2f);
  w.score_bias2 = random_values(rng, 1, 0.1f);
  w.score_scale = 20.0f;
  return w;
}

// Features of 0/1 planes, the legal plane (3) with about half the cells on.
std::vector<float> random_features(std::size_t positions, unsigned seed) {
  std::mt19937 rng(seed);
  std::bernoulli_distribution on(0.4);
  std::vector<float> f(positions * 12 * T);
  for (float& x : f) x = on(rng) ? 1.0f : 0.0f;
  return f;
}

struct Outputs {
  std::vector<float> policy, wdl, score, ownership;
  explicit Outputs(std::size_t n) : policy(n * T), wdl(n * 3), score(n), ownership(n * T) {}
  nn::NativeNetOutputs view(std::size_t offset = 0) {
    return {policy.data() + offset * T, wdl.data() + offset * 3, score.data() + offset, ownership.data() + offset * T};
  }
};

}  // namespace

TEST(nn, native_net_refuses_inconsistent_weights) {
  nn::NativeNetWeights w = tiny_weights();
  w.shape.heads = 3;  // 32 is not a multiple of 3
  CHECK_THROWS(nn::NativeNet(w, 1, 8, false), std::invalid_argument);
  CHECK_THROWS(nn::NativeNet(tiny_weights(), 0, 8, false), std::invalid_argument);
  for (bool bf16 : {false, true}) {
    if (!nn::NativeNet::supported(16, bf16)) {
      CHECK_THROWS(nn::NativeNet(tiny_weights(), 1, 8, bf16), std::logic_error);
      continue;
    }
    w = tiny_weights();
    w.layer[1].up.pop_back();
    CHECK_THROWS(nn::NativeNet(w, 1, 8, bf16), std::invalid_argument);
    w = tiny_weights();
    w.layer.pop_back();
    CHECK_THROWS(nn::NativeNet(w, 1, 8, bf16), std::invalid_argument);
  }
}

namespace {

void check_batch_independence(bool bf16) {
  const std::size_t n = 7;
  const std::vector<float> features = random_features(n, 3);
  nn::NativeNet split(tiny_weights(), 2, 2, bf16), whole(tiny_weights(), 1, 8, bf16);
  Outputs batch(n), alone(n);
  split.forward(features.data(), n, batch.view());
  for (std::size_t i = 0; i < n; ++i) whole.forward(features.data() + i * 12 * T, 1, alone.view(i));
  CHECK(batch.policy == alone.policy);
  CHECK(batch.wdl == alone.wdl);
  CHECK(batch.score == alone.score);
  CHECK(batch.ownership == alone.ownership);
  for (std::size_t i = 0; i < n; ++i) {
    CHECK(std::fabs(batch.wdl[i * 3] + batch.wdl[i * 3 + 1] + batch.wdl[i * 3 + 2] - 1.0f) < 1e-5f);
    CHECK(std::isfinite(batch.score[i]));
    for (int t = 0; t < T; ++t) {
      const bool legal = features[(i * 12 + 3) * T + t] >= 0.5f;
      CHECK(legal == (batch.policy[i * T + t] != -1e4f));
      CHECK(std::fabs(batch.ownership[i * T + t]) <= 1.0f);
    }
  }
}

}  // namespace

TEST(nn, native_net_outputs_one_position_whatever_the_batch_around_it) {
  for (bool bf16 : {false, true}) {
    if (nn::NativeNet::supported(16, bf16))
      check_batch_independence(bf16);
    else
      std::cout << "  (" << (bf16 ? "bf16" : "float32") << " skipped: this CPU lacks its AVX-512 kernels)\n";
  }
}

namespace {

nn::NativeNetWeights read_file(const std::string& bytes) {
  return nn::read_native_net_file(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
}

}  // namespace

TEST(nn, a_network_file_holds_the_weights_bit_for_bit) {
  nn::NativeNetWeights original = tiny_weights();
  original.value_error_weight1 = std::vector<float>(32 * 32, 0.01f);
  original.value_error_bias1 = std::vector<float>(32, 0.02f);
  original.value_error_weight2 = std::vector<float>(32, 0.03f);
  original.value_error_bias2 = {0.04f};
  nn::NativeNetWeights read = read_file(nn::native_net_file(original));
  for (int i = 0; i < 8; ++i) CHECK((&read.shape.planes)[i] == (&original.shape.planes)[i]);
  CHECK(read.score_eps == original.score_eps && read.score_scale == original.score_scale);
  CHECK(read.masked_logit == original.masked_logit);
  std::vector<std::vector<float>> want, got;
  nn::for_each_array(original, [&](const char*, int, std::vector<float>& v) { want.push_back(v); });
  nn::for_each_array(read, [&](const char*, int, std::vector<float>& v) { got.push_back(v); });
  CHECK(want == got);

  const std::size_t n = 3;
  const std::vector<float> features = random_features(n, 5);
  nn::NativeNet from_memory(original, 1, 8, false), from_file(read, 1, 8, false);
  Outputs a(n), b(n);
  std::vector<float> error_a(n), error_b(n);
  nn::NativeNetOutputs out_a = a.view(), out_b = b.view();
  out_a.value_error = error_a.data();
  out_b.value_error = error_b.data();
  from_memory.forward(features.data(), n, out_a);
  from_file.forward(features.data(), n, out_b);
  CHECK(a.policy == b.policy && a.wdl == b.wdl && a.score == b.score && a.ownership == b.ownership);
  CHECK(error_a == error_b);
}

TEST(nn, a_damaged_network_file_is_refused_by_name) {
  const std::string bytes = nn::native_net_file(tiny_weights());
  // Every cut is refused: the reader never reads past the end.
  for (std::size_t size = 0; size < bytes.size(); size += (size < 256 ? 1 : 97))
    CHECK_THROWS(read_file(bytes.substr(0, size)), std::invalid_argument);
  CHECK_THROWS(read_file(bytes + "x"), std::invalid_argument);
  const auto with = [&](std::size_t offset, const void* value, std::size_t size) {
    std::string changed = bytes;
    std::memcpy(&changed[offset], value, size);
    return changed;
  };
  const std::int32_t huge = 1 << 30, zero = 0;
  const std::uint32_t other_format = 2, huge_count = 0xFFFFFFFFu;
  const float nan = std::nanf("");
  CHECK_THROWS(read_file(with(0, "POPUNOT", 8)), std::invalid_argument);
  CHECK_THROWS(read_file(with(8, &other_format, 4)), std::invalid_argument);
  for (int field = 0; field < 8; ++field)
    CHECK_THROWS(read_file(with(12 + 4 * field, &huge, 4)), std::invalid_argument);
  CHECK_THROWS(read_file(with(12 + 4 * 7, &zero, 4)), std::invalid_argument);  // no feature version
  CHECK_THROWS(read_file(with(12 + 4 * 3, &zero, 4)), std::invalid_argument);  // no heads
  CHECK_THROWS(read_file(with(44, &nan, 4)), std::invalid_argument);           // score_eps
  CHECK_THROWS(read_file(with(56, &huge_count, 4)), std::invalid_argument);    // embed_weight's count
  CHECK_THROWS(read_file(with(60, &nan, 4)), std::invalid_argument);           // its first value
  // A flipped byte anywhere is refused or read as some network; it never reads out of bounds
  // (the sanitizer builds run this).
  std::mt19937 rng(3);
  for (int trial = 0; trial < 2000; ++trial) {
    std::string changed = bytes;
    changed[rng() % changed.size()] ^= static_cast<char>(1u << (rng() % 8));
    try {
      const nn::NativeNetWeights w = read_file(changed);
      nn::NativeNet net(w, 1, 8, false);
      (void)net;
    } catch (const std::invalid_argument&) {
    } catch (const std::logic_error&) {}
  }
}
