// Matrix products of the native forward (native_net.h): activations times a weight matrix
// packed once, in registers of the widest instruction set the CPU runs (isa_kernels.h):
// float32 on every CPU (packed_product_tiles.h, one copy per instruction set), bf16 where it
// has AVX512-BF16. An epilogue
// applied while the sums are in registers writes each result: in the activations' type for
// the next product, GELU first for the MLP's hidden layer, or float32 for the residual
// sources. At the network's shapes a product takes tens of microseconds, so a call into a
// library per product would cost about as much as the product.
#ifndef POPUCOM_NN_PACKED_PRODUCT_H_
#define POPUCOM_NN_PACKED_PRODUCT_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "bf16.h"

namespace popucom {
namespace nn {

// A (outputs, inputs) weight matrix, torch's nn.Linear layout, packed for product():
// bf16: words[p * outputs + o] holds W[o, 2p] (low half) and W[o, 2p + 1] (high half), rounded
//       to nearest even as torch rounds; inputs must be even;
// float: words[i * outputs + o] holds the bits of W[o, i].
// outputs must be a multiple of 16.
struct PackedMatrix {
  bool bf16 = false;
  int outputs = 0, inputs = 0;
  std::vector<std::uint32_t> words;
};

// Throws std::invalid_argument for shapes the products do not serve.
PackedMatrix pack_matrix(const float* weight, int outputs, int inputs, bool bf16);

enum class ProductOutput {
  kActivation,      // out has the activations' type (rows, outputs)
  kGeluActivation,  // GELU (exact erf) of the sums, then as kActivation
  kFloat,           // out is float (rows, outputs)
};

// out[r, :] = output(a[r, :] . W^T) for r < rows, a (rows, inputs) row-major, on the calling
// thread. The bf16 overload takes a matrix packed as bf16 and needs cpu_has_avx512_bf16(), the
// float one a float matrix (else std::logic_error, as for a matrix of the other type).
void product(const Bf16* a, std::size_t rows, const PackedMatrix& w, ProductOutput output, void* out);
void product(const float* a, std::size_t rows, const PackedMatrix& w, ProductOutput output, void* out);

}  // namespace nn
}  // namespace popucom

#endif  // POPUCOM_NN_PACKED_PRODUCT_H_
