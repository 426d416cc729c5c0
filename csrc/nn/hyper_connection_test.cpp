// The fused mHC kernels against per-token formulas written out plainly.
#include "hyper_connection.h"

#include <cmath>
#include <cstddef>
#include <random>
#include <utility>
#include <vector>

#include "../tests/testing.h"

using namespace popucom;

namespace {

bool near(float a, float b) { return std::fabs(a - b) <= 1e-5f * (1.0f + std::fabs(b)); }

float logistic(float x) { return 1.0f / (1.0f + std::exp(-x)); }

struct Case {
  std::size_t tokens;
  int n, d;
  std::vector<float> maps, streams, branch_out;
};

// 37 tokens: one full block of 32 and a partial one.
Case random_case(unsigned seed, int n, int d) {
  Case c{37, n, d, {}, {}, {}};
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.5f);
  c.maps.resize((2 * c.n + c.n * c.n) * c.tokens);
  c.streams.resize(c.tokens * c.n * c.d);
  c.branch_out.resize(c.tokens * c.d);
  for (float& v : c.maps) v = normal(rng);
  for (float& v : c.streams) v = normal(rng);
  for (float& v : c.branch_out) v = normal(rng);
  return c;
}

// Shapes the kernels have compiled in (4 streams of width 64 or 96) and runtime ones.
std::vector<Case> cases(unsigned seed) {
  std::vector<Case> all;
  for (const auto& [n, d] : {std::pair{4, 8}, std::pair{4, 64}, std::pair{4, 96}, std::pair{3, 64}})
    all.push_back(random_case(seed, n, d));
  return all;
}

}  // namespace

TEST(nn, mhc_read_is_the_sigmoid_weighted_stream_sum) {
  for (const Case& c : cases(1)) {
    std::vector<float> read(c.tokens * c.d);
    nn::mhc_read(c.maps.data(), c.streams.data(), c.tokens, c.n, c.d, read.data());
    for (std::size_t t = 0; t < c.tokens; ++t)
      for (int x = 0; x < c.d; ++x) {
        float want = 0.0f;
        for (int k = 0; k < c.n; ++k) want += logistic(c.maps[k * c.tokens + t]) * c.streams[(t * c.n + k) * c.d + x];
        CHECK(near(read[t * c.d + x], want));
      }
  }
}

TEST(nn, mhc_write_mixes_with_a_doubly_stochastic_map) {
  for (const Case& c : cases(2)) {
    const int n = c.n;
    std::vector<float> mixed(c.tokens * n * c.d), zero(c.tokens * c.d, 0.0f);
    nn::mhc_write(c.maps.data(), c.streams.data(), zero.data(), c.tokens, n, c.d, 40, mixed.data());
    // Without the branch, the write is R @ streams: R's columns sum to one, so the streams' sum
    // over j is kept; its rows sum to one, so equal streams stay equal.
    for (std::size_t t = 0; t < c.tokens; ++t)
      for (int x = 0; x < c.d; ++x) {
        float in = 0.0f, out = 0.0f;
        for (int j = 0; j < n; ++j) {
          in += c.streams[(t * n + j) * c.d + x];
          out += mixed[(t * n + j) * c.d + x];
        }
        CHECK(std::fabs(in - out) < 1e-4f * (1.0f + std::fabs(in)));
      }
    std::vector<float> equal(c.streams.size(), 0.75f);
    nn::mhc_write(c.maps.data(), equal.data(), zero.data(), c.tokens, n, c.d, 40, mixed.data());
    for (float v : mixed) CHECK(near(v, 0.75f));
  }
}

TEST(nn, mhc_write_adds_the_gated_branch_output) {
  for (const Case& c : cases(3)) {
    const int n = c.n;
    std::vector<float> with(c.tokens * n * c.d), without(c.tokens * n * c.d), zero(c.tokens * c.d, 0.0f);
    nn::mhc_write(c.maps.data(), c.streams.data(), c.branch_out.data(), c.tokens, n, c.d, 10, with.data());
    nn::mhc_write(c.maps.data(), c.streams.data(), zero.data(), c.tokens, n, c.d, 10, without.data());
    for (std::size_t t = 0; t < c.tokens; ++t)
      for (int j = 0; j < n; ++j) {
        const float gate = 2.0f * logistic(c.maps[(n + j) * c.tokens + t]);
        for (int x = 0; x < c.d; ++x) {
          const std::size_t i = (t * n + j) * c.d + x;
          CHECK(near(with[i] - without[i], gate * c.branch_out[t * c.d + x]));
        }
      }
  }
}

TEST(nn, mhc_write_gives_each_tokens_sum_of_squares) {
  for (const Case& c : cases(4)) {
    std::vector<float> mixed(c.tokens * c.n * c.d), squares(c.tokens, -1.0f);
    nn::mhc_write(c.maps.data(), c.streams.data(), c.branch_out.data(), c.tokens, c.n, c.d, 10, mixed.data(),
                  squares.data());
    for (std::size_t t = 0; t < c.tokens; ++t) {
      double want = 0.0;
      for (int i = 0; i < c.n * c.d; ++i)
        want += static_cast<double>(mixed[t * c.n * c.d + i]) * mixed[t * c.n * c.d + i];
      CHECK(near(squares[t], static_cast<float>(want)));
    }
  }
}
