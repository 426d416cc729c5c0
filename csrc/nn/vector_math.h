// exp, softplus and GELU on float vectors of any width, written once in GCC/Clang vector
// extensions: 16 lanes compile to AVX-512 registers, 8 to AVX2, 4 to SSE, NEON or wasm
// SIMD128, as the including file's target allows. Inlined where they are used: libmvec's
// vector exp and log1p are calls, which spill the caller's accumulators, and exist on
// glibc x86 only.
//
// Everything here has internal linkage on purpose: each kernel file compiles these for its
// own instruction set (packed_product_*.cpp), and a shared out-of-line copy, which the
// linker would pick from any one of those files, could hold instructions another CPU lacks.
#ifndef POPUCOM_NN_VECTOR_MATH_H_
#define POPUCOM_NN_VECTOR_MATH_H_

#include <cstring>
#include <initializer_list>

// A vector passed by value between functions of different targets changes the ABI, which
// GCC reports at every such declaration; these are always inlined, so no call crosses.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

#define POPUCOM_VECTOR_INLINE __attribute__((always_inline)) inline

// Under -ffast-math, reassociation would fold a two-part constant back into one
// (x - n a - n b into x - n (a + b)) and lose the digits the split keeps: GCC keeps a sum's
// order behind __builtin_assoc_barrier (which it splits into lanes and rebuilds, so only
// where fast-math asks for it), Clang in a block that says so.
#if defined(__clang__)
#define POPUCOM_KEEP_SUM_ORDER _Pragma("clang fp reassociate(off)")
#define POPUCOM_ASSOCIATION_BARRIER(x) (x)
#elif defined(__GNUC__) && __GNUC__ >= 12 && defined(__FAST_MATH__)
#define POPUCOM_KEEP_SUM_ORDER
#define POPUCOM_ASSOCIATION_BARRIER(x) __builtin_assoc_barrier(x)
#else
#define POPUCOM_KEEP_SUM_ORDER
#define POPUCOM_ASSOCIATION_BARRIER(x) (x)
#endif

