#include "game.h"

#include <stdexcept>

#include "notation.h"

namespace popucom {

Game Game::from_record(const std::string& record, int32_t komi) {
  Game game(komi);
  const std::vector<int> moves = parse_record(record);
  for (size_t i = 0; i < moves.size(); ++i) {
    try {
      game.play(moves[i]);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("record move " + std::to_string(i + 1) + " (" + square_to_text(moves[i]) +
                                  "): " + e.what());
    }
  }
  return game;
}

void Game::play(int sq) {
  const std::string why = position().illegal_reason(sq);
  if (!why.empty()) throw std::invalid_argument("illegal move: " + why);
  Position next = position();
  next.play_unchecked(sq);
  history_.push_back(next);
  moves_.push_back(sq);
}

void Game::undo() {
  if (moves_.empty()) throw std::logic_error("nothing to undo: no move has been played");
  history_.pop_back();
  moves_.pop_back();
}

std::string Game::record() const { return format_record(moves_); }

}  // namespace popucom
