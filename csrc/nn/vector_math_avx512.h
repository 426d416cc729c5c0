// exp, softplus and GELU on 16 float32 lanes for the AVX-512 kernels (pope_attention_dots.cpp,
// native_net.cpp),
// inlined where they are used: libmvec's vector exp and log1p are calls, which spill the
// caller's accumulators, and they took two fifths of that kernel's time.
#ifndef POPUCOM_NN_VECTOR_MATH_AVX512_H_
#define POPUCOM_NN_VECTOR_MATH_AVX512_H_

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define POPUCOM_HAVE_AVX512_MATH 1
// GCC 12's intrinsics seed their unused pass-through operand with _mm512_undefined_*, which
// -W(maybe-)uninitialized reports wherever they are inlined (a false positive, GCC bug
// 105593); the diagnostic state at the intrinsics' own lines is what counts.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop

#include <initializer_list>

// Compiled for AVX-512 whatever the file's level, and inlined into callers built for it.
#define POPUCOM_AVX512_MATH __attribute__((target("avx512f"), always_inline)) inline

namespace popucom {
namespace nn {

// Exponents below this are clamped: exp(-80) is 2e-35, nothing next to a softmax row's
// largest weight of 1.
constexpr float MIN_VECTOR_EXPONENT = -80.0f;

// exp(x) for x <= 0 (clamped at MIN_VECTOR_EXPONENT).
// Cody-Waite reduction x = n ln2 + r, |r| <= ln2 / 2, and the degree-6 Taylor polynomial
// of exp(r): relative error below 4e-7 (tested), far under the bf16 rounding that follows.
POPUCOM_AVX512_MATH __m512 exp_nonpositive(__m512 x) {
  x = _mm512_max_ps(x, _mm512_set1_ps(MIN_VECTOR_EXPONENT));
  const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504f)),
                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693145752f), x);  // ln2 in two parts
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(1.42860677e-6f), r);
  __m512 poly = _mm512_set1_ps(1.0f / 720);
  for (float c : {1.0f / 120, 1.0f / 24, 1.0f / 6, 0.5f, 1.0f, 1.0f})
    poly = _mm512_fmadd_ps(poly, r, _mm512_set1_ps(c));
  return _mm512_scalef_ps(poly, n);
}

// log1p(u) for u in [0, 1], 16 lanes: 2 atanh(s) with s = u / (2 + u) <= 1/3, by its odd
// series to s^13 (relative error below 2e-8). It never forms 1 + u, whose rounding would
// cost small u its digits (and which -ffast-math would fold back to u anyway).
POPUCOM_AVX512_MATH __m512 log1p_unit(__m512 u) {
  const __m512 s = _mm512_div_ps(u, _mm512_add_ps(_mm512_set1_ps(2.0f), u));
  const __m512 s2 = _mm512_mul_ps(s, s);
  __m512 series = _mm512_set1_ps(1.0f / 13);
  for (float c : {1.0f / 11, 1.0f / 9, 1.0f / 7, 1.0f / 5, 1.0f / 3, 1.0f})
    series = _mm512_fmadd_ps(series, s2, _mm512_set1_ps(c));
  return _mm512_mul_ps(_mm512_add_ps(s, s), series);
}

// Softplus as torch computes it (threshold 20), 16 lanes: max(x, 0) + log1p(exp(-|x|)).
POPUCOM_AVX512_MATH __m512 softplus16(__m512 x) {
  const __m512 absolute = _mm512_abs_ps(x);
  const __m512 y = _mm512_add_ps(_mm512_max_ps(x, _mm512_setzero_ps()),
                                 log1p_unit(exp_nonpositive(_mm512_sub_ps(_mm512_setzero_ps(), absolute))));
  return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, _mm512_set1_ps(20.0f), _CMP_GT_OQ), y, x);
}

// GELU with the exact erf, as torch's default: x * Phi(x), 16 lanes. erf by Abramowitz and
// Stegun 7.1.26 (absolute error below 1.5e-7): 1 - erf(|z|) = q = t P(t) exp(-z^2) with
// t = 1 / (1 + p |z|). Written as x (1 - q / 2) for z >= 0 and x q / 2 below, so the
// negative side never cancels (its small values keep the fit's absolute error, not 1 - 1's).
POPUCOM_AVX512_MATH __m512 gelu16(__m512 x) {
  const __m512 z = _mm512_abs_ps(_mm512_mul_ps(x, _mm512_set1_ps(0.70710678f)));
  const __m512 t =
      _mm512_div_ps(_mm512_set1_ps(1.0f), _mm512_fmadd_ps(z, _mm512_set1_ps(0.3275911f), _mm512_set1_ps(1.0f)));
  __m512 poly = _mm512_set1_ps(1.061405429f);
  for (float c : {-1.453152027f, 1.421413741f, -0.284496736f, 0.254829592f})
    poly = _mm512_fmadd_ps(poly, t, _mm512_set1_ps(c));
  const __m512 half_q = _mm512_mul_ps(_mm512_mul_ps(_mm512_mul_ps(poly, t), _mm512_set1_ps(0.5f)),
                                      exp_nonpositive(_mm512_sub_ps(_mm512_setzero_ps(), _mm512_mul_ps(z, z))));
  const __m512 phi = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_GE_OQ), half_q,
                                          _mm512_sub_ps(_mm512_set1_ps(1.0f), half_q));
  return _mm512_mul_ps(x, phi);
}

}  // namespace nn
}  // namespace popucom

#endif
#endif  // POPUCOM_NN_VECTOR_MATH_AVX512_H_
