#include "native_net_file.h"

#include <cmath>
#include <cstring>
#include <stdexcept>

namespace popucom {
namespace nn {

namespace {

std::string where(const char* name, int layer) {
  return layer < 0 ? std::string(name) : "layer " + std::to_string(layer) + " " + name;
}

template <typename T>
void put(std::string& out, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out.append(bytes, sizeof(T));
}

class Reader {
 public:
  Reader(const unsigned char* data, std::size_t size) : data_(data), size_(size) {}

  template <typename T>
  T take(const std::string& what) {
    need(sizeof(T), what);
    T value;
    std::memcpy(&value, data_ + at_, sizeof(T));
    at_ += sizeof(T);
    return value;
  }

  void floats(std::vector<float>& values, const std::string& what) {
    const std::uint32_t count = take<std::uint32_t>(what + "'s count");
    need(std::uint64_t{count} * sizeof(float), what + " (" + std::to_string(count) + " values)");
    values.resize(count);
    if (count) std::memcpy(values.data(), data_ + at_, count * sizeof(float));
    at_ += count * sizeof(float);
    for (const float v : values)
      if (!std::isfinite(v)) throw std::invalid_argument("network file: " + what + " holds a value that is not finite");
  }

  std::size_t left() const { return size_ - at_; }

 private:
  void need(std::uint64_t bytes, const std::string& what) const {
    if (bytes > std::uint64_t{size_ - at_}) throw std::invalid_argument("network file: cut short in " + what);
  }

  const unsigned char* data_;
  std::size_t size_, at_ = 0;
};

void check_shape(NativeNetShape& s) {
  const auto within = [](const char* name, int value, int low, int high) {
    if (value < low || value > high)
      throw std::invalid_argument("network file: " + std::string(name) + " is " + std::to_string(value) + ", outside " +
                                  std::to_string(low) + ".." + std::to_string(high));
  };
  within("planes", s.planes, 1, MAX_FILE_PLANES);
  within("d", s.d, 1, MAX_FILE_WIDTH);
  within("layers", s.layers, 1, MAX_FILE_LAYERS);
  within("heads", s.heads, 1, s.d);
  within("mlp_hidden", s.mlp_hidden, 1, MAX_FILE_HIDDEN);
  within("head_hidden", s.head_hidden, 1, MAX_FILE_HIDDEN);
  within("legal_plane", s.legal_plane, 0, s.planes - 1);
  within("feature_version", s.feature_version, 1, MAX_FILE_FEATURE_VERSION);
}

void check_positive(const char* name, float value) {
  if (!(value > 0.0f) || !std::isfinite(value))
    throw std::invalid_argument("network file: " + std::string(name) + " must be a positive number");
}

}  // namespace

std::string native_net_file(const NativeNetWeights& weights) {
  NativeNetWeights w = weights;  // the visitors take mutable fields
  std::string out(NATIVE_NET_MAGIC, sizeof(NATIVE_NET_MAGIC));
  put(out, NATIVE_NET_FORMAT);
  for_each_shape_field(w.shape, [&](const char*, int value) { put<std::int32_t>(out, value); });
  put(out, w.score_eps);
  put(out, w.score_scale);
  put(out, w.masked_logit);
  for_each_array(w, [&](const char*, int, const std::vector<float>& values) {
    put(out, static_cast<std::uint32_t>(values.size()));
    out.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float));
  });
  return out;
}

NativeNetWeights read_native_net_file(const unsigned char* data, std::size_t size) {
  if (size < sizeof(NATIVE_NET_MAGIC) || std::memcmp(data, NATIVE_NET_MAGIC, sizeof(NATIVE_NET_MAGIC)) != 0)
    throw std::invalid_argument("network file: not a popucom network file (no POPUNET header)");
  Reader in(data + sizeof(NATIVE_NET_MAGIC), size - sizeof(NATIVE_NET_MAGIC));
  const auto format = in.take<std::uint32_t>("the format version");
  if (format != NATIVE_NET_FORMAT)
    throw std::invalid_argument("network file: format version " + std::to_string(format) + ", this build reads " +
                                std::to_string(NATIVE_NET_FORMAT));
  NativeNetWeights w;
  for_each_shape_field(w.shape, [&](const char* name, int& value) { value = in.take<std::int32_t>(name); });
  check_shape(w.shape);
  w.score_eps = in.take<float>("score_eps");
  w.score_scale = in.take<float>("score_scale");
  w.masked_logit = in.take<float>("masked_logit");
  check_positive("score_eps", w.score_eps);
  if (!std::isfinite(w.score_scale) || !std::isfinite(w.masked_logit))
    throw std::invalid_argument("network file: score_scale and masked_logit must be finite");
  w.layer.resize(w.shape.layers);
  for_each_array(
      w, [&](const char* name, int layer, std::vector<float>& values) { in.floats(values, where(name, layer)); });
  if (in.left() != 0)
    throw std::invalid_argument("network file: " + std::to_string(in.left()) + " bytes after the last array");
  for (const float eps : w.norm_eps) check_positive("each norm_eps", eps);
  const bool error_head = !w.value_error_weight1.empty();
  if (w.value_error_bias1.empty() == error_head || w.value_error_weight2.empty() == error_head ||
      w.value_error_bias2.empty() == error_head)
    throw std::invalid_argument("network file: the value-error head's four arrays must all be given or all be empty");
  return w;
}

}  // namespace nn
}  // namespace popucom
