#include "bf16_gemm.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "avx512_bf16.h"
#include "vector_math_avx512.h"

namespace popucom {
namespace nn {

PackedBf16Matrix pack_bf16_matrix(const float* weight, int outputs, int inputs) {
  if (inputs <= 0 || inputs % 2 != 0 || outputs <= 0 || outputs % 16 != 0)
    throw std::invalid_argument("bf16 product: want an even number of inputs and outputs in multiples of 16, got " +
                                std::to_string(outputs) + " x " + std::to_string(inputs));
  PackedBf16Matrix packed{outputs, inputs, {}};
  packed.pairs.resize(static_cast<std::size_t>(inputs / 2) * outputs);
  for (int p = 0; p < inputs / 2; ++p)
    for (int o = 0; o < outputs; ++o) {
      Bf16 low, high;
      store(low, weight[static_cast<std::size_t>(o) * inputs + 2 * p]);
      store(high, weight[static_cast<std::size_t>(o) * inputs + 2 * p + 1]);
      packed.pairs[static_cast<std::size_t>(p) * outputs + o] = low | static_cast<std::uint32_t>(high) << 16;
    }
  return packed;
}

#ifdef POPUCOM_HAVE_AVX512_BF16

#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq,avx512bf16")

namespace {

constexpr int LANES = 16;
// A tile of ROWS x VECTORS * 16 sums: 24 accumulators, 4 weight vectors and a broadcast
// fill 29 of the 32 registers, and 24 independent sums cover vdpbf16ps's latency.
constexpr int ROWS = 6;
constexpr int VECTORS = 4;

template <int R, int C, ProductOutput OUT>
void tile(const Bf16* a, int inputs, const std::uint32_t* w, int outputs, int column, void* out) {
  __m512 sum[R][C];
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) sum[r][c] = _mm512_setzero_ps();
  for (int p = 0; p < inputs / 2; ++p) {
    __m512bh weights[C];
    for (int c = 0; c < C; ++c)
      weights[c] = (__m512bh)_mm512_loadu_si512(w + static_cast<std::size_t>(p) * outputs + column + c * LANES);
    for (int r = 0; r < R; ++r) {
      std::uint32_t pair;
      std::memcpy(&pair, a + static_cast<std::size_t>(r) * inputs + 2 * p, sizeof pair);
      const __m512bh x = (__m512bh)_mm512_set1_epi32(static_cast<int>(pair));
      for (int c = 0; c < C; ++c) sum[r][c] = _mm512_dpbf16_ps(sum[r][c], x, weights[c]);
    }
  }
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) {
      const std::size_t at = static_cast<std::size_t>(r) * outputs + column + c * LANES;
      if constexpr (OUT == ProductOutput::kFloat) {
        _mm512_storeu_ps(static_cast<float*>(out) + at, sum[r][c]);
      } else {
        const __m512 y = OUT == ProductOutput::kGeluBf16 ? gelu16(sum[r][c]) : sum[r][c];
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(static_cast<Bf16*>(out) + at), (__m256i)_mm512_cvtneps_pbh(y));
      }
    }
}

template <int R, ProductOutput OUT>
void tile_of_width(int vectors, const Bf16* a, int inputs, const std::uint32_t* w, int outputs, int column, void* out) {
  switch (vectors) {
    case 4: tile<R, 4, OUT>(a, inputs, w, outputs, column, out); break;
    case 3: tile<R, 3, OUT>(a, inputs, w, outputs, column, out); break;
    case 2: tile<R, 2, OUT>(a, inputs, w, outputs, column, out); break;
    default: tile<R, 1, OUT>(a, inputs, w, outputs, column, out); break;
  }
}

template <ProductOutput OUT>
void product(const Bf16* a, std::size_t rows, const PackedBf16Matrix& w, void* out) {
  const std::size_t element = OUT == ProductOutput::kFloat ? sizeof(float) : sizeof(Bf16);
  for (std::size_t r0 = 0; r0 < rows; r0 += ROWS) {
    const int r = static_cast<int>(std::min<std::size_t>(ROWS, rows - r0));
    const Bf16* block = a + r0 * w.inputs;
    for (int column = 0; column < w.outputs; column += VECTORS * LANES) {
      const int vectors = std::min(VECTORS, (w.outputs - column) / LANES);
      void* target = static_cast<char*>(out) + r0 * w.outputs * element;
      const std::uint32_t* pairs = w.pairs.data();
      switch (r) {
        case 6: tile_of_width<6, OUT>(vectors, block, w.inputs, pairs, w.outputs, column, target); break;
        case 5: tile_of_width<5, OUT>(vectors, block, w.inputs, pairs, w.outputs, column, target); break;
        case 4: tile_of_width<4, OUT>(vectors, block, w.inputs, pairs, w.outputs, column, target); break;
        case 3: tile_of_width<3, OUT>(vectors, block, w.inputs, pairs, w.outputs, column, target); break;
        case 2: tile_of_width<2, OUT>(vectors, block, w.inputs, pairs, w.outputs, column, target); break;
        default: tile_of_width<1, OUT>(vectors, block, w.inputs, pairs, w.outputs, column, target); break;
      }
    }
  }
}

}  // namespace

void bf16_product(const Bf16* a, std::size_t rows, const PackedBf16Matrix& w, ProductOutput output, void* out) {
  if (!cpu_has_avx512_bf16()) throw std::logic_error("bf16_product: this CPU has no AVX512-BF16");
  switch (output) {
    case ProductOutput::kBf16: product<ProductOutput::kBf16>(a, rows, w, out); break;
    case ProductOutput::kGeluBf16: product<ProductOutput::kGeluBf16>(a, rows, w, out); break;
    case ProductOutput::kFloat: product<ProductOutput::kFloat>(a, rows, w, out); break;
  }
}

#pragma GCC pop_options

#else

void bf16_product(const Bf16*, std::size_t, const PackedBf16Matrix&, ProductOutput, void*) {
  throw std::logic_error("bf16_product: this build has no AVX512-BF16 kernels");
}

#endif

}  // namespace nn
}  // namespace popucom
