#include "native_net.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "../game/constants.h"
#include "depth_mix.h"
#include "isa_kernels.h"
#include "pope_attention.h"

namespace popucom {
namespace nn {

namespace {

constexpr int T = NUM_SQUARES;
constexpr int TOKEN_OUTPUTS = 3;  // policy, soft policy, ownership
constexpr int WDL = 3;

void check_size(const std::vector<float>& values, std::size_t want, const std::string& name) {
  if (values.size() != want)
    throw std::invalid_argument("native net: " + name + " has " + std::to_string(values.size()) + " values, want " +
                                std::to_string(want));
}

float dot(const float* a, const float* b, int n) {
  float total = 0.0f;
  for (int i = 0; i < n; ++i) total += a[i] * b[i];
  return total;
}

// GELU with the exact erf, as torch's nn.GELU().
float gelu(float x) { return 0.5f * x * std::erfc(-x * 0.70710678f); }

// out = gelu(weight . x + bias), weight (outputs, inputs).
void dense_gelu(const std::vector<float>& weight, const std::vector<float>& bias, const float* x, int inputs,
                float* out) {
  for (std::size_t o = 0; o < bias.size(); ++o) out[o] = gelu(bias[o] + dot(weight.data() + o * inputs, x, inputs));
}

// One thread's activations for a piece of the batch, kept between calls and grown as needed.
template <typename Act>
struct Buffers {
  std::vector<float> sources, scores, trunk;
  std::vector<Act> mixed, qkv, attended, hidden;
};

// The attention core in the activations' precision: bf16 dot products on bf16 projections.
void attend(const Bf16* qkv, const float* tables, std::size_t positions, int heads, int head_dim, Bf16* out) {
  pope_attention_bf16_dots(qkv, tables, positions, heads, head_dim, out);
}

void attend(const float* qkv, const float* tables, std::size_t positions, int heads, int head_dim, float* out) {
  pope_attention(qkv, tables, positions, heads, head_dim, out);
}

template <typename V>
auto* sized(V& buffer, std::size_t size) {
  if (buffer.size() < size) buffer.resize(size);
  return buffer.data();
}

}  // namespace

bool NativeNet::supported(int head_dim, bool bf16) {
  return bf16 ? cpu_has_avx512_bf16() && pope_attention_bf16_dots_apply(head_dim) : pope_attention_supports(head_dim);
}

NativeNet::NativeNet(const NativeNetWeights& weights, int threads, int piece_positions, bool bf16)
    : w_(weights), bf16_(bf16), piece_(piece_positions), pool_(std::max(1, threads)) {
  const NativeNetShape& s = w_.shape;
  if (threads < 1) throw std::invalid_argument("native net: threads must be at least 1");
  if (piece_positions < 1) throw std::invalid_argument("native net: piece_positions must be at least 1");
  if (s.planes < 1 || s.d < 1 || s.layers < 1 || s.heads < 1 || s.d % s.heads != 0 || s.mlp_hidden < 1 ||
      s.head_hidden < 1 || s.legal_plane < 0 || s.legal_plane >= s.planes)
    throw std::invalid_argument("native net: inconsistent shape (width " + std::to_string(s.d) + ", " +
                                std::to_string(s.heads) + " heads, " + std::to_string(s.layers) + " layers)");
  const int head_dim = s.d / s.heads;
  if (!supported(head_dim, bf16))
    throw std::logic_error(std::string("native net: this CPU or build has no ") + (bf16 ? "AVX512-BF16 " : "") +
                           "kernels for heads of width " + std::to_string(head_dim));
  const std::size_t d = s.d, sources = 2 * s.layers + 1, hh = s.head_hidden;
  if (sources > static_cast<std::size_t>(MAX_DEPTH_SOURCES))
    throw std::invalid_argument("native net: too many layers for the depth mixes");
  check_size(w_.embed_weight, d * s.planes, "embed_weight");
  check_size(w_.embed_bias, d, "embed_bias");
  check_size(w_.cell_embedding, T * d, "cell_embedding");
  check_size(w_.depth_queries, sources * d, "depth_queries");
  check_size(w_.norm_eps, sources, "norm_eps");
  if (w_.layer.size() != static_cast<std::size_t>(s.layers))
    throw std::invalid_argument("native net: " + std::to_string(w_.layer.size()) + " layers of weights for " +
                                std::to_string(s.layers));
  for (std::size_t l = 0; l < w_.layer.size(); ++l) {
    const NativeNetWeights::Layer& layer = w_.layer[l];
    const std::string at = "layer " + std::to_string(l) + " ";
    check_size(layer.qkv, 3 * d * d, at + "qkv");
    check_size(layer.out, d * d, at + "out");
    check_size(layer.tables, 2 * s.heads * T * 2 * head_dim, at + "tables");
    check_size(layer.up, s.mlp_hidden * d, at + "up");
    check_size(layer.down, d * s.mlp_hidden, at + "down");
    qkv_.push_back(pack_matrix(layer.qkv.data(), 3 * s.d, s.d, bf16));
    out_.push_back(pack_matrix(layer.out.data(), s.d, s.d, bf16));
    up_.push_back(pack_matrix(layer.up.data(), s.mlp_hidden, s.d, bf16));
    down_.push_back(pack_matrix(layer.down.data(), s.d, s.mlp_hidden, bf16));
  }
  check_size(w_.token_weight, TOKEN_OUTPUTS * d, "token_weight");
  check_size(w_.token_bias, TOKEN_OUTPUTS, "token_bias");
  check_size(w_.value_weight1, hh * d, "value_weight1");
  check_size(w_.value_bias1, hh, "value_bias1");
  check_size(w_.value_weight2, WDL * hh, "value_weight2");
  check_size(w_.value_bias2, WDL, "value_bias2");
  check_size(w_.score_weight1, hh * d, "score_weight1");
  check_size(w_.score_bias1, hh, "score_bias1");
  check_size(w_.score_weight2, hh, "score_weight2");
  check_size(w_.score_bias2, 1, "score_bias2");
  if (w_.has_value_error()) {
    check_size(w_.value_error_weight1, hh * d, "value_error_weight1");
    check_size(w_.value_error_bias1, hh, "value_error_bias1");
    check_size(w_.value_error_weight2, hh, "value_error_weight2");
    check_size(w_.value_error_bias2, 1, "value_error_bias2");
  }
  embed_by_plane_.resize(s.planes * d);
  for (int p = 0; p < s.planes; ++p)
    for (std::size_t c = 0; c < d; ++c) embed_by_plane_[p * d + c] = w_.embed_weight[c * s.planes + p];
}

void NativeNet::forward(const float* features, std::size_t positions, const NativeNetOutputs& out) {
  if (positions == 0) return;
  std::lock_guard<std::mutex> lock(calls_);
  // Pieces of at most piece_ positions, a whole number of them per thread where the batch allows.
  const auto threads = static_cast<std::size_t>(pool_.size());
  std::size_t pieces = (positions + piece_ - 1) / piece_;
  pieces = pieces < threads ? std::min(positions, threads) : (pieces + threads - 1) / threads * threads;
  const std::size_t planes = w_.shape.planes;
  pool_.run(static_cast<int>(pieces), [&](int i) {
    const std::size_t begin = positions * i / pieces, end = positions * (i + 1) / pieces;
    if (begin == end) return;
    const NativeNetOutputs part{out.policy + begin * T, out.wdl + begin * WDL, out.score + begin,
                                out.ownership + begin * T, out.value_error ? out.value_error + begin : nullptr};
    if (bf16_)
      forward_piece<Bf16>(features + begin * planes * T, end - begin, part);
    else
      forward_piece<float>(features + begin * planes * T, end - begin, part);
  });
}

template <typename Act>
void NativeNet::forward_piece(const float* features, std::size_t positions, const NativeNetOutputs& out) const {
  thread_local Buffers<Act> buffers;
  const NativeNetShape& s = w_.shape;
  const int d = s.d, count = 2 * s.layers + 1;
  const std::size_t tokens = positions * T, source_size = tokens * d, score_size = tokens * count;
  float* sources = sized(buffers.sources, count * source_size);
  float* scores = sized(buffers.scores, count * score_size);
  Act* mixed = sized(buffers.mixed, source_size);
  Act* qkv = sized(buffers.qkv, 3 * source_size);
  Act* attended = sized(buffers.attended, source_size);
  Act* hidden = sized(buffers.hidden, tokens * s.mlp_hidden);
  const float* queries = w_.depth_queries.data();

  embed(features, positions, sources);
  depth_score(sources, queries, tokens, d, count, w_.score_eps, scores);
  for (int i = 0; i + 1 < count; ++i) {
    depth_mix_normalized(sources, scores, i + 1, tokens, d, count, i, w_.norm_eps[i], mixed);
    float* output = sources + (i + 1) * source_size;
    const int l = i / 2;
    if (i % 2 == 0) {
      product(mixed, tokens, qkv_[l], ProductOutput::kActivation, qkv);
      attend(qkv, w_.layer[l].tables.data(), positions, s.heads, d / s.heads, attended);
      product(attended, tokens, out_[l], ProductOutput::kFloat, output);
    } else {
      product(mixed, tokens, up_[l], ProductOutput::kGeluActivation, hidden);
      product(hidden, tokens, down_[l], ProductOutput::kFloat, output);
    }
    depth_score(output, queries, tokens, d, count, w_.score_eps, scores + (i + 1) * score_size);
  }
  float* trunk = sized(buffers.trunk, source_size);
  depth_mix_normalized(sources, scores, count, tokens, d, count, count - 1, w_.norm_eps[count - 1], trunk);
  heads(features, trunk, positions, out);
}

void NativeNet::embed(const float* features, std::size_t positions, float* h0) const {
  const int d = w_.shape.d, planes = w_.shape.planes;
  for (std::size_t b = 0; b < positions; ++b) {
    const float* f = features + b * planes * T;
    for (int t = 0; t < T; ++t) {
      float* row = h0 + (b * T + t) * d;
      const float* cell = w_.cell_embedding.data() + t * d;
      for (int c = 0; c < d; ++c) row[c] = w_.embed_bias[c] + cell[c];
      for (int p = 0; p < planes; ++p) {
        const float value = f[p * T + t];
        if (value == 0.0f) continue;  // most planes are 0/1 masks
        const float* column = embed_by_plane_.data() + p * d;
        for (int c = 0; c < d; ++c) row[c] += value * column[c];
      }
    }
  }
}

void NativeNet::heads(const float* features, const float* trunk, std::size_t positions,
                      const NativeNetOutputs& out) const {
  const NativeNetShape& s = w_.shape;
  const int d = s.d, hh = s.head_hidden;
  std::vector<float> pooled(d), hidden(hh);
  for (std::size_t b = 0; b < positions; ++b) {
    const float* legal = features + (b * s.planes + s.legal_plane) * T;
    std::fill(pooled.begin(), pooled.end(), 0.0f);
    for (int t = 0; t < T; ++t) {
      const float* row = trunk + (b * T + t) * d;
      const float policy = w_.token_bias[0] + dot(w_.token_weight.data(), row, d);
      const float ownership = w_.token_bias[2] + dot(w_.token_weight.data() + 2 * d, row, d);
      out.policy[b * T + t] = legal[t] < 0.5f ? w_.masked_logit : policy;
      out.ownership[b * T + t] = std::tanh(ownership);
      for (int c = 0; c < d; ++c) pooled[c] += row[c];
    }
    for (float& p : pooled) p /= T;

    dense_gelu(w_.value_weight1, w_.value_bias1, pooled.data(), d, hidden.data());
    float logits[WDL], top = -INFINITY, total = 0.0f;
    for (int k = 0; k < WDL; ++k) {
      logits[k] = w_.value_bias2[k] + dot(w_.value_weight2.data() + k * hh, hidden.data(), hh);
      top = std::max(top, logits[k]);
    }
    for (float& l : logits) total += (l = std::exp(l - top));
    for (int k = 0; k < WDL; ++k) out.wdl[b * WDL + k] = logits[k] / total;

    dense_gelu(w_.score_weight1, w_.score_bias1, pooled.data(), d, hidden.data());
    out.score[b] = (w_.score_bias2[0] + dot(w_.score_weight2.data(), hidden.data(), hh)) * w_.score_scale;

    if (out.value_error && w_.has_value_error()) {
      dense_gelu(w_.value_error_weight1, w_.value_error_bias1, pooled.data(), d, hidden.data());
      const float x = w_.value_error_bias2[0] + dot(w_.value_error_weight2.data(), hidden.data(), hh);
      out.value_error[b] = x > 20.0f ? x : std::log1p(std::exp(x));  // softplus, as torch's threshold 20
    }
  }
}

}  // namespace nn
}  // namespace popucom
