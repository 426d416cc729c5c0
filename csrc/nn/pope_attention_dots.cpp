// The attention kernel's bf16 variant with bf16 dot products (AVX512-BF16 vdpbf16ps):
// q2 . k2 and p . v multiply bf16 pairs into float32 sums, two products per lane and
// instruction, which halves the kernel's multiply-adds (its bound: pope_attention.cpp
// issues one 16-wide FMA a cycle). q2, k2 and the softmax weights are rounded to bf16
// (nearest even) for the products; v is bf16 already, and everything else (softplus,
// the phase products, softmax, the sums) stays float32. Only this file's kernel is built
// for AVX512-BF16; callers take it where pope_attention_bf16_dots_apply says the CPU has it.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>

#include "immintrin_quiet.h"
#include "isa_kernels.h"
#include "pope_attention.h"
#include "pope_attention_loop.h"

namespace popucom {
namespace nn {

#ifdef POPUCOM_HAVE_X86_KERNELS

bool pope_attention_bf16_dots_apply(int head_dim) {
  return cpu_has_avx512_bf16() && head_dim % 16 == 0 && pope_attention_supports(head_dim);
}

#else  // no AVX512-BF16 build: the float32 products always

bool pope_attention_bf16_dots_apply(int) { return false; }

bool pope_attention_bf16_dots(const Bf16*, const float*, std::size_t, int, int, Bf16*) { return false; }

#endif

}  // namespace nn
}  // namespace popucom

#ifdef POPUCOM_HAVE_X86_KERNELS

#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq,avx512bf16")
// vector_math.h's templates must be defined under the pragma: GCC lowers a function's
// vectors to its own target's registers before it inlines the function into a caller of
// another. They pass 16-lane vectors, inlined, so no call changes the ABI -Wpsabi warns of.
#include "vector_math.h"
#pragma GCC diagnostic ignored "-Wpsabi"

namespace popucom {
namespace nn {

namespace {

constexpr int T = NUM_SQUARES;
constexpr int LANES = 16;
using Lanes16 = FloatLanes<LANES>;

inline __m512 softplus16(__m512 x) { return (__m512)softplus_lanes<Lanes16>((Lanes16)x); }
inline __m512 exp_nonpositive16(__m512 x) { return (__m512)exp_nonpositive<Lanes16>((Lanes16)x); }
constexpr int TP = (T + 2 * LANES - 1) / (2 * LANES) * (2 * LANES);  // whole 32-value bf16 rows
constexpr int PAIRS = (T + 1) / 2;                                   // key pairs of the value sum

// 16 bf16 values to float32.
inline __m512 widen16(const Bf16* x) {
  const __m256i bits = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x));
  return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(bits), 16));
}

template <int HD>
struct DotHead {
  static constexpr int W = 2 * HD;  // [cos, sin] halves
  static constexpr int BLOCKS = HD / LANES;
  static constexpr int ROWS = 8;  // query rows at once: eight independent sums cover vdpbf16ps's latency

  // Component pairs (2c, 2c + 1) of q2 and k2 as bf16 pairs: logits of 16 keys are one
  // vdpbf16ps per pair against a broadcast query pair.
  alignas(64) std::uint32_t q2[T][HD];
  alignas(64) std::uint32_t k2[HD][TP];     // pair c of key j at [c][j]
  alignas(64) std::uint32_t v2[PAIRS][HD];  // values of keys 2m and 2m + 1, component c, at [m][c]
  alignas(64) float magnitude[T][HD];
  alignas(64) float p[ROWS][TP];
  alignas(64) std::uint32_t w2[ROWS][TP / 2];  // softmax weights of keys 2m, 2m + 1 as a bf16 pair

  DotHead() {
    for (auto& row : k2) std::fill(row + T, row + TP, 0u);  // padding logits stay finite
  }

  void build(const Bf16* x, std::size_t stride, const float* table, bool keys) {
    for (int i = 0; i < T; ++i)
      for (int c = 0; c < HD; c += LANES) _mm512_store_ps(&magnitude[i][c], softplus16(widen16(x + i * stride + c)));
    for (int i = 0; i < T; ++i) {
      const float* cs = table + i * W;
      alignas(64) float row[W];
      for (int c = 0; c < HD; ++c) {
        row[c] = magnitude[i][c] * cs[c];
        row[HD + c] = magnitude[i][c] * cs[HD + c];
      }
      for (int c = 0; c < W; c += 2 * LANES) {  // 32 components to 16 bf16 pairs, nearest even
        const __m512i packed = (__m512i)_mm512_cvtne2ps_pbh(_mm512_load_ps(row + c + LANES), _mm512_load_ps(row + c));
        if (!keys) {
          _mm512_store_si512(&q2[i][c / 2], packed);
          continue;
        }
        alignas(64) std::uint32_t pairs[LANES];
        _mm512_store_si512(pairs, packed);
        for (int k = 0; k < LANES; ++k) k2[c / 2 + k][i] = pairs[k];
      }
    }
  }

