// Exact play near the end of the game: alpha-beta over every continuation,
// for the last few plies, where a 25-move game's outcome often hangs on one
// floor and a search of a few hundred visits can miss the move that wins it.
#ifndef POPUCOM_SEARCH_SOLVER_H_
#define POPUCOM_SEARCH_SOLVER_H_

#include <cstdint>

#include "../game/position.h"

namespace popucom {

// Plies left in the game: both players' remaining moves.
int plies_left(const Position& p);

// Exact game value for the side to move (+1 win, 0 draw, -1 loss) by
// alpha-beta over all continuations; throws std::invalid_argument if more
// than max_plies moves remain (the search would take too long).
int solve(const Position& p, int max_plies);

// The same within a budget of positions visited: false (and *value untouched)
// when the budget runs out first. *nodes counts the positions visited and
// carries over between calls, so several solves can share one budget.
bool solve_within(const Position& p, uint64_t max_nodes, uint64_t* nodes, int* value);

}  // namespace popucom

#endif  // POPUCOM_SEARCH_SOLVER_H_
