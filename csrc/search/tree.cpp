#include "tree.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include "solver.h"

namespace popucom {

namespace {

RootMode default_mode(const SearchParams& params) {
  RootMode mode;
  mode.noise = params.root_noise;
  mode.forced_playouts = params.forced_playouts_k > 0;
  return mode;
}

}  // namespace

SearchTree::SearchTree(const SearchParams& params, uint64_t seed) : params_(params), rng_(seed) {
  validate(params_);
  reset(Position());
}

void SearchTree::reset(const Position& root) {
  if (kept_solver_) kept_solver_->clear();
  start_tree(root);
}

void SearchTree::start_tree(const Position& root) {
  root_position_ = root;
  forget_endgame();
  leaf_solve_nodes_ = 0;
  // A tree of a long analysis gives its memory back; a small one (self-play,
  // the arena: a fresh tree each move) keeps its arrays for the next search.
  if (reserved_bytes() > KEPT_BYTES) {
    std::vector<Node>().swap(nodes_);
    std::vector<Edge>().swap(edges_);
  }
  nodes_.assign(1, Node());
  edges_.clear();
  mode_ = default_mode(params_);
  root_noisy_ = false;
  raw_root_priors_.clear();
  gumbel_ready_ = false;
}

void SearchTree::keep_endgame_table(size_t max_bytes) {
  if (max_bytes == 0) {
    kept_solver_.reset();
    return;
  }
  kept_solver_ = std::make_unique<Solver>(0, Solver::slots_within(max_bytes));
  kept_solver_->set_deadline(deadline_);
}

void SearchTree::set_root_mode(const RootMode& mode) {
  mode_ = mode;
  prepare_root();
}

void SearchTree::set_visit_target(int visits) {
  visit_target_ = visits;
  if (mode_.gumbel) prepare_root();
}

void SearchTree::prepare_root() {
  gumbel_ready_ = false;
  if (nodes_[0].state != NodeState::EXPANDED) return;  // done again when the root is expanded
  const bool want_noise = mode_.noise && !mode_.gumbel;
  if (root_noisy_ && !want_noise) remove_root_noise();
  if (want_noise && !root_noisy_) add_root_noise();
  if (!mode_.gumbel) return;
  // Gumbel-Top-k: the m moves with the largest g(a) + logit(a) enter sequential halving.
  const Node& root = nodes_[0];
  const int k = root.num_edges;
  if (k == 0) return;
  gumbel_score_.assign(k, 0.0);
  for (int i = 0; i < k; ++i) {
    const double u = std::max(rng_.uniform(), 1e-300);
    gumbel_score_[i] = -std::log(-std::log(u)) + std::log(std::max<double>(edges_[root.first_edge + i].prior, 1e-12));
  }
  std::vector<int> order(k);
  for (int i = 0; i < k; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return gumbel_score_[a] > gumbel_score_[b]; });
  const int m = std::min(k, std::max(1, params_.gumbel_actions));
  gumbel_considered_.assign(order.begin(), order.begin() + m);
  gumbel_phases_ = m > 1 ? static_cast<int>(std::ceil(std::log2(static_cast<double>(m)))) : 1;
  gumbel_budget_ = std::max(0, visit_target_ - static_cast<int>(root.visits));
  gumbel_phase_visits_ = std::max(1, gumbel_budget_ / (gumbel_phases_ * m));
  gumbel_ready_ = true;
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

int SearchTree::proven_choice(const std::vector<double>& visits, int choice) const {
  if (!params_.proven_backup) return choice;
  const Node& root = nodes_[0];
  const Edge* edges = &edges_[root.first_edge];
  const auto proven_win = [&](int i) {
    return edges[i].child >= 0 && nodes_[edges[i].child].state == NodeState::TERMINAL &&
           nodes_[edges[i].child].terminal_value < 0;
  };
  const auto open_or_not_lost = [&](int i) { return edges[i].child < 0 || !proven_loss(nodes_[edges[i].child]); };
  int best_win = -1, best_open = -1;
  for (int i = 0; i < root.num_edges; ++i) {
    if (proven_win(i) && (best_win < 0 || ranks_above(visits, i, best_win))) best_win = i;
    if (open_or_not_lost(i) && (best_open < 0 || ranks_above(visits, i, best_open))) best_open = i;
  }
  if (best_win >= 0) return proven_win(choice) ? choice : best_win;
  if (!open_or_not_lost(choice) && best_open >= 0) return best_open;
  return choice;
}

void SearchTree::undo_virtual_loss(int32_t index) {
  for (; index >= 0; index = nodes_[index].parent) --nodes_[index].in_flight;
}

void SearchTree::remove_root_noise() {
  const Node& root = nodes_[0];
  for (int i = 0; i < root.num_edges && i < static_cast<int>(raw_root_priors_.size()); ++i)
    edges_[root.first_edge + i].prior = raw_root_priors_[i];
  raw_root_priors_.clear();
  root_noisy_ = false;
}

void SearchTree::add_root_noise() {
  Node& root = nodes_[0];
  if (root.num_edges == 0) return;
  raw_root_priors_.resize(root.num_edges);
  for (int i = 0; i < root.num_edges; ++i) raw_root_priors_[i] = edges_[root.first_edge + i].prior;
  root_noisy_ = true;
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

bool SearchTree::ranks_above(const std::vector<double>& visits, int a, int b) const {
  const Edge* edges = &edges_[nodes_[0].first_edge];
  return visits[a] > visits[b] || (visits[a] == visits[b] && edges[a].prior > edges[b].prior);
}

double SearchTree::lower_confidence_bound(const Node& n) const {
  if (n.visits < 2) return -1e9;
  const double mean = n.utility_sum / n.weight_sum;
  const double variance = std::max(0.0, n.utility_sq_sum / n.weight_sum - mean * mean);
  // Unequal weights carry less information than as many equal ones: the
  // effective sample size (sum w)^2 / sum w^2 (Kish), which is the visit
  // count itself with weighting off (taken as such, so the result is exact).
  const double samples =
      params_.uncertainty_weighting ? n.weight_sum * n.weight_sum / n.weight_sq_sum : static_cast<double>(n.visits);
  if (!(samples > 1)) return -1e9;  // one weight outweighs all the others: no spread to measure
  return mean - params_.lcb_stdevs * std::sqrt(variance / (samples - 1));
}

int SearchTree::lcb_choice(const std::vector<double>& visits, int most_visited) const {
  const Edge* edges = &edges_[nodes_[0].first_edge];
  const double min_visits = std::max(2.0, params_.lcb_selection_share * visits[most_visited]);
  int best = most_visited;
  double best_lcb = lower_confidence_bound(nodes_[edges[most_visited].child]);
  for (size_t i = 0; i < visits.size(); ++i) {
    if (visits[i] < min_visits) continue;
    const double lcb = lower_confidence_bound(nodes_[edges[i].child]);
    if (lcb > best_lcb) best = static_cast<int>(i), best_lcb = lcb;
  }
  return best;
}

int SearchTree::endgame_choice(const std::vector<double>& visits, int choice, bool try_only) const {
  // Only whether a move keeps the root's exact value matters, not each move's
  // own value, and the search's favourites usually do: ask of `choice`, then
  // of the other moves most visited first, "does it win?", and when none
  // does, "does it draw?". A move proven to win (else the first proven to
  // draw) is played; past the budget, the choice stands unless a move was
  // proven better. Asking in the search's order finds a winning move long
  // before a proof that no move wins (what solving the root takes), and the
  // budget buys the search's favourites first. One solver per call: its table
  // carries over from move to move.
  const Node& root = nodes_[0];
  std::vector<int> order(root.num_edges);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return ranks_above(visits, a, b); });
  const auto at_choice = std::find(order.begin(), order.end(), choice);
  std::rotate(order.begin(), at_choice, at_choice + 1);
  // mutable_params() may have set anything; a budget is at least one position.
  const auto budget = static_cast<uint64_t>(std::max(params_.endgame_solve_max_nodes, 1));
  Solver own(0);
  Solver& solver = kept_solver_ ? *kept_solver_ : own;
  solver.set_budget_from_now(budget);
  solver.set_deadline(deadline_);
  if (try_only) solver.set_time_limit_from_now(params_.endgame_try_seconds);
  const uint64_t before = solver.nodes();
  int found = first_proven(order, endgame_wins_, 0, solver);
  if (found == NO_MOVE_PROVEN) found = first_proven(order, endgame_draws_, 1, solver);
  solver.clear_time_limit();
  endgame_nodes_ += solver.nodes() - before;
  return found >= 0 ? found : choice;  // every move loses, or past the budget
}

