#include "tree.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace popucom {

SearchTree::SearchTree(const SearchParams& params, uint64_t seed) : params_(params), rng_(seed) {
  reset(Position());
}

void SearchTree::reset(const Position& root) {
  root_position_ = root;
  nodes_.assign(1, Node());
  edges_.clear();
}

double SearchTree::utility_of(double value, double score) const {
  if (params_.score_utility_weight == 0) return value;
  return value + params_.score_utility_weight * std::tanh(score / params_.score_utility_scale);
}

void SearchTree::terminal_values(const Position& p, float* utility, float* value, float* score) const {
  const Color me = p.to_move();
  const Result r = p.result();
  const bool won = (r == Result::BLACK_WIN && me == BLACK) || (r == Result::WHITE_WIN && me == WHITE);
  const bool lost = (r == Result::BLACK_WIN && me == WHITE) || (r == Result::WHITE_WIN && me == BLACK);
  *value = won ? 1.0f : lost ? -1.0f : 0.0f;
  double margin = static_cast<double>(p.score()) + p.komi();
  if (me == WHITE) margin = -margin;
  // A no-legal-move loss ignores the floor count; keep the margin's sign in
  // line with the result so the score term never argues against it.
  if (p.end_reason() == EndReason::NO_LEGAL_MOVE) margin = (*value) * std::max(std::abs(margin), 1.0);
  *score = static_cast<float>(margin);
  *utility = static_cast<float>(utility_of(*value, margin));
}

int SearchTree::select_edge(int32_t index) const {
  const Node& node = nodes_[index];
  const double parent_n = node.visits + node.in_flight;
  if (index == 0 && params_.forced_playouts_k > 0) {
    // Forced playouts (KataGo): a root child with fewer than sqrt(k * P * N)
    // visits is explored first, so noisy priors get a real look; the policy
    // target later subtracts these visits again (policy target pruning).
    for (uint32_t i = node.first_edge; i < node.first_edge + node.num_edges; ++i) {
      const Edge& e = edges_[i];
      const double n = e.child >= 0 ? static_cast<double>(nodes_[e.child].visits) + nodes_[e.child].in_flight : 0.0;
      if (n > 0 && n < std::sqrt(params_.forced_playouts_k * e.prior * parent_n)) return static_cast<int>(i);
    }
  }
  const double explore = params_.c_puct * std::sqrt(std::max(parent_n, 1.0));
  // One pass: score the visited children, and remember the unvisited child
  // with the highest prior. All unvisited children share the same Q (the
  // first-play urgency) and N = 0, so that one is the best of them.
  double visited_mass = 0, best_score = -1e300, best_unvisited_prior = -1;
  int best = -1, best_unvisited = -1;
  for (uint32_t i = node.first_edge; i < node.first_edge + node.num_edges; ++i) {
    const Edge& e = edges_[i];
    const Node* c = e.child >= 0 ? &nodes_[e.child] : nullptr;
    const double n = c ? static_cast<double>(c->visits) + c->in_flight : 0.0;
    if (n == 0) {
      if (e.prior > best_unvisited_prior) {
        best_unvisited_prior = e.prior;
        best_unvisited = static_cast<int>(i);
      }
      continue;
    }
    visited_mass += e.prior;
    const double q = (c->utility_sum - params_.virtual_loss * c->in_flight) / n;
    const double score = q + explore * e.prior / (1.0 + n);
    if (score > best_score) {
      best_score = score;
      best = static_cast<int>(i);
    }
  }
  if (best_unvisited >= 0) {
    // The node's statistics are the opponent's point of view; the chooser is the side to move.
    const double parent_q = node.visits > 0 ? -node.utility_sum / node.visits : 0.0;
    const double reduction = index == 0 ? params_.root_fpu_reduction : params_.fpu_reduction;
    const double fpu = parent_q - reduction * std::sqrt(visited_mass);
    const double score = fpu + explore * best_unvisited_prior;
    if (best < 0 || score > best_score || (score == best_score && best_unvisited < best)) best = best_unvisited;
  }
  return best;
}

