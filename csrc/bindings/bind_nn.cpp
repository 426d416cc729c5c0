// Python bindings of the fused mHC inference kernels (csrc/nn). Buffers are
// numpy views of torch tensors: written in place, the GIL released.
#include "../nn/cpu_level.h"
#include "../nn/depth_mix.h"
#include "../nn/hyper_connection.h"
#include "../nn/pope_attention.h"
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

// Activations come as float32 or as bf16 bit patterns in int16 arrays (numpy has no
// bfloat16: popucom/nn/layers.py passes torch's bf16 tensors viewed as int16). Whether
// `a` holds bf16; it asks numpy, so call it before the GIL is released.
bool holds_bf16(const py::array& a, const char* name) {
  if (a.dtype().equal(py::dtype::of<std::int16_t>())) return true;
  if (a.dtype().equal(py::dtype::of<float>())) return false;
  throw py::type_error(std::string(name) + " must have dtype float32 or int16 (bf16 bits), got " +
                       std::string(py::str(a.dtype())));
}

py::dtype activation_dtype(bool bf16) { return bf16 ? py::dtype::of<std::int16_t>() : py::dtype::of<float>(); }

template <typename T>
T* data_of(const py::array& a) {
  return static_cast<T*>(const_cast<void*>(a.data()));
}

void bind_pope_attention(py::module_& m) {
  py::list head_dims;
  for (int hd : nn::POPE_HEAD_DIMS) head_dims.append(hd);
  m.attr("POPE_HEAD_DIMS") = py::tuple(head_dims);
  m.def(
      "pope_attention",
      [](const py::array& qkv, const py::array& tables, const py::array& out, bool bf16_dots) {
        check_array(tables, "tables", py::dtype::of<float>(), {2, -1, NUM_SQUARES, 2, -1}, false);
        const py::ssize_t heads = tables.shape(1), head_dim = tables.shape(4),
                          batch = qkv.ndim() > 0 ? qkv.shape(0) : 0;
        if (!nn::pope_attention_supports(static_cast<int>(head_dim)))
          throw py::value_error("tables: head width " + std::to_string(head_dim) +
                                " is not one the kernel is built for");
        const bool bf16 = holds_bf16(qkv, "qkv");
        if (bf16_dots && !bf16) throw py::value_error("bf16_dots: the dot products take bf16 activations (int16 bits)");
        if (bf16_dots && !nn::pope_attention_bf16_dots_apply(static_cast<int>(head_dim)))
          throw py::value_error("bf16_dots: this CPU or head width " + std::to_string(head_dim) +
                                " has no bf16 dot products (pope_attention_bf16_dots_apply)");
        check_array(qkv, "qkv", activation_dtype(bf16), {batch, NUM_SQUARES, 3 * heads * head_dim}, false);
        check_array(out, "out", activation_dtype(bf16), {batch, NUM_SQUARES, heads * head_dim}, true);
        const float* tables_ptr = data_of<float>(tables);
        const auto n = static_cast<std::size_t>(batch);
        const int h = static_cast<int>(heads), hd = static_cast<int>(head_dim);
        py::gil_scoped_release release;
        if (bf16_dots)
          nn::pope_attention_bf16_dots(data_of<const nn::Bf16>(qkv), tables_ptr, n, h, hd, data_of<nn::Bf16>(out));
        else if (bf16)
          nn::pope_attention(data_of<const nn::Bf16>(qkv), tables_ptr, n, h, hd, data_of<nn::Bf16>(out));
        else
          nn::pope_attention(data_of<const float>(qkv), tables_ptr, n, h, hd, data_of<float>(out));
      },
      py::arg("qkv"), py::arg("tables"), py::arg("out"), py::arg("bf16_dots") = false,
      "PoPE attention of (batch, 81, 3d) projections with (2, heads, 81, 2, head_dim) phase tables, "
      "written into `out` (batch, 81, d) on the calling thread; see csrc/nn/pope_attention.h. qkv and out are "
      "both float32 or both bf16 (int16 arrays of its bits); with bf16_dots (bf16 only, where "
      "pope_attention_bf16_dots_apply) the logits and value sums are bf16 dot products.");
  m.def("pope_attention_bf16_dots_apply", &nn::pope_attention_bf16_dots_apply, py::arg("head_dim"),
        "Whether pope_attention(..., bf16_dots=True) serves this head width on this CPU (AVX512-BF16).");
}

