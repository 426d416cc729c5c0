// What a search says about its root: root statistics and per-move statistics with their
// principal variations.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include "solver.h"
#include "tree.h"

namespace popucom {

RootStats SearchTree::root_stats() const {
  const Node& root = nodes_[0];
  RootStats s;
  s.visits = root.visits;
  s.weight = root.weight_sum;
  if (root.visits > 0) {
    s.utility = -root.utility_sum / root.weight_sum;
    s.value = -root.value_sum / root.weight_sum;
    s.score = -root.score_sum / root.weight_sum;
  }
  return s;
}

std::vector<MoveStats> SearchTree::move_stats(int pv_length) const {
  std::vector<MoveStats> out;
  const Node& root = nodes_[0];
  if (root.state != NodeState::EXPANDED) return out;
  for (uint32_t i = root.first_edge; i < root.first_edge + root.num_edges; ++i) {
    const Edge& e = edges_[i];
    MoveStats m;
    m.move = e.move;
    m.prior = e.prior;
    m.lcb = -1e9;
    if (e.child >= 0 && nodes_[e.child].visits > 0) {
      const Node& c = nodes_[e.child];
      const double w = c.weight_sum;
      m.visits = c.visits;
      m.weight = w;
      m.utility = c.utility_sum / w;
      m.value = c.value_sum / w;
      m.score = c.score_sum / w;
      m.lcb = lower_confidence_bound(c);
    }
    if (e.child >= 0 && nodes_[e.child].state == NodeState::TERMINAL) {
      m.proven = true;
      m.exact_value = static_cast<int>(-nodes_[e.child].terminal_value);
      m.exact_score = -nodes_[e.child].terminal_score;
    }
    // Principal variation: follow the most visited child.
    m.pv.push_back(e.move);
    for (int32_t at = e.child; at >= 0 && static_cast<int>(m.pv.size()) < pv_length;) {
      const Node& n = nodes_[at];
      if (n.num_edges == 0) break;  // not expanded (a proven node keeps its moves)
      int32_t next = -1;
      uint32_t most = 0;
      int move = -1;
      for (uint32_t j = n.first_edge; j < n.first_edge + n.num_edges; ++j) {
        const Edge& f = edges_[j];
        if (f.child >= 0 && nodes_[f.child].visits > most) {
          most = nodes_[f.child].visits;
          next = f.child;
          move = f.move;
        }
      }
      if (next < 0) break;
      m.pv.push_back(move);
      at = next;
    }
    out.push_back(std::move(m));
  }
  std::stable_sort(out.begin(), out.end(), [](const MoveStats& a, const MoveStats& b) {
    return a.visits != b.visits ? a.visits > b.visits : a.prior > b.prior;
  });
  return out;
}

}  // namespace popucom