SearchTree::Descent SearchTree::descend(int32_t* leaf_node, Position* leaf_position) {
  Position pos = root_position_;
  int32_t index = 0;
  ++nodes_[0].in_flight;
  for (;;) {
    Node& node = nodes_[index];
    switch (node.state) {
      case NodeState::PENDING:
        undo_virtual_loss(index);
        return Descent::COLLISION;
      case NodeState::TERMINAL:
        backup(index, -node.terminal_utility, -node.terminal_value, -node.terminal_score);
        return Descent::RESOLVED;
      case NodeState::UNEXPANDED:
        if (pos.is_terminal()) {
          node.state = NodeState::TERMINAL;
          terminal_values(pos, &node.terminal_utility, &node.terminal_value, &node.terminal_score);
          backup(index, -node.terminal_utility, -node.terminal_value, -node.terminal_score);
          return Descent::RESOLVED;
        }
        node.state = NodeState::PENDING;
        *leaf_node = index;
        *leaf_position = pos;
        return Descent::NEED_EVAL;
      case NodeState::EXPANDED:
        break;
    }
    const int e = select_edge(index);
    if (edges_[e].child < 0) {
      Node child;
      child.parent = index;
      child.move = edges_[e].move;
      edges_[e].child = static_cast<int32_t>(nodes_.size());
      nodes_.push_back(child);  // invalidates `node`
    }
    pos.play_unchecked(edges_[e].move);
    index = edges_[e].child;
    ++nodes_[index].in_flight;
  }
}

void SearchTree::expand_and_backup(int32_t index, const Position& pos, const Evaluation& eval) {
  if (index < 0 || static_cast<size_t>(index) >= nodes_.size() || nodes_[index].state != NodeState::PENDING)
    throw std::logic_error("expand_and_backup: node " + std::to_string(index) + " is not a pending leaf");
  Node& node = nodes_[index];
  node.first_edge = static_cast<uint32_t>(edges_.size());
  const Bitboard legal = pos.legal_moves();
  legal.for_each([&](int sq) {
    Edge e;
    e.move = static_cast<uint8_t>(sq);
    e.prior = eval.prior(sq);
    edges_.push_back(e);
  });
  node.num_edges = static_cast<uint8_t>(legal.count());
  node.state = NodeState::EXPANDED;
  if (index == 0 && params_.root_noise) add_root_noise();
  const double value = static_cast<double>(eval.wdl[0]) - eval.wdl[2];
  backup(index, -utility_of(value, eval.score), -value, -eval.score);
}

void SearchTree::cancel(int32_t index) {
  if (nodes_[index].state != NodeState::PENDING) throw std::logic_error("cancel: not a pending leaf");
  nodes_[index].state = NodeState::UNEXPANDED;
  undo_virtual_loss(index);
}

void SearchTree::backup(int32_t index, double utility, double value, double score) {
  while (index >= 0) {
    Node& n = nodes_[index];
    --n.in_flight;
    ++n.visits;
    n.utility_sum += utility;
    n.utility_sq_sum += utility * utility;
    n.value_sum += value;
    n.score_sum += score;
    utility = -utility;
    value = -value;
    score = -score;
    index = n.parent;
  }
}

void SearchTree::undo_virtual_loss(int32_t index) {
  for (; index >= 0; index = nodes_[index].parent) --nodes_[index].in_flight;
}

void SearchTree::add_root_noise() {
  Node& root = nodes_[0];
  if (root.num_edges == 0) return;
  const double alpha = params_.dirichlet_alpha_total / root.num_edges;
  std::vector<double> noise(root.num_edges);
  double total = 0;
  for (double& x : noise) total += (x = rng_.gamma(alpha));
  if (!(total > 0)) return;
  const double eps = params_.dirichlet_epsilon;
  for (int i = 0; i < root.num_edges; ++i) {
    Edge& e = edges_[root.first_edge + i];
    e.prior = static_cast<float>((1 - eps) * e.prior + eps * noise[i] / total);
  }
}

