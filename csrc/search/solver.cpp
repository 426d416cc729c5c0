#include "solver.h"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>

namespace popucom {

namespace {

constexpr int OUT_OF_BUDGET = 2;  // outside the -1..1 range of game values
constexpr int MIN_STORED_PLIES = 2;

}  // namespace

int plies_left(const Position& p) { return p.moves_left(BLACK) + p.moves_left(WHITE); }

int Solver::negamax(const Position& p, int alpha, int beta) {
  if (++nodes_ > max_nodes_) return OUT_OF_BUDGET;
  if (p.is_terminal()) {
    const Result r = p.result();
    if (r == Result::DRAW) return 0;
    return (r == Result::BLACK_WIN) == (p.to_move() == BLACK) ? 1 : -1;
  }
  const int alpha_in = alpha;
  if (const auto hit = table_.find(p.hash()); hit != table_.end()) {
    const Entry e = hit->second;
    if (e.bound == Bound::EXACT) return e.value;
    if (e.bound == Bound::LOWER) alpha = std::max(alpha, static_cast<int>(e.value));
    if (e.bound == Bound::UPPER) beta = std::min(beta, static_cast<int>(e.value));
    if (alpha >= beta) return e.value;
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
  int best = -2;
  for (int k = 0; k < count; ++k) {
    const Position& next = children[order[k]];
    const int value = negamax(next, -beta, -alpha);
    if (value == OUT_OF_BUDGET) return OUT_OF_BUDGET;
    best = std::max(best, -value);
    alpha = std::max(alpha, best);
    if (alpha >= beta) break;
  }
  // Positions a ply from the end are cheaper to search again than to store:
  // leaving them out keeps the table dozens of times smaller than the search.
  if (plies_left(p) >= MIN_STORED_PLIES) {
    const Bound bound = best <= alpha_in ? Bound::UPPER : best >= beta ? Bound::LOWER : Bound::EXACT;
    table_[p.hash()] = Entry{static_cast<int8_t>(best), bound};
  }
  return best;
}

bool Solver::solve(const Position& p, int* value) {
  const int v = negamax(p, -1, 1);
  if (v == OUT_OF_BUDGET) return false;
  *value = v;
  return true;
}

int solve(const Position& p, int max_plies) {
  const int remaining = plies_left(p);
  if (remaining > max_plies)
    throw std::invalid_argument("solve: " + std::to_string(remaining) +
                                " moves remain, more than max_plies = " + std::to_string(max_plies));
  Solver solver;
  int value = 0;
  solver.solve(p, &value);
  return value;
}

}  // namespace popucom
