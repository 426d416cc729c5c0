#include "pope_attention.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>
#include <string>

#include "pope_attention_isa.h"

namespace popucom {
namespace nn {

namespace {

template <typename Act>
void attend(const Act* qkv, const float* tables, std::size_t batch, int heads, int head_dim, Act* out) {
  if (!pope_attention_supports(head_dim))
    throw std::invalid_argument("pope_attention: head_dim " + std::to_string(head_dim) + " is not compiled in");
#ifdef POPUCOM_HAVE_X86_KERNELS
  if (cpu_has_avx512()) return pope_attention_avx512(qkv, tables, batch, heads, head_dim, out);
  if (cpu_has_avx2()) return pope_attention_avx2(qkv, tables, batch, heads, head_dim, out);
#endif
  pope_attention_portable(qkv, tables, batch, heads, head_dim, out);
}

}  // namespace

bool pope_attention_supports(int head_dim) {
  return std::find(std::begin(POPE_HEAD_DIMS), std::end(POPE_HEAD_DIMS), head_dim) != std::end(POPE_HEAD_DIMS);
}

void pope_attention(const float* qkv, const float* tables, std::size_t batch, int heads, int head_dim, float* out) {
  attend(qkv, tables, batch, heads, head_dim, out);
}

void pope_attention(const Bf16* qkv, const float* tables, std::size_t batch, int heads, int head_dim, Bf16* out) {
  attend(qkv, tables, batch, heads, head_dim, out);
}

}  // namespace nn
}  // namespace popucom
