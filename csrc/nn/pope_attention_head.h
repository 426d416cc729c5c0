// The float32 attention kernel's work on one head (pope_attention.h), written once for the
// portable and AVX2 copies (pope_attention_portable.cpp, pope_attention_avx2.cpp), which
// instantiate pope_attention_with<LANES> for their registers (AVX-512 has a copy of its own,
// pope_attention_avx512.cpp). The logits of a row are LANES keys at a time, sums of scaled key rows; the
// softplus magnitudes and the softmax's exponentials are vector_math.h's, inlined (glibc's
// vector exp exists on x86 only, and a call spills the accumulators). Internal linkage for
// the reason vector_math.h gives.
#ifndef POPUCOM_NN_POPE_ATTENTION_HEAD_H_
#define POPUCOM_NN_POPE_ATTENTION_HEAD_H_

#include <algorithm>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string>

#include "../game/constants.h"
#include "bf16.h"
#include "pope_attention_loop.h"
#include "vector_math.h"

// Only the kernels' copies include this, and what they instantiate from it passes vectors
// wider than the build's registers between inlined functions: no call changes the ABI that
// -Wpsabi warns of, for the rest of the including file too.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

namespace popucom {
namespace nn {
namespace {

template <int HD, int LANES>
struct AttentionHead {
  static constexpr int T = NUM_SQUARES;
  static constexpr int TP = (T + LANES - 1) / LANES * LANES;  // tokens padded to whole vectors
  static constexpr int W = 2 * HD;                            // [cos, sin] halves
  static constexpr int ROWS = 4;                              // output rows at once, sharing every key and value load
  // A head's row of HD components is PIECES registers of PIECE lanes: wider generic vectors
  // than the registers would go through memory.
  static constexpr int PIECE = HD < LANES ? HD : LANES;
  static constexpr int PIECES = HD / PIECE;
  using Lanes = FloatLanes<LANES>;
  using Piece = FloatLanes<PIECE>;

  alignas(64) float q2[T][W];
  alignas(64) float k2t[W][TP];  // transposed: a row of logits is a sum of scaled key rows
  alignas(64) float values[T][HD];
  alignas(64) float p[ROWS][TP];
  MaskOf<Lanes> on_board;  // the lanes of the last vector of a row that are tokens

  AttentionHead() {
    for (auto& row : k2t) std::fill(row + T, row + TP, 0.0f);  // padding logits stay finite
    alignas(64) float lane[LANES];
    for (int k = 0; k < LANES; ++k) lane[k] = static_cast<float>(TP - LANES + k);
    on_board = load_lanes<Lanes>(lane) < static_cast<float>(T);
  }

  // Components [c, c + PIECE) of a row of projections, in float32.
  template <typename In>
  static POPUCOM_VECTOR_INLINE Piece load_piece(const In* x) {
    alignas(64) float piece[PIECE];
    for (int k = 0; k < PIECE; ++k) piece[k] = to_float(x[k]);
    return load_lanes<Piece>(piece);
  }

  // q2 (or k2, transposed) of one head: softplus magnitudes times the [cos, sin] tables.
  template <typename In>
  void build(const In* x, std::size_t stride, const float* table, bool keys) {
    for (int i = 0; i < T; ++i) {
      const float* cs = table + i * W;
      for (int c = 0; c < HD; c += PIECE) {
        const Piece magnitude = softplus_lanes<Piece>(load_piece(x + i * stride + c));
        const Piece cos = magnitude * load_lanes<Piece>(cs + c), sin = magnitude * load_lanes<Piece>(cs + HD + c);
        if (keys) {
          for (int k = 0; k < PIECE; ++k) {
            k2t[c + k][i] = cos[k];
            k2t[HD + c + k][i] = sin[k];
          }
        } else {
          store_lanes<Piece>(q2[i] + c, cos);
          store_lanes<Piece>(q2[i] + HD + c, sin);
        }
      }
    }
  }

  // The head's values, contiguous and in float32 for rows().
  template <typename In>
  void load_values(const In* v0, std::size_t stride) {
    for (int j = 0; j < T; ++j)
      for (int c = 0; c < HD; c += PIECE) store_lanes<Piece>(values[j] + c, load_piece(v0 + j * stride + c));
  }

