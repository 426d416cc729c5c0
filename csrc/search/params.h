// Search settings, declared once: the X-macro below generates the struct, the
// Python bindings (attributes, docs, repr, field list) and nothing else needs
// to repeat a field. Every field names its unit or scale.
#ifndef POPUCOM_SEARCH_PARAMS_H_
#define POPUCOM_SEARCH_PARAMS_H_

#include "../game/constants.h"

// X(type, name, default, lowest, highest, doc): the bounds are inclusive and
// checked by validate(), so a setting out of range is an error, never quietly clamped.
// Every bound is finite and chosen so that the search stays correct inside it:
// utilities, scores and exploration terms stay far from overflow (|utility| <=
// 1 + score_utility_weight, and the weights, constants and visit counts that
// multiply them stay below ~1e12), node budgets stop a solve within about a
// minute, and counts never exceed what the board holds.
#define POPUCOM_SEARCH_PARAMS(X)                                                                                      \
  X(double, c_puct, 1.1, 0, 1e3, "exploration constant of PUCT")                                                      \
  X(double, fpu_reduction, 0.2, 0, 1e3, "unvisited child's Q = parent Q - this * sqrt(visited prior mass)")           \
  X(double, root_fpu_reduction, 0.0, 0, 1e3, "the same at the root (0: no reduction, as in self-play)")               \
  X(bool, root_noise, false, 0, 1, "default: Dirichlet noise on the root priors (a search's RootMode overrides it)")  \
  X(double, dirichlet_alpha_total, 10.83, 0.01, 1e3, "alpha = this / number of legal moves (KataGo's scaling)")       \
  X(double, dirichlet_epsilon, 0.25, 0, 1, "share of noise in the noisy root priors")                                 \
  X(double, score_utility_weight, 0.0, 0, 1e3, "utility = (win - loss) + weight * tanh(score / score_utility_scale)") \
  X(double, score_utility_scale, 10.0, 0.01, 1e3, "floors")                                                           \
  X(double, forced_playouts_k, 0.0, 0, 1e3,                                                                           \
    "root children get at least sqrt(k * prior * N) visits (KataGo: 2; 0 = off)")                                     \
  X(int, leaves_per_game, 4, 1, 1024, "leaves gathered per tree per batch step (virtual loss spreads them)")          \
  X(double, virtual_loss, 1.0, 0, 1e3, "each in-flight visit counts as this many losses")                             \
  X(double, lcb_stdevs, 1.96, 0, 1e3, "z of the lower confidence bound (analysis, and LCB move selection)")           \
  X(double, lcb_selection_share, 0.1, 0, 1,                                                                           \
    "a move played at temperature 0 is the best LCB among moves with at least this share of the top visits "          \
    "(0: the most visited)")                                                                                          \
  X(int, endgame_solve_plies, 9, 0, MAX_GAME_PLIES,                                                                   \
    "a move played with at most this many plies left has the best exact result (alpha-beta), at any temperature: "    \
    "the search's choice if it has, else the most visited that has (0: off)")                                         \
  X(int, endgame_solve_max_nodes, 50000000, 1, 500000000,                                                             \
    "positions the endgame solver may visit per move, the last ply's included (3-4 CPU s; at most ~40 s); past "      \
    "it the search's choice stands unless a move was proven better first")                                            \
  X(int, endgame_try_plies, 10, 0, MAX_GAME_PLIES,                                                                    \
    "in a session's tree (keep_endgame_table), beyond endgame_solve_plies and up to this many plies left, the "       \
    "move to play is chosen the same way if the "                                                                     \
    "solver proves it within endgame_try_seconds (and the node budget); else the search's choice stands (off at 0 "   \
    "or with endgame_solve_plies 0)")                                                                                 \
  X(double, endgame_try_seconds, 1.0, 0, 60,                                                                          \
    "wall time a move's endgame try (endgame_try_plies) may take, beside the search's own deadline (0: no try)")      \
  X(bool, proven_backup, true, 0, 1,                                                                                  \
    "MCTS-solver: a node with a move proven to win, or with every move proven (game ends, solved leaves, proven "     \
    "nodes), is proven itself: backed up with its exact outcome and never searched below again; a move proven to "    \
    "lose is not visited while another is open, and a move proven to win is played")                                  \
  X(int, leaf_solve_plies, 0, 0, MAX_GAME_PLIES,                                                                      \
    "a new leaf (not the root) with at most this many plies left is solved exactly instead of evaluated: its "        \
    "result and margin under best play, a terminal node from then on (0: off)")                                       \
  X(int, leaf_solve_max_nodes, 200000, 1, 10000000,                                                                   \
    "positions one leaf's solve may visit (~5 ms; at most ~0.3 s); past it the leaf goes to the network")             \
  X(int, leaf_solve_move_nodes, 20000000, 1, 500000000,                                                               \
    "positions all leaf solves below one root may visit together (a move's search, or one position's analysis; "      \
    "~1.5 s; at most ~40 s): past it new leaves go to the network, so a move by visits alone stays bounded in time")  \
  X(int, gumbel_actions, 16, 1, NUM_SQUARES, "Gumbel root search: m root moves sampled by Gumbel-Top-k, then halved") \
  X(double, gumbel_c_visit, 50.0, 0, 1e4, "sigma(q) = (c_visit + max_b N(b)) * c_scale * q, q rescaled to [0, 1]")    \
  X(double, gumbel_c_scale, 0.1, 0, 1e3, "see gumbel_c_visit")                                                        \
  X(bool, uncertainty_weighting, false, 0, 1,                                                                         \
    "each playout's backup counts in the means (Q, value, score) with weight 1 / (value_error + "                     \
    "uncertainty_floor), value_error the model's predicted squared error of its win - loss; weight 1 for a model "    \
    "without that head, 1 / uncertainty_floor for exact (terminal or solved) leaves; off: every weight 1")            \
  X(double, uncertainty_floor, 0.05, 0.001, 1e3,                                                                      \
    "added to value_error before inverting, in (win - loss)^2 units: the largest weight is 1 / this (20 at 0.05)")

namespace popucom {

struct SearchParams {
#define POPUCOM_DECLARE_FIELD(type, name, value, lowest, highest, doc) type name = value;
  POPUCOM_SEARCH_PARAMS(POPUCOM_DECLARE_FIELD)
#undef POPUCOM_DECLARE_FIELD
};

// Throws std::invalid_argument naming the first field outside its bounds or
// not finite.
void validate(const SearchParams& params);

}  // namespace popucom

#endif  // POPUCOM_SEARCH_PARAMS_H_
