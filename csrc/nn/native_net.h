// The whole forward of the default network (popucom/nn/model.py's PopucomNet with attention
// residuals, no mHC) for CPU inference in one native call, on any CPU (its products and
// attention are built for each instruction set, isa_kernels.h).
// Through torch the small network at batch 16 spent about a third of its time dispatching
// its many small operators from Python, and two threads split each operator rather than the
// batch; here each thread runs whole pieces of the batch through every layer, with
// the activations of a piece in its core's caches. The arithmetic follows torch's CPU
// inference (popucom/infer/precision.py) in one of its two precisions: bf16 operands in the
// sub-layers' products and the attention's dot products (AVX512-BF16), or float32 throughout
// (every CPU);
// float32 sums, residual sources, norms, softmaxes and heads in both.
// layers.py and model.py stay the reference; popucom/nn/native.py packs a model for this.
#ifndef POPUCOM_NN_NATIVE_NET_H_
#define POPUCOM_NN_NATIVE_NET_H_

#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "../core/thread_pool.h"
#include "packed_product.h"

namespace popucom {
namespace nn {

// Positions per piece of a batch that one thread runs through every layer: a piece's
// activations (about 200 kB a position at width 64) should stay in its core's L2.
constexpr int DEFAULT_PIECE_POSITIONS = 8;

struct NativeNetShape {
  int planes = 0;           // input feature planes
  int d = 0;                // width
  int layers = 0;           // attention + MLP pairs
  int heads = 0;            // attention heads (d / heads a width the bf16 attention serves)
  int mlp_hidden = 0;       // the MLP's hidden width
  int head_hidden = 0;      // the value and score heads' hidden width
  int legal_plane = 0;      // the feature plane of the legal moves (others are masked)
  int feature_version = 0;  // the encoding of the features it reads (eval/features.h); the forward
                            // does not look at it, a network file records it
};

// Float32, row-major, nn.Linear's (outputs, inputs) layout for the matrices. Each sub-layer's
// RMSNorm gain is folded into its first matrix's columns and its LayerScale into its last
// matrix's rows, and the final norm's gain into the heads' first matrices, as the torch
// inference path folds them.
struct NativeNetWeights {
  NativeNetShape shape;
  std::vector<float> embed_weight, embed_bias;  // (d, planes), (d)
  std::vector<float> cell_embedding;            // (81, d): absolute positions, zeros without
  std::vector<float> depth_queries;             // (2 * layers + 1, d): the depth mixes' pseudo-queries
  std::vector<float> norm_eps;                  // (2 * layers + 1): each sub-layer's norm, then the final one
  float score_eps = 1e-6f;                      // the norm of the depth scores' keys
  struct Layer {
    std::vector<float> qkv, out, tables;  // (3d, d), (d, d), (2, heads, 81, 2, head_dim) PoPE tables
    std::vector<float> up, down;          // (mlp_hidden, d), (d, mlp_hidden)
  };
  std::vector<Layer> layer;
  std::vector<float> token_weight, token_bias;  // (3, d), (3): policy, soft policy, ownership
  std::vector<float> value_weight1, value_bias1, value_weight2, value_bias2;  // (hh, d), (hh), (3, hh), (3)
  std::vector<float> score_weight1, score_bias1, score_weight2, score_bias2;  // (hh, d), (hh), (1, hh), (1)
  // The optional value-error head, softplus on top (all four empty: the network has none).
  std::vector<float> value_error_weight1, value_error_bias1, value_error_weight2, value_error_bias2;
  bool has_value_error() const { return !value_error_weight1.empty(); }
  float score_scale = 1.0f;    // the score head's unit
  float masked_logit = -1e4f;  // the policy logit of an illegal move
};

// The outputs of popucom/nn/outputs.py's OUTPUTS for `positions` positions, float32:
// policy logits (positions, 81), win/draw/loss probabilities (positions, 3), score
// (positions), ownership (positions, 81), and the value error (positions) when the network
// has that head (nullptr: not computed).
struct NativeNetOutputs {
  float* policy;
  float* wdl;
  float* score;
  float* ownership;
  float* value_error = nullptr;
};

class NativeNet {
 public:
  // bf16: the products' operands in bf16, else float32. Throws std::invalid_argument for
  // weights that do not fit their shape or a shape the kernels do not serve,
  // std::logic_error where supported() is false.
  NativeNet(const NativeNetWeights& weights, int threads, int piece_positions, bool bf16);

  // Whether this build and CPU run the native forward for heads of this width, in bf16
  // products (AVX512-BF16) or in float32 (every CPU).
  static bool supported(int head_dim, bool bf16);

  // features (positions, planes, 81) float32, as popucom._core encodes them. Runs on the
  // net's threads (the caller is one of them); one call at a time, others wait.
  void forward(const float* features, std::size_t positions, const NativeNetOutputs& out);

  int threads() const { return pool_.size(); }
  int piece_positions() const { return piece_; }
  bool bf16() const { return bf16_; }
  bool has_value_error() const { return w_.has_value_error(); }

 private:
  template <typename Act>
  void forward_piece(const float* features, std::size_t positions, const NativeNetOutputs& out) const;
  void embed(const float* features, std::size_t positions, float* h0) const;
  void heads(const float* features, const float* trunk, std::size_t positions, const NativeNetOutputs& out) const;

  NativeNetWeights w_;
  bool bf16_;
  std::vector<PackedMatrix> qkv_, out_, up_, down_;
  std::vector<float> embed_by_plane_;  // (planes, d): the embedding's columns, contiguous
  int piece_;
  ThreadPool pool_;
  std::mutex calls_;
};

}  // namespace nn
}  // namespace popucom

#endif  // POPUCOM_NN_NATIVE_NET_H_
