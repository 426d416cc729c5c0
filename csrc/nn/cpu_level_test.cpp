// The instruction-set cap: its values, its refusal of unknown ones, and that the kernels'
// checks never claim more than the CPU has.
#include "cpu_level.h"

#include <stdexcept>
#include <string>

#include "../tests/testing.h"
#include "isa_kernels.h"

using namespace popucom;
using nn::CpuLevel;

TEST(nn, cpu_level_cap_takes_each_level_name_and_auto) {
  CHECK(nn::parse_cpu_level_cap("") == CpuLevel::kAvx512Bf16);
  CHECK(nn::parse_cpu_level_cap("auto") == CpuLevel::kAvx512Bf16);
  CHECK(nn::parse_cpu_level_cap("baseline") == CpuLevel::kBaseline);
  CHECK(nn::parse_cpu_level_cap("avx2") == CpuLevel::kAvx2);
  CHECK(nn::parse_cpu_level_cap("avx512") == CpuLevel::kAvx512);
  CHECK(nn::parse_cpu_level_cap("avx512_bf16") == CpuLevel::kAvx512Bf16);
  for (int i = 0; i <= static_cast<int>(CpuLevel::kAvx512Bf16); ++i)
    CHECK(nn::parse_cpu_level_cap(nn::cpu_level_name(static_cast<CpuLevel>(i))) == static_cast<CpuLevel>(i));
}

TEST(nn, cpu_level_cap_refuses_an_unknown_value_naming_the_variable_and_the_choices) {
  for (const char* bad : {"AVX2", "sse", "avx-512", " avx2"}) {
    bool refused = false;
    try {
      nn::parse_cpu_level_cap(bad);
    } catch (const std::invalid_argument& e) {
      const std::string message = e.what();
      refused = message.find("POPUCOM_CPU_ISA") != std::string::npos &&
                message.find(std::string("'") + bad + "'") != std::string::npos &&
                message.find("baseline, avx2, avx512, avx512_bf16") != std::string::npos;
    }
    CHECK(refused);
  }
}

TEST(nn, kernels_never_run_above_the_cpu_or_the_cap) {
  CHECK(nn::cpu_level() <= nn::detected_cpu_level());
  CHECK(nn::cpu_level() <= nn::cpu_level_cap());
  CHECK(nn::cpu_has_avx512() == (nn::cpu_level() >= CpuLevel::kAvx512));
  CHECK(!nn::cpu_has_avx512_bf16() || nn::cpu_has_avx512());
#ifndef POPUCOM_HAVE_X86_KERNELS
  CHECK(nn::cpu_level() == CpuLevel::kBaseline);  // a build without the x86 copies runs the portable one
#endif
}