int SearchTree::first_proven(const std::vector<int>& order, std::array<Proof, NUM_SQUARES>& proofs, int below,
                             Solver& solver) const {
  // A move reaches the result when the opponent's value after it is below
  // `below`: 0 for a win (the opponent loses), 1 for a draw or better.
  const Edge* edges = &edges_[nodes_[0].first_edge];
  for (int i : order) {
    Proof& proof = proofs[edges[i].move];
    if (proof == Proof::UNKNOWN) {
      // A root given up on stays given up: analysis asks ten times a second,
      // and the budget is per root, not per question.
      if (endgame_gave_up_) return OUT_OF_BUDGET_MOVE;
      Position next = root_position_;
      next.play_unchecked(edges[i].move);
      bool reaches = false;
      if (!solver.is_below(next, below, &reaches)) {
        // A later call with time left (analysis after a timed move) may finish it.
        endgame_gave_up_ = !solver.ran_out_of_time();
        return OUT_OF_BUDGET_MOVE;
      }
      proof = reaches ? Proof::YES : Proof::NO;
    }
    if (proof == Proof::YES) return i;
  }
  return NO_MOVE_PROVEN;
}

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

std::vector<double> SearchTree::target_visits() const {
  const Node& root = nodes_[0];
  std::vector<double> visits(root.num_edges);
  for (int i = 0; i < root.num_edges; ++i) visits[i] = child_visits(edges_[root.first_edge + i]);
  if (!mode_.forced_playouts || params_.forced_playouts_k <= 0 || root.num_edges == 0) return visits;
  // Policy target pruning (KataGo): every child but the most visited loses up
  // to sqrt(k * P * N) visits as long as its PUCT value stays below the best
  // child's; a child left with one visit or less is dropped.
  const int best = static_cast<int>(std::max_element(visits.begin(), visits.end()) - visits.begin());
  const double parent_n = root.visits;
  const double explore = params_.c_puct * std::sqrt(parent_n);
  auto q = [&](int i) {
    const Node& c = nodes_[edges_[root.first_edge + i].child];
    return c.utility_sum / c.weight_sum;
  };
  if (visits[best] == 0) return visits;
  const double best_puct = q(best) + explore * edges_[root.first_edge + best].prior / (1 + visits[best]);
  for (int i = 0; i < root.num_edges; ++i) {
    if (i == best || visits[i] == 0) continue;
    const double prior = edges_[root.first_edge + i].prior;
    const double gap = best_puct - q(i);
    // the fewest visits that keep this child's PUCT value below the best's
    const double keep = gap > 0 ? std::ceil(explore * prior / gap - 1) : visits[i];
    const double reduced =
        std::min(visits[i], std::max({visits[i] - std::sqrt(params_.forced_playouts_k * prior * parent_n), keep, 0.0}));
    visits[i] = reduced <= 1 ? 0 : reduced;
  }
  return visits;
}

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

