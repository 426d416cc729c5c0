// Exact play near the end of the game: alpha-beta over every continuation,
// for the last few plies, where a 25-move game's outcome often hangs on one
// floor and a search of a few hundred visits can miss the move that wins it.
#ifndef POPUCOM_SEARCH_SOLVER_H_
#define POPUCOM_SEARCH_SOLVER_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "../game/position.h"

namespace popucom {

// Plies left in the game: both players' remaining moves.
int plies_left(const Position& p);

// The exact result of a position under best play, for the side to move.
struct ExactOutcome {
  int value = 0;   // +1 win, 0 draw, -1 loss
  int margin = 0;  // final floor margin incl. komi (the best one the value allows)
};

// Win/draw/loss values (+1, 0, -1 for the side to move) by alpha-beta with a
// transposition table (the last plies reach the same position by many move
// orders), within a budget of positions visited that all its solves share.
// The table is kept across solves, so a root and then its children cost
// little more than the root. Not thread-safe.
class Solver {
 public:
  explicit Solver(uint64_t max_nodes = UINT64_MAX, size_t max_slots = MAX_SLOTS)
      : max_nodes_(max_nodes), max_slots_(std::max(max_slots, MIN_SLOTS)) {}

  // False (and *value untouched) when the budget runs out first.
  bool solve(const Position& p, int* value);
  // The value and, among the results that keep it, the best margin (a
  // full-window search: dearer than solve()). False past the budget.
  bool solve_outcome(const Position& p, ExactOutcome* outcome);
  // Positions visited so far, the last ply's included.
  uint64_t nodes() const { return nodes_; }
  // The solves from now on may visit `nodes` more positions in all.
  void set_budget_from_now(uint64_t nodes) { max_nodes_ = nodes_ + nodes; }

  static constexpr size_t MIN_SLOTS = size_t{1} << 12;
  static constexpr size_t MAX_SLOTS = size_t{1} << 23;  // 128 MB

 private:
  enum class Bound : int8_t { EXACT, LOWER, UPPER };
  // An open-addressing table keyed by Zobrist hash, its entries in one array
  // (a node-based map allocates each one). It doubles when half full, up to
  // MAX_SLOTS; a new entry that finds its probe run full overwrites the run's
  // first entry, which costs only a re-search.
  struct Slot {
    uint64_t key = 0;
    int16_t value = 0;  // an outcome key (solver.cpp)
    Bound bound = Bound::EXACT;
    bool used = false;
  };
  static constexpr int MAX_PROBES = 8;
  const Slot* find(uint64_t key) const;
  void store(uint64_t key, int value, Bound bound);
  void grow();

  int negamax(const Position& p, int alpha, int beta);
  // The exact outcome key of a position with one ply left (the mover's last move).
  int last_move_value(const Position& p);

  uint64_t max_nodes_;
  size_t max_slots_;
  uint64_t nodes_ = 0;
  std::vector<Slot> slots_;
  size_t used_ = 0;
};

// Exact game value for the side to move (+1 win, 0 draw, -1 loss); throws
// std::invalid_argument if more than max_plies moves remain (the search would
// take too long).
int solve(const Position& p, int max_plies);

// The same with the positions the solver visited, for measuring it.
struct SolveCount {
  int value = 0;
  uint64_t nodes = 0;
};
SolveCount solve_counted(const Position& p, int max_plies);

}  // namespace popucom

#endif  // POPUCOM_SEARCH_SOLVER_H_
