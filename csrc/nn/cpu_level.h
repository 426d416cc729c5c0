// The instruction-set level that the hand-written kernels may use: the CPU's own, lowered by
// $POPUCOM_CPU_ISA, so that the path of a CPU without AVX-512 (most laptops, every ARM machine)
// runs and is tested on one that has it: POPUCOM_CPU_ISA=avx2 on an AVX-512 machine takes the
// AVX2 machine's path through every kernel that asks here (the native forward, the packed
// products, the float32 attention, the attention's bf16 dot products). The per-ISA copies of
// per_isa.h (depth mix, mHC) are picked by the loader and do not ask; the baseline-only build
// (POPUCOM_BASELINE_ONLY) has none of them.
#ifndef POPUCOM_NN_CPU_LEVEL_H_
#define POPUCOM_NN_CPU_LEVEL_H_

#include <string>

namespace popucom {
namespace nn {

enum class CpuLevel { kBaseline = 0, kAvx2 = 1, kAvx512 = 2, kAvx512Bf16 = 3 };

inline constexpr const char* kCpuIsaEnv = "POPUCOM_CPU_ISA";
// The values $POPUCOM_CPU_ISA takes besides "auto" (or unset: no cap), lowest first.
inline constexpr const char* kCpuLevelNames[] = {"baseline", "avx2", "avx512", "avx512_bf16"};

const char* cpu_level_name(CpuLevel level);
// What this CPU has, for the kernels this build contains.
CpuLevel detected_cpu_level();
// $POPUCOM_CPU_ISA, read once (kAvx512Bf16 where it is unset or "auto"); an unknown value
// throws std::invalid_argument naming the variable and its choices (a ValueError in Python).
CpuLevel cpu_level_cap();
// The smaller of the two: what the kernels use.
CpuLevel cpu_level();
// Parses one value of $POPUCOM_CPU_ISA (std::invalid_argument for an unknown one).
CpuLevel parse_cpu_level_cap(const std::string& value);

}  // namespace nn
}  // namespace popucom

#endif  // POPUCOM_NN_CPU_LEVEL_H_
