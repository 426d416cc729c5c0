// The tree's storage and its root: a new tree, a kept subtree after a move, root noise and the
// settings of the search about to start. The phases of a search have files of their own:
// tree_playout.cpp, tree_gumbel.cpp, tree_choice.cpp and tree_stats.cpp.
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
