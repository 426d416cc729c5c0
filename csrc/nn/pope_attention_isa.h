// The float32 attention kernel's copies, one per instruction set (pope_attention_<isa>.cpp),
// which pope_attention() (pope_attention.h) picks by cpu_level(); same arguments, a head
// width already checked.
#ifndef POPUCOM_NN_POPE_ATTENTION_ISA_H_
#define POPUCOM_NN_POPE_ATTENTION_ISA_H_

#include <cstddef>

#include "bf16.h"
#include "isa_kernels.h"

namespace popucom {
namespace nn {

#define POPUCOM_DECLARE_ATTENTION_COPY(isa)                                                                    \
  void pope_attention_##isa(const float* qkv, const float* tables, std::size_t batch, int heads, int head_dim, \
                            float* out);                                                                       \
  void pope_attention_##isa(const Bf16* qkv, const float* tables, std::size_t batch, int heads, int head_dim,  \
                            Bf16* out);

POPUCOM_DECLARE_ATTENTION_COPY(portable)
#ifdef POPUCOM_HAVE_X86_KERNELS
POPUCOM_DECLARE_ATTENTION_COPY(avx2)
POPUCOM_DECLARE_ATTENTION_COPY(avx512)
#endif

#undef POPUCOM_DECLARE_ATTENTION_COPY

}  // namespace nn
}  // namespace popucom

#endif  // POPUCOM_NN_POPE_ATTENTION_ISA_H_
