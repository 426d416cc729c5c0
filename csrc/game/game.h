// A game: the starting position plus the moves played, with checked play and
// O(1) undo (each ply keeps its position; a position is ~90 bytes).
// Not synchronised.
#ifndef POPUCOM_GAME_GAME_H_
#define POPUCOM_GAME_GAME_H_

#include <string>
#include <vector>

#include "position.h"

namespace popucom {

class Game {
 public:
  explicit Game(int32_t komi = 0) : history_{Position(komi)} {}
  explicit Game(const Position& start) : history_{start} {}
  // Replays a record from the empty board; throws std::invalid_argument naming
  // the first unreadable or illegal move.
  static Game from_record(const std::string& record, int32_t komi = 0);

  // Plays a move after checking it; throws std::invalid_argument saying why a
  // move is refused (off the board, occupied, opponent floor, game over).
  void play(int sq);
  // Takes back the last move; throws std::logic_error if there is none.
  void undo();

  const Position& position() const { return history_.back(); }
  const Position& start() const { return history_.front(); }
  const std::vector<int>& moves() const { return moves_; }
  const std::vector<Position>& history() const { return history_; }
  std::string record() const;

 private:
  std::vector<Position> history_;
  std::vector<int> moves_;
};

}  // namespace popucom

#endif  // POPUCOM_GAME_GAME_H_