  void load_values(const Bf16* v0, std::size_t stride) {
    for (int m = 0; m < PAIRS; ++m) {
      const Bf16* even = v0 + 2 * m * stride;
      for (int c = 0; c < HD; ++c) {
        const std::uint32_t hi = 2 * m + 1 < T ? even[stride + c] : 0u;  // the odd key past the board weighs 0
        v2[m][c] = static_cast<std::uint32_t>(even[c]) | hi << 16;
      }
    }
  }

  // A row of logits to its softmax weights exp(logit - max) as bf16 pairs (nearest even),
  // the padding past the board as 0; returns the reciprocal of the weights' sum.
  static float softmax_weights(const float* logits, std::uint32_t* pairs) {
    constexpr int VECTORS = TP / LANES;
    __m512 e[VECTORS];
    __mmask16 board[VECTORS];  // the lanes of each vector that are on the board
    __m512 top = _mm512_set1_ps(std::numeric_limits<float>::lowest());
    for (int v = 0; v < VECTORS; ++v) {
      const int lanes = std::clamp(T - v * LANES, 0, LANES);
      board[v] = static_cast<__mmask16>((1u << lanes) - 1);
      e[v] = _mm512_load_ps(logits + v * LANES);
      top = _mm512_mask_max_ps(top, board[v], top, e[v]);
    }
    const __m512 shift = _mm512_set1_ps(_mm512_reduce_max_ps(top));
    __m512 sum = _mm512_setzero_ps();
    for (int v = 0; v < VECTORS; ++v) {
      e[v] = _mm512_maskz_mov_ps(board[v], exp_nonpositive16(_mm512_sub_ps(e[v], shift)));
      sum = _mm512_add_ps(sum, e[v]);
    }
    for (int v = 0; v < VECTORS; v += 2)
      _mm512_store_si512(pairs + v * LANES / 2, (__m512i)_mm512_cvtne2ps_pbh(e[v + 1], e[v]));
    return 1.0f / _mm512_reduce_add_ps(sum);
  }

  template <int N>
  void rows(int i0, Bf16* o, int d) {
    for (int jb = 0; jb < TP; jb += LANES) {
      __m512 acc[N];
      for (int r = 0; r < N; ++r) acc[r] = _mm512_setzero_ps();
      for (int c = 0; c < HD; ++c) {
        const __m512bh k = (__m512bh)_mm512_load_si512(&k2[c][jb]);
        for (int r = 0; r < N; ++r)
          acc[r] = _mm512_dpbf16_ps(acc[r], (__m512bh)_mm512_set1_epi32(static_cast<int>(q2[i0 + r][c])), k);
      }
      for (int r = 0; r < N; ++r) _mm512_store_ps(&p[r][jb], acc[r]);
    }
    float inv[N];
    for (int r = 0; r < N; ++r) inv[r] = softmax_weights(p[r], w2[r]);
    __m512 y[N][BLOCKS];
    for (int r = 0; r < N; ++r)
      for (int b = 0; b < BLOCKS; ++b) y[r][b] = _mm512_setzero_ps();
    for (int m = 0; m < PAIRS; ++m) {
      for (int b = 0; b < BLOCKS; ++b) {
        const __m512bh v = (__m512bh)_mm512_load_si512(&v2[m][b * LANES]);
        for (int r = 0; r < N; ++r)
          y[r][b] = _mm512_dpbf16_ps(y[r][b], (__m512bh)_mm512_set1_epi32(static_cast<int>(w2[r][m])), v);
      }
    }
    for (int r = 0; r < N; ++r) {
      Bf16* row = o + (i0 + r) * d;
      for (int b = 0; b < BLOCKS; ++b) {
        alignas(64) float scaled[LANES];
        _mm512_store_ps(scaled, _mm512_mul_ps(y[r][b], _mm512_set1_ps(inv[r])));
        for (int c = 0; c < LANES; ++c) store(row[b * LANES + c], scaled[c]);
      }
    }
  }
};

template <int HD>
void run(const Bf16* qkv, const float* tables, std::size_t batch, int heads, Bf16* out) {
  DotHead<HD> head;
  attend_each_head<HD>(head, qkv, tables, batch, heads, out);
}

}  // namespace

bool pope_attention_bf16_dots(const Bf16* qkv, const float* tables, std::size_t batch, int heads, int head_dim,
                              Bf16* out) {
  if (!pope_attention_bf16_dots_apply(head_dim)) return false;
  switch (head_dim) {  // the multiples of 16 in POPE_HEAD_DIMS
    case 16: run<16>(qkv, tables, batch, heads, out); return true;
    case 32: run<32>(qkv, tables, batch, heads, out); return true;
    default: return false;
  }
}

}  // namespace nn
}  // namespace popucom

#pragma GCC pop_options

#endif
