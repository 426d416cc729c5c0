// The packed product's copies, one per instruction set (packed_product_<isa>.cpp), which
// product() (packed_product.h) picks by cpu_level(); same arguments as product().
#ifndef POPUCOM_NN_PACKED_PRODUCT_ISA_H_
#define POPUCOM_NN_PACKED_PRODUCT_ISA_H_

#include <cstddef>

#include "isa_kernels.h"
#include "packed_product.h"

namespace popucom {
namespace nn {

void product_float_portable(const float* a, std::size_t rows, const PackedMatrix& w, ProductOutput output, void* out);

#ifdef POPUCOM_HAVE_X86_KERNELS
void product_float_avx2(const float* a, std::size_t rows, const PackedMatrix& w, ProductOutput output, void* out);
void product_float_avx512(const float* a, std::size_t rows, const PackedMatrix& w, ProductOutput output, void* out);
void product_bf16_avx512(const Bf16* a, std::size_t rows, const PackedMatrix& w, ProductOutput output, void* out);
#endif

}  // namespace nn
}  // namespace popucom

#endif  // POPUCOM_NN_PACKED_PRODUCT_ISA_H_
