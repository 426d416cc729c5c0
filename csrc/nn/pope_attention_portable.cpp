// The float32 attention kernel on the build's own level: 4 lanes (SSE on x86-64-v2, NEON, wasm SIMD128).
#include "pope_attention_head.h"
#include "pope_attention_isa.h"

namespace popucom {
namespace nn {

void pope_attention_portable(const float* qkv, const float* tables, std::size_t batch, int heads, int head_dim,
                             float* out) {
  pope_attention_with<4>(qkv, tables, batch, heads, head_dim, out);
}

void pope_attention_portable(const Bf16* qkv, const float* tables, std::size_t batch, int heads, int head_dim,
                             Bf16* out) {
  pope_attention_with<4>(qkv, tables, batch, heads, head_dim, out);
}

}  // namespace nn
}  // namespace popucom