std::array<float, NUM_SQUARES> SearchTree::policy_target() const {
  std::array<float, NUM_SQUARES> target{};
  const Node& root = nodes_[0];
  if (root.state != NodeState::EXPANDED || root.num_edges == 0) return target;
  std::vector<double> weight;
  if (mode_.gumbel) {
    weight = gumbel_sigma_completed_q();
    double top = -1e300;
    for (int i = 0; i < root.num_edges; ++i) {
      weight[i] += std::log(std::max<double>(edges_[root.first_edge + i].prior, 1e-12));
      top = std::max(top, weight[i]);
    }
    for (double& w : weight) w = std::exp(w - top);
  } else {
    weight = target_visits();
  }
  double total = 0;
  for (double w : weight) total += w;
  if (!(total > 0)) return target;
  for (int i = 0; i < root.num_edges; ++i)
    target[edges_[root.first_edge + i].move] = static_cast<float>(weight[i] / total);
  return target;
}

int SearchTree::choose_move(double temperature) {
  const Node& root = nodes_[0];
  if (root_is_terminal()) throw std::logic_error("choose_move: the game is over");
  if (root.state != NodeState::EXPANDED) {
    const Bitboard legal = root_position_.legal_moves();
    return legal.select(static_cast<int>(rng_.below(static_cast<uint32_t>(legal.count()))));
  }
  const std::vector<double> visits = target_visits();
  int choice = proven_choice(visits, searched_choice(visits, temperature));
  // At any temperature: a move sampled for variety must not throw away an
  // exact result, or every value target of the game learns the blunder.
  const int plies = plies_left(root_position_);
  if (plies <= params_.endgame_solve_plies) {
    choice = endgame_choice(visits, choice, false);
  } else if (tries_endgame(plies)) {
    choice = endgame_choice(visits, choice, true);
  }
  return edges_[root.first_edge + choice].move;
}

