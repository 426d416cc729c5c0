// The fused PoPE attention kernel against the formula written out plainly, in double.
#include "pope_attention.h"

#include <cmath>
#include <cstddef>
#include <random>
#include <stdexcept>
#include <vector>

#include "../tests/testing.h"

using namespace popucom;

namespace {

constexpr int T = NUM_SQUARES;

struct Case {
  std::size_t batch;
  int heads, head_dim;
  std::vector<float> qkv, tables;
};

Case random_case(unsigned seed, std::size_t batch, int heads, int head_dim) {
  Case c{batch, heads, head_dim, {}, {}};
  const int d = heads * head_dim;
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.5f);
  c.qkv.resize(batch * T * 3 * d);
  c.tables.resize(static_cast<std::size_t>(2) * heads * T * 2 * head_dim);
  for (float& v : c.qkv) v = normal(rng);
  c.qkv[5] = 30.0f;  // past softplus's threshold
  for (float& v : c.tables) v = 0.5f * normal(rng);
  return c;
}

double softplus(double x) { return x > 20.0 ? x : std::log1p(std::exp(x)); }

// out[b, i, h * hd + x] by the formula in pope_attention.h.
std::vector<double> reference(const Case& c) {
  const int h_count = c.heads, hd = c.head_dim, d = h_count * hd;
  std::vector<double> out(c.batch * T * d);
  auto table = [&](int side, int h, int i, int part, int x) {
    return c.tables[((((static_cast<std::size_t>(side) * h_count + h) * T + i) * 2 + part) * hd) + x];
  };
  for (std::size_t b = 0; b < c.batch; ++b)
    for (int h = 0; h < h_count; ++h)
      for (int i = 0; i < T; ++i) {
        const float* xi = &c.qkv[(b * T + i) * 3 * d];
        std::vector<double> logits(T);
        double top = -1e300;
        for (int j = 0; j < T; ++j) {
          const float* xj = &c.qkv[(b * T + j) * 3 * d];
          double s = 0.0;
          for (int x = 0; x < hd; ++x)
            for (int part = 0; part < 2; ++part)
              s += softplus(xi[h * hd + x]) * table(0, h, i, part, x) * softplus(xj[d + h * hd + x]) *
                   table(1, h, j, part, x);
          logits[j] = s;
          top = std::max(top, s);
        }
        double sum = 0.0;
        for (double& s : logits) sum += (s = std::exp(s - top));
        for (int x = 0; x < hd; ++x) {
          double y = 0.0;
          for (int j = 0; j < T; ++j) y += logits[j] / sum * c.qkv[(b * T + j) * 3 * d + 2 * d + h * hd + x];
          out[(b * T + i) * d + h * hd + x] = y;
        }
      }
  return out;
}

}  // namespace

TEST(nn, pope_attention_matches_the_formula) {
  for (int head_dim : nn::POPE_HEAD_DIMS) {
    const Case c = random_case(static_cast<unsigned>(head_dim), 3, 2, head_dim);
    std::vector<float> out(c.batch * T * c.heads * head_dim, -1.0f);
    nn::pope_attention(c.qkv.data(), c.tables.data(), c.batch, c.heads, head_dim, out.data());
    const std::vector<double> want = reference(c);
    for (std::size_t i = 0; i < out.size(); ++i)
      CHECK(std::fabs(out[i] - want[i]) <= 1e-4 * (1.0 + std::fabs(want[i])));
  }
}

TEST(nn, pope_attention_in_bf16_is_the_float_kernel_on_bf16_values) {
  for (int head_dim : nn::POPE_HEAD_DIMS) {
    const Case c = random_case(static_cast<unsigned>(head_dim) + 50, 2, 2, head_dim);
    std::vector<nn::Bf16> qkv(c.qkv.size()), out(c.batch * T * c.heads * head_dim);
    std::vector<float> widened(c.qkv.size()), want(out.size());
    for (std::size_t i = 0; i < qkv.size(); ++i) {
      nn::store(qkv[i], c.qkv[i]);
      widened[i] = nn::to_float(qkv[i]);
    }
    nn::pope_attention(qkv.data(), c.tables.data(), c.batch, c.heads, head_dim, out.data());
    nn::pope_attention(widened.data(), c.tables.data(), c.batch, c.heads, head_dim, want.data());
    for (std::size_t i = 0; i < out.size(); ++i)  // one bf16 step at most (fast-math may order sums apart)
      CHECK(std::fabs(nn::to_float(out[i]) - want[i]) <= std::ldexp(std::fabs(want[i]) + 1e-30f, -7));
  }
}

