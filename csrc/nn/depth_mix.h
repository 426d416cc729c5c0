// Full attention residuals (popucom/nn/layers.py's DepthMixer) for CPU
// inference, fused per token: each sub-layer's input is a softmax mix over the
// earlier sources, RMS-normalised. Torch ran the mix as one multiply and one
// add per source over the (tokens, d) activations, then a separate norm, and
// scored each new source with a norm and a small matrix product: about a
// quarter of a forward of the small net at d = 64. Here a token's sources are
// mixed and normalised while its row is in registers. layers.py stays the
// reference (training and export use it).
#ifndef POPUCOM_NN_DEPTH_MIX_H_
#define POPUCOM_NN_DEPTH_MIX_H_

#include <cstddef>

#include "bf16.h"

namespace popucom {
namespace nn {

// Largest number of depth sources (embedding + sub-layer outputs) the kernel accepts.
constexpr int MAX_DEPTH_SOURCES = 64;

// Layouts (row-major, float32): `sources` is (count, tokens, d), `scores` is
// (count, tokens, mixes), each source's key scored against every pseudo-query.
// out[t, :] = rms_normalize(sum_j softmax_j(scores[j, t, index]) * sources[j, t, :])
// where rms_normalize(x) = x / sqrt(mean(x^2) + eps).
void depth_mix_normalized(const float* sources, const float* scores, int count, std::size_t tokens, int d, int mixes,
                          int index, float eps, float* out);

// The same written in bf16: the mix is a sub-layer's input, which goes into a bf16
// matrix product on CPUs that have them.
void depth_mix_normalized(const float* sources, const float* scores, int count, std::size_t tokens, int d, int mixes,
                          int index, float eps, Bf16* out);

// scores[t, k] = rms_normalize(source[t, :]) . queries[k, :], with `source`
// (tokens, d), `queries` (mixes, d) and `scores` (tokens, mixes).
void depth_score(const float* source, const float* queries, std::size_t tokens, int d, int mixes, float eps,
                 float* scores);

}  // namespace nn
}  // namespace popucom

#endif  // POPUCOM_NN_DEPTH_MIX_H_
