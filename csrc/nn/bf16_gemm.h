// Matrix products of bf16 activations with bf16 weights packed once, for the native forward
// (native_net.h): AVX512-BF16 dot products (vdpbf16ps, two products per lane and instruction
// into float32 sums), the weights laid out so that one 64-byte load is 16 output columns times
// two inputs. An epilogue applied while the sums are in registers writes each result: bf16 for
// the next product, GELU then bf16 for the MLP's hidden layer, or float32 for the residual
// sources. At the network's shapes a product is a few tens of microseconds, so a call into a
// library per product would cost as much as the product.
#ifndef POPUCOM_NN_BF16_GEMM_H_
#define POPUCOM_NN_BF16_GEMM_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "bf16.h"

namespace popucom {
namespace nn {

// A (outputs, inputs) weight matrix, torch's nn.Linear layout, packed for bf16_product:
// pairs[p * outputs + o] holds W[o, 2p] (low half) and W[o, 2p + 1] (high half) as bf16,
// rounded to nearest even as torch rounds. inputs must be even, outputs a multiple of 16.
struct PackedBf16Matrix {
  int outputs = 0, inputs = 0;
  std::vector<std::uint32_t> pairs;
};

// Throws std::invalid_argument for shapes the products do not serve.
PackedBf16Matrix pack_bf16_matrix(const float* weight, int outputs, int inputs);

enum class ProductOutput {
  kBf16,      // out is Bf16 (rows, outputs)
  kGeluBf16,  // GELU (exact erf) of the sums, then as kBf16
  kFloat,     // out is float (rows, outputs)
};

// out[r, :] = output(a[r, :] . W^T) for r < rows, a (rows, inputs) bf16 row-major. Runs on
// the calling thread. Requires cpu_has_avx512_bf16() (else std::logic_error).
void bf16_product(const Bf16* a, std::size_t rows, const PackedBf16Matrix& w, ProductOutput output, void* out);

}  // namespace nn
}  // namespace popucom

#endif  // POPUCOM_NN_BF16_GEMM_H_
