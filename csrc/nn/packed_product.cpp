#include "packed_product.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "avx512.h"
#include "vector_math_avx512.h"

namespace popucom {
namespace nn {

PackedMatrix pack_matrix(const float* weight, int outputs, int inputs, bool bf16) {
  if (inputs <= 0 || (bf16 && inputs % 2 != 0) || outputs <= 0 || outputs % 16 != 0)
    throw std::invalid_argument("packed product: want outputs in multiples of 16 and " +
                                std::string(bf16 ? "an even number of inputs" : "some inputs") + ", got " +
                                std::to_string(outputs) + " x " + std::to_string(inputs));
  PackedMatrix packed{bf16, outputs, inputs, {}};
  packed.words.resize(static_cast<std::size_t>(inputs) * outputs / (bf16 ? 2 : 1));
  const auto at = [&](int o, int i) { return weight[static_cast<std::size_t>(o) * inputs + i]; };
  for (int o = 0; o < outputs; ++o) {
    if (!bf16) {
      for (int i = 0; i < inputs; ++i) {
        const float value = at(o, i);
        std::memcpy(&packed.words[static_cast<std::size_t>(i) * outputs + o], &value, sizeof value);
      }
      continue;
    }
    for (int p = 0; p < inputs / 2; ++p) {
      Bf16 low, high;
      store(low, at(o, 2 * p));
      store(high, at(o, 2 * p + 1));
      packed.words[static_cast<std::size_t>(p) * outputs + o] = low | static_cast<std::uint32_t>(high) << 16;
    }
  }
  return packed;
}

#ifdef POPUCOM_HAVE_AVX512_KERNELS

#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq,avx512bf16")

namespace {

constexpr int LANES = 16;
// A tile of ROWS x VECTORS * 16 sums: 24 accumulators, 4 weight vectors and a broadcast
// fill 29 of the 32 registers, and 24 independent sums cover the multiply-adds' latency.
constexpr int ROWS = 6;
constexpr int VECTORS = 4;

// sum += a . w for one packed word of inputs: a bf16 pair (vdpbf16ps) or one float (FMA).
template <typename Act>
__m512 multiply_add(__m512 sum, const Act* a, int step, __m512i weights) {
  if constexpr (std::is_same_v<Act, Bf16>) {
    std::uint32_t pair;
    std::memcpy(&pair, a + 2 * step, sizeof pair);
    return _mm512_dpbf16_ps(sum, (__m512bh)_mm512_set1_epi32(static_cast<int>(pair)), (__m512bh)weights);
  } else {
    return _mm512_fmadd_ps(_mm512_set1_ps(a[step]), _mm512_castsi512_ps(weights), sum);
  }
}

template <typename Act, int R, int C, ProductOutput OUT>
void tile(const Act* a, int inputs, const std::uint32_t* w, int outputs, int column, void* out) {
  constexpr int PER_WORD = std::is_same_v<Act, Bf16> ? 2 : 1;
  __m512 sum[R][C];
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) sum[r][c] = _mm512_setzero_ps();
  for (int step = 0; step < inputs / PER_WORD; ++step) {
    __m512i weights[C];
    for (int c = 0; c < C; ++c)
      weights[c] = _mm512_loadu_si512(w + static_cast<std::size_t>(step) * outputs + column + c * LANES);
    for (int r = 0; r < R; ++r)
      for (int c = 0; c < C; ++c)
        sum[r][c] = multiply_add(sum[r][c], a + static_cast<std::size_t>(r) * inputs, step, weights[c]);
  }
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) {
      const std::size_t at = static_cast<std::size_t>(r) * outputs + column + c * LANES;
      const __m512 y = OUT == ProductOutput::kGeluActivation ? gelu16(sum[r][c]) : sum[r][c];
      if constexpr (OUT == ProductOutput::kFloat || std::is_same_v<Act, float>)
        _mm512_storeu_ps(static_cast<float*>(out) + at, y);
      else
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(static_cast<Bf16*>(out) + at), (__m256i)_mm512_cvtneps_pbh(y));
    }
}

