// The packed product at the build's own level: 4 lanes (SSE on x86-64-v2, NEON, wasm
// SIMD128), a tile of 4 x 3 registers of sums, which with 3 weight vectors and a broadcast
// fills the 16 registers that SSE and SIMD128 name.
#include "packed_product_isa.h"
#include "packed_product_tiles.h"

namespace popucom {
namespace nn {

void product_float_portable(const float* a, std::size_t rows, const PackedMatrix& w, ProductOutput output, void* out) {
  product_with<FloatKernel<4, 4, 3>>(a, rows, w, output, out);
}

}  // namespace nn
}  // namespace popucom
