#include "solver.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace popucom {

namespace {

int negamax(const Position& p, int alpha, int beta) {
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
    best = std::max(best, -negamax(next, -beta, -alpha));
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
  return negamax(p, -1, 1);
}

}  // namespace popucom
