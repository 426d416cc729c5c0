// The vector exp, softplus and GELU (vector_math.h) against double-precision libm over their
// whole input ranges, in each width and instruction set the kernels compile them for.
// Built as the kernels that use them are, without -ffast-math (CMakeLists.txt).
#include "vector_math.h"

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "../tests/testing.h"
#include "isa_kernels.h"

using namespace popucom;

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

namespace {

enum class Function { kExp, kSoftplus, kGelu };

// f over xs, LANES at a time (xs.size() a multiple of 16), at the including code's target.
template <int LANES>
POPUCOM_VECTOR_INLINE void apply(Function f, const std::vector<float>& xs, std::vector<float>& out) {
  using V = nn::FloatLanes<LANES>;
  for (std::size_t i = 0; i < xs.size(); i += LANES) {
    const V x = nn::load_lanes<V>(&xs[i]);
    const V y = f == Function::kExp        ? nn::exp_nonpositive<V>(x)
                : f == Function::kSoftplus ? nn::softplus_lanes<V>(x)
                                           : nn::gelu_lanes<V>(x);
    nn::store_lanes<V>(&out[i], y);
  }
}

void apply_portable(Function f, const std::vector<float>& xs, std::vector<float>& out) { apply<4>(f, xs, out); }

#ifdef POPUCOM_HAVE_X86_KERNELS
__attribute__((target("avx2,fma"))) void apply_avx2(Function f, const std::vector<float>& xs, std::vector<float>& out) {
  apply<8>(f, xs, out);
}
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"))) void apply_avx512(Function f,
                                                                                const std::vector<float>& xs,
                                                                                std::vector<float>& out) {
  apply<16>(f, xs, out);
}
#endif

// Every copy this CPU runs, named for the failure messages.
std::vector<std::pair<std::string, std::function<void(Function, const std::vector<float>&, std::vector<float>&)>>>
copies() {
  std::vector<std::pair<std::string, std::function<void(Function, const std::vector<float>&, std::vector<float>&)>>>
      all = {{"portable", apply_portable}};
#ifdef POPUCOM_HAVE_X86_KERNELS
  if (nn::cpu_has_avx2()) all.emplace_back("avx2", apply_avx2);
  if (nn::cpu_has_avx512()) all.emplace_back("avx512", apply_avx512);
#endif
  return all;
}

std::vector<float> grid(float from, float to, int count) {
  std::vector<float> xs(count);
  for (int i = 0; i < count; ++i) xs[i] = from + (to - from) * static_cast<float>(i) / static_cast<float>(count - 1);
  return xs;
}

// Each copy's values of f over xs against want(x), within allowed(x, want); returns the
// number of copies run.
template <typename Want, typename Allowed>
int check_each_copy(Function f, std::vector<float> xs, Want want, Allowed allowed) {
  while (xs.size() % 16) xs.push_back(0.0f);
  int run = 0;
  for (const auto& [name, copy] : copies()) {
    std::vector<float> got(xs.size());
    copy(f, xs, got);
    int wrong = 0;
    for (std::size_t i = 0; i < xs.size(); ++i) {
      const double w = want(static_cast<double>(xs[i]));
      if (!(std::fabs(got[i] - w) <= allowed(static_cast<double>(xs[i]), w)) && wrong++ < 3)
        testing::fail(__FILE__, __LINE__,
                      name + ": x = " + std::to_string(xs[i]) + " gave " + std::to_string(got[i]) + ", want " +
                          std::to_string(w));
    }
    ++run;
  }
  return run;
}

}  // namespace

TEST(nn, vector_exp_is_exact_to_float_rounding_and_clamped_far_below) {
  std::vector<float> xs = grid(-100.0f, 0.0f, 160000);
  xs.push_back(0.0f);
  const int run = check_each_copy(
      Function::kExp, xs, [](double x) { return std::exp(std::max(x, static_cast<double>(nn::MIN_VECTOR_EXPONENT))); },
      [](double, double want) { return 4e-7 * want; });
  CHECK(run >= 1);
}

TEST(nn, vector_softplus_matches_torch_to_float_rounding) {
  std::vector<float> xs = grid(-90.0f, 40.0f, 160000);
  for (float tiny : {1e-7f, -1e-7f, 3e-4f, -3e-4f, 20.0f, 20.5f, -20.0f, 0.0f}) xs.push_back(tiny);
  // torch: x itself past the threshold 20, else log1p(exp(x)); below the exp clamp, a value
  // under 2e-35 (exp(-80)) in place of a smaller one.
  const int run = check_each_copy(
      Function::kSoftplus, xs, [](double x) { return x > 20.0 ? x : std::log1p(std::exp(x)); },
      [](double x, double want) { return x < nn::MIN_VECTOR_EXPONENT ? 2e-35 : 1e-6 * want; });
  CHECK(run >= 1);
}

TEST(nn, vector_gelu_matches_the_exact_erf_form) {
  std::vector<float> xs = grid(-30.0f, 30.0f, 160000);
  for (float x : {0.0f, 1e-7f, -1e-7f, -8.0f, 8.0f}) xs.push_back(x);
  // The fit's absolute error in erf (1.5e-7) times |x| / 2, plus float rounding.
  const int run = check_each_copy(
      Function::kGelu, xs, [](double x) { return 0.5 * x * std::erfc(-x / std::sqrt(2.0)); },
      [](double x, double want) { return 1e-7 * std::fabs(x) + 1e-6 * std::fabs(want) + 1e-30; });
  CHECK(run >= 1);
}
