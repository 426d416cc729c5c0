// The fused attention-residual kernels against the formulas written out plainly, in double.
#include "depth_mix.h"

#include <cmath>
#include <cstddef>
#include <random>
#include <vector>

#include "../tests/testing.h"

using namespace popucom;

namespace {

bool near(float a, double b) { return std::fabs(a - b) <= 1e-5 * (1.0 + std::fabs(b)); }

std::vector<float> normal_values(std::size_t n, unsigned seed, float sd) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, sd);
  std::vector<float> v(n);
  for (float& x : v) x = normal(rng);
  return v;
}

// 37 tokens, 5 of 9 sources, d = 24 (not a multiple of a vector width).
constexpr std::size_t TOKENS = 37;
constexpr int COUNT = 5, MIXES = 9, D = 24;
constexpr float EPS = 1e-6f;

}  // namespace

TEST(nn, depth_mix_is_the_normalised_softmax_mix_of_the_sources) {
  const auto sources = normal_values(COUNT * TOKENS * D, 1, 2.0f);
  const auto scores = normal_values(COUNT * TOKENS * MIXES, 2, 3.0f);
  for (int index : {0, 4, MIXES - 1}) {
    std::vector<float> out(TOKENS * D);
    nn::depth_mix_normalized(sources.data(), scores.data(), COUNT, TOKENS, D, MIXES, index, EPS, out.data());
    for (std::size_t t = 0; t < TOKENS; ++t) {
      double top = -1e300, total = 0.0, weight[COUNT], mixed[D] = {}, squares = 0.0;
      for (int j = 0; j < COUNT; ++j)
        top = std::max(top, static_cast<double>(scores[(j * TOKENS + t) * MIXES + index]));
      for (int j = 0; j < COUNT; ++j) total += weight[j] = std::exp(scores[(j * TOKENS + t) * MIXES + index] - top);
      for (int j = 0; j < COUNT; ++j)
        for (int c = 0; c < D; ++c) mixed[c] += weight[j] / total * sources[(j * TOKENS + t) * D + c];
      for (double m : mixed) squares += m * m;
      const double scale = 1.0 / std::sqrt(squares / D + EPS);
      for (int c = 0; c < D; ++c) CHECK(near(out[t * D + c], mixed[c] * scale));
    }
  }
}

TEST(nn, depth_mix_of_one_source_is_that_source_normalised) {
  const auto sources = normal_values(TOKENS * D, 3, 0.5f);
  const auto scores = normal_values(TOKENS * MIXES, 4, 50.0f);  // any score: a softmax over one source is 1
  std::vector<float> out(TOKENS * D);
  nn::depth_mix_normalized(sources.data(), scores.data(), 1, TOKENS, D, MIXES, 2, EPS, out.data());
  for (std::size_t t = 0; t < TOKENS; ++t) {
    double squares = 0.0;
    for (int c = 0; c < D; ++c) squares += static_cast<double>(out[t * D + c]) * out[t * D + c];
    CHECK(std::fabs(squares / D - 1.0) < 1e-4);
    CHECK(near(out[t * D] * sources[t * D + 1], static_cast<double>(out[t * D + 1]) * sources[t * D]));
  }
}

TEST(nn, depth_mix_in_bf16_is_the_float_mix_rounded) {
  const auto sources = normal_values(COUNT * TOKENS * D, 7, 2.0f);
  const auto scores = normal_values(COUNT * TOKENS * MIXES, 8, 3.0f);
  std::vector<float> want(TOKENS * D);
  std::vector<nn::Bf16> out(TOKENS * D);
  nn::depth_mix_normalized(sources.data(), scores.data(), COUNT, TOKENS, D, MIXES, 3, EPS, want.data());
  nn::depth_mix_normalized(sources.data(), scores.data(), COUNT, TOKENS, D, MIXES, 3, EPS, out.data());
  for (std::size_t i = 0; i < out.size(); ++i)  // one bf16 step at most (fast-math may order sums apart)
    CHECK(std::fabs(nn::to_float(out[i]) - want[i]) <= std::ldexp(std::fabs(want[i]) + 1e-30f, -7));
}

TEST(nn, depth_score_is_the_normalised_source_against_each_query) {
  const auto source = normal_values(TOKENS * D, 5, 4.0f);
  const auto queries = normal_values(MIXES * D, 6, 1.0f);
  std::vector<float> scores(TOKENS * MIXES);
  nn::depth_score(source.data(), queries.data(), TOKENS, D, MIXES, EPS, scores.data());
  for (std::size_t t = 0; t < TOKENS; ++t) {
    double squares = 0.0;
    for (int c = 0; c < D; ++c) squares += static_cast<double>(source[t * D + c]) * source[t * D + c];
    const double scale = 1.0 / std::sqrt(squares / D + EPS);
    for (int k = 0; k < MIXES; ++k) {
      double dot = 0.0;
      for (int c = 0; c < D; ++c) dot += static_cast<double>(source[t * D + c]) * queries[k * D + c];
      CHECK(near(scores[t * MIXES + k], dot * scale));
    }
  }
}
