// Where the AVX-512 kernels exist: GCC on x86-64 Linux builds them (each in a `#pragma GCC
// target` block of its own file, the rest of the build staying at its baseline level), and a
// CPU that has the instructions runs them. The baseline-only build (POPUCOM_BASELINE_ONLY) has none.
#ifndef POPUCOM_NN_AVX512_H_
#define POPUCOM_NN_AVX512_H_

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && \
    !defined(POPUCOM_BASELINE_ONLY)
#define POPUCOM_HAVE_AVX512_KERNELS 1
#endif

#include "cpu_level.h"

namespace popucom {
namespace nn {

// Whether the float32 AVX-512 kernels run here: built, on a CPU that has the instructions,
// and not capped below by $POPUCOM_CPU_ISA (cpu_level.h).
inline bool cpu_has_avx512() { return cpu_level() >= CpuLevel::kAvx512; }

// Whether the AVX512-BF16 kernels run here too.
inline bool cpu_has_avx512_bf16() { return cpu_level() >= CpuLevel::kAvx512Bf16; }

}  // namespace nn
}  // namespace popucom

#endif  // POPUCOM_NN_AVX512_H_
