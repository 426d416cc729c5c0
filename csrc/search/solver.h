// Exact play near the end of the game: alpha-beta over every continuation,
// for the last few plies, where a 25-move game's outcome often hangs on one
// floor and a search of a few hundred visits can miss the move that wins it.
#ifndef POPUCOM_SEARCH_SOLVER_H_
#define POPUCOM_SEARCH_SOLVER_H_

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

#include "../core/deadline.h"
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
// little more than the root. Two shortcuts keep the exact result while
// visiting far fewer positions: on the last ply only the moves that complete
// a line of three change the floors, so only they are played; two plies from
// the end, the quiet moves off every line the opponent's last move could paint
// all leave that reply the same, so one of them stands for them all. A
// deadline (set_deadline) ends a solve like the budget does: polled at each
// solve's root and every CLOCK_CHECK_NODES positions, so a solve gives up
// within a fraction of a millisecond of it. Not thread-safe (the deadline
// itself may be moved by any thread).
class Solver {
 public:
  explicit Solver(uint64_t max_nodes = UINT64_MAX, size_t max_slots = MAX_SLOTS)
      : max_nodes_(max_nodes), max_slots_(std::max(max_slots, MIN_SLOTS)) {
    for (auto& k : killers_) k = {NO_MOVE, NO_MOVE};
  }

  // False (and *value untouched) when the budget runs out or the deadline
  // passes first.
  bool solve(const Position& p, int* value);
  // The value and, among the results that keep it, the best margin (a
  // full-window search: dearer than solve()). False past the budget.
  bool solve_outcome(const Position& p, ExactOutcome* outcome);
  // Whether the value is below `value` (+1 or 0): one null-window probe,
  // cheaper than solve(). False (and *below untouched) past the budget.
  bool is_below(const Position& p, int value, bool* below);
  // Positions visited so far: each solve's root and every position made by a
  // move the solver plays, the last ply's included. Its work, as its budget
  // counts it.
  uint64_t nodes() const { return nodes_; }
  // The solves from now on may visit `nodes` more positions in all.
  void set_budget_from_now(uint64_t nodes) { max_nodes_ = nodes_ + nodes; }
  // Solves end unsolved once `deadline` has passed (nullptr: no deadline).
  // The Deadline must outlive the solves that poll it.
  void set_deadline(const Deadline* deadline) { deadline_ = deadline; }
  // Solves end unsolved once `seconds` of wall time from now have passed, as
  // when the budget runs out (a limit of the solver's own, beside the shared
  // deadline; <= 0 or NaN: at once). clear_time_limit() lifts it.
  void set_time_limit_from_now(double seconds);
  void clear_time_limit() { has_time_limit_ = false; }
  // Whether the last solve that gave up did so at the deadline, not the
  // budget or the time limit.
  bool ran_out_of_time() const { return out_of_time_; }

  // Forgets every entry and gives the table's memory back: what a new game
  // or a jump elsewhere in a game needs (the entries stay true, but the
  // positions they describe will not come again).
  void clear();
  // The bytes the table holds now; it never grows past max_table_bytes().
  size_t table_bytes() const { return slots_.capacity() * sizeof(Slot); }
  size_t max_table_bytes() const { return max_slots_ * sizeof(Slot); }
  // The most slots a table of `bytes` holds (a power of two, at least MIN_SLOTS).
  static size_t slots_within(size_t bytes);

  // Positions between two reads of the clock: a few microseconds of work.
  static constexpr uint64_t CLOCK_CHECK_NODES = 4096;

  static constexpr size_t MIN_SLOTS = size_t{1} << 12;
  static constexpr size_t MAX_SLOTS = size_t{1} << 23;  // 128 MB

