#include "solver.h"

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "../game/geometry.h"

namespace popucom {

namespace {
constexpr int KILLER_SHIFT = 32;

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

// has_next[axis]: the squares whose next square along the axis (towards
// higher indices) is on the board; has_previous: those with a previous one.
struct LineMasks {
  Bitboard has_next[geometry::NUM_AXES];
  Bitboard has_previous[geometry::NUM_AXES];
};
constexpr LineMasks make_line_masks() {
  LineMasks m{};
  for (int sq = 0; sq < NUM_SQUARES; ++sq)
    for (int axis = 0; axis < geometry::NUM_AXES; ++axis) {
      if (geometry::TABLES.ray_length[sq][axis] > 0) m.has_next[axis].set(sq);
      if (geometry::TABLES.ray_length[sq][axis + geometry::NUM_AXES] > 0) m.has_previous[axis].set(sq);
    }
  return m;
}
constexpr LineMasks LINES = make_line_masks();

// The squares one step before / after a square of b along the axis.
Bitboard one_before(Bitboard b, int axis) { return b.shifted_down(geometry::AXIS_STEP[axis]) & LINES.has_next[axis]; }
Bitboard one_after(Bitboard b, int axis) {
  const int n = geometry::AXIS_STEP[axis];
  return Bitboard(b.lo << n, (b.hi << n) | (b.lo >> (64 - n))) & LINES.has_previous[axis];
}

// The squares where a stone would complete a line of three of `own` along
// the axis (legal or not): all of them at once, without playing any.
Bitboard completing(Bitboard own, int axis) {
  const Bitboard next = one_before(own, axis), previous = one_after(own, axis);
  return (next & previous) | (next & one_before(next, axis)) | (previous & one_after(previous, axis));
}
Bitboard completing(Bitboard own) {
  return completing(own, 0) | completing(own, 1) | completing(own, 2) | completing(own, 3);
}

// The moves of a position two plies from the end (the mover's last move, then
// the opponent's) whose values can differ. A quiet move (one that completes
// no line) changes no floor; if it lies on none of the lines the opponent's
// completing moves would paint, nor on one of those moves, it leaves every
// reply of theirs exactly as it was: all such moves have one outcome, and one
// of them stands for the rest. (With fewer than two of the opponent's quiet
// replies, taking one away can matter: then every move is kept.)
Bitboard distinct_moves_two_plies_left(const Position& p) {
  const Color me = p.to_move(), them = opponent(me);
  const Bitboard legal = p.legal_moves();
  const Bitboard their_legal = ~(p.stones(BLACK) | p.stones(WHITE) | p.floors(me));
  Bitboard their_matches, reach;
  for (int axis = 0; axis < geometry::NUM_AXES; ++axis) {
    const Bitboard along = their_legal & completing(p.stones(them), axis);
    their_matches |= along;
    along.for_each([&](int w) {
      reach |= geometry::TABLES.ray_mask[w][axis] | geometry::TABLES.ray_mask[w][axis + geometry::NUM_AXES];
    });
  }
  const Bitboard idle = legal & ~completing(p.stones(me)) & ~reach & ~their_matches;
  if (idle.count() < 2 || (their_legal & ~their_matches).count() < 2) return legal;
  return (legal & ~idle) | Bitboard::square(idle.lowest());
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

void Solver::store(uint64_t key, int value, Bound bound, int move, int plies) {
  if (2 * (used_ + 1) > slots_.size() && slots_.size() < max_slots_) grow();
  const size_t mask = slots_.size() - 1;
  size_t i = key & mask, target = i;
  for (int probe = 0; probe < MAX_PROBES; ++probe, i = (i + 1) & mask) {
    if (!slots_[i].used || slots_[i].key == key) {
      target = i;
      break;
    }
    if (slots_[i].plies < slots_[target].plies) target = i;  // a full run: replace its shallowest entry
  }
  used_ += !slots_[target].used;
  slots_[target] =
      Slot{key, static_cast<int16_t>(value), bound, static_cast<int8_t>(move), static_cast<int8_t>(plies), true};
}

void Solver::grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.empty() ? MIN_SLOTS : 2 * old.size(), Slot());
  used_ = 0;
  for (const Slot& slot : old)
    if (slot.used) store(slot.key, slot.value, slot.bound, slot.move, slot.plies);
}

int Solver::last_move_value(const Position& p, int beta) {
  // The game ends by the move limit after this move, so its result only grows
  // with the floor lead the move leaves: the best lead decides, no search needed.
  // Only a move that completes a line changes a floor: a quiet one keeps the
  // lead as it is, so only the completing moves are played, and only until
  // one reaches beta (a lower bound is all the caller can use then).
  const int sign = p.to_move() == BLACK ? 1 : -1;
  const int64_t komi = sign * static_cast<int64_t>(p.komi());
  const auto key_of_lead = [&](int lead) {
    const int margin = clamp_margin(lead + komi);
    return outcome_key(value_of_key(margin), margin);
  };
  const Bitboard legal = p.legal_moves();
  const Bitboard matches = legal & completing(p.stones(p.to_move()));
  int best = matches == legal ? WORST_KEY : key_of_lead(sign * p.score());
  for (Bitboard m = matches; m.any() && best < beta;) {
    Position next = p;
    next.play_unchecked(m.pop_lowest());
    ++nodes_;
    best = std::max(best, key_of_lead(sign * next.score()));
  }
  return best;
}

void Solver::rank_moves(const Position& p, int hint, Children* children) {
  const Color me = p.to_move();
  const int sign = me == BLACK ? 1 : -1;
  const Bitboard legal = plies_left(p) == 2 ? distinct_moves_two_plies_left(p) : p.legal_moves();
  const Bitboard matches = legal & completing(p.stones(me));
  const int lead = sign * p.score();
  int count = 0;
  for (Bitboard left = legal; left.any(); ++count) {
    const int move = left.pop_lowest();
    int after = lead;
    children->made[count] = matches.test(move);
    if (children->made[count]) {
      Position& child = children->position[count];
      child = p;
      child.play_unchecked(move);
      ++nodes_;
      after = sign * child.score();
    }
    // Fields from the top: the table's move, the lead (0..162), the history
    // count (below 2^23), the move.
    const auto& killers = killers_[static_cast<size_t>(plies_left(p))];
    const uint64_t killer = move == killers[0] ? 2 : move == killers[1] ? 1 : 0;
    children->rank[count] = uint64_t{move == hint} << 63 | killer << KILLER_SHIFT |
                            static_cast<uint64_t>(after + NUM_SQUARES) << 40 | uint64_t{history_[me][move]} << 8 |
                            static_cast<uint64_t>(move);
  }
  children->count = count;
}

int Solver::two_plies_upper_bound(const Position& p, const Children& children) const {
  // The opponent's last move can only paint floors their colour, so the best
  // lead the mover's own move leaves bounds the result from above, unless a
  // move leaves them no legal reply (which ends the game at once, a win for
  // the mover by at least a floor).
  const Color me = p.to_move();
  const Bitboard their_legal = ~(p.stones(BLACK) | p.stones(WHITE) | p.floors(me));
  if (their_legal.count() < 2) return INT_MAX;
  const int sign = me == BLACK ? 1 : -1;
  int best_lead = INT32_MIN;
  for (int i = 0; i < children.count; ++i) {
    if (children.made[i] && children.position[i].is_terminal()) return INT_MAX;
    best_lead = std::max(best_lead, static_cast<int>((children.rank[i] >> 40) & 0xFF) - NUM_SQUARES);
  }
  const int margin = clamp_margin(static_cast<int64_t>(best_lead) + sign * static_cast<int64_t>(p.komi()));
  return outcome_key(value_of_key(margin), margin);
}

const Position& Solver::next_child(const Position& p, int k, Children* children, int* move) {
  // Selection, not a sort: a cutoff usually comes after one or two children.
  int best = k;
  for (int i = k + 1; i < children->count; ++i)
    if (children->rank[i] > children->rank[best]) best = i;
  if (best != k) {
    std::swap(children->rank[k], children->rank[best]);
    if (children->made[k] || children->made[best]) std::swap(children->position[k], children->position[best]);
    std::swap(children->made[k], children->made[best]);
  }
  *move = static_cast<int>(children->rank[k] & 0xFF);
  if (!children->made[k]) {
    children->position[k] = p;
    children->position[k].play_unchecked(*move);
    ++nodes_;
  }
  return children->position[k];
}

Solver::Children& Solver::frame(int plies) {
  if (static_cast<int>(frames_.size()) <= plies) frames_.resize(plies + 1);
  return frames_[plies];
}

bool Solver::past_deadline() {
  next_clock_check_ = nodes_ + CLOCK_CHECK_NODES;
  out_of_time_ = deadline_ != nullptr && deadline_->passed();
  return out_of_time_ || (has_time_limit_ && Deadline::Clock::now() >= time_limit_);
}

void Solver::set_time_limit_from_now(double seconds) {
  time_limit_ = Deadline::from_now(seconds);
  has_time_limit_ = true;
}

void Solver::clear() {
  std::vector<Slot>().swap(slots_);
  used_ = 0;
  history_ = {};
  for (auto& k : killers_) k = {NO_MOVE, NO_MOVE};
}

size_t Solver::slots_within(size_t bytes) {
  size_t slots = MIN_SLOTS;
  while (slots <= SIZE_MAX / 4 / sizeof(Slot) && 2 * slots * sizeof(Slot) <= bytes) slots *= 2;
  return slots;
}

bool Solver::must_stop() {
  if (nodes_ > max_nodes_) {
    out_of_time_ = false;
    return true;
  }
  return nodes_ >= next_clock_check_ && past_deadline();
}

int Solver::negamax(const Position& p, int alpha, int beta) {
  if (must_stop()) return OUT_OF_BUDGET;
  if (p.is_terminal()) {
    const Result r = p.result();
    if (r == Result::DRAW) return 0;
    const int sign = p.to_move() == BLACK ? 1 : -1;
    return outcome_key((r == Result::BLACK_WIN) == (sign == 1) ? 1 : -1,
                       clamp_margin(static_cast<int64_t>(sign * p.final_margin())));
  }
  const int plies = plies_left(p);
  if (plies == 1) return last_move_value(p, beta);
  const int alpha_in = alpha;
  int hint = NO_MOVE;
  if (const Slot* hit = find(p.hash())) {
    if (hit->bound == Bound::EXACT) return hit->value;
    if (hit->bound == Bound::LOWER) alpha = std::max(alpha, static_cast<int>(hit->value));
    if (hit->bound == Bound::UPPER) beta = std::min(beta, static_cast<int>(hit->value));
    if (alpha >= beta) return hit->value;
    hint = hit->move;
  }
  Children& children = frame(plies);
  rank_moves(p, hint, &children);
  if (plies == 2) {
    const int bound = two_plies_upper_bound(p, children);
    if (bound <= alpha) return bound;
  }
  int best = WORST_KEY, best_move = NO_MOVE;
  for (int k = 0; k < children.count; ++k) {
    int move = NO_MOVE;
    const int value = negamax(next_child(p, k, &children, &move), -beta, -alpha);
    if (value == OUT_OF_BUDGET) return OUT_OF_BUDGET;
    if (-value > best) {
      best = -value;
      best_move = move;
    }
    alpha = std::max(alpha, best);
    if (alpha >= beta) {
      uint32_t& h = history_[p.to_move()][best_move];
      h = std::min<uint32_t>(h + static_cast<uint32_t>(plies * plies), UINT32_MAX >> 9);
      auto& killers = killers_[static_cast<size_t>(plies)];
      if (killers[0] != best_move) killers[1] = killers[0], killers[0] = static_cast<int8_t>(best_move);
      break;
    }
  }
  // Positions a ply from the end never get here (last_move_value), so the
  // table holds only positions that cost a search to redo.
  store(p.hash(), best, best <= alpha_in ? Bound::UPPER : best >= beta ? Bound::LOWER : Bound::EXACT, best_move, plies);
  return best;
}

bool Solver::solve(const Position& p, int* value) {
  // Two null-window probes, "is it a win?" and then "is it at least a draw?",
  // visit fewer positions than one search with the full window (docs/benchmarks.md,
  // "Design notes behind the figures"): a probe needs one refutation per node.
  if (past_deadline()) return false;
  ++nodes_;  // the root
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

bool Solver::is_below(const Position& p, int value, bool* below) {
  // The windows of solve()'s probes: (0, 1) asks "a win?", (-1, 0) "a draw or better?".
  if (past_deadline()) return false;
  ++nodes_;  // the root
  const int key = negamax(p, value - 1, value);
  if (key == OUT_OF_BUDGET) return false;
  *below = key < value;
  return true;
}

bool Solver::solve_outcome(const Position& p, ExactOutcome* outcome) {
  if (past_deadline()) return false;
  ++nodes_;  // the root
  const int key = negamax(p, WORST_KEY, -WORST_KEY);
  if (key == OUT_OF_BUDGET) return false;
  outcome->value = value_of_key(key);
  outcome->margin = key - outcome->value * RESULT_STEP;
  return true;
}

namespace {

void check_plies(const Position& p, int max_plies) {
  const int remaining = plies_left(p);
  if (remaining > max_plies)
    throw std::invalid_argument("solve: " + std::to_string(remaining) +
                                " moves remain, more than max_plies = " + std::to_string(max_plies));
}

}  // namespace

SolveCount solve_counted(const Position& p, int max_plies) {
  check_plies(p, max_plies);
  Solver solver;
  SolveCount count;
  solver.solve(p, &count.value);
  count.nodes = solver.nodes();
  return count;
}

int solve(const Position& p, int max_plies) { return solve_counted(p, max_plies).value; }

MoveValues solve_moves(const Position& p, int max_plies) {
  check_plies(p, max_plies);
  Solver solver;
  MoveValues out;
  solver.solve(p, &out.value);
  if (!p.is_terminal())
    for (Bitboard legal = p.legal_moves(); legal.any();) {
      const int move = legal.pop_lowest();
      Position next = p;
      next.play_unchecked(move);
      int value = 0;
      solver.solve(next, &value);
      out.moves.emplace_back(move, -value);
    }
  out.nodes = solver.nodes();
  return out;
}

MoveAudit audit_move(const Position& p, int move, int max_plies) {
  check_plies(p, max_plies);
  if (!p.is_legal(move)) throw std::invalid_argument("audit_move: move " + std::to_string(move) + " is not legal here");
  Solver solver;
  MoveAudit out;
  solver.solve(p, &out.best);
  Position next = p;
  next.play_unchecked(move);
  int value = 0;
  solver.solve(next, &value);
  out.played = -value;
  out.critical = out.played < out.best;
  // Another move is worse than the best when its child's value (the
  // opponent's) is not below 1 - best.
  for (Bitboard legal = p.legal_moves(); legal.any() && !out.critical && out.best > -1;) {
    const int other = legal.pop_lowest();
    if (other == move) continue;
    Position child = p;
    child.play_unchecked(other);
    bool below = true;
    solver.is_below(child, 1 - out.best, &below);
    out.critical = !below;
  }
  out.nodes = solver.nodes();
  return out;
}

}  // namespace popucom
