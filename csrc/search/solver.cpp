#include "solver.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace popucom {

namespace {

constexpr int OUT_OF_BUDGET = 2;  // outside the -1..1 range of game values

// Negamax over win/draw/loss; OUT_OF_BUDGET once *nodes passes max_nodes.
int negamax(const Position& p, int alpha, int beta, uint64_t max_nodes, uint64_t* nodes) {
  if (++*nodes > max_nodes) return OUT_OF_BUDGET;
  if (p.is_terminal()) {
    const Result r = p.result();
    if (r == Result::DRAW) return 0;
    return (r == Result::BLACK_WIN) == (p.to_move() == BLACK) ? 1 : -1;
  }
  int best = -2;
  Bitboard legal = p.legal_moves();
  while (legal.any()) {
    Position next = p;
    next.play_unchecked(legal.pop_lowest());
    const int value = negamax(next, -beta, -alpha, max_nodes, nodes);
    if (value == OUT_OF_BUDGET) return OUT_OF_BUDGET;
    best = std::max(best, -value);
    alpha = std::max(alpha, best);
    if (alpha >= beta) break;
  }
  return best;
}

}  // namespace

int plies_left(const Position& p) { return p.moves_left(BLACK) + p.moves_left(WHITE); }

int solve(const Position& p, int max_plies) {
  const int remaining = plies_left(p);
  if (remaining > max_plies)
    throw std::invalid_argument("solve: " + std::to_string(remaining) +
                                " moves remain, more than max_plies = " + std::to_string(max_plies));
  uint64_t nodes = 0;
  return negamax(p, -1, 1, UINT64_MAX, &nodes);
}

bool solve_within(const Position& p, uint64_t max_nodes, uint64_t* nodes, int* value) {
  const int v = negamax(p, -1, 1, max_nodes, nodes);
  if (v == OUT_OF_BUDGET) return false;
  *value = v;
  return true;
}

}  // namespace popucom
