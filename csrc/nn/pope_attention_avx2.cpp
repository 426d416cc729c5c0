// The float32 attention kernel on AVX2/FMA: 8 lanes.
#include "pope_attention_isa.h"

#ifdef POPUCOM_HAVE_X86_KERNELS

// The standard headers come in first, at the build's level; what follows compiles for
// the pragma's instruction set (pope_attention_head.h's templates are defined under it).
#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <stdexcept>
#include <string>

#pragma GCC push_options
#pragma GCC target("avx2,fma")

#include "pope_attention_head.h"

namespace popucom {
namespace nn {

void pope_attention_avx2(const float* qkv, const float* tables, std::size_t batch, int heads, int head_dim,
                         float* out) {
  pope_attention_with<8>(qkv, tables, batch, heads, head_dim, out);
}

void pope_attention_avx2(const Bf16* qkv, const float* tables, std::size_t batch, int heads, int head_dim, Bf16* out) {
  pope_attention_with<8>(qkv, tables, batch, heads, head_dim, out);
}

}  // namespace nn
}  // namespace popucom

#pragma GCC pop_options

#endif
