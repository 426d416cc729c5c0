// Token-wise maps of manifold-constrained hyper-connections (mHC) for CPU
// inference, fused: torch runs the read and the write as n + n*(n+1) separate
// passes over the (tokens, d) activations and Sinkhorn as 4*iters passes over
// tiny tensors, which made the mHC net far slower than the same net without it
// (docs/benchmarks.md, "Design notes behind the figures"). Here each token's
// maps are computed in registers and the stream state is read once per pass.
// The maths is popucom/nn/layers.py's HyperConnection, which stays the
// reference (training and export use it).
#ifndef POPUCOM_NN_HYPER_CONNECTION_H_
#define POPUCOM_NN_HYPER_CONNECTION_H_

#include <cstddef>

namespace popucom {
namespace nn {

// Largest number of residual streams the fused kernels accept.
constexpr int MAX_STREAMS = 8;

// Layouts (row-major, float32): `maps` is (2n + n*n, tokens), the projected
// and biased map logits, rows [pre (n), post (n), res (n*n, row j then column
// k)]; `streams` is (tokens, n, d); `branch_out` is (tokens, d).

// read[t, :] = sum_k sigmoid(pre[k, t]) * streams[t, k, :]
void mhc_read(const float* maps, const float* streams, std::size_t tokens, int n, int d, float* read);

// mixed[t, j, :] = 2 sigmoid(post[j, t]) * branch_out[t, :] + sum_k R_t[j, k] * streams[t, k, :]
// where R_t = Sinkhorn(exp(res[:, :, t] - max), iters): `iters` rounds of
// dividing by column sums, then by row sums (layers.sinkhorn_leading).
// Unless null, sum_squares[t] = sum of mixed[t, :, :]^2, (tokens): the next
// sub-layer's mHC norm, computed while the token is in registers.
void mhc_write(const float* maps, const float* streams, const float* branch_out, std::size_t tokens, int n, int d,
               int iters, float* mixed, float* sum_squares = nullptr);

}  // namespace nn
}  // namespace popucom

#endif  // POPUCOM_NN_HYPER_CONNECTION_H_