 private:
  enum class Bound : int8_t { EXACT, LOWER, UPPER };
  // An open-addressing table keyed by Zobrist hash, its entries in one array
  // (a node-based map allocates each one). It doubles when half full, up to
  // MAX_SLOTS; a new entry that finds its probe run full overwrites the run's
  // entry with the fewest plies left, the cheapest to search again.
  struct Slot {
    uint64_t key = 0;
    int16_t value = 0;  // an outcome key (solver.cpp)
    Bound bound = Bound::EXACT;
    int8_t move = NO_MOVE;  // the move that gave the value: searched first next time
    int8_t plies = 0;       // plies left in the position
    bool used = false;
  };
  static constexpr int MAX_PROBES = 8;
  static constexpr int8_t NO_MOVE = -1;
  const Slot* find(uint64_t key) const;
  void store(uint64_t key, int value, Bound bound, int move, int plies);
  void grow();

  // Whether a solve must give up now: past the node budget, or (read every
  // CLOCK_CHECK_NODES positions, and at each solve's root) past the deadline
  // or the time limit.
  bool must_stop();
  bool past_deadline();
  int negamax(const Position& p, int alpha, int beta);
  // The exact outcome key of a position with one ply left (the mover's last move).
  int last_move_value(const Position& p, int beta);
  // A node's moves (one per distinct outcome) in the order to search them:
  // the table's move, then the mover's floor lead after the move, then the
  // moves that cut off most elsewhere. A quiet move keeps the lead as it is,
  // so only the completing moves' children are made to rank them; the rest
  // are made when searched, which a cutoff often spares.
  struct Children {
    std::array<Position, NUM_SQUARES> position;
    std::array<uint64_t, NUM_SQUARES> rank;  // the move in the low byte
    std::array<bool, NUM_SQUARES> made;
    int count = 0;
  };
  void rank_moves(const Position& p, int hint, Children* children);
  // An upper bound on the outcome key of a position two plies from the end,
  // from its ranked children; INT_MAX where none holds.
  int two_plies_upper_bound(const Position& p, const Children& children) const;
  // The k-th child to search, the (k-1) before it searched already.
  const Position& next_child(const Position& p, int k, Children* children, int* move);
  // One Children per plies left, made once (a node's own would construct 81
  // positions, hashing each, at every node); a deque, so a parent's stays put
  // while a deeper solve adds more.
  Children& frame(int plies);

  uint64_t max_nodes_;
  size_t max_slots_;
  uint64_t nodes_ = 0;
  const Deadline* deadline_ = nullptr;
  bool has_time_limit_ = false;
  Deadline::Clock::time_point time_limit_;
  uint64_t next_clock_check_ = 0;
  bool out_of_time_ = false;
  std::vector<Slot> slots_;
  size_t used_ = 0;
  std::deque<Children> frames_;
  // How often each move cut off, per colour, weighted by the plies it saved.
  std::array<std::array<uint32_t, NUM_SQUARES>, 2> history_{};
  std::array<std::array<int8_t, 2>, 64> killers_{{{-1, -1}}};
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

// The exact value of a position and of each of its legal moves (for the side
// to move: minus its child's), by one solver, so the children reuse the
// root's table; throws like solve(). What an audit of the moves played needs.
struct MoveValues {
  int value = 0;
  std::vector<std::pair<int, int>> moves;  // (square, value) in square order; none if the game is over
  uint64_t nodes = 0;
};
MoveValues solve_moves(const Position& p, int max_plies);

// What an audit of the move played in a position needs, for less than every
// move's value: the best value, the move's, and whether the legal moves
// differ in value (critical). Each other move is only asked "below the
// best?", and not at all once the answer is known (all moves lose alike when
// the best loses). Throws like solve(), and std::invalid_argument for an
// illegal move.
struct MoveAudit {
  int best = 0;
  int played = 0;
  bool critical = false;
  uint64_t nodes = 0;
};
MoveAudit audit_move(const Position& p, int move, int max_plies);

}  // namespace popucom

#endif  // POPUCOM_SEARCH_SOLVER_H_
