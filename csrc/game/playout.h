// Uniformly random playouts, entirely in C++: the rules' throughput benchmark
// and the rollout policy of the pure Monte-Carlo bot.
#ifndef POPUCOM_GAME_PLAYOUT_H_
#define POPUCOM_GAME_PLAYOUT_H_

#include <cstdint>

#include "../core/random.h"
#include "position.h"

namespace popucom {

// Plays uniformly random legal moves from p until the game ends; returns the
// final position.
inline Position random_playout(Position p, Rng& rng) {
  for (;;) {
    if (p.moves_exhausted()) return p;
    const Bitboard legal = p.legal_moves();
    const int n = legal.count();
    if (n == 0) return p;
    p.play_unchecked(legal.select(static_cast<int>(rng.below(static_cast<uint32_t>(n)))));
  }
}

struct PlayoutStats {
  int64_t games = 0;
  int64_t plies = 0;
  int64_t black_wins = 0;
  int64_t white_wins = 0;
  int64_t draws = 0;
  int64_t no_legal_move_endings = 0;
};

// `games` random games from the empty board with the given komi and seed.
PlayoutStats random_playouts(int64_t games, uint64_t seed, int32_t komi = 0);

}  // namespace popucom

#endif  // POPUCOM_GAME_PLAYOUT_H_
