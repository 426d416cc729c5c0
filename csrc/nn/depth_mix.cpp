#include "depth_mix.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "per_isa.h"

namespace popucom {
namespace nn {

namespace {

float inverse_rms(const float* x, int d, float eps) {
  float total = 0.0f;
  for (int c = 0; c < d; ++c) total += x[c] * x[c];
  return 1.0f / std::sqrt(total / static_cast<float>(d) + eps);
}

template <typename Out>
void mix_normalized(const float* sources, const float* scores, int count, std::size_t tokens, int d, int mixes,
                    int index, float eps, Out* out) {
  float weight[MAX_DEPTH_SOURCES];
  std::vector<float> row(static_cast<std::size_t>(d));
  float* o = row.data();
  const std::size_t source_stride = tokens * static_cast<std::size_t>(d);
  const std::size_t score_stride = tokens * static_cast<std::size_t>(mixes);
  for (std::size_t t = 0; t < tokens; ++t) {
    // No -infinity start: the file is built with -ffast-math, which assumes finite values.
    float top = scores[t * mixes + index];
    for (int j = 0; j < count; ++j) {
      weight[j] = scores[j * score_stride + t * mixes + index];
      top = std::max(top, weight[j]);
    }
    float total = 0.0f;
    for (int j = 0; j < count; ++j) {
      weight[j] = std::exp(weight[j] - top);
      total += weight[j];
    }
    const float inverse_total = 1.0f / total;
    const float* first = sources + t * static_cast<std::size_t>(d);
    const float w0 = weight[0] * inverse_total;
    for (int c = 0; c < d; ++c) o[c] = w0 * first[c];
    for (int j = 1; j < count; ++j) {
      const float w = weight[j] * inverse_total;
      const float* s = first + j * source_stride;
      for (int c = 0; c < d; ++c) o[c] += w * s[c];
    }
    const float scale = inverse_rms(o, d, eps);
    Out* target = out + t * static_cast<std::size_t>(d);
    for (int c = 0; c < d; ++c) store(target[c], o[c] * scale);
  }
}

}  // namespace

POPUCOM_PER_ISA
void depth_mix_normalized(const float* sources, const float* scores, int count, std::size_t tokens, int d, int mixes,
                          int index, float eps, float* out) {
  mix_normalized(sources, scores, count, tokens, d, mixes, index, eps, out);
}

POPUCOM_PER_ISA
void depth_mix_normalized(const float* sources, const float* scores, int count, std::size_t tokens, int d, int mixes,
                          int index, float eps, Bf16* out) {
  mix_normalized(sources, scores, count, tokens, d, mixes, index, eps, out);
}

POPUCOM_PER_ISA
void depth_score(const float* source, const float* queries, std::size_t tokens, int d, int mixes, float eps,
                 float* scores) {
  for (std::size_t t = 0; t < tokens; ++t) {
    const float* x = source + t * static_cast<std::size_t>(d);
    const float scale = inverse_rms(x, d, eps);
    for (int k = 0; k < mixes; ++k) {
      const float* q = queries + static_cast<std::size_t>(k) * d;
      float dot = 0.0f;
      for (int c = 0; c < d; ++c) dot += x[c] * q[c];
      scores[t * mixes + k] = scale * dot;
    }
  }
}

}  // namespace nn
}  // namespace popucom
