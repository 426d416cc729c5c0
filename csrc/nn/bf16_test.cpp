// The bf16 conversions of the inference kernels against torch's rounding rule.
#include "bf16.h"

#include <cstdint>
#include <cstring>

#include "../tests/testing.h"

using namespace popucom;

namespace {

float from_bits(std::uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

nn::Bf16 rounded(float x) {
  nn::Bf16 out;
  nn::store(out, x);
  return out;
}

}  // namespace

TEST(nn, bf16_rounds_to_nearest_ties_to_even) {
  CHECK(rounded(1.0f) == 0x3F80 && nn::to_float(nn::Bf16{0x3F80}) == 1.0f);
  CHECK(rounded(from_bits(0x3F808000u)) == 0x3F80);  // a tie, down to the even neighbour
  CHECK(rounded(from_bits(0x3F818000u)) == 0x3F82);  // a tie, up to the even neighbour
  CHECK(rounded(from_bits(0x3F808001u)) == 0x3F81);  // past the tie
  CHECK(rounded(from_bits(0x3F807FFFu)) == 0x3F80);
  CHECK(rounded(-2.5f) == 0xC020);
  CHECK(rounded(from_bits(0x3FFFFFFFu)) == 0x4000);  // the carry reaches the exponent
}
