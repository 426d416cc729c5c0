// The attention core of popucom/nn/layers.py's PoPEAttention for CPU inference,
// fused per (position, head) with everything in L1: softplus magnitudes times
// the PoPE phase tables, the 81x81 logits, their softmax and the weighted sum
// of values. Torch runs these as a 6-D broadcast multiply and a flash-attention
// kernel that needs v padded to the width of q and k, a large share of a
// forward (docs/benchmarks.md, "Design notes behind the figures"). layers.py
// stays the reference (training and export use it).
#ifndef POPUCOM_NN_POPE_ATTENTION_H_
#define POPUCOM_NN_POPE_ATTENTION_H_

#include <cstddef>

#include "../game/constants.h"
#include "bf16.h"

namespace popucom {
namespace nn {

// The head widths the kernel is compiled for (anything else runs in torch).
constexpr int POPE_HEAD_DIMS[] = {8, 16, 32};

bool pope_attention_supports(int head_dim);

// Layouts (row-major, float32), tokens = NUM_SQUARES, d = heads * head_dim:
//   qkv     (batch, tokens, 3d): the q, k and v projections, q and k before softplus;
//   tables  (2, heads, tokens, 2, head_dim): [query, key] x [cos, sin] phase tables,
//           the query side scaled by the attention scale;
//   out     (batch, tokens, d): head h's output in columns [h * head_dim, (h + 1) * head_dim).
// out[b, i, h] = sum_j softmax_j(q2[i] . k2[j]) v[j, h] where
// q2[i] = softplus(q[b, i, h]) * (tables[0, h, i, 0], tables[0, h, i, 1]) and k2 likewise.
// head_dim must be one of POPE_HEAD_DIMS (else std::invalid_argument). It runs
// on the calling thread: the torch evaluator splits self-play batches over
// threads itself (popucom/infer/torch_backend.py).
void pope_attention(const float* qkv, const float* tables, std::size_t batch, int heads, int head_dim, float* out);

// The same with the projections read and the output written in bf16 (the operand type of
// the matrix products around it); the arithmetic in between stays float32.
void pope_attention(const Bf16* qkv, const float* tables, std::size_t batch, int heads, int head_dim, Bf16* out);

// Whether pope_attention_bf16_dots serves this head width on this CPU: one with AVX512-BF16
// (the build has the kernel on GCC for x86-64 Linux) and a head width that is a multiple of 16.
bool pope_attention_bf16_dots_apply(int head_dim);

// The bf16 overload with the logits q2 . k2 and the value sums p . v taken as bf16 dot
// products into float32 sums (pope_attention_dots.cpp): q2, k2 and the softmax weights are
// rounded to bf16 for them, at half the multiply-adds. Returns false, writing nothing, where
// pope_attention_bf16_dots_apply(head_dim) is false.
bool pope_attention_bf16_dots(const Bf16* qkv, const float* tables, std::size_t batch, int heads, int head_dim,
                              Bf16* out);

}  // namespace nn
}  // namespace popucom

#endif  // POPUCOM_NN_POPE_ATTENTION_H_
