// Which copies of the hand-written kernels a build has, and which of them this CPU runs.
// Every build has the portable copy (vector extensions at the build's own level: SSE on
// x86-64-v2, NEON, wasm SIMD128). GCC on x86-64 Linux also builds an AVX2/FMA and an
// AVX-512 copy, each in a `#pragma GCC target` block of its own file, the rest of the build
// staying at its baseline level; the baseline-only build (POPUCOM_BASELINE_ONLY) has the
// portable copy alone, which is what an x86-64-v2 CPU runs, testable on any x86-64 machine.
#ifndef POPUCOM_NN_ISA_KERNELS_H_
#define POPUCOM_NN_ISA_KERNELS_H_

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && \
    !defined(POPUCOM_BASELINE_ONLY)
#define POPUCOM_HAVE_X86_KERNELS 1
#endif

#include "cpu_level.h"

namespace popucom {
namespace nn {

// Whether the AVX2/FMA kernels run here: built, on a CPU that has the instructions, and not
// capped below by $POPUCOM_CPU_ISA (cpu_level.h).
inline bool cpu_has_avx2() { return cpu_level() >= CpuLevel::kAvx2; }

// Whether the float32 AVX-512 kernels run here.
inline bool cpu_has_avx512() { return cpu_level() >= CpuLevel::kAvx512; }

// Whether the AVX512-BF16 kernels run here too.
inline bool cpu_has_avx512_bf16() { return cpu_level() >= CpuLevel::kAvx512Bf16; }

}  // namespace nn
}  // namespace popucom

#endif  // POPUCOM_NN_ISA_KERNELS_H_