int SearchTree::searched_choice(const std::vector<double>& visits, double temperature) {
  const Node& root = nodes_[0];
  if (mode_.gumbel && gumbel_ready_) {
    const std::vector<double> sigma = gumbel_sigma_completed_q();
    int best = gumbel_considered_.front();
    for (int i : gumbel_considered_)
      if (gumbel_score_[i] + sigma[i] > gumbel_score_[best] + sigma[best]) best = i;
    return best;
  }
  int best = 0;
  for (int i = 1; i < root.num_edges; ++i)
    if (ranks_above(visits, i, best)) best = i;
  if (visits[best] == 0) return best;
  if (temperature <= 0) return params_.lcb_selection_share > 0 ? lcb_choice(visits, best) : best;
  // Sample with p ~ (N / N_max)^(1/T), computed in a numerically safe form.
  const double top = visits[best];
  std::vector<double> weight(root.num_edges);
  double total = 0;
  for (int i = 0; i < root.num_edges; ++i) {
    const double n = visits[i];
    total += weight[i] = n > 0 ? std::pow(n / top, 1.0 / temperature) : 0.0;
  }
  double pick = rng_.uniform() * total;
  for (int i = 0; i < root.num_edges; ++i) {
    if ((pick -= weight[i]) < 0 && weight[i] > 0) return i;
  }
  return best;
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
    start_tree(next);  // the same game: the kept solver table stays
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
  // A solved leaf is a terminal node for its parent's search, but a root
  // must be expanded to have moves to choose from.
  if (nodes_[0].state == NodeState::TERMINAL && !next.is_terminal()) {
    if (nodes_[0].num_edges > 0) {
      nodes_[0].state = NodeState::EXPANDED;  // proven by its moves: they stay
    } else {
      nodes_[0] = Node();
    }
  }
  root_position_ = next;
  forget_endgame();
  leaf_solve_nodes_ = 0;
  // The kept subtree's priors are raw; the next search sets its own mode.
  mode_ = default_mode(params_);
  root_noisy_ = false;
  raw_root_priors_.clear();
  gumbel_ready_ = false;
  prepare_root();
}

uint64_t SearchTree::total_in_flight() const {
  uint64_t total = 0;
  for (const Node& n : nodes_) total += n.in_flight;
  return total;
}

}  // namespace popucom