void bind_depth_mix(py::module_& m) {
  m.attr("MAX_DEPTH_SOURCES") = nn::MAX_DEPTH_SOURCES;
  m.def(
      "depth_mix_normalized",
      [](const py::array& sources, const py::array& scores, int index, float eps, const py::array& out) {
        check_array(sources, "sources", py::dtype::of<float>(), {-1, -1, -1}, false);
        const py::ssize_t count = sources.shape(0), tokens = sources.shape(1), d = sources.shape(2);
        if (count < 1 || count > nn::MAX_DEPTH_SOURCES)
          throw py::value_error("sources: the number of sources must be 1.." + std::to_string(nn::MAX_DEPTH_SOURCES) +
                                ", got " + std::to_string(count));
        check_array(scores, "scores", py::dtype::of<float>(), {count, tokens, -1}, false);
        const py::ssize_t mixes = scores.shape(2);
        if (index < 0 || index >= mixes)
          throw py::value_error("index " + std::to_string(index) + " is not one of the " + std::to_string(mixes) +
                                " mixes");
        const bool bf16 = holds_bf16(out, "out");
        check_array(out, "out", activation_dtype(bf16), {tokens, d}, true);
        const float* sources_ptr = data_of<const float>(sources);
        const float* scores_ptr = data_of<const float>(scores);
        const auto rows = static_cast<std::size_t>(tokens);
        const int c = static_cast<int>(count), width = static_cast<int>(d), k = static_cast<int>(mixes);
        py::gil_scoped_release release;
        if (bf16)
          nn::depth_mix_normalized(sources_ptr, scores_ptr, c, rows, width, k, index, eps, data_of<nn::Bf16>(out));
        else
          nn::depth_mix_normalized(sources_ptr, scores_ptr, c, rows, width, k, index, eps, data_of<float>(out));
      },
      py::arg("sources"), py::arg("scores"), py::arg("index"), py::arg("eps"), py::arg("out"),
      "rms_normalize(sum_j softmax_j(scores[j, t, index]) * sources[j, t]) per token, of (count, tokens, d) sources "
      "and (count, tokens, mixes) scores, into `out` (tokens, d), float32 or bf16 (an int16 array of its bits); "
      "see csrc/nn/depth_mix.h.");
  m.def(
      "depth_score",
      [](const py::array& source, const py::array& queries, float eps, const py::array& scores) {
        check_array(source, "source", py::dtype::of<float>(), {-1, -1}, false);
        const py::ssize_t tokens = source.shape(0), d = source.shape(1);
        check_array(queries, "queries", py::dtype::of<float>(), {-1, d}, false);
        const py::ssize_t mixes = queries.shape(0);
        check_array(scores, "scores", py::dtype::of<float>(), {tokens, mixes}, true);
        const float* source_ptr = static_cast<const float*>(source.data());
        const float* queries_ptr = static_cast<const float*>(queries.data());
        float* scores_ptr = static_cast<float*>(const_cast<void*>(scores.data()));
        py::gil_scoped_release release;
        nn::depth_score(source_ptr, queries_ptr, static_cast<std::size_t>(tokens), static_cast<int>(d),
                        static_cast<int>(mixes), eps, scores_ptr);
      },
      py::arg("source"), py::arg("queries"), py::arg("eps"), py::arg("scores"),
      "rms_normalize(source[t]) . queries[k] into `scores` (tokens, mixes), of a (tokens, d) source and (mixes, d) "
      "pseudo-queries; see csrc/nn/depth_mix.h.");
}

}  // namespace

void bind_cpu_level(py::module_& m) {
  py::list levels;
  for (const char* name : nn::kCpuLevelNames) levels.append(name);
  m.attr("CPU_LEVELS") = py::tuple(levels);
  m.attr("CPU_ISA_ENV") = nn::kCpuIsaEnv;
  // std::invalid_argument (an unknown $POPUCOM_CPU_ISA) reaches Python as a ValueError.
  m.def(
      "cpu_level", [] { return nn::cpu_level_name(nn::cpu_level()); },
      "The instruction-set level the hand-written kernels use here (one of CPU_LEVELS): this CPU's, "
      "for the kernels this build has, lowered by $POPUCOM_CPU_ISA.");
  m.def(
      "detected_cpu_level", [] { return nn::cpu_level_name(nn::detected_cpu_level()); },
      "This CPU's instruction-set level for the kernels this build has, before $POPUCOM_CPU_ISA.");
}

void bind_nn(py::module_& m) {
  bind_cpu_level(m);
  bind_pope_attention(m);
  bind_depth_mix(m);
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
         const py::array& mixed, const py::object& sum_squares) {
        const MhcShape s = check_mhc(maps, streams);
        check_array(branch_out, "branch_out", py::dtype::of<float>(), {s.tokens, s.d}, false);
        check_array(mixed, "mixed", py::dtype::of<float>(), {s.tokens, s.n, s.d}, true);
        float* squares_ptr = nullptr;
        if (!sum_squares.is_none()) {
          // A converted copy would take the sums and be thrown away.
          if (!py::isinstance<py::array>(sum_squares))
            throw py::type_error("sum_squares must be a numpy array or None");
          const auto squares = py::reinterpret_borrow<py::array>(sum_squares);
          check_array(squares, "sum_squares", py::dtype::of<float>(), {s.tokens}, true);
          squares_ptr = static_cast<float*>(const_cast<void*>(squares.data()));
        }
        if (sinkhorn_iters < 0) throw py::value_error("sinkhorn_iters must be >= 0");
        const float* maps_ptr = static_cast<const float*>(maps.data());
        const float* streams_ptr = static_cast<const float*>(streams.data());
        const float* out_ptr = static_cast<const float*>(branch_out.data());
        float* mixed_ptr = static_cast<float*>(const_cast<void*>(mixed.data()));
        py::gil_scoped_release release;
        nn::mhc_write(maps_ptr, streams_ptr, out_ptr, static_cast<std::size_t>(s.tokens), s.n, s.d, sinkhorn_iters,
                      mixed_ptr, squares_ptr);
      },
      py::arg("maps"), py::arg("streams"), py::arg("branch_out"), py::arg("sinkhorn_iters"), py::arg("mixed"),
      py::arg("sum_squares") = py::none(),
      "The mHC write: 2 sigmoid(post) * branch_out + Sinkhorn(res) @ streams per token, into `mixed` "
      "(tokens, n, d); with `sum_squares` (tokens,), each token's sum of squared mixed values too.");
}

}  // namespace bindings
}  // namespace popucom