  // A row of logits to its softmax numerators exp(logit - max), in place, 0 past the board;
  // returns the reciprocal of their sum.
  POPUCOM_VECTOR_INLINE float exponentiate(float* row) const {
    constexpr int LAST = TP - LANES;
    const Lanes lowest = splat<Lanes>(std::numeric_limits<float>::lowest());
    Lanes top = select<Lanes>(on_board, load_lanes<Lanes>(row + LAST), lowest);
    for (int j = 0; j < LAST; j += LANES) top = max_lanes<Lanes>(top, load_lanes<Lanes>(row + j));
    const float largest = max_of_lanes<Lanes>(top);
    Lanes sum{};
    for (int j = 0; j < TP; j += LANES) {
      Lanes e = exp_nonpositive<Lanes>(load_lanes<Lanes>(row + j) - largest);
      if (j == LAST) e = select<Lanes>(on_board, e, Lanes{});
      store_lanes<Lanes>(row + j, e);
      sum += e;
    }
    return 1.0f / sum_lanes<Lanes>(sum);
  }

  // Output rows i0 .. i0 + R - 1 of one head into o (row stride d); R rows at once share
  // every key and value load.
  // The logits of rows i0 .. i0 + R - 1 for keys jb .. jb + C * LANES - 1: R x C
  // independent sums cover the multiply-adds' latency.
  template <int R, int C>
  POPUCOM_VECTOR_INLINE void logits(int i0, int jb) {
    Lanes acc[R][C] = {};
    for (int c = 0; c < W; ++c) {
      Lanes k[C];
      for (int b = 0; b < C; ++b) k[b] = load_lanes<Lanes>(&k2t[c][jb + b * LANES]);
      for (int r = 0; r < R; ++r)
        for (int b = 0; b < C; ++b) acc[r][b] += q2[i0 + r][c] * k[b];
    }
    for (int r = 0; r < R; ++r)
      for (int b = 0; b < C; ++b) store_lanes<Lanes>(&p[r][jb + b * LANES], acc[r][b]);
  }

  template <int R, typename Out>
  void rows(int i0, Out* o, int d) {
    int jb = 0;
    for (; jb + 2 * LANES <= TP; jb += 2 * LANES) logits<R, 2>(i0, jb);
    for (; jb < TP; jb += LANES) logits<R, 1>(i0, jb);
    float inv[R];
    for (int r = 0; r < R; ++r) inv[r] = exponentiate(p[r]);
    Piece y[R][PIECES] = {};
    for (int j = 0; j < T; ++j)
      for (int b = 0; b < PIECES; ++b) {
        const Piece v = load_lanes<Piece>(values[j] + b * PIECE);
        for (int r = 0; r < R; ++r) y[r][b] += p[r][j] * v;
      }
    for (int r = 0; r < R; ++r) {
      alignas(64) float scaled[HD];
      for (int b = 0; b < PIECES; ++b) store_lanes<Piece>(scaled + b * PIECE, y[r][b] * inv[r]);
      Out* row = o + (i0 + r) * d;
      for (int c = 0; c < HD; ++c) store(row[c], scaled[c]);
    }
  }
};

template <int HD, int LANES, typename Act>
void attend_heads(const Act* qkv, const float* tables, std::size_t batch, int heads, Act* out) {
  AttentionHead<HD, LANES> head;
  attend_each_head<HD>(head, qkv, tables, batch, heads, out);
}

// pope_attention() on vectors of LANES floats.
template <int LANES, typename Act>
void pope_attention_with(const Act* qkv, const float* tables, std::size_t batch, int heads, int head_dim, Act* out) {
  switch (head_dim) {  // the cases of POPE_HEAD_DIMS
    case 8: return attend_heads<8, LANES>(qkv, tables, batch, heads, out);
    case 16: return attend_heads<16, LANES>(qkv, tables, batch, heads, out);
    case 32: return attend_heads<32, LANES>(qkv, tables, batch, heads, out);
    default:
      throw std::invalid_argument("pope_attention: head_dim " + std::to_string(head_dim) + " is not compiled in");
  }
}

}  // namespace
}  // namespace nn
}  // namespace popucom

#endif  // POPUCOM_NN_POPE_ATTENTION_HEAD_H_
