// Gumbel root search: sequential halving over the Gumbel-Top-k sampled root moves, with the
// completed Q values of the visited ones.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include "solver.h"
#include "tree.h"

namespace popucom {

std::vector<double> SearchTree::gumbel_sigma_completed_q() const {
  const Node& root = nodes_[0];
  const int k = root.num_edges;
  std::vector<double> q(k), n(k);
  double sum_n = 0, max_n = 0, visited_prior = 0, weighted_q = 0;
  for (int i = 0; i < k; ++i) {
    const Edge& e = edges_[root.first_edge + i];
    n[i] = child_visits(e);
    if (n[i] > 0) {
      q[i] = nodes_[e.child].utility_sum / nodes_[e.child].weight_sum;
      visited_prior += e.prior;
      weighted_q += e.prior * q[i];
    }
    sum_n += n[i];
    max_n = std::max(max_n, n[i]);
  }
  // Unvisited moves get v_mix: the network's root value blended with the
  // prior-weighted Q of the visited moves (the paper's completed Q).
  const double v_hat = root.eval_utility;
  const double v_mix = visited_prior > 0 ? (v_hat + sum_n * weighted_q / visited_prior) / (1 + sum_n) : v_hat;
  double lo = 1e300, hi = -1e300;
  for (int i = 0; i < k; ++i) {
    if (n[i] == 0) q[i] = v_mix;
    lo = std::min(lo, q[i]);
    hi = std::max(hi, q[i]);
  }
  const double scale = (params_.gumbel_c_visit + max_n) * params_.gumbel_c_scale / std::max(hi - lo, 1e-8);
  for (int i = 0; i < k; ++i) q[i] = (q[i] - lo) * scale;
  return q;
}

void SearchTree::gumbel_halve() {
  const std::vector<double> sigma = gumbel_sigma_completed_q();
  std::stable_sort(gumbel_considered_.begin(), gumbel_considered_.end(),
                   [&](int a, int b) { return gumbel_score_[a] + sigma[a] > gumbel_score_[b] + sigma[b]; });
  gumbel_considered_.resize((gumbel_considered_.size() + 1) / 2);
  const int left = static_cast<int>(gumbel_considered_.size());
  gumbel_phase_visits_ += std::max(1, gumbel_budget_ / (gumbel_phases_ * left));
}

int SearchTree::gumbel_select_root() {
  // Sequential halving: visit the considered move with the fewest visits until
  // each has the phase's share, then keep the better half by g + logit + sigma(q).
  const Node& root = nodes_[0];
  for (;;) {
    int pick = -1;
    double fewest = 1e300;
    for (int i : gumbel_considered_) {
      const Edge& e = edges_[root.first_edge + i];
      const double n = e.child >= 0 ? static_cast<double>(nodes_[e.child].visits) + nodes_[e.child].in_flight : 0.0;
      if (n < fewest) {
        fewest = n;
        pick = i;
      }
    }
    if (pick < 0) return highest_prior_edge(root);  // nothing considered: prepare_root always keeps one
    if (fewest < gumbel_phase_visits_ || gumbel_considered_.size() == 1)
      return static_cast<int>(root.first_edge) + pick;
    gumbel_halve();
  }
}

}  // namespace popucom
