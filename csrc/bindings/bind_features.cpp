// Python bindings of the feature encoder: one C++ call fills a whole batch.
#include <pybind11/stl.h>

#include "../eval/features.h"
#include "common.h"

namespace popucom {
namespace bindings {

void bind_features(py::module_& m) {
  using namespace features;
  m.attr("FEATURE_VERSION") = FEATURE_VERSION;
  m.attr("NUM_FEATURE_PLANES") = NUM_PLANES;
  m.attr("KOMI_SCALE") = KOMI_SCALE;
  py::list planes;
  py::tuple names(NUM_PLANES);
  for (int i = 0; i < NUM_PLANES; ++i) {
    planes.append(py::make_tuple(PLANES[i].name, PLANES[i].meaning));
    names[i] = py::str(PLANES[i].name);
  }
  m.attr("FEATURE_PLANES") = planes;
  m.attr("FEATURE_PLANE_NAMES") = names;

  m.def(
      "encode_batch",
      [](const py::array& packed, const py::array& out, const py::object& symmetries) {
        check_array(packed, "packed", py::dtype::of<uint64_t>(), {-1, PACKED_WORDS}, false);
        const py::ssize_t n = packed.shape(0);
        check_array(out, "out", py::dtype::of<float>(), {n, NUM_PLANES, BOARD_SIZE, BOARD_SIZE}, true);
        const uint8_t* syms = nullptr;
        py::array sym_array;
        if (!symmetries.is_none()) {
          if (!py::isinstance<py::array>(symmetries))
            throw py::type_error("symmetries must be a numpy uint8 array or None");
          sym_array = py::reinterpret_borrow<py::array>(symmetries);
          check_array(sym_array, "symmetries", py::dtype::of<uint8_t>(), {n}, false);
          syms = static_cast<const uint8_t*>(sym_array.data());
        }
        const auto* in = static_cast<const PackedPosition*>(packed.data());
        auto* dst = static_cast<float*>(py::array(out).mutable_data());
        py::gil_scoped_release release;
        encode_packed(in, n, dst, syms);
      },
      py::arg("packed"), py::arg("out"), py::arg("symmetries") = py::none(),
      "Encodes packed positions, uint64 (N, PACKED_WORDS), into out, float32 (N, planes, 9, 9), "
      "optionally through one board symmetry per position (uint8 (N,)). The GIL is released.");

  m.def(
      "encode_position",
      [](const Position& p, int sym) {
        if (sym < 0 || sym >= NUM_SYMMETRIES)
          throw py::value_error("symmetry must be in 0..7, got " + std::to_string(sym));
        py::array_t<float> out({NUM_PLANES, BOARD_SIZE, BOARD_SIZE});
        encode(p, out.mutable_data(), sym);
        return out;
      },
      py::arg("position"), py::arg("symmetry") = 0, "The features of one position, float32 (planes, 9, 9).");
}

}  // namespace bindings
}  // namespace popucom
