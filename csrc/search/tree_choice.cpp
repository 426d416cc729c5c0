// The move to play and the policy target: visit counts with forced playouts taken back, the
// lower confidence bound among the well-visited, proofs from the search and the endgame solver
// within its horizon, and temperature.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include "solver.h"
#include "tree.h"

namespace popucom {

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

}  // namespace popucom
