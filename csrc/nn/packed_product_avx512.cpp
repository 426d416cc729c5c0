// The packed product on AVX-512: 16 lanes, a tile of 6 x 4 registers of sums, which with
// 4 weight vectors and a broadcast fill 29 of the 32 registers; 24 independent sums cover
// the multiply-adds' latency. In bf16 (AVX512-BF16 vdpbf16ps, two products per lane and
// instruction into float32 sums) one 64-byte load of the packed weights is 16 output
// columns times two inputs.
#include "packed_product_isa.h"

#ifdef POPUCOM_HAVE_X86_KERNELS

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <type_traits>

#include "immintrin_quiet.h"

// The standard headers come in above, at the build's level; what follows compiles for
// AVX-512 (packed_product_tiles.h's templates must be defined under the pragma to be built
// for it).
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq,avx512bf16")

#include "packed_product_tiles.h"

namespace popucom {
namespace nn {

namespace {

struct Bf16Kernel {
  using V = FloatLanes<16>;
  using Act = Bf16;
  static constexpr int ROWS = 6;
  static constexpr int VECTORS = 4;

  // sum += a . w for one packed word of inputs: a bf16 pair of the row times 16 columns' pairs.
  static POPUCOM_VECTOR_INLINE V multiply_add(V sum, const Bf16* a, int step, V weights) {
    std::uint32_t pair;
    std::memcpy(&pair, a + 2 * step, sizeof pair);
    return (V)_mm512_dpbf16_ps((__m512)sum, (__m512bh)_mm512_set1_epi32(static_cast<int>(pair)), (__m512bh)weights);
  }

  static POPUCOM_VECTOR_INLINE void store(Bf16* out, V y) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), (__m256i)_mm512_cvtneps_pbh((__m512)y));
  }
};

}  // namespace

void product_float_avx512(const float* a, std::size_t rows, const PackedMatrix& w, ProductOutput output, void* out) {
  product_with<FloatKernel<16, 6, 4>>(a, rows, w, output, out);
}

void product_bf16_avx512(const Bf16* a, std::size_t rows, const PackedMatrix& w, ProductOutput output, void* out) {
  product_with<Bf16Kernel>(a, rows, w, output, out);
}

}  // namespace nn
}  // namespace popucom

#pragma GCC pop_options

#endif
