#include "hyper_connection.h"

#include <algorithm>
#include <cmath>

#include "per_isa.h"

namespace popucom {
namespace nn {

namespace {

float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

// Tokens whose residual maps are normalised together: the Sinkhorn loops run
// across a block's tokens, which the compiler vectorises; one token's 4x4 map
// alone is too small for that and was 60% of the write's time.
constexpr int BLOCK = 32;

// The residual maps of tokens [t0, t0 + count), made (nearly) doubly
// stochastic in the order of layers.sinkhorn_leading (which divides where this
// multiplies by the reciprocal sum: equal to within an ulp per step), into
// r[(j * n + k) * BLOCK + b].
void sinkhorn_block(const float* res, std::size_t tokens, std::size_t t0, int count, int n, int iters, float* r) {
  float top[BLOCK], sum[BLOCK];
  const int cells = n * n;
  for (int b = 0; b < count; ++b) top[b] = res[t0 + b];
  for (int i = 1; i < cells; ++i) {
    const float* row = res + static_cast<std::size_t>(i) * tokens + t0;
    for (int b = 0; b < count; ++b) top[b] = std::max(top[b], row[b]);
  }
  for (int i = 0; i < cells; ++i) {
    const float* row = res + static_cast<std::size_t>(i) * tokens + t0;
    for (int b = 0; b < count; ++b) r[i * BLOCK + b] = std::exp(row[b] - top[b]);
  }
  for (int it = 0; it < iters; ++it) {
    for (int k = 0; k < n; ++k) {  // columns: sum over j
      for (int b = 0; b < count; ++b) sum[b] = 0.0f;
      for (int j = 0; j < n; ++j)
        for (int b = 0; b < count; ++b) sum[b] += r[(j * n + k) * BLOCK + b];
      for (int b = 0; b < count; ++b) sum[b] = 1.0f / sum[b];  // one division per sum, not per entry
      for (int j = 0; j < n; ++j)
        for (int b = 0; b < count; ++b) r[(j * n + k) * BLOCK + b] *= sum[b];
    }
    for (int j = 0; j < n; ++j) {  // rows: sum over k
      for (int b = 0; b < count; ++b) sum[b] = 0.0f;
      for (int k = 0; k < n; ++k)
        for (int b = 0; b < count; ++b) sum[b] += r[(j * n + k) * BLOCK + b];
      for (int b = 0; b < count; ++b) sum[b] = 1.0f / sum[b];
      for (int k = 0; k < n; ++k)
        for (int b = 0; b < count; ++b) r[(j * n + k) * BLOCK + b] *= sum[b];
    }
  }
}

}  // namespace

POPUCOM_PER_ISA
void mhc_read(const float* maps, const float* streams, std::size_t tokens, int n, int d, float* read) {
  float pre[MAX_STREAMS];
  for (std::size_t t = 0; t < tokens; ++t) {
    for (int k = 0; k < n; ++k) pre[k] = sigmoid(maps[static_cast<std::size_t>(k) * tokens + t]);
    const float* s = streams + t * static_cast<std::size_t>(n) * d;
    float* out = read + t * static_cast<std::size_t>(d);
    for (int c = 0; c < d; ++c) out[c] = pre[0] * s[c];
    for (int k = 1; k < n; ++k) {
      const float* sk = s + static_cast<std::size_t>(k) * d;
      for (int c = 0; c < d; ++c) out[c] += pre[k] * sk[c];
    }
  }
}

POPUCOM_PER_ISA
void mhc_write(const float* maps, const float* streams, const float* branch_out, std::size_t tokens, int n, int d,
               int iters, float* mixed, float* sum_squares) {
  float post[MAX_STREAMS];
  float r[MAX_STREAMS * MAX_STREAMS * BLOCK];
  const float* post_logits = maps + static_cast<std::size_t>(n) * tokens;
  const float* res_logits = maps + static_cast<std::size_t>(2 * n) * tokens;
  for (std::size_t t0 = 0; t0 < tokens; t0 += BLOCK) {
    const int count = static_cast<int>(std::min<std::size_t>(BLOCK, tokens - t0));
    sinkhorn_block(res_logits, tokens, t0, count, n, iters, r);
    for (int b = 0; b < count; ++b) {
      const std::size_t t = t0 + b;
      for (int j = 0; j < n; ++j) post[j] = 2.0f * sigmoid(post_logits[static_cast<std::size_t>(j) * tokens + t]);
      const float* s = streams + t * static_cast<std::size_t>(n) * d;
      const float* out = branch_out + t * static_cast<std::size_t>(d);
      float* m = mixed + t * static_cast<std::size_t>(n) * d;
      for (int j = 0; j < n; ++j) {
        float* mj = m + static_cast<std::size_t>(j) * d;
        for (int c = 0; c < d; ++c) mj[c] = post[j] * out[c];
        for (int k = 0; k < n; ++k) {
          const float w = r[(j * n + k) * BLOCK + b];
          const float* sk = s + static_cast<std::size_t>(k) * d;
          for (int c = 0; c < d; ++c) mj[c] += w * sk[c];
        }
      }
      if (sum_squares != nullptr) {  // the token is still in L1: the next norm costs no pass over memory
        float total = 0.0f;
        for (int c = 0; c < n * d; ++c) total += m[c] * m[c];
        sum_squares[t] = total;
      }
    }
  }
}

}  // namespace nn
}  // namespace popucom
