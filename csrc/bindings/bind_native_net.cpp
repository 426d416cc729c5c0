// Python binding of the native forward (csrc/nn/native_net.h). popucom/nn/native.py packs a
// PopucomNet's folded weights into the dict the constructor takes; forward releases the GIL.
#include "../nn/native_net.h"
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
  nn::NativeNetShape& s = w.shape;
  s.planes = required(spec, "planes").cast<int>();
  s.d = required(spec, "d").cast<int>();
  s.layers = required(spec, "layers").cast<int>();
  s.heads = required(spec, "heads").cast<int>();
  s.mlp_hidden = required(spec, "mlp_hidden").cast<int>();
  s.head_hidden = required(spec, "head_hidden").cast<int>();
  s.legal_plane = required(spec, "legal_plane").cast<int>();
  w.embed_weight = floats(spec, "embed_weight");
  w.embed_bias = floats(spec, "embed_bias");
  w.cell_embedding = floats(spec, "cell_embedding");
  w.depth_queries = floats(spec, "depth_queries");
  w.norm_eps = floats(spec, "norm_eps");
  w.score_eps = required(spec, "score_eps").cast<float>();
  for (const py::handle layer : required(spec, "layer").cast<py::list>()) {
    const auto l = layer.cast<py::dict>();
    w.layer.push_back({floats(l, "qkv"), floats(l, "out"), floats(l, "tables"), floats(l, "up"), floats(l, "down")});
  }
  w.token_weight = floats(spec, "token_weight");
  w.token_bias = floats(spec, "token_bias");
  w.value_weight1 = floats(spec, "value_weight1");
  w.value_bias1 = floats(spec, "value_bias1");
  w.value_weight2 = floats(spec, "value_weight2");
  w.value_bias2 = floats(spec, "value_bias2");
  w.score_weight1 = floats(spec, "score_weight1");
  w.score_bias1 = floats(spec, "score_bias1");
  w.score_weight2 = floats(spec, "score_weight2");
  w.score_bias2 = floats(spec, "score_bias2");
  if (spec.contains("value_error_weight1")) {
    w.value_error_weight1 = floats(spec, "value_error_weight1");
    w.value_error_bias1 = floats(spec, "value_error_bias1");
    w.value_error_weight2 = floats(spec, "value_error_weight2");
    w.value_error_bias2 = floats(spec, "value_error_bias2");
  }
  w.score_scale = required(spec, "score_scale").cast<float>();
  w.masked_logit = required(spec, "masked_logit").cast<float>();
  return w;
}

}  // namespace

void bind_native_net(py::module_& m) {
  m.def("native_net_supported", &nn::NativeNet::supported, py::arg("head_dim"), py::arg("bf16"),
        "Whether this build and CPU run NativeNet for attention heads of this width, with bf16 products "
        "(AVX512-BF16) or float32 ones (AVX-512).");
  py::class_<nn::NativeNet>(m, "NativeNet",
                            "The default network's whole forward for CPU inference, in bf16 or float32 products "
                            "(csrc/nn/native_net.h); popucom.nn.native builds one from a PopucomNet.")
      .def(py::init([](const py::dict& spec, int threads, int piece_positions, bool bf16) {
             auto weights = weights_from(spec);
             py::gil_scoped_release release;  // packing the weights takes a while on big nets
             return std::make_unique<nn::NativeNet>(weights, threads, piece_positions, bf16);
           }),
           py::arg("spec"), py::arg("threads") = 1, py::arg("piece_positions") = 8, py::arg("bf16") = true)
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
