// A playout through the tree: select a leaf (PUCT with virtual loss, first-play urgency,
// forced playouts), solve it exactly or expand it with the network's evaluation, back the
// result up, and prove ancestors from proven children (MCTS-solver).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include "solver.h"
#include "tree.h"

namespace popucom {

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
  const double margin = me == BLACK ? p.final_margin() : -p.final_margin();
  *score = static_cast<float>(margin);
  *utility = static_cast<float>(utility_of(*value, margin));
}

int SearchTree::select_edge(int32_t index) {
  if (index == 0 && mode_.gumbel && gumbel_ready_) return gumbel_select_root();
  const Node& node = nodes_[index];
  const double parent_n = node.visits + node.in_flight;
  if (index == 0 && mode_.forced_playouts && params_.forced_playouts_k > 0) {
    // Forced playouts (KataGo): a root child with fewer than sqrt(k * P * N)
    // visits is explored first, so noisy priors get a real look; the policy
    // target later subtracts these visits again (policy target pruning).
    for (uint32_t i = node.first_edge; i < node.first_edge + node.num_edges; ++i) {
      const Edge& e = edges_[i];
      if (e.child >= 0 && proven_loss(nodes_[e.child])) continue;
      const double n = e.child >= 0 ? static_cast<double>(nodes_[e.child].visits) + nodes_[e.child].in_flight : 0.0;
      if (n > 0 && n < std::sqrt(params_.forced_playouts_k * e.prior * parent_n)) return static_cast<int>(i);
    }
  }
  // N in the exploration term (here and below) is the playout count, not the
  // weight sum: the reference weights N too, we weight only the means, so the
  // visit distribution PUCT produces stays a visit distribution (the policy
  // target) and the exploration bonus keeps its scale whatever the weights.
  const double explore = params_.c_puct * std::sqrt(std::max(parent_n, 1.0));
  // One pass: score the visited children, and remember the unvisited child
  // with the highest prior. All unvisited children share the same Q (the
  // first-play urgency) and N = 0, so that one is the best of them.
  double visited_mass = 0, best_score = -1e300, best_unvisited_prior = -1;
  int best = -1, best_unvisited = -1;
  const bool weighted = params_.uncertainty_weighting;
  for (uint32_t i = node.first_edge; i < node.first_edge + node.num_edges; ++i) {
    const Edge& e = edges_[i];
    const Node* c = e.child >= 0 ? &nodes_[e.child] : nullptr;
    if (c && proven_loss(*c)) continue;  // every move lost: the highest prior's, below
    const double n = c ? static_cast<double>(c->visits) + c->in_flight : 0.0;
    if (n == 0) {
      if (e.prior > best_unvisited_prior) {
        best_unvisited_prior = e.prior;
        best_unvisited = static_cast<int>(i);
      }
      continue;
    }
    visited_mass += e.prior;
    // Virtual loss: each in-flight visit counts as a loss of `virtual_loss`.
    // Weighted, it weighs as much as the child's average visit (weight_sum /
    // visits, 1 before any), so it pulls Q down as far as in the unweighted
    // search whatever the scale of the weights. Unweighted, weight_sum ==
    // visits: the plain formula, on the counts this loop has read anyway.
    double q;
    if (!weighted) {
      q = (c->utility_sum - params_.virtual_loss * c->in_flight) / n;
    } else if (c->in_flight == 0) {
      q = c->utility_sum / c->weight_sum;
    } else {
      const double pending = c->in_flight * (c->visits > 0 ? c->weight_sum / c->visits : 1.0);
      q = (c->utility_sum - params_.virtual_loss * pending) / (c->weight_sum + pending);
    }
    const double score = q + explore * e.prior / (1.0 + n);
    if (score > best_score) {
      best_score = score;
      best = static_cast<int>(i);
    }
  }
  if (best_unvisited >= 0) {
    // The node's statistics are the opponent's point of view; the chooser is the side to move.
    const double parent_q = node.visits > 0 ? -node.utility_sum / node.weight_sum : 0.0;
    const double reduction = index == 0 ? params_.root_fpu_reduction : params_.fpu_reduction;
    const double fpu = parent_q - reduction * std::sqrt(visited_mass);
    const double score = fpu + explore * best_unvisited_prior;
    if (best < 0 || score > best_score || (score == best_score && best_unvisited < best)) best = best_unvisited;
  }
  if (best < 0) best = highest_prior_edge(node);  // every score NaN or below -1e300: the bounds rule it out
  return best;
}

int SearchTree::highest_prior_edge(const Node& node) const {
  // An expanded node that is not terminal has a legal move, so this edge exists.
  if (node.num_edges == 0) throw std::logic_error("select_edge: an expanded node has no edge");
  int best = static_cast<int>(node.first_edge);
  for (uint32_t i = node.first_edge + 1; i < node.first_edge + node.num_edges; ++i)
    if (edges_[i].prior > edges_[best].prior) best = static_cast<int>(i);
  return best;
}

