// One game's PUCT search tree. Nodes live in one vector and are linked by
// index; each expanded node owns a contiguous run of edges (move, prior,
// child) so unvisited moves cost 12 bytes, not a node. Node statistics are
// from the point of view of the player who moved into the node.
//
// Leaves are gathered with virtual loss (descend) and resolved later
// (expand_and_backup), which lets many leaves of many trees share one network
// call. Not thread-safe: one thread works on a tree at a time.
//
// Uncertainty-weighted playouts (SearchParams::uncertainty_weighting, after
// KataGo): each backup carries a weight, 1 / (value_error + floor) for a
// network evaluation and 1 / floor for an exact leaf, and every mean (Q, FPU,
// root and move statistics, LCB, Gumbel's completed Q) is a weighted mean.
// The integer visit counts stay unweighted: the stopping rule, PUCT's N and
// sqrt(N), forced playouts, the policy target and the move chosen by visits.
// With weighting off every weight is 1 and the results are bit for bit those
// of the unweighted search.
#ifndef POPUCOM_SEARCH_TREE_H_
#define POPUCOM_SEARCH_TREE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "../core/random.h"
#include "../game/position.h"
#include "eval_cache.h"
#include "params.h"
#include "solver.h"

namespace popucom {

struct Edge {
  int32_t child = -1;  // node index, or -1 while the move is unvisited
  float prior = 0;
  uint8_t move = 0;
};

enum class NodeState : uint8_t { UNEXPANDED, PENDING, EXPANDED, TERMINAL };

struct Node {
  int32_t parent = -1;
  uint32_t first_edge = 0;
  uint8_t num_edges = 0;
  NodeState state = NodeState::UNEXPANDED;
  uint8_t move = 0;        // the move from the parent
  uint32_t visits = 0;     // playouts backed up through the node
  uint32_t in_flight = 0;  // leaves below waiting for evaluation (virtual loss)
  // Sums over the visits, each visit times its backup weight w (1 with
  // weighting off, so weight_sum == visits); a mean is sum / weight_sum. PUCT
  // reads the first two for every child: they share a cache line more often.
  double utility_sum = 0;                                              // sum of w * utility, mover's point of view
  double weight_sum = 0;                                               // sum of w
  double utility_sq_sum = 0;                                           // sum of w * utility^2
  double value_sum = 0;                                                // sum of w * (win - loss)
  double score_sum = 0;                                                // sum of w * final floor margin incl. komi
  double weight_sq_sum = 0;                                            // sum of w^2: the LCB's effective sample size
  float terminal_utility = 0, terminal_value = 0, terminal_score = 0;  // exact, for TERMINAL nodes
  float eval_utility = 0;  // the network's utility for the side to move here (Gumbel's v-hat)
};

// How the search now starting treats its root. It belongs to that one search:
// advance() returns to the defaults of SearchParams (noise = root_noise,
// forced playouts = forced_playouts_k > 0, PUCT), so a setting never leaks
// into the next move's search.
struct RootMode {
  bool noise = false;            // Dirichlet noise mixed into the root priors
  bool forced_playouts = false;  // KataGo's forced playouts (and pruning of them from the target)
  bool gumbel = false;           // Gumbel-Top-k + sequential halving at the root instead of PUCT
};

// Statistics of one root move, from the side to move at the root.
// The means are weighted by the playouts' backup weights (see the top).
struct MoveStats {
  int move = -1;
  uint32_t visits = 0;
  double weight = 0;   // sum of the visits' backup weights (== visits with weighting off)
  double utility = 0;  // mean utility (value + score term)
  double value = 0;    // mean win - loss
  double score = 0;    // mean final margin incl. komi
  double prior = 0;
  double lcb = 0;  // utility - z * standard error (very negative for few visits)
  // The move's exact outcome when the search proved it (proven_backup): the
  // game's end, a solved leaf, or its own moves proven.
  bool proven = false;
  int exact_value = 0;     // +1 win, 0 draw, -1 loss
  double exact_score = 0;  // the final margin incl. komi (a bound when one winning reply proved it)
  std::vector<int> pv;     // principal variation starting with `move`
};

struct RootStats {
  uint32_t visits = 0;
  double weight = 0;                         // sum of the visits' backup weights
  double utility = 0, value = 0, score = 0;  // side to move at the root
};

class SearchTree {
 public:
  enum class Descent { NEED_EVAL, RESOLVED, COLLISION };

