// The packed product on AVX2/FMA: 8 lanes, a tile of 6 x 2 registers of sums, which with
// 2 weight vectors and a broadcast fill 15 of the 16 registers; 12 independent sums cover
// the multiply-adds' latency.
#include "packed_product_isa.h"

#ifdef POPUCOM_HAVE_X86_KERNELS

// The standard headers come in above, at the build's level; what follows compiles for AVX2
// (packed_product_tiles.h's templates must be defined under the pragma to be built for it).
#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <type_traits>

#pragma GCC push_options
#pragma GCC target("avx2,fma")

#include "packed_product_tiles.h"

namespace popucom {
namespace nn {

void product_float_avx2(const float* a, std::size_t rows, const PackedMatrix& w, ProductOutput output, void* out) {
  product_with<FloatKernel<8, 6, 2>>(a, rows, w, output, out);
}

}  // namespace nn
}  // namespace popucom

#pragma GCC pop_options

#endif
