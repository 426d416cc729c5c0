// Python binding of the native forward (csrc/nn/native_net.h). popucom/nn/native.py packs a
// PopucomNet's folded weights into the dict the constructor takes; forward releases the GIL.
#include "../nn/native_net.h"
#include "../nn/native_net_file.h"
#include "common.h"

namespace popucom {
namespace bindings {

namespace {

py::object required(const py::dict& spec, const char* key) {
  if (!spec.contains(key)) throw py::key_error(std::string("native net: the spec has no '") + key + "'");
  return spec[key];
}

std::vector<float> floats(const py::dict& spec, const char* key) {
  const auto a = py::array_t < float, py::array::c_style | py::array::forcecast > ::ensure(required(spec, key));
  if (!a) throw py::type_error(std::string("native net: '") + key + "' must be an array of numbers");
  return std::vector<float>(a.data(), a.data() + a.size());
}

nn::NativeNetWeights weights_from(const py::dict& spec) {
  nn::NativeNetWeights w;
  nn::for_each_shape_field(w.shape, [&](const char* name, int& value) { value = required(spec, name).cast<int>(); });
  w.score_eps = required(spec, "score_eps").cast<float>();
  w.score_scale = required(spec, "score_scale").cast<float>();
  w.masked_logit = required(spec, "masked_logit").cast<float>();
  const auto layers = required(spec, "layer").cast<py::list>();
  w.layer.resize(layers.size());
  nn::for_each_array(w, [&](const char* name, int layer, std::vector<float>& values) {
    const py::dict from = layer < 0 ? spec : layers[layer].cast<py::dict>();
    if (layer >= 0 || from.contains(name) || std::string(name).rfind("value_error_", 0) != 0)
      values = floats(from, name);  // the value-error head's arrays may be absent
  });
  return w;
}

std::unique_ptr<nn::NativeNet> make_net(const nn::NativeNetWeights& weights, int threads, int piece_positions,
                                        bool bf16) {
  py::gil_scoped_release release;  // packing the weights takes a while on big nets
  return std::make_unique<nn::NativeNet>(weights, threads, piece_positions, bf16);
}

nn::NativeNetWeights weights_from_file(const py::bytes& data) {
  const std::string_view view = data;
  return nn::read_native_net_file(reinterpret_cast<const unsigned char*>(view.data()), view.size());
}

}  // namespace

void bind_native_net(py::module_& m) {
  m.attr("NATIVE_PIECE_POSITIONS") = nn::DEFAULT_PIECE_POSITIONS;
  m.attr("NATIVE_NET_MAGIC") = py::bytes(nn::NATIVE_NET_MAGIC, sizeof(nn::NATIVE_NET_MAGIC));
  m.def(
      "native_net_file",
      [](const py::dict& spec) {
        const auto weights = weights_from(spec);
        return py::bytes(nn::native_net_file(weights));
      },
      py::arg("spec"),
      "The bytes of a network file (csrc/nn/native_net_file.h) holding the weights of a spec as NativeNet takes it.");
  m.def(
      "native_net_file_shape",
      [](const py::bytes& data) {
        const auto w = weights_from_file(data);
        py::dict shape;
        nn::NativeNetShape s = w.shape;
        nn::for_each_shape_field(s, [&](const char* name, int value) { shape[name] = value; });
        shape["value_error"] = w.has_value_error();
        return shape;
      },
      py::arg("data"), "The shape of the network a network file's bytes hold; ValueError where they hold none.");
  m.def("native_net_supported", &nn::NativeNet::supported, py::arg("head_dim"), py::arg("bf16"),
        "Whether this build and CPU run NativeNet for attention heads of this width, with bf16 products "
        "(AVX512-BF16) or float32 ones (AVX-512).");
  py::class_<nn::NativeNet>(m, "NativeNet",
                            "The default network's whole forward for CPU inference, in bf16 or float32 products "
                            "(csrc/nn/native_net.h); popucom.nn.native builds one from a PopucomNet.")
      .def(py::init([](const py::dict& spec, int threads, int piece_positions, bool bf16) {
             return make_net(weights_from(spec), threads, piece_positions, bf16);
           }),
           py::arg("spec"), py::arg("threads") = 1, py::arg("piece_positions") = nn::DEFAULT_PIECE_POSITIONS,
           py::arg("bf16") = true)
      .def_static(
          "from_file_bytes",
          [](const py::bytes& data, int threads, int piece_positions, bool bf16) {
            return make_net(weights_from_file(data), threads, piece_positions, bf16);
          },
          py::arg("data"), py::arg("threads") = 1, py::arg("piece_positions") = nn::DEFAULT_PIECE_POSITIONS,
          py::arg("bf16") = false,
          "The network a network file's bytes hold (popucom.nn.native_file); ValueError naming what is wrong "
          "with a file that is not one.")
      .def(
          "forward",
          [](nn::NativeNet& net, const py::array& features, int planes) {
            check_array(features, "features", py::dtype::of<float>(), {-1, planes, NUM_SQUARES}, false);
            const auto n = features.shape(0);
            py::array_t<float> policy({n, static_cast<py::ssize_t>(NUM_SQUARES)}), wdl({n, py::ssize_t{3}}), score({n}),
                ownership({n, static_cast<py::ssize_t>(NUM_SQUARES)}), value_error({net.has_value_error() ? n : 0});
            const nn::NativeNetOutputs out{policy.mutable_data(), wdl.mutable_data(), score.mutable_data(),
                                           ownership.mutable_data(),
                                           net.has_value_error() ? value_error.mutable_data() : nullptr};
            const auto* x = static_cast<const float*>(features.data());
            {
              py::gil_scoped_release release;
              net.forward(x, static_cast<std::size_t>(n), out);
            }
            if (net.has_value_error()) return py::tuple(py::make_tuple(policy, wdl, score, ownership, value_error));
            return py::tuple(py::make_tuple(policy, wdl, score, ownership));
          },
          py::arg("features"), py::arg("planes"),
          "(policy logits (N, 81), win/draw/loss probabilities (N, 3), score (N,), ownership (N, 81)[, value error "
          "(N,) when the network has that head]) of features (N, planes, 81) float32, on the net's threads.")
      .def_property_readonly("has_value_error", &nn::NativeNet::has_value_error)
      .def_property_readonly("threads", &nn::NativeNet::threads)
      .def_property_readonly("piece_positions", &nn::NativeNet::piece_positions)
      .def_property_readonly("bf16", &nn::NativeNet::bf16);
}

}  // namespace bindings
}  // namespace popucom