SearchTree::Descent SearchTree::descend(int32_t* leaf_node, Position* leaf_position) {
  Position pos = root_position_;
  int32_t index = 0;
  ++nodes_[0].in_flight;
  for (;;) {
    Node& node = nodes_[index];
    switch (node.state) {
      case NodeState::PENDING: undo_virtual_loss(index); return Descent::COLLISION;
      case NodeState::TERMINAL:
        backup(index, -node.terminal_utility, -node.terminal_value, -node.terminal_score, exact_weight());
        return Descent::RESOLVED;
      case NodeState::UNEXPANDED:
        if (pos.is_terminal()) {
          node.state = NodeState::TERMINAL;
          terminal_values(pos, &node.terminal_utility, &node.terminal_value, &node.terminal_score);
          backup(index, -node.terminal_utility, -node.terminal_value, -node.terminal_score, exact_weight());
          prove_ancestors(index);
          return Descent::RESOLVED;
        }
        if (index != 0 && solve_leaf(pos, &node)) {
          backup(index, -node.terminal_utility, -node.terminal_value, -node.terminal_score, exact_weight());
          prove_ancestors(index);
          return Descent::RESOLVED;
        }
        node.state = NodeState::PENDING;
        *leaf_node = index;
        *leaf_position = pos;
        return Descent::NEED_EVAL;
      case NodeState::EXPANDED: break;
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
  const double value = static_cast<double>(eval.wdl[0]) - eval.wdl[2];
  node.eval_utility = static_cast<float>(utility_of(value, eval.score));
  if (index == 0) prepare_root();
  backup(index, -utility_of(value, eval.score), -value, -eval.score, evaluation_weight(eval));
}

double SearchTree::evaluation_weight(const Evaluation& eval) const {
  if (!params_.uncertainty_weighting || eval.value_error < 0) return 1.0;  // off, or a model without the head
  return 1.0 / (static_cast<double>(eval.value_error) + params_.uncertainty_floor);
}

bool SearchTree::solve_leaf(const Position& position, Node* node) {
  if (plies_left(position) > params_.leaf_solve_plies) return false;
  const auto move_budget = static_cast<uint64_t>(params_.leaf_solve_move_nodes);
  if (leaf_solve_nodes_ >= move_budget) return false;
  Solver& solver = leaf_solver();
  solver.set_budget_from_now(
      std::min(static_cast<uint64_t>(std::max(params_.leaf_solve_max_nodes, 1)), move_budget - leaf_solve_nodes_));
  const uint64_t before = solver.nodes();
  ExactOutcome exact;
  const bool solved = solver.solve_outcome(position, &exact);
  leaf_solve_nodes_ += solver.nodes() - before;
  if (!solved) return false;
  node->state = NodeState::TERMINAL;
  node->terminal_value = static_cast<float>(exact.value);
  node->terminal_score = static_cast<float>(exact.margin);
  node->terminal_utility = static_cast<float>(utility_of(exact.value, exact.margin));
  return true;
}

void SearchTree::cancel(int32_t index) {
  if (nodes_[index].state != NodeState::PENDING) throw std::logic_error("cancel: not a pending leaf");
  nodes_[index].state = NodeState::UNEXPANDED;
  undo_virtual_loss(index);
}

void SearchTree::backup(int32_t index, double utility, double value, double score, double weight) {
  // Weighted once: the sign flips from level to level, the products do not
  // change (and with weight 1 they are exact: the unweighted sums, bit for bit).
  const double weight_sq = weight * weight, utility_sq = weight * utility * utility;
  utility *= weight;
  value *= weight;
  score *= weight;
  while (index >= 0) {
    Node& n = nodes_[index];
    --n.in_flight;
    ++n.visits;
    n.weight_sum += weight;
    n.weight_sq_sum += weight_sq;
    n.utility_sum += utility;
    n.utility_sq_sum += utility_sq;
    n.value_sum += value;
    n.score_sum += score;
    utility = -utility;
    value = -value;
    score = -score;
    index = n.parent;
  }
}

void SearchTree::prove_ancestors(int32_t child) {
  if (!params_.proven_backup) return;
  // The root stays expanded whatever its moves are worth: it has a move to choose.
  for (int32_t at = nodes_[child].parent; at > 0 && prove(at); at = nodes_[at].parent) {}
}

bool SearchTree::prove(int32_t index) {
  Node& node = nodes_[index];
  if (node.state != NodeState::EXPANDED) return false;
  // Outcomes for the side to move here, ordered as it prefers them: the
  // result, then the margin (the solver's order).
  bool all_proven = true, found = false, win = false;
  float best_value = 0, best_score = 0;
  for (uint32_t i = node.first_edge; i < node.first_edge + node.num_edges; ++i) {
    const int32_t c = edges_[i].child;
    if (c < 0 || nodes_[c].state != NodeState::TERMINAL) {
      all_proven = false;
      continue;
    }
    const float value = -nodes_[c].terminal_value, score = -nodes_[c].terminal_score;
    if (!found || value > best_value || (value == best_value && score > best_score)) {
      best_value = value;
      best_score = score;
      found = true;
    }
    win |= value > 0;
  }
  if (!win && !all_proven) return false;
  node.state = NodeState::TERMINAL;
  node.terminal_value = best_value;
  node.terminal_score = best_score;
  node.terminal_utility = static_cast<float>(utility_of(best_value, best_score));
  return true;
}

void SearchTree::undo_virtual_loss(int32_t index) {
  for (; index >= 0; index = nodes_[index].parent) --nodes_[index].in_flight;
}

}  // namespace popucom
