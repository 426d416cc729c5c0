#include "playout.h"

namespace popucom {

PlayoutStats random_playouts(int64_t games, uint64_t seed, int32_t komi) {
  PlayoutStats stats;
  Rng rng(seed);
  const Position start(komi);
  for (int64_t g = 0; g < games; ++g) {
    const Position end = random_playout(start, rng);
    stats.plies += end.ply();
    switch (end.result()) {
      case Result::BLACK_WIN: ++stats.black_wins; break;
      case Result::WHITE_WIN: ++stats.white_wins; break;
      default: ++stats.draws; break;
    }
    if (end.end_reason() == EndReason::NO_LEGAL_MOVE) ++stats.no_legal_move_endings;
  }
  stats.games = games;
  return stats;
}

}  // namespace popucom
