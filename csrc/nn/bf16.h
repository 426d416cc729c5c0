// bfloat16 for the CPU inference kernels: the operands of the network's matrix products
// are bf16 on CPUs that multiply it natively (popucom/infer/precision.py), so a kernel
// that reads a product's output or feeds the next product's input takes or writes bf16
// itself, where torch would spend a separate conversion pass over the activations.
// A bf16 value travels as its bit pattern: the upper half of the float32.
#ifndef POPUCOM_NN_BF16_H_
#define POPUCOM_NN_BF16_H_

#include <cstdint>
#include <cstring>

namespace popucom {
namespace nn {

using Bf16 = std::uint16_t;

inline float to_float(float x) { return x; }

inline float to_float(Bf16 x) {
  const std::uint32_t bits = static_cast<std::uint32_t>(x) << 16;
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

// Round to nearest, ties to even, as torch's float -> bfloat16 conversion. The kernels
// see finite values only (they are built with -ffast-math), so NaN is not special-cased.
inline void store(float& slot, float x) { slot = x; }

inline void store(Bf16& slot, float x) {
  std::uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  slot = static_cast<Bf16>((bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16);
}

}  // namespace nn
}  // namespace popucom

#endif  // POPUCOM_NN_BF16_H_
