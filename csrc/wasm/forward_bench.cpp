// The native forward (csrc/nn/native_net.h) timed inside WebAssembly: what a page would run
// in place of onnxruntime-web. Built and run by bench/wasm_forward.py, which passes the
// network's shape; the weights are random (a forward's cost does not depend on them).
//
//   forward_bench PLANES WIDTH LAYERS HEADS MLP_HIDDEN HEAD_HIDDEN LEGAL_PLANE SECONDS BATCH...
//
// Prints one line: {"evals_per_s": {"BATCH": N, ...}}, the median of five timings of calls
// repeated for SECONDS / 5 each. With SECONDS 0 it prints the outputs of the first BATCH
// positions instead, {"outputs": [...]}, for a comparison with another build of the forward.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <random>
#include <string>
#include <vector>

#include "../game/constants.h"
#include "../nn/native_net.h"

namespace {

using popucom::NUM_SQUARES;
using popucom::nn::NativeNet;
using popucom::nn::NativeNetOutputs;
using popucom::nn::NativeNetShape;
using popucom::nn::NativeNetWeights;

// A uniform value in [0, 1) from the engine's raw output: the standard distributions are
// free to differ between standard libraries, and the outputs of two builds are compared.
float uniform(std::mt19937& rng) { return static_cast<float>(rng() >> 8) * (1.0f / 16777216.0f); }

// Values of mean 0 and standard deviation `scale` (uniform, not normal: the cost is the same).
std::vector<float> random_values(std::mt19937& rng, std::size_t count, float scale) {
  std::vector<float> values(count);
  for (float& v : values) v = (2.0f * uniform(rng) - 1.0f) * 1.7320508f * scale;
  return values;
}

NativeNetWeights random_weights(const NativeNetShape& s) {
  std::mt19937 rng(7);
  const std::size_t d = s.d, t = NUM_SQUARES, hh = s.head_hidden, sources = 2 * s.layers + 1;
  const float scale = 1.0f / static_cast<float>(d);
  NativeNetWeights w;
  w.shape = s;
  w.embed_weight = random_values(rng, d * s.planes, 0.1f);
  w.embed_bias = random_values(rng, d, 0.1f);
  w.cell_embedding = random_values(rng, t * d, 0.1f);
  w.depth_queries = random_values(rng, sources * d, 0.1f);
  w.norm_eps.assign(sources, 1e-6f);
  const int head_dim = s.d / s.heads;
  for (int l = 0; l < s.layers; ++l)
    w.layer.push_back({random_values(rng, 3 * d * d, scale), random_values(rng, d * d, scale),
                       random_values(rng, 2 * s.heads * t * 2 * head_dim, 0.3f),
                       random_values(rng, s.mlp_hidden * d, scale), random_values(rng, d * s.mlp_hidden, scale)});
  w.token_weight = random_values(rng, 3 * d, scale);
  w.token_bias = random_values(rng, 3, 0.1f);
  w.value_weight1 = random_values(rng, hh * d, scale);
  w.value_bias1 = random_values(rng, hh, 0.1f);
  w.value_weight2 = random_values(rng, 3 * hh, scale);
  w.value_bias2 = random_values(rng, 3, 0.1f);
  w.score_weight1 = random_values(rng, hh * d, scale);
  w.score_bias1 = random_values(rng, hh, 0.1f);
  w.score_weight2 = random_values(rng, hh, scale);
  w.score_bias2 = random_values(rng, 1, 0.1f);
  return w;
}

std::vector<float> random_features(const NativeNetShape& s, int batch) {
  std::mt19937 rng(batch);
  std::vector<float> features(static_cast<std::size_t>(batch) * s.planes * NUM_SQUARES);
  for (float& f : features) f = uniform(rng) < 0.3f ? 1.0f : 0.0f;
  return features;
}

// Every output of `batch` positions: policy logits, win/draw/loss, score, ownership.
std::string outputs_line(NativeNet& net, const NativeNetShape& s, int batch) {
  const std::vector<float> features = random_features(s, batch);
  std::vector<float> policy(batch * NUM_SQUARES), wdl(batch * 3), score(batch), ownership(batch * NUM_SQUARES);
  net.forward(features.data(), batch, {policy.data(), wdl.data(), score.data(), ownership.data()});
  std::string line = "{\"outputs\": [";
  bool first = true;
  for (const std::vector<float>* values : {&policy, &wdl, &score, &ownership})
    for (float v : *values) {
      char number[32];
      std::snprintf(number, sizeof number, "%s%.7g", first ? "" : ", ", v);
      line += number;
      first = false;
    }
  return line + "]}";
}

// Evaluations per second at `batch`: the median of five timings of SECONDS / 5 each.
double evals_per_s(NativeNet& net, const NativeNetShape& s, int batch, double seconds) {
  const std::vector<float> features = random_features(s, batch);
  std::vector<float> policy(batch * NUM_SQUARES), wdl(batch * 3), score(batch), ownership(batch * NUM_SQUARES);
  const NativeNetOutputs out{policy.data(), wdl.data(), score.data(), ownership.data()};
  net.forward(features.data(), batch, out);  // warm
  std::vector<double> rates;
  for (int round = 0; round < 5; ++round) {
    const auto start = std::chrono::steady_clock::now();
    double elapsed = 0.0;
    int calls = 0;
    while (elapsed < seconds / 5) {
      net.forward(features.data(), batch, out);
      ++calls;
      elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    rates.push_back(calls * batch / elapsed);
  }
  std::sort(rates.begin(), rates.end());
  return rates[rates.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 10) {
    std::fprintf(
        stderr, "usage: forward_bench PLANES WIDTH LAYERS HEADS MLP_HIDDEN HEAD_HIDDEN LEGAL_PLANE SECONDS BATCH...\n");
    return 2;
  }
  try {
    NativeNetShape s;
    s.planes = std::stoi(argv[1]);
    s.d = std::stoi(argv[2]);
    s.layers = std::stoi(argv[3]);
    s.heads = std::stoi(argv[4]);
    s.mlp_hidden = std::stoi(argv[5]);
    s.head_hidden = std::stoi(argv[6]);
    s.legal_plane = std::stoi(argv[7]);
    const double seconds = std::stod(argv[8]);
    NativeNet net(random_weights(s), 1, popucom::nn::DEFAULT_PIECE_POSITIONS, false);
    if (seconds == 0.0) {
      std::printf("%s\n", outputs_line(net, s, std::stoi(argv[9])).c_str());
      return 0;
    }
    std::string line = "{\"evals_per_s\": {";
    for (int i = 9; i < argc; ++i) {
      const int batch = std::stoi(argv[i]);
      if (i > 9) line += ", ";
      line += "\"" + std::to_string(batch) +
              "\": " + std::to_string(static_cast<long>(evals_per_s(net, s, batch, seconds)));
    }
    std::printf("%s}}\n", line.c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "forward_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