namespace popucom {
namespace nn {

// Exponents below this are clamped: exp(-80) is 2e-35, nothing next to a softmax row's
// largest weight of 1.
constexpr float MIN_VECTOR_EXPONENT = -80.0f;

// N float lanes. (Written through a struct: GCC drops a vector attribute from an alias
// template of a dependent width.)
template <int N>
struct FloatLanesOf {
  typedef float type __attribute__((vector_size(N * sizeof(float))));
};
template <int N>
using FloatLanes = typename FloatLanesOf<N>::type;

namespace {

// The integer lanes of V: what its comparisons return.
template <typename V>
using MaskOf = decltype(V{} < V{});

template <typename V>
POPUCOM_VECTOR_INLINE V splat(float x) {
  return V{} + x;
}

template <typename V>
POPUCOM_VECTOR_INLINE V load_lanes(const float* from) {
  V v;
  std::memcpy(&v, from, sizeof v);
  return v;
}

template <typename V>
POPUCOM_VECTOR_INLINE void store_lanes(float* to, V v) {
  std::memcpy(to, &v, sizeof v);
}

// mask ? yes : no lane by lane. GCC's vector ?: becomes one blend (a masked move on
// AVX-512, where the bitwise form costs a mask-to-vector move and three logic operations);
// other compilers get the bits.
template <typename V>
POPUCOM_VECTOR_INLINE V select(MaskOf<V> mask, V yes, V no) {
#if defined(__GNUC__) && !defined(__clang__)
  return mask ? yes : no;
#else
  using M = MaskOf<V>;
  return (V)((mask & (M)yes) | (~mask & (M)no));
#endif
}

template <typename V>
POPUCOM_VECTOR_INLINE V max_lanes(V a, V b) {
  return select<V>(a > b, a, b);
}

template <typename V>
POPUCOM_VECTOR_INLINE V abs_lanes(V x) {
  return (V)((MaskOf<V>)x & 0x7FFFFFFF);
}

// The lower and upper halves of v.
template <typename V>
POPUCOM_VECTOR_INLINE void split_lanes(V v, FloatLanes<sizeof(V) / sizeof(float) / 2>& low,
                                       FloatLanes<sizeof(V) / sizeof(float) / 2>& high) {
  std::memcpy(&low, &v, sizeof low);
  std::memcpy(&high, reinterpret_cast<const char*>(&v) + sizeof low, sizeof high);
}

// The sum of v's lanes, halving the vector at each step.
template <typename V>
POPUCOM_VECTOR_INLINE float sum_lanes(V v) {
  constexpr int N = sizeof(V) / sizeof(float);
  if constexpr (N == 1) {
    return v[0];
  } else {
    FloatLanes<N / 2> low, high;
    split_lanes<V>(v, low, high);
    return sum_lanes<FloatLanes<N / 2>>(low + high);
  }
}

// The largest of v's lanes, halving the vector at each step.
template <typename V>
POPUCOM_VECTOR_INLINE float max_of_lanes(V v) {
  constexpr int N = sizeof(V) / sizeof(float);
  if constexpr (N == 1) {
    return v[0];
  } else {
    FloatLanes<N / 2> low, high;
    split_lanes<V>(v, low, high);
    return max_of_lanes<FloatLanes<N / 2>>(max_lanes<FloatLanes<N / 2>>(low, high));
  }
}

// exp(x) for x <= 0 (clamped at MIN_VECTOR_EXPONENT).
// Cody-Waite reduction x = n ln2 + r, |r| <= ln2 / 2, and the degree-6 Taylor polynomial
// of exp(r): relative error below 4e-7 (tested), far under the bf16 rounding that follows.
// n rounds to nearest by truncating t - 1/2 (t <= 0); 2^n is built in the exponent bits,
// which hold it for every n the clamp allows (n >= -116).
template <typename V>
POPUCOM_VECTOR_INLINE V exp_nonpositive(V x) {
  POPUCOM_KEEP_SUM_ORDER
  using M = MaskOf<V>;
  x = max_lanes<V>(x, splat<V>(MIN_VECTOR_EXPONENT));
  const M whole = __builtin_convertvector(x * 1.44269504f - 0.5f, M);
  const V n = __builtin_convertvector(whole, V);
  const V r = POPUCOM_ASSOCIATION_BARRIER(x - n * 0.693145752f) - n * 1.42860677e-6f;  // ln2 in two parts
  V poly = splat<V>(1.0f / 720);
  for (float c : {1.0f / 120, 1.0f / 24, 1.0f / 6, 0.5f, 1.0f, 1.0f}) poly = poly * r + c;
  return poly * (V)((whole + 127) << 23);
}

// log1p(u) for u in [0, 1]: 2 atanh(s) with s = u / (2 + u) <= 1/3, by its odd series to
// s^13 (relative error below 2e-8). It never forms 1 + u, whose rounding would cost small u
// its digits (and which -ffast-math would fold back to u anyway).
// 1 / (2 + u) comes from three Newton steps on the line through its ends (within 4.2%,
// then 1.8e-3, 3e-6, 1e-11): multiply-adds, where a vector division is a long-latency
// instruction that issues once in many cycles.
template <typename V>
POPUCOM_VECTOR_INLINE V log1p_unit(V u) {
  const V d = 2.0f + u;
  V reciprocal = 0.5f - u * (1.0f / 6);
  for (int step = 0; step < 3; ++step) reciprocal = reciprocal + reciprocal * (1.0f - d * reciprocal);
  const V s = u * reciprocal;
  const V s2 = s * s;
  V series = splat<V>(1.0f / 13);
  for (float c : {1.0f / 11, 1.0f / 9, 1.0f / 7, 1.0f / 5, 1.0f / 3, 1.0f}) series = series * s2 + c;
  return (s + s) * series;
}

// Softplus as torch computes it (threshold 20): max(x, 0) + log1p(exp(-|x|)).
template <typename V>
POPUCOM_VECTOR_INLINE V softplus_lanes(V x) {
  const V y = max_lanes<V>(x, V{}) + log1p_unit<V>(exp_nonpositive<V>(-abs_lanes<V>(x)));
  return select<V>(x > 20.0f, x, y);
}

// GELU with the exact erf, as torch's default: x * Phi(x). erf by Abramowitz and Stegun
// 7.1.26 (absolute error below 1.5e-7): 1 - erf(|z|) = q = t P(t) exp(-z^2) with
// t = 1 / (1 + p |z|). Written as x (1 - q / 2) for z >= 0 and x q / 2 below, so the
// negative side never cancels (its small values keep the fit's absolute error, not 1 - 1's).
template <typename V>
POPUCOM_VECTOR_INLINE V gelu_lanes(V x) {
  const V z = abs_lanes<V>(x * 0.70710678f);
  const V t = 1.0f / (z * 0.3275911f + 1.0f);
  V poly = splat<V>(1.061405429f);
  for (float c : {-1.453152027f, 1.421413741f, -0.284496736f, 0.254829592f}) poly = poly * t + c;
  const V half_q = poly * t * 0.5f * exp_nonpositive<V>(-(z * z));
  return x * select<V>(x >= 0.0f, 1.0f - half_q, half_q);
}

}  // namespace
}  // namespace nn
}  // namespace popucom

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#endif  // POPUCOM_NN_VECTOR_MATH_H_
