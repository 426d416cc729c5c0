#include "solver.h"

#include <algorithm>
#include <array>
#include <climits>
#include <stdexcept>
#include <string>

namespace popucom {

namespace {

// The solver searches one integer per outcome, ordered as the side to move
// prefers them: the result first, then the floor margin (a draw has margin 0;
// a won game's margin is at least 1, and a no-legal-move win counts at least
// 1 too, as final_margin() has it). Null windows around 0 ask for the result
// alone; a full window finds the margin as well.
constexpr int RESULT_STEP = 1024;               // above any margin: 81 floors plus any komi the table holds
constexpr int OUT_OF_BUDGET = 8 * RESULT_STEP;  // outside every outcome key
constexpr int WORST_KEY = -2 * RESULT_STEP;

int outcome_key(int value, int margin) { return value * RESULT_STEP + margin; }
int value_of_key(int key) { return key > 0 ? 1 : key < 0 ? -1 : 0; }

int clamp_margin(int64_t margin) {
  return static_cast<int>(std::clamp<int64_t>(margin, -(RESULT_STEP - 1), RESULT_STEP - 1));
}

}  // namespace

int plies_left(const Position& p) { return p.moves_left(BLACK) + p.moves_left(WHITE); }

const Solver::Slot* Solver::find(uint64_t key) const {
  if (slots_.empty()) return nullptr;
  const size_t mask = slots_.size() - 1;
  for (size_t i = key & mask, probe = 0; probe < MAX_PROBES; ++probe, i = (i + 1) & mask) {
    if (!slots_[i].used) return nullptr;
    if (slots_[i].key == key) return &slots_[i];
  }
  return nullptr;
}

void Solver::store(uint64_t key, int value, Bound bound) {
  if (2 * (used_ + 1) > slots_.size() && slots_.size() < max_slots_) grow();
  const size_t mask = slots_.size() - 1;
  size_t i = key & mask;
  for (int probe = 0; probe < MAX_PROBES && slots_[i].used && slots_[i].key != key; ++probe) i = (i + 1) & mask;
  if (slots_[i].used && slots_[i].key != key) i = key & mask;  // a full run: replace its first entry
  used_ += !slots_[i].used;
  slots_[i] = Slot{key, static_cast<int16_t>(value), bound, true};
}

void Solver::grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.empty() ? MIN_SLOTS : 2 * old.size(), Slot());
  used_ = 0;
  for (const Slot& slot : old)
    if (slot.used) store(slot.key, slot.value, slot.bound);
}

int Solver::last_move_value(const Position& p) {
  // The game ends by the move limit after this move, so its result only grows
  // with the floor lead the move leaves: the best lead decides, no search needed.
  const int sign = p.to_move() == BLACK ? 1 : -1;
  int best_lead = INT32_MIN;
  for (Bitboard legal = p.legal_moves(); legal.any();) {
    Position next = p;
    next.play_unchecked(legal.pop_lowest());
    ++nodes_;
    best_lead = std::max(best_lead, sign * next.score());
  }
  const int margin = clamp_margin(static_cast<int64_t>(best_lead) + sign * static_cast<int64_t>(p.komi()));
  return outcome_key(value_of_key(margin), margin);
}

int Solver::negamax(const Position& p, int alpha, int beta) {
  if (++nodes_ > max_nodes_) return OUT_OF_BUDGET;
  if (p.is_terminal()) {
    const Result r = p.result();
    if (r == Result::DRAW) return 0;
    const int sign = p.to_move() == BLACK ? 1 : -1;
    return outcome_key((r == Result::BLACK_WIN) == (sign == 1) ? 1 : -1,
                       clamp_margin(static_cast<int64_t>(sign * p.final_margin())));
  }
  if (plies_left(p) == 1) return last_move_value(p);
  const int alpha_in = alpha;
  if (const Slot* hit = find(p.hash())) {
    if (hit->bound == Bound::EXACT) return hit->value;
    if (hit->bound == Bound::LOWER) alpha = std::max(alpha, static_cast<int>(hit->value));
    if (hit->bound == Bound::UPPER) beta = std::min(beta, static_cast<int>(hit->value));
    if (alpha >= beta) return hit->value;
  }
  // Moves that leave the mover furthest ahead on floors first: the game is
  // decided by the floor count, so they are the likeliest to cut the search.
  std::array<Position, NUM_SQUARES> children;
  std::array<int, NUM_SQUARES> lead, order;
  int count = 0;
  const int sign = p.to_move() == BLACK ? 1 : -1;
  for (Bitboard legal = p.legal_moves(); legal.any(); ++count) {
    children[count] = p;
    children[count].play_unchecked(legal.pop_lowest());
    lead[count] = sign * children[count].score();
    order[count] = count;
  }
  std::stable_sort(order.begin(), order.begin() + count, [&](int a, int b) { return lead[a] > lead[b]; });
  int best = WORST_KEY;
  for (int k = 0; k < count; ++k) {
    const int value = negamax(children[order[k]], -beta, -alpha);
    if (value == OUT_OF_BUDGET) return OUT_OF_BUDGET;
    best = std::max(best, -value);
    alpha = std::max(alpha, best);
    if (alpha >= beta) break;
  }
  // Positions a ply from the end never get here (last_move_value), so the
  // table holds only positions that cost a search to redo.
  store(p.hash(), best, best <= alpha_in ? Bound::UPPER : best >= beta ? Bound::LOWER : Bound::EXACT);
  return best;
}

bool Solver::solve(const Position& p, int* value) {
  // Two null-window probes, "is it a win?" and then "is it at least a draw?",
  // visit fewer positions than one search with the full window (7% fewer at
  // six plies left in arena games): a probe needs one refutation per node.
  const int win = negamax(p, 0, 1);
  if (win == OUT_OF_BUDGET) return false;
  if (win >= 1) {
    *value = 1;
    return true;
  }
  const int draw = negamax(p, -1, 0);
  if (draw == OUT_OF_BUDGET) return false;
  *value = draw >= 0 ? 0 : -1;
  return true;
}

bool Solver::solve_outcome(const Position& p, ExactOutcome* outcome) {
  const int key = negamax(p, WORST_KEY, -WORST_KEY);
  if (key == OUT_OF_BUDGET) return false;
  outcome->value = value_of_key(key);
  outcome->margin = key - outcome->value * RESULT_STEP;
  return true;
}

SolveCount solve_counted(const Position& p, int max_plies) {
  const int remaining = plies_left(p);
  if (remaining > max_plies)
    throw std::invalid_argument("solve: " + std::to_string(remaining) +
                                " moves remain, more than max_plies = " + std::to_string(max_plies));
  Solver solver;
  SolveCount count;
  solver.solve(p, &count.value);
  count.nodes = solver.nodes();
  return count;
}

int solve(const Position& p, int max_plies) { return solve_counted(p, max_plies).value; }

}  // namespace popucom
