// The AVX-512 exp and softplus against double-precision libm over their whole input ranges.
// This file is built with -ffast-math like the kernels that use them (CMakeLists.txt).
#include "vector_math_avx512.h"

#include <cmath>
#include <iostream>
#include <vector>

#include "../tests/testing.h"

using namespace popucom;

#ifdef POPUCOM_HAVE_AVX512_MATH

namespace {

bool cpu_has_avx512() { return __builtin_cpu_supports("avx512f"); }

// f over xs, 16 lanes at a time (xs.size() a multiple of 16).
template <typename F>
__attribute__((target("avx512f"))) std::vector<float> apply16(const std::vector<float>& xs, F f) {
  std::vector<float> out(xs.size());
  for (std::size_t i = 0; i < xs.size(); i += 16) _mm512_storeu_ps(&out[i], f(_mm512_loadu_ps(&xs[i])));
  return out;
}

std::vector<float> grid(float from, float to, int count) {
  std::vector<float> xs(count);
  for (int i = 0; i < count; ++i) xs[i] = from + (to - from) * static_cast<float>(i) / static_cast<float>(count - 1);
  return xs;
}

__attribute__((target("avx512f"))) __m512 exp16(__m512 x) { return nn::exp_nonpositive(x); }
__attribute__((target("avx512f"))) __m512 softplus(__m512 x) { return nn::softplus16(x); }
__attribute__((target("avx512f"))) __m512 gelu(__m512 x) { return nn::gelu16(x); }

}  // namespace

TEST(nn, vector_exp_is_exact_to_float_rounding_and_clamped_far_below) {
  if (!cpu_has_avx512()) {
    std::cout << "  (skipped: no AVX-512 on this CPU)\n";
    return;
  }
  const std::vector<float> xs = grid(-100.0f, 0.0f, 160000);
  const std::vector<float> got = apply16(xs, exp16);
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const double want = std::exp(static_cast<double>(std::max(xs[i], nn::MIN_VECTOR_EXPONENT)));
    CHECK(std::fabs(got[i] - want) <= 4e-7 * want);
  }
  CHECK(got.back() == 1.0f);
}

TEST(nn, vector_softplus_matches_torch_to_float_rounding) {
  if (!cpu_has_avx512()) {
    std::cout << "  (skipped: no AVX-512 on this CPU)\n";
    return;
  }
  std::vector<float> xs = grid(-90.0f, 40.0f, 160000);
  for (float tiny : {1e-7f, -1e-7f, 3e-4f, -3e-4f, 20.0f, 20.5f, -20.0f, 0.0f}) xs.push_back(tiny);
  while (xs.size() % 16) xs.push_back(1.0f);
  const std::vector<float> got = apply16(xs, softplus);
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const double x = xs[i];
    // torch: x itself past the threshold 20, else log1p(exp(x)); below the exp clamp, a
    // value under 2e-35 (exp(-80)) in place of a smaller one.
    const double want = x > 20.0 ? x : std::log1p(std::exp(x));
    const double allowed = x < nn::MIN_VECTOR_EXPONENT ? 2e-35 : 1e-6 * want;
    CHECK(std::fabs(got[i] - want) <= allowed);
  }
}

TEST(nn, vector_gelu_matches_the_exact_erf_form) {
  if (!cpu_has_avx512()) {
    std::cout << "  (skipped: no AVX-512 on this CPU)\n";
    return;
  }
  std::vector<float> xs = grid(-30.0f, 30.0f, 160000);
  for (float x : {0.0f, 1e-7f, -1e-7f, -8.0f, 8.0f}) xs.push_back(x);
  while (xs.size() % 16) xs.push_back(1.0f);
  const std::vector<float> got = apply16(xs, gelu);
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const double x = xs[i];
    const double want = 0.5 * x * std::erfc(-x / std::sqrt(2.0));
    // The fit's absolute error in erf (1.5e-7) times |x| / 2, plus float rounding.
    CHECK(std::fabs(got[i] - want) <= 1e-7 * std::fabs(x) + 1e-6 * std::fabs(want) + 1e-30);
  }
}

#endif
