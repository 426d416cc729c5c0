// The packed products against a double-precision product of the same operands (bf16-rounded
// for the bf16 products).
#include "packed_product.h"

#include <cmath>
#include <iostream>
#include <random>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "../tests/testing.h"
#include "isa_kernels.h"
#include "packed_product_isa.h"

using namespace popucom;

namespace {

float rounded(float x) {
  nn::Bf16 b;
  nn::store(b, x);
  return nn::to_float(b);
}

struct Product {
  std::vector<float> a, weight;         // a (rows, inputs) already bf16-exact where bf16
  std::vector<double> want, magnitude;  // the exact sums of the operands, and of their |products|
};

Product random_product(unsigned seed, std::size_t rows, int outputs, int inputs, bool bf16) {
  Product p;
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (std::size_t i = 0; i < rows * inputs; ++i) p.a.push_back(bf16 ? rounded(normal(rng)) : normal(rng));
  for (std::size_t i = 0; i < static_cast<std::size_t>(outputs) * inputs; ++i) p.weight.push_back(0.2f * normal(rng));
  for (std::size_t r = 0; r < rows; ++r)
    for (int o = 0; o < outputs; ++o) {
      double sum = 0.0, size = 0.0;
      for (int i = 0; i < inputs; ++i) {
        const float w = p.weight[static_cast<std::size_t>(o) * inputs + i];
        const double term = static_cast<double>(p.a[r * inputs + i]) * (bf16 ? rounded(w) : w);
        sum += term;
        size += std::fabs(term);
      }
      p.want.push_back(sum);
      p.magnitude.push_back(size);
    }
  return p;
}

double gelu(double x) { return 0.5 * x * std::erfc(-x / std::sqrt(2.0)); }

// 13 rows and 80 outputs reach the partial row and column tiles; 192 inputs the MLP's width.
const std::tuple<std::size_t, int, int> SHAPES[] = {{13, 80, 64}, {6, 192, 64}, {7, 64, 192},
                                                    {1, 16, 2},   {5, 48, 34},  {12, 144, 8}};

// The float32 sums of exact products: the sums' rounding only.
double sum_error(const Product& p, std::size_t i) { return 1e-6 * p.magnitude[i] + 1e-30; }

}  // namespace

TEST(nn, packed_product_refuses_shapes_it_cannot_pack) {
  const std::vector<float> w(24 * 7, 0.0f);
  CHECK_THROWS(nn::pack_matrix(w.data(), 16, 7, true), std::invalid_argument);   // odd inputs in bf16
  CHECK_THROWS(nn::pack_matrix(w.data(), 24, 6, false), std::invalid_argument);  // 24 outputs
  CHECK_THROWS(nn::pack_matrix(w.data(), 16, 0, false), std::invalid_argument);
  if (!nn::cpu_has_avx512_bf16()) return;
  const nn::PackedMatrix as_float = nn::pack_matrix(w.data(), 16, 6, false);
  std::vector<nn::Bf16> a(6), out(16);
  CHECK_THROWS(nn::product(a.data(), 1, as_float, nn::ProductOutput::kActivation, out.data()), std::logic_error);
}

TEST(nn, bf16_product_matches_the_exact_sums_in_every_output_form) {
  if (!nn::cpu_has_avx512_bf16()) {
    std::cout << "  (skipped: no AVX512-BF16 on this CPU)\n";
    return;
  }
  for (const auto& [rows, outputs, inputs] : SHAPES) {
    const Product p =
        random_product(static_cast<unsigned>(rows * 1000 + outputs + inputs), rows, outputs, inputs, true);
    const nn::PackedMatrix w = nn::pack_matrix(p.weight.data(), outputs, inputs, true);
    std::vector<nn::Bf16> a(p.a.size()), narrow(rows * outputs), activated(rows * outputs);
    for (std::size_t i = 0; i < a.size(); ++i) nn::store(a[i], p.a[i]);
    std::vector<float> exact(rows * outputs);
    nn::product(a.data(), rows, w, nn::ProductOutput::kFloat, exact.data());
    nn::product(a.data(), rows, w, nn::ProductOutput::kActivation, narrow.data());
    nn::product(a.data(), rows, w, nn::ProductOutput::kGeluActivation, activated.data());
    for (std::size_t i = 0; i < exact.size(); ++i) {
      CHECK(std::fabs(exact[i] - p.want[i]) <= sum_error(p, i));
      // Then one rounding to bf16 (half a unit in the last of 8 bits).
      CHECK(std::fabs(nn::to_float(narrow[i]) - p.want[i]) <= std::ldexp(std::fabs(p.want[i]), -8) + sum_error(p, i));
      const double g = gelu(p.want[i]);
      CHECK(std::fabs(nn::to_float(activated[i]) - g) <= std::ldexp(std::fabs(g), -8) + sum_error(p, i) + 1e-6);
    }
  }
}

TEST(nn, float_product_matches_the_exact_sums_in_every_output_form_in_each_instruction_set) {
  using Copy = void (*)(const float*, std::size_t, const nn::PackedMatrix&, nn::ProductOutput, void*);
  std::vector<std::pair<const char*, Copy>> copies = {{"portable", nn::product_float_portable}};
#ifdef POPUCOM_HAVE_X86_KERNELS
  if (nn::cpu_has_avx2()) copies.emplace_back("avx2", nn::product_float_avx2);
  if (nn::cpu_has_avx512()) copies.emplace_back("avx512", nn::product_float_avx512);
#endif
  copies.emplace_back("product()", [](const float* a, std::size_t rows, const nn::PackedMatrix& w,
                                      nn::ProductOutput output, void* out) { nn::product(a, rows, w, output, out); });
  for (const auto& [name, product] : copies) {
    std::cout << "  " << name << "\n";
    for (const auto& [rows, outputs, inputs] : SHAPES) {
      const Product p =
          random_product(static_cast<unsigned>(rows * 7 + outputs + inputs), rows, outputs, inputs, false);
      const nn::PackedMatrix w = nn::pack_matrix(p.weight.data(), outputs, inputs, false);
      std::vector<float> plain(rows * outputs), activated(rows * outputs);
      product(p.a.data(), rows, w, nn::ProductOutput::kFloat, plain.data());
      product(p.a.data(), rows, w, nn::ProductOutput::kGeluActivation, activated.data());
      for (std::size_t i = 0; i < plain.size(); ++i) {
        // float32 products and sums: a few roundings of each term.
        CHECK(std::fabs(plain[i] - p.want[i]) <= 2 * sum_error(p, i));
        CHECK(std::fabs(activated[i] - gelu(p.want[i])) <= 2 * sum_error(p, i) + 1e-6 * (1 + std::fabs(p.want[i])));
      }
    }
  }
}