  SearchTree(const SearchParams& params, uint64_t seed);

  // A fresh tree at `root` (a new game, a jump): the kept solver table is emptied.
  void reset(const Position& root);
  const Position& root_position() const { return root_position_; }

  // Settings of the search about to start (see RootMode). Noise is mixed into
  // the stored raw priors when the search starts and taken out again when
  // it is switched off, so the priors of the kept subtree stay raw.
  void set_root_mode(const RootMode& mode);
  const RootMode& root_mode() const { return mode_; }
  bool root_noise_applied() const { return root_noisy_; }
  // The root visit count at which this search stops; Gumbel plans its
  // sequential-halving schedule over the visits still to come.
  void set_visit_target(int visits);

  // Walks from the root to a leaf, adding virtual loss on the way.
  //  NEED_EVAL: *leaf_node / *leaf_position name a new leaf, now PENDING.
  //  RESOLVED:  a terminal position was reached and backed up (a visit, no evaluation).
  //  COLLISION: the walk met a PENDING leaf; its virtual loss was taken back.
  Descent descend(int32_t* leaf_node, Position* leaf_position);
  // Expands a PENDING leaf with its evaluation and backs the value up.
  void expand_and_backup(int32_t node, const Position& position, const Evaluation& eval);
  // Takes back a PENDING leaf without an evaluation.
  void cancel(int32_t node);

  bool root_is_terminal() const { return root_position_.is_terminal(); }
  uint32_t root_visits() const { return nodes_[0].visits; }
  uint32_t root_in_flight() const { return nodes_[0].in_flight; }
  RootStats root_stats() const;
  std::vector<MoveStats> move_stats(int pv_length) const;

  // The search's choice (searched_choice), and at any temperature, in the
  // last endgame_solve_plies, a move with the best exact result: the choice
  // if it has one. Without an expanded root, a uniformly random legal move.
  int choose_move(double temperature);
  // Whether choose_move() at this root asks the exact solver: within
  // endgame_solve_plies, or an endgame try (tries_endgame).
  bool solves_endgame_at_root() const {
    const int plies = plies_left(root_position_);
    return plies <= params_.endgame_solve_plies || tries_endgame(plies);
  }
  // The training target of the search, (81,) summing to 1: root visit shares
  // with forced playouts taken back (policy target pruning) in PUCT mode, or
  // softmax(logits + sigma(completed Q)) in Gumbel mode.
  std::array<float, NUM_SQUARES> policy_target() const;
  // Moves the root down to `move`, keeping that subtree (search reuse).
  void advance(int move);

  uint64_t total_in_flight() const;
  size_t num_nodes() const { return nodes_.size(); }
  size_t num_edges() const { return edges_.size(); }
  // The bytes the node and edge arrays hold (their capacity); reset() gives
  // them back above KEPT_BYTES, so a finished long analysis frees its tree.
  size_t reserved_bytes() const { return nodes_.capacity() * sizeof(Node) + edges_.capacity() * sizeof(Edge); }
  static constexpr size_t KEPT_BYTES = size_t{4} << 20;
  Rng& rng() { return rng_; }
  const SearchParams& params() const { return params_; }
  // The leaf solves and the endgame choice give up once `deadline` has
  // passed, as when their node budgets run out (nullptr: no deadline). The
  // Deadline must outlive the tree's searches; its owner may move it from
  // any thread.
  void set_deadline(const Deadline* deadline) {
    deadline_ = deadline;
    leaf_solver_.set_deadline(deadline);
    if (kept_solver_) kept_solver_->set_deadline(deadline);
  }
  // Keeps one solver table for the whole game, at most `max_bytes` (0: none,
  // the default): the endgame choice of every move and the leaf solves share
  // it, so what was proven for one move is not searched again for the next.
  // advance() keeps it; reset() (a new game, a jump) empties it. Without it
  // each move's endgame choice has a table of its own, freed after the move:
  // what a hundred trees of self-play need.
  void keep_endgame_table(size_t max_bytes);
  static constexpr size_t MAX_ENDGAME_TABLE_BYTES = size_t{8} << 30;
  // The bytes the kept table holds now (0 without one).
  size_t endgame_table_bytes() const { return kept_solver_ ? kept_solver_->table_bytes() : 0; }
  // Positions the endgame solver has visited for this tree so far (every root).
  uint64_t endgame_nodes() const { return endgame_nodes_; }
  // Positions the leaf solves below this root have visited: at most
  // leaf_solve_move_nodes, and the few the last solve visits before it looks
  // at its budget again (a position's children, at most 2 * NUM_SQUARES).
  uint64_t leaf_solve_nodes() const { return leaf_solve_nodes_; }
  // Switch uncertainty_weighting only on a fresh tree (reset): the sums made
  // so far keep their weights, and unweighted PUCT reads them as plain sums.
  SearchParams& mutable_params() {
    forget_endgame();  // a new budget or horizon may solve what the old one did not
    return params_;
  }

