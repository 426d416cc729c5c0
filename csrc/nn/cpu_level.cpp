#include "cpu_level.h"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

#include "isa_kernels.h"

namespace popucom {
namespace nn {

const char* cpu_level_name(CpuLevel level) { return kCpuLevelNames[static_cast<int>(level)]; }

CpuLevel detected_cpu_level() {
#ifdef POPUCOM_HAVE_X86_KERNELS
  static const CpuLevel level = [] {
    const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
    if (avx512 && __builtin_cpu_supports("avx512bf16")) return CpuLevel::kAvx512Bf16;
    if (avx512) return CpuLevel::kAvx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return CpuLevel::kAvx2;
    return CpuLevel::kBaseline;
  }();
  return level;
#else
  return CpuLevel::kBaseline;
#endif
}

CpuLevel parse_cpu_level_cap(const std::string& value) {
  if (value.empty() || value == "auto") return CpuLevel::kAvx512Bf16;
  std::string choices = "auto";
  for (int i = 0; i <= static_cast<int>(CpuLevel::kAvx512Bf16); ++i) {
    if (value == kCpuLevelNames[i]) return static_cast<CpuLevel>(i);
    choices += std::string(", ") + kCpuLevelNames[i];
  }
  throw std::invalid_argument(std::string(kCpuIsaEnv) + ": unknown instruction-set level '" + value + "' (choose " +
                              choices + ")");
}

CpuLevel cpu_level_cap() {
  static const CpuLevel cap = [] {
    const char* value = std::getenv(kCpuIsaEnv);
    return parse_cpu_level_cap(value ? value : "");
  }();
  return cap;
}

CpuLevel cpu_level() { return std::min(detected_cpu_level(), cpu_level_cap()); }

}  // namespace nn
}  // namespace popucom