RootStats SearchTree::root_stats() const {
  const Node& root = nodes_[0];
  RootStats s;
  s.visits = root.visits;
  if (root.visits > 0) {
    s.utility = -root.utility_sum / root.visits;
    s.value = -root.value_sum / root.visits;
    s.score = -root.score_sum / root.visits;
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
      const double n = c.visits;
      m.visits = c.visits;
      m.utility = c.utility_sum / n;
      m.value = c.value_sum / n;
      m.score = c.score_sum / n;
      if (c.visits > 1) {
        const double variance = std::max(0.0, c.utility_sq_sum / n - m.utility * m.utility);
        m.lcb = m.utility - params_.lcb_stdevs * std::sqrt(variance / (n - 1));
      }
    }
    // Principal variation: follow the most visited child.
    m.pv.push_back(e.move);
    for (int32_t at = e.child; at >= 0 && static_cast<int>(m.pv.size()) < pv_length;) {
      const Node& n = nodes_[at];
      if (n.state != NodeState::EXPANDED) break;
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

int SearchTree::choose_move(double temperature) {
  const Node& root = nodes_[0];
  if (root_is_terminal()) throw std::logic_error("choose_move: the game is over");
  if (root.state != NodeState::EXPANDED) {
    const Bitboard legal = root_position_.legal_moves();
    return legal.select(static_cast<int>(rng_.below(static_cast<uint32_t>(legal.count()))));
  }
  const Edge* edges = &edges_[root.first_edge];
  auto visits = [&](const Edge& e) { return e.child >= 0 ? nodes_[e.child].visits : 0u; };
  int best = 0;
  for (int i = 1; i < root.num_edges; ++i) {
    const uint32_t vi = visits(edges[i]), vb = visits(edges[best]);
    if (vi > vb || (vi == vb && edges[i].prior > edges[best].prior)) best = i;
  }
  if (temperature <= 0 || visits(edges[best]) == 0) return edges[best].move;
  // Sample with p ~ (N / N_max)^(1/T), computed in a numerically safe form.
  const double top = visits(edges[best]);
  std::vector<double> weight(root.num_edges);
  double total = 0;
  for (int i = 0; i < root.num_edges; ++i) {
    const double n = visits(edges[i]);
    total += weight[i] = n > 0 ? std::pow(n / top, 1.0 / temperature) : 0.0;
  }
  double pick = rng_.uniform() * total;
  for (int i = 0; i < root.num_edges; ++i) {
    if ((pick -= weight[i]) < 0 && weight[i] > 0) return edges[i].move;
  }
  return edges[best].move;
}

void SearchTree::advance(int move) {
  if (total_in_flight() != 0) throw std::logic_error("advance: leaves are still waiting for evaluation");
  if (!root_position_.is_legal(move))
    throw std::invalid_argument("advance: illegal move " + std::to_string(move) + ": " +
                                root_position_.illegal_reason(move));
  Position next = root_position_;
  next.play_unchecked(move);
  const Node& root = nodes_[0];
  int32_t child = -1;
  if (root.state == NodeState::EXPANDED)
    for (uint32_t i = root.first_edge; i < root.first_edge + root.num_edges; ++i)
      if (edges_[i].move == move) child = edges_[i].child;
  if (child < 0) {
    reset(next);
    return;
  }
  // Copy the kept subtree breadth-first into fresh arrays, renumbering nodes.
  std::vector<Node> nodes;
  std::vector<Edge> edges;
  std::vector<int32_t> old_index = {child};
  nodes.push_back(nodes_[child]);
  nodes[0].parent = -1;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& old = nodes_[old_index[i]];
    const auto first = static_cast<uint32_t>(edges.size());
    for (uint32_t j = old.first_edge; j < old.first_edge + old.num_edges; ++j) {
      Edge e = edges_[j];
      if (e.child >= 0) {
        Node copy = nodes_[e.child];
        copy.parent = static_cast<int32_t>(i);
        old_index.push_back(e.child);
        e.child = static_cast<int32_t>(nodes.size());
        nodes.push_back(copy);
      }
      edges.push_back(e);
    }
    nodes[i].first_edge = first;
  }
  nodes_ = std::move(nodes);
  edges_ = std::move(edges);
  root_position_ = next;
  if (nodes_[0].state == NodeState::EXPANDED && params_.root_noise) add_root_noise();
}

uint64_t SearchTree::total_in_flight() const {
  uint64_t total = 0;
  for (const Node& n : nodes_) total += n.in_flight;
  return total;
}

}  // namespace popucom