  // Utility, value and score of an evaluation or a terminal position, from
  // the side to move's point of view.
  void terminal_values(const Position& p, float* utility, float* value, float* score) const;
  double utility_of(double value, double score) const;

 private:
  // A fresh tree at `root`, the solver table kept (advance to an unsearched move).
  void start_tree(const Position& root);
  // The edge a descent takes from an expanded node: a valid index into edges_,
  // always (with scores no edge wins, the highest prior's).
  int select_edge(int32_t node);
  int highest_prior_edge(const Node& node) const;
  // Root edge offset: argmax of visits when temperature <= 0 (of the lower
  // confidence bound among well-visited moves with lcb_selection_share > 0),
  // else sampled with p ~ N^(1/T), from the pruned counts when forced
  // playouts are on. In Gumbel mode Gumbel's choice (the sampling is in the
  // Gumbel noise) at any temperature. With no visited move, the highest prior.
  int searched_choice(const std::vector<double>& visits, double temperature);
  // Root edge a before b: more visits (of `visits`, per root edge), then the higher prior.
  bool ranks_above(const std::vector<double>& visits, int a, int b) const;
  // utility - lcb_stdevs * standard error of a node's mean utility; -1e9 below two visits.
  // Weighted: the weighted variance over the effective sample size (sum w)^2 / sum w^2.
  double lower_confidence_bound(const Node& n) const;
  // The root edge with the best lower confidence bound among those with at
  // least lcb_selection_share of the most visited one's visits (and two).
  int lcb_choice(const std::vector<double>& visits, int most_visited) const;
  // `choice` if no root move has a better exact result (solver.h), else the
  // most visited of those that have the best one; past endgame_solve_max_nodes
  // positions or past the deadline, `choice` unless a move proven better was
  // found first.
  // A try (beyond endgame_solve_plies) also ends at endgame_try_seconds, and
  // then gives up at this root like past the budget.
  // Whether a root `plies` from the end gets a try. Only a session's tree (one
  // that keeps the game's table) tries: its clock is a player's, and what the
  // try proves stays in the table for the next move's solve; batched play
  // (the arena, self-play) stays free of the clock, and reproducible.
  bool tries_endgame(int plies) const {
    return kept_solver_ && params_.endgame_solve_plies > 0 && plies > params_.endgame_solve_plies &&
           plies <= params_.endgame_try_plies && params_.endgame_try_seconds > 0;
  }
  int endgame_choice(const std::vector<double>& visits, int choice, bool try_only) const;
  enum class Proof : int8_t { UNKNOWN, YES, NO };
  static constexpr int NO_MOVE_PROVEN = -1, OUT_OF_BUDGET_MOVE = -2;
  // The first root edge of `order` proven to leave the opponent a value below
  // `below` (memoised in `proofs`, per move), NO_MOVE_PROVEN when none does,
  // or OUT_OF_BUDGET_MOVE once the solver's budget has run out at this root
  // (or its deadline has passed, which gives up for this call only).
  int first_proven(const std::vector<int>& order, std::array<Proof, NUM_SQUARES>& proofs, int below,
                   Solver& solver) const;
  // Makes a new leaf within leaf_solve_plies of the end TERMINAL with its
  // exact outcome; false (node untouched) when it is not that close, the
  // solve runs past leaf_solve_max_nodes or the deadline, or this root's leaf
  // solves have spent leaf_solve_move_nodes.
  bool solve_leaf(const Position& position, Node* node);
  // Backup weights: of a network evaluation, and of an exact (terminal or solved) leaf.
  double evaluation_weight(const Evaluation& eval) const;
  double exact_weight() const { return params_.uncertainty_weighting ? 1.0 / params_.uncertainty_floor : 1.0; }
  void backup(int32_t node, double utility, double value, double score, double weight);
  // MCTS-solver (proven_backup): after `child` became TERMINAL, each ancestor
  // below the root with a move proven to win for its mover, or with every
  // move proven, becomes TERMINAL too with the best proven outcome.
  void prove_ancestors(int32_t child);
  bool prove(int32_t node);
  // Whether a child is a proven loss for the mover choosing it.
  bool proven_loss(const Node& child) const {
    return params_.proven_backup && child.state == NodeState::TERMINAL && child.terminal_value > 0;
  }
  // A root edge with a proven win (the most visited of them), else `choice`
  // unless it is a proven loss and another move is not (then the most visited
  // of those).
  int proven_choice(const std::vector<double>& visits, int choice) const;
  void undo_virtual_loss(int32_t node);
  void prepare_root();
  void add_root_noise();
  void remove_root_noise();
  // Root child visits (index = root edge), with forced playouts taken back when they are on.
  std::vector<double> target_visits() const;
  double child_visits(const Edge& e) const { return e.child >= 0 ? nodes_[e.child].visits : 0.0; }
  // Gumbel: sigma(completed Q) per root edge, and the root move to visit next.
  std::vector<double> gumbel_sigma_completed_q() const;
  int gumbel_select_root();
  void gumbel_halve();

