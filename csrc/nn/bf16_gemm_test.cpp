// The packed bf16 products against a double-precision product of the same bf16 operands.
#include "bf16_gemm.h"

#include <cmath>
#include <iostream>
#include <random>
#include <stdexcept>
#include <vector>

#include "../tests/testing.h"
#include "avx512_bf16.h"

using namespace popucom;

namespace {

float rounded(float x) {
  nn::Bf16 b;
  nn::store(b, x);
  return nn::to_float(b);
}

struct Product {
  std::size_t rows;
  int outputs, inputs;
  std::vector<nn::Bf16> a;
  std::vector<float> weight;
  std::vector<double> want, magnitude;  // the exact sums of the rounded operands, and of their |products|
};

Product random_product(unsigned seed, std::size_t rows, int outputs, int inputs) {
  Product p{rows, outputs, inputs, {}, {}, {}, {}};
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  p.a.resize(rows * inputs);
  for (auto& x : p.a) nn::store(x, normal(rng));
  p.weight.resize(static_cast<std::size_t>(outputs) * inputs);
  for (float& w : p.weight) w = 0.2f * normal(rng);
  for (std::size_t r = 0; r < rows; ++r)
    for (int o = 0; o < outputs; ++o) {
      double sum = 0.0, size = 0.0;
      for (int i = 0; i < inputs; ++i) {
        const double term = static_cast<double>(nn::to_float(p.a[r * inputs + i])) *
                            rounded(p.weight[static_cast<std::size_t>(o) * inputs + i]);
        sum += term;
        size += std::fabs(term);
      }
      p.want.push_back(sum);
      p.magnitude.push_back(size);
    }
  return p;
}

double gelu(double x) { return 0.5 * x * std::erfc(-x / std::sqrt(2.0)); }

}  // namespace

TEST(nn, bf16_product_refuses_shapes_it_cannot_pack) {
  const std::vector<float> w(24 * 7, 0.0f);
  CHECK_THROWS(nn::pack_bf16_matrix(w.data(), 24, 7), std::invalid_argument);  // odd inputs, 24 outputs
  CHECK_THROWS(nn::pack_bf16_matrix(w.data(), 16, 0), std::invalid_argument);
}

TEST(nn, bf16_product_matches_the_exact_sums_in_every_output_form) {
  if (!nn::cpu_has_avx512_bf16()) {
    std::cout << "  (skipped: no AVX512-BF16 on this CPU)\n";
    return;
  }
  // 13 rows and 80 outputs reach the partial row and column tiles; 192 inputs the MLP's width.
  for (const auto& [rows, outputs, inputs] :
       {std::tuple<std::size_t, int, int>{13, 80, 64}, {6, 192, 64}, {7, 64, 192}, {1, 16, 2}}) {
    const Product p = random_product(static_cast<unsigned>(rows * 1000 + outputs + inputs), rows, outputs, inputs);
    const nn::PackedBf16Matrix w = nn::pack_bf16_matrix(p.weight.data(), outputs, inputs);
    std::vector<float> exact(rows * outputs);
    std::vector<nn::Bf16> narrow(rows * outputs), activated(rows * outputs);
    nn::bf16_product(p.a.data(), rows, w, nn::ProductOutput::kFloat, exact.data());
    nn::bf16_product(p.a.data(), rows, w, nn::ProductOutput::kBf16, narrow.data());
    nn::bf16_product(p.a.data(), rows, w, nn::ProductOutput::kGeluBf16, activated.data());
    for (std::size_t i = 0; i < exact.size(); ++i) {
      // float32 sums of exact bf16 products: the sums' rounding only.
      const double sum_error = 1e-6 * p.magnitude[i] + 1e-30;
      CHECK(std::fabs(exact[i] - p.want[i]) <= sum_error);
      // Then one rounding to bf16 (half a unit in the last of 8 bits).
      CHECK(std::fabs(nn::to_float(narrow[i]) - p.want[i]) <= std::ldexp(std::fabs(p.want[i]), -8) + sum_error);
      const double g = gelu(p.want[i]);
      CHECK(std::fabs(nn::to_float(activated[i]) - g) <= std::ldexp(std::fabs(g), -8) + sum_error + 1e-6);
    }
  }
}
