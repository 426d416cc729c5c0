// Python bindings of the fused mHC inference kernels (csrc/nn). Buffers are
// numpy views of torch tensors: written in place, the GIL released.
#include "../nn/hyper_connection.h"
#include "common.h"

namespace popucom {
namespace bindings {

namespace {

struct MhcShape {
  py::ssize_t tokens;
  int n, d;
};

MhcShape check_mhc(const py::array& maps, const py::array& streams) {
  check_array(streams, "streams", py::dtype::of<float>(), {-1, -1, -1}, false);
  const py::ssize_t tokens = streams.shape(0), n = streams.shape(1), d = streams.shape(2);
  if (n < 1 || n > nn::MAX_STREAMS)
    throw py::value_error("streams: the number of streams must be 1.." + std::to_string(nn::MAX_STREAMS) + ", got " +
                          std::to_string(n));
  check_array(maps, "maps", py::dtype::of<float>(), {2 * n + n * n, tokens}, false);
  return {tokens, static_cast<int>(n), static_cast<int>(d)};
}

}  // namespace

void bind_nn(py::module_& m) {
  m.attr("MHC_MAX_STREAMS") = nn::MAX_STREAMS;
  m.def(
      "mhc_read",
      [](const py::array& maps, const py::array& streams, const py::array& read) {
        const MhcShape s = check_mhc(maps, streams);
        check_array(read, "read", py::dtype::of<float>(), {s.tokens, s.d}, true);
        const float* maps_ptr = static_cast<const float*>(maps.data());
        const float* streams_ptr = static_cast<const float*>(streams.data());
        float* read_ptr = static_cast<float*>(const_cast<void*>(read.data()));
        py::gil_scoped_release release;
        nn::mhc_read(maps_ptr, streams_ptr, static_cast<std::size_t>(s.tokens), s.n, s.d, read_ptr);
      },
      py::arg("maps"), py::arg("streams"), py::arg("read"),
      "read[t] = sum_k sigmoid(maps[k, t]) * streams[t, k] (the mHC read), written into `read` (tokens, d).");
  m.def(
      "mhc_write",
      [](const py::array& maps, const py::array& streams, const py::array& branch_out, int sinkhorn_iters,
         const py::array& mixed) {
        const MhcShape s = check_mhc(maps, streams);
        check_array(branch_out, "branch_out", py::dtype::of<float>(), {s.tokens, s.d}, false);
        check_array(mixed, "mixed", py::dtype::of<float>(), {s.tokens, s.n, s.d}, true);
        if (sinkhorn_iters < 0) throw py::value_error("sinkhorn_iters must be >= 0");
        const float* maps_ptr = static_cast<const float*>(maps.data());
        const float* streams_ptr = static_cast<const float*>(streams.data());
        const float* out_ptr = static_cast<const float*>(branch_out.data());
        float* mixed_ptr = static_cast<float*>(const_cast<void*>(mixed.data()));
        py::gil_scoped_release release;
        nn::mhc_write(maps_ptr, streams_ptr, out_ptr, static_cast<std::size_t>(s.tokens), s.n, s.d, sinkhorn_iters,
                      mixed_ptr);
      },
      py::arg("maps"), py::arg("streams"), py::arg("branch_out"), py::arg("sinkhorn_iters"), py::arg("mixed"),
      "The mHC write: 2 sigmoid(post) * branch_out + Sinkhorn(res) @ streams per token, into `mixed` "
      "(tokens, n, d).");
}

}  // namespace bindings
}  // namespace popucom