  SearchParams params_;
  Rng rng_;
  Position root_position_;
  std::vector<Node> nodes_;
  std::vector<Edge> edges_;

  RootMode mode_;
  int visit_target_ = 0;
  bool root_noisy_ = false;
  std::vector<float> raw_root_priors_;  // the root's priors before noise was mixed in
  // Gumbel state of the current search, per root edge.
  bool gumbel_ready_ = false;
  std::vector<double> gumbel_score_;    // g(a) + logit(a)
  std::vector<int> gumbel_considered_;  // root edge offsets still in the running
  double gumbel_phase_visits_ = 0;      // per-move visit count that ends the current phase
  int gumbel_phases_ = 1, gumbel_budget_ = 0;
  // What endgame_choice has solved at this root (cleared when the root or the
  // settings change): analysis asks for the move to play ten times a second,
  // and the exact results do not change with the visits. Not thread-safe,
  // like the rest of a tree.
  mutable bool endgame_gave_up_ = false;
  mutable std::array<Proof, NUM_SQUARES> endgame_wins_{}, endgame_draws_{};  // per move
  mutable uint64_t endgame_nodes_ = 0;
  uint64_t leaf_solve_nodes_ = 0;  // what the leaf solves below this root have visited
  const Deadline* deadline_ = nullptr;
  // Leaves near the end share one table (sibling leaves share most of their
  // continuations), capped at 1 MB a tree: self-play keeps a hundred trees.
  Solver leaf_solver_{0, size_t{1} << 16};
  // The game's table (keep_endgame_table), used instead of leaf_solver_ and
  // a move's own table when set.
  std::unique_ptr<Solver> kept_solver_;
  Solver& leaf_solver() { return kept_solver_ ? *kept_solver_ : leaf_solver_; }
  void forget_endgame() {
    endgame_wins_.fill(Proof::UNKNOWN);
    endgame_draws_.fill(Proof::UNKNOWN);
    endgame_gave_up_ = false;
  }
};

}  // namespace popucom

#endif  // POPUCOM_SEARCH_TREE_H_
