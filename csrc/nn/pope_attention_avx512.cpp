// The float32 attention kernel on AVX-512: 16 lanes, with glibc's vector exp and log1p
// (libmvec, which -ffast-math lets GCC call for the loops of std::exp and std::log1p below)
// in place of vector_math.h's. The kernel of the other instruction sets
// (pope_attention_head.h) runs the same arithmetic; on AVX-512 this one is faster, measured
// in docs/benchmarks.md ("The attention kernel's copies").
#include "pope_attention_isa.h"

#ifdef POPUCOM_HAVE_X86_KERNELS

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "../game/constants.h"
#include "pope_attention_loop.h"

#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq")

namespace popucom {
namespace nn {

namespace {

constexpr int T = NUM_SQUARES;
constexpr int LANES = 16;
constexpr int TP = (T + LANES - 1) / LANES * LANES;  // tokens padded to whole lane groups

// Softplus as torch computes it (beta 1, threshold 20): the magnitudes of q2 and k2.
inline float softplus(float x) { return x > 20.0f ? x : std::log1p(std::exp(x)); }

// A row of NUM_SQUARES logits to its softmax numerators exp(logit - max), in place; returns the
// reciprocal of their sum.
inline float exponentiate(float* row) {
  float top = row[0];
  for (int j = 1; j < NUM_SQUARES; ++j) top = std::max(top, row[j]);
  float sum = 0.0f;
  for (int j = 0; j < NUM_SQUARES; ++j) {
    row[j] = std::exp(row[j] - top);
    sum += row[j];
  }
  return 1.0f / sum;
}

typedef float Lanes __attribute__((vector_size(LANES * sizeof(float))));

template <int HD>
struct LibmvecHead {
  static constexpr int W = 2 * HD;  // [cos, sin] halves
  static constexpr int ROWS = 4;    // output rows at once, sharing every key and value load
  typedef float Row __attribute__((vector_size(HD * sizeof(float))));

  alignas(64) float q2[T][W];
  alignas(64) float k2t[W][TP];  // transposed: a row of logits is a sum of scaled key rows
  alignas(64) float magnitude[T][HD];
  alignas(64) float values[T][HD];
  alignas(64) float p[ROWS][TP];

  LibmvecHead() {
    for (auto& row : k2t) std::fill(row + T, row + TP, 0.0f);  // padding logits stay finite
  }

  // q2 (or k2, transposed) of one head: softplus magnitudes times the [cos, sin] tables.
  template <typename In>
  void build(const In* x, std::size_t stride, const float* table, bool keys) {
    for (int i = 0; i < T; ++i) {
      const In* logit = x + i * stride;
      for (int c = 0; c < HD; ++c) magnitude[i][c] = softplus(to_float(logit[c]));
    }
    for (int i = 0; i < T; ++i) {
      const float* cs = table + i * W;
      if (keys) {
        for (int c = 0; c < HD; ++c) k2t[c][i] = magnitude[i][c] * cs[c];
        for (int c = 0; c < HD; ++c) k2t[HD + c][i] = magnitude[i][c] * cs[HD + c];
      } else {
        for (int c = 0; c < HD; ++c) q2[i][c] = magnitude[i][c] * cs[c];
        for (int c = 0; c < HD; ++c) q2[i][HD + c] = magnitude[i][c] * cs[HD + c];
      }
    }
  }

  // The head's values, contiguous and in float32 for rows().
  template <typename In>
  void load_values(const In* v0, std::size_t stride) {
    for (int j = 0; j < T; ++j)
      for (int c = 0; c < HD; ++c) values[j][c] = to_float(v0[j * stride + c]);
  }

  // Output rows i0 .. i0 + R - 1 of one head into o (row stride d); R rows at
  // once share every key and value load.
  template <int R, typename Out>
  void rows(int i0, Out* o, int d) {
    for (int jb = 0; jb < TP; jb += LANES) {
      Lanes acc[R] = {};
      for (int c = 0; c < W; ++c) {
        const Lanes k = *reinterpret_cast<const Lanes*>(&k2t[c][jb]);
        for (int r = 0; r < R; ++r) acc[r] += q2[i0 + r][c] * k;
      }
      for (int r = 0; r < R; ++r) *reinterpret_cast<Lanes*>(&p[r][jb]) = acc[r];
    }
    float inv[R];
    for (int r = 0; r < R; ++r) inv[r] = exponentiate(p[r]);
    Row y[R] = {};
    for (int j = 0; j < T; ++j) {
      const Row v = *reinterpret_cast<const Row*>(values[j]);
      for (int r = 0; r < R; ++r) y[r] += p[r][j] * v;
    }
    for (int r = 0; r < R; ++r) {
      alignas(64) float scaled[HD];
      const Row product = y[r] * inv[r];
      __builtin_memcpy(scaled, &product, sizeof scaled);
      Out* row = o + (i0 + r) * d;
      for (int c = 0; c < HD; ++c) store(row[c], scaled[c]);
    }
  }
};

template <int HD, typename Act>
void run_heads(const Act* qkv, const float* tables, std::size_t batch, int heads, Act* out) {
  LibmvecHead<HD> head;
  attend_each_head<HD>(head, qkv, tables, batch, heads, out);
}

template <typename Act>
void attend_libmvec(const Act* qkv, const float* tables, std::size_t batch, int heads, int head_dim, Act* out) {
  switch (head_dim) {  // the cases of POPE_HEAD_DIMS
    case 8: return run_heads<8>(qkv, tables, batch, heads, out);
    case 16: return run_heads<16>(qkv, tables, batch, heads, out);
    default: return run_heads<32>(qkv, tables, batch, heads, out);
  }
}

}  // namespace

void pope_attention_avx512(const float* qkv, const float* tables, std::size_t batch, int heads, int head_dim,
                           float* out) {
  attend_libmvec(qkv, tables, batch, heads, head_dim, out);
}

void pope_attention_avx512(const Bf16* qkv, const float* tables, std::size_t batch, int heads, int head_dim,
                           Bf16* out) {
  attend_libmvec(qkv, tables, batch, heads, head_dim, out);
}

}  // namespace nn
}  // namespace popucom

#pragma GCC pop_options

#endif