TEST(nn, pope_attention_refuses_a_head_width_it_was_not_built_for) {
  CHECK(nn::pope_attention_supports(16) && !nn::pope_attention_supports(12));
  const Case c = random_case(7, 1, 1, 12);
  std::vector<float> out(T * 12);
  bool threw = false;
  try {
    nn::pope_attention(c.qkv.data(), c.tables.data(), 1, 1, 12, out.data());
  } catch (const std::invalid_argument&) { threw = true; }
  CHECK(threw);
}

namespace {

// A first-order bound on the bf16 dot products' error for query row i of head h: rounding
// q2 and k2 moves a logit by at most 2^-8 of its sum of |products|, which moves each
// softmax weight by at most twice the largest such shift (relatively); rounding the weights
// adds 2^-8 (relative, with their sum), and the bf16 output one step more.
double bf16_dots_bound(const Case& c, std::size_t b, int h, int i, double want) {
  const int hd = c.head_dim, d = c.heads * hd;
  auto table = [&](int side, int row, int part, int x) {
    return c.tables[((((static_cast<std::size_t>(side) * c.heads + h) * T + row) * 2 + part) * hd) + x];
  };
  const float* xi = &c.qkv[(b * T + i) * 3 * d];
  double shift = 0.0, v_max = 0.0;
  for (int j = 0; j < T; ++j) {
    const float* xj = &c.qkv[(b * T + j) * 3 * d];
    double sum = 0.0;
    for (int x = 0; x < hd; ++x)
      for (int part = 0; part < 2; ++part)
        sum += std::fabs(softplus(xi[h * hd + x]) * table(0, i, part, x) * softplus(xj[d + h * hd + x]) *
                         table(1, j, part, x));
    shift = std::max(shift, std::ldexp(sum, -8));
    for (int x = 0; x < hd; ++x) v_max = std::max(v_max, static_cast<double>(std::fabs(xj[2 * d + h * hd + x])));
  }
  return 1.5 * ((2.0 * shift + std::ldexp(1.0, -7)) * v_max + std::ldexp(std::fabs(want), -8)) + 1e-6;
}

}  // namespace

TEST(nn, pope_attention_with_bf16_dot_products_stays_within_their_rounding) {
  for (int head_dim : nn::POPE_HEAD_DIMS) {
    Case c = random_case(static_cast<unsigned>(head_dim) + 90, 2, 2, head_dim);
    std::vector<nn::Bf16> qkv(c.qkv.size()), out(c.batch * T * c.heads * head_dim, 0xFFFF);
    for (std::size_t i = 0; i < qkv.size(); ++i) {
      nn::store(qkv[i], c.qkv[i]);
      c.qkv[i] = nn::to_float(qkv[i]);  // the reference sees the bf16 inputs
    }
    const bool served =
        nn::pope_attention_bf16_dots(qkv.data(), c.tables.data(), c.batch, c.heads, head_dim, out.data());
    CHECK(served == nn::pope_attention_bf16_dots_apply(head_dim));
    if (!served) {  // nothing written
      for (nn::Bf16 v : out) CHECK(v == 0xFFFF);
      continue;
    }
    const std::vector<double> want = reference(c);
    const int d = c.heads * head_dim;
    for (std::size_t b = 0; b < c.batch; ++b)
      for (int i = 0; i < T; ++i)
        for (int h = 0; h < c.heads; ++h)
          for (int x = 0; x < head_dim; ++x) {
            const std::size_t at = (b * T + i) * d + h * head_dim + x;
            const double error = std::fabs(nn::to_float(out[at]) - want[at]);
            CHECK(error <= bf16_dots_bound(c, b, h, i, want[at]));
          }
  }
}
