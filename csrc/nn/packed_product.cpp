#include "packed_product.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "packed_product_isa.h"

namespace popucom {
namespace nn {

PackedMatrix pack_matrix(const float* weight, int outputs, int inputs, bool bf16) {
  if (inputs <= 0 || (bf16 && inputs % 2 != 0) || outputs <= 0 || outputs % 16 != 0)
    throw std::invalid_argument("packed product: want outputs in multiples of 16 and " +
                                std::string(bf16 ? "an even number of inputs" : "some inputs") + ", got " +
                                std::to_string(outputs) + " x " + std::to_string(inputs));
  PackedMatrix packed{bf16, outputs, inputs, {}};
  packed.words.resize(static_cast<std::size_t>(inputs) * outputs / (bf16 ? 2 : 1));
  const auto at = [&](int o, int i) { return weight[static_cast<std::size_t>(o) * inputs + i]; };
  for (int o = 0; o < outputs; ++o) {
    if (!bf16) {
      for (int i = 0; i < inputs; ++i) {
        const float value = at(o, i);
        std::memcpy(&packed.words[static_cast<std::size_t>(i) * outputs + o], &value, sizeof value);
      }
      continue;
    }
    for (int p = 0; p < inputs / 2; ++p) {
      Bf16 low, high;
      store(low, at(o, 2 * p));
      store(high, at(o, 2 * p + 1));
      packed.words[static_cast<std::size_t>(p) * outputs + o] = low | static_cast<std::uint32_t>(high) << 16;
    }
  }
  return packed;
}

// Without the x86 kernels (an ARM or wasm build) only the refusals use the arguments.
void product([[maybe_unused]] const Bf16* a, [[maybe_unused]] std::size_t rows, const PackedMatrix& w,
             [[maybe_unused]] ProductOutput output, [[maybe_unused]] void* out) {
  if (!w.bf16) throw std::logic_error("packed product: bf16 activations need a matrix packed as bf16");
#ifdef POPUCOM_HAVE_X86_KERNELS
  if (cpu_has_avx512_bf16()) return product_bf16_avx512(a, rows, w, output, out);
#endif
  throw std::logic_error("packed product: this CPU or build has no AVX512-BF16 kernels");
}

void product(const float* a, std::size_t rows, const PackedMatrix& w, ProductOutput output, void* out) {
  if (w.bf16) throw std::logic_error("packed product: float activations need a matrix packed as float");
#ifdef POPUCOM_HAVE_X86_KERNELS
  if (cpu_has_avx512()) return product_float_avx512(a, rows, w, output, out);
  if (cpu_has_avx2()) return product_float_avx2(a, rows, w, output, out);
#endif
  product_float_portable(a, rows, w, output, out);
}

}  // namespace nn
}  // namespace popucom
