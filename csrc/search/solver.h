// Exact play near the end of the game: alpha-beta over every continuation,
// for the last few plies, where a 25-move game's outcome often hangs on one
// floor and a search of a few hundred visits can miss the move that wins it.
#ifndef POPUCOM_SEARCH_SOLVER_H_
#define POPUCOM_SEARCH_SOLVER_H_

#include <cstdint>
#include <unordered_map>

#include "../game/position.h"

namespace popucom {

// Plies left in the game: both players' remaining moves.
int plies_left(const Position& p);

// Win/draw/loss values (+1, 0, -1 for the side to move) by alpha-beta with a
// transposition table (the last plies reach the same position by many move
// orders), within a budget of positions visited that all its solves share.
// The table is kept across solves, so a root and then its children cost
// little more than the root. Not thread-safe.
class Solver {
 public:
  explicit Solver(uint64_t max_nodes = UINT64_MAX) : max_nodes_(max_nodes) {}

  // False (and *value untouched) when the budget runs out first.
  bool solve(const Position& p, int* value);
  uint64_t nodes() const { return nodes_; }

 private:
  enum class Bound : int8_t { EXACT, LOWER, UPPER };
  struct Entry {
    int8_t value;
    Bound bound;
  };
  int negamax(const Position& p, int alpha, int beta);

  uint64_t max_nodes_;
  uint64_t nodes_ = 0;
  std::unordered_map<uint64_t, Entry> table_;  // by Zobrist hash
};

// Exact game value for the side to move (+1 win, 0 draw, -1 loss); throws
// std::invalid_argument if more than max_plies moves remain (the search would
// take too long).
int solve(const Position& p, int max_plies);

}  // namespace popucom

#endif  // POPUCOM_SEARCH_SOLVER_H_