template <typename Act, int R, ProductOutput OUT>
void tile_of_width(int vectors, const Act* a, int inputs, const std::uint32_t* w, int outputs, int column, void* out) {
  switch (vectors) {
    case 4: tile<Act, R, 4, OUT>(a, inputs, w, outputs, column, out); break;
    case 3: tile<Act, R, 3, OUT>(a, inputs, w, outputs, column, out); break;
    case 2: tile<Act, R, 2, OUT>(a, inputs, w, outputs, column, out); break;
    default: tile<Act, R, 1, OUT>(a, inputs, w, outputs, column, out); break;
  }
}

template <typename Act, ProductOutput OUT>
void run(const Act* a, std::size_t rows, const PackedMatrix& w, void* out) {
  const bool float_out = OUT == ProductOutput::kFloat || std::is_same_v<Act, float>;
  const std::size_t element = float_out ? sizeof(float) : sizeof(Bf16);
  for (std::size_t r0 = 0; r0 < rows; r0 += ROWS) {
    const int r = static_cast<int>(std::min<std::size_t>(ROWS, rows - r0));
    const Act* block = a + r0 * w.inputs;
    void* target = static_cast<char*>(out) + r0 * w.outputs * element;
    for (int column = 0; column < w.outputs; column += VECTORS * LANES) {
      const int vectors = std::min(VECTORS, (w.outputs - column) / LANES);
      const std::uint32_t* words = w.words.data();
      switch (r) {
        case 6: tile_of_width<Act, 6, OUT>(vectors, block, w.inputs, words, w.outputs, column, target); break;
        case 5: tile_of_width<Act, 5, OUT>(vectors, block, w.inputs, words, w.outputs, column, target); break;
        case 4: tile_of_width<Act, 4, OUT>(vectors, block, w.inputs, words, w.outputs, column, target); break;
        case 3: tile_of_width<Act, 3, OUT>(vectors, block, w.inputs, words, w.outputs, column, target); break;
        case 2: tile_of_width<Act, 2, OUT>(vectors, block, w.inputs, words, w.outputs, column, target); break;
        default: tile_of_width<Act, 1, OUT>(vectors, block, w.inputs, words, w.outputs, column, target); break;
      }
    }
  }
}

template <typename Act>
void dispatch(const Act* a, std::size_t rows, const PackedMatrix& w, ProductOutput output, void* out) {
  switch (output) {
    case ProductOutput::kActivation: run<Act, ProductOutput::kActivation>(a, rows, w, out); break;
    case ProductOutput::kGeluActivation: run<Act, ProductOutput::kGeluActivation>(a, rows, w, out); break;
    case ProductOutput::kFloat: run<Act, ProductOutput::kFloat>(a, rows, w, out); break;
  }
}

}  // namespace

void product(const Bf16* a, std::size_t rows, const PackedMatrix& w, ProductOutput output, void* out) {
  if (!cpu_has_avx512_bf16()) throw std::logic_error("packed product: this CPU has no AVX512-BF16");
  if (!w.bf16) throw std::logic_error("packed product: bf16 activations need a matrix packed as bf16");
  dispatch(a, rows, w, output, out);
}

void product(const float* a, std::size_t rows, const PackedMatrix& w, ProductOutput output, void* out) {
  if (!cpu_has_avx512()) throw std::logic_error("packed product: this CPU has no AVX-512");
  if (w.bf16) throw std::logic_error("packed product: float activations need a matrix packed as float");
  dispatch(a, rows, w, output, out);
}

#pragma GCC pop_options

#else

void product(const Bf16*, std::size_t, const PackedMatrix&, ProductOutput, void*) {
  throw std::logic_error("packed product: this build has no AVX-512 kernels");
}

void product(const float*, std::size_t, const PackedMatrix&, ProductOutput, void*) {
  throw std::logic_error("packed product: this build has no AVX-512 kernels");
}

#endif

}  // namespace nn
}  // namespace popucom
