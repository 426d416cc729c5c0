// A NativeNet's weights as one self-contained file (.pcnet): what the browser's engine loads,
// and what a program without torch can run. popucom/nn/native_file.py writes it from a
// network; the layout is read and written here only, through one list of its fields.
//
// Layout, little-endian: the 8-byte magic, a uint32 format version, the shape's eight int32
// (for_each_shape_field's order), three float32 (score_eps, score_scale, masked_logit), then every
// array of for_each_array's list as a uint32 count followed by that many float32. Nothing
// after the last array.
#ifndef POPUCOM_NN_NATIVE_NET_FILE_H_
#define POPUCOM_NN_NATIVE_NET_FILE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "native_net.h"

namespace popucom {
namespace nn {

constexpr char NATIVE_NET_MAGIC[8] = {'P', 'O', 'P', 'U', 'N', 'E', 'T', '\0'};
constexpr std::uint32_t NATIVE_NET_FORMAT = 1;

// Bounds a file's shape must keep before its arrays are read, so that no product of two of
// them overflows a 32-bit size (wasm) and a hostile header cannot ask for gigabytes.
constexpr int MAX_FILE_PLANES = 256;
constexpr int MAX_FILE_WIDTH = 4096;
constexpr int MAX_FILE_LAYERS = 64;
constexpr int MAX_FILE_HIDDEN = 16384;
constexpr int MAX_FILE_FEATURE_VERSION = 65535;

// Calls visit(name, value) for each shape field, in the file's order.
template <typename Visit>
void for_each_shape_field(NativeNetShape& s, Visit&& visit) {
  visit("planes", s.planes);
  visit("d", s.d);
  visit("layers", s.layers);
  visit("heads", s.heads);
  visit("mlp_hidden", s.mlp_hidden);
  visit("head_hidden", s.head_hidden);
  visit("legal_plane", s.legal_plane);
  visit("feature_version", s.feature_version);
}

// Calls visit(name, layer, values) for each array in the file's order: layer is -1 for the
// network's own arrays and the layer's index for a layer's; `layer` must already hold the
// shape's layer count. The value-error head's arrays come last (empty: no such head).
template <typename Visit>
void for_each_array(NativeNetWeights& w, Visit&& visit) {
  visit("embed_weight", -1, w.embed_weight);
  visit("embed_bias", -1, w.embed_bias);
  visit("cell_embedding", -1, w.cell_embedding);
  visit("depth_queries", -1, w.depth_queries);
  visit("norm_eps", -1, w.norm_eps);
  for (std::size_t l = 0; l < w.layer.size(); ++l) {
    NativeNetWeights::Layer& layer = w.layer[l];
    const int i = static_cast<int>(l);
    visit("qkv", i, layer.qkv);
    visit("out", i, layer.out);
    visit("tables", i, layer.tables);
    visit("up", i, layer.up);
    visit("down", i, layer.down);
  }
  visit("token_weight", -1, w.token_weight);
  visit("token_bias", -1, w.token_bias);
  visit("value_weight1", -1, w.value_weight1);
  visit("value_bias1", -1, w.value_bias1);
  visit("value_weight2", -1, w.value_weight2);
  visit("value_bias2", -1, w.value_bias2);
  visit("score_weight1", -1, w.score_weight1);
  visit("score_bias1", -1, w.score_bias1);
  visit("score_weight2", -1, w.score_weight2);
  visit("score_bias2", -1, w.score_bias2);
  visit("value_error_weight1", -1, w.value_error_weight1);
  visit("value_error_bias1", -1, w.value_error_bias1);
  visit("value_error_weight2", -1, w.value_error_weight2);
  visit("value_error_bias2", -1, w.value_error_bias2);
}

// The file's bytes.
std::string native_net_file(const NativeNetWeights& weights);

// The weights a file holds. Throws std::invalid_argument naming the problem (not such a file,
// another format version, a shape out of bounds, an array cut short or of the wrong size, a
// value that is not finite, bytes after the end) rather than reading past `size`.
NativeNetWeights read_native_net_file(const unsigned char* data, std::size_t size);

}  // namespace nn
}  // namespace popucom

#endif  // POPUCOM_NN_NATIVE_NET_FILE_H_
