#include "hyper_connection.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "per_isa.h"

namespace popucom {
namespace nn {

namespace {

// Tokens whose maps are computed together: the sigmoid and Sinkhorn loops run
// across a block's tokens, which the compiler vectorises; one token's 4x4 map
// alone is too small for that and took most of the write's time
// (docs/benchmarks.md, "Design notes behind the figures").
constexpr int BLOCK = 32;

// scale * sigmoid of rows [0, rows) of `logits` (rows of `tokens`) for tokens
// [t0, t0 + count), into out[i * BLOCK + b].
void sigmoid_block(const float* logits, std::size_t tokens, std::size_t t0, int count, int rows, float scale,
                   float* out) {
  for (int i = 0; i < rows; ++i) {
    const float* row = logits + static_cast<std::size_t>(i) * tokens + t0;
    for (int b = 0; b < count; ++b) out[i * BLOCK + b] = scale / (1.0f + std::exp(-row[b]));
  }
}

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

// The per-token passes, with the stream count N and width D compiled in where
// they are known (0: the runtime n, d): the loops over streams then unroll and
// each output value is formed in registers and stored once.
template <int N, int D>
void read_block(const float* pre, const float* streams, std::size_t t0, int count, int n_, int d_, float* read) {
  const int n = N ? N : n_;
  const int d = D ? D : d_;
  for (int b = 0; b < count; ++b) {
    const std::size_t t = t0 + b;
    const float* s = streams + t * static_cast<std::size_t>(n) * d;
    float* out = read + t * static_cast<std::size_t>(d);
    float w[MAX_STREAMS];
    for (int k = 0; k < n; ++k) w[k] = pre[k * BLOCK + b];
    for (int c = 0; c < d; ++c) {
      float v = w[0] * s[c];
      for (int k = 1; k < n; ++k) v += w[k] * s[static_cast<std::size_t>(k) * d + c];
      out[c] = v;
    }
  }
}

template <int N, int D>
void write_block(const float* post, const float* r, const float* streams, const float* branch_out, std::size_t t0,
                 int count, int n_, int d_, float* mixed, float* sum_squares) {
  const int n = N ? N : n_;
  const int d = D ? D : d_;
  for (int b = 0; b < count; ++b) {
    const std::size_t t = t0 + b;
    const float* s = streams + t * static_cast<std::size_t>(n) * d;
    const float* out = branch_out + t * static_cast<std::size_t>(d);
    float* m = mixed + t * static_cast<std::size_t>(n) * d;
    float total = 0.0f;  // the token is in registers: the next norm's sum costs no pass over memory
    for (int j = 0; j < n; ++j) {
      float w[MAX_STREAMS];
      for (int k = 0; k < n; ++k) w[k] = r[(j * n + k) * BLOCK + b];
      const float gate = post[j * BLOCK + b];
      float* mj = m + static_cast<std::size_t>(j) * d;
      for (int c = 0; c < d; ++c) {
        float v = gate * out[c];
        for (int k = 0; k < n; ++k) v += w[k] * s[static_cast<std::size_t>(k) * d + c];
        mj[c] = v;
        total += v * v;
      }
    }
    if (sum_squares != nullptr) sum_squares[t] = total;
  }
}

// Calls kernel(N, D) with the shapes of the presets compiled in as
// std::integral_constant (4 streams of width 32 to 192), else with 0, 0 (the
// runtime shape).
template <typename Kernel>
void with_compiled_shape(int n, int d, Kernel&& kernel) {
  using std::integral_constant;
  if (n == 4) {
    switch (d) {
      case 32: return kernel(integral_constant<int, 4>{}, integral_constant<int, 32>{});
      case 64: return kernel(integral_constant<int, 4>{}, integral_constant<int, 64>{});
      case 96: return kernel(integral_constant<int, 4>{}, integral_constant<int, 96>{});
      case 128: return kernel(integral_constant<int, 4>{}, integral_constant<int, 128>{});
      case 192: return kernel(integral_constant<int, 4>{}, integral_constant<int, 192>{});
      default: break;
    }
  }
  kernel(integral_constant<int, 0>{}, integral_constant<int, 0>{});
}

}  // namespace

POPUCOM_PER_ISA
void mhc_read(const float* maps, const float* streams, std::size_t tokens, int n, int d, float* read) {
  float pre[MAX_STREAMS * BLOCK];
  with_compiled_shape(n, d, [&](auto N, auto D) {
    for (std::size_t t0 = 0; t0 < tokens; t0 += BLOCK) {
      const int count = static_cast<int>(std::min<std::size_t>(BLOCK, tokens - t0));
      sigmoid_block(maps, tokens, t0, count, n, 1.0f, pre);
      read_block<N(), D()>(pre, streams, t0, count, n, d, read);
    }
  });
}

POPUCOM_PER_ISA
void mhc_write(const float* maps, const float* streams, const float* branch_out, std::size_t tokens, int n, int d,
               int iters, float* mixed, float* sum_squares) {
  float post[MAX_STREAMS * BLOCK];
  float r[MAX_STREAMS * MAX_STREAMS * BLOCK];
  const float* post_logits = maps + static_cast<std::size_t>(n) * tokens;
  const float* res_logits = maps + static_cast<std::size_t>(2 * n) * tokens;
  with_compiled_shape(n, d, [&](auto N, auto D) {
    for (std::size_t t0 = 0; t0 < tokens; t0 += BLOCK) {
      const int count = static_cast<int>(std::min<std::size_t>(BLOCK, tokens - t0));
      sigmoid_block(post_logits, tokens, t0, count, n, 2.0f, post);
      sinkhorn_block(res_logits, tokens, t0, count, n, iters, r);
      write_block<N(), D()>(post, r, streams, branch_out, t0, count, n, d, mixed, sum_squares);
    }
  });
}

}  // namespace nn
}  // namespace popucom
