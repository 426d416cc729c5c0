// The one place where the board geometry and game constants live. Python reads
// them through the bindings (popucom._core), so nothing here is duplicated.
#ifndef POPUCOM_GAME_CONSTANTS_H_
#define POPUCOM_GAME_CONSTANTS_H_

#include <cstdint>

namespace popucom {

constexpr int BOARD_SIZE = 9;
constexpr int NUM_SQUARES = BOARD_SIZE * BOARD_SIZE;  // sq = row * 9 + col
constexpr int MOVES_PER_PLAYER = 25;                  // stones per side; no pass
constexpr int MAX_GAME_PLIES = 2 * MOVES_PER_PLAYER;
constexpr int MATCH_LENGTH = 3;    // a run this long is eliminated
constexpr int NUM_SYMMETRIES = 8;  // the dihedral group D4

enum Color : uint8_t { BLACK = 0, WHITE = 1 };
constexpr Color opponent(Color c) { return static_cast<Color>(c ^ 1); }

// Outcome of a game from Black's and White's point of view.
enum class Result : uint8_t { ONGOING = 0, BLACK_WIN = 1, WHITE_WIN = 2, DRAW = 3 };

// How a finished game ended.
enum class EndReason : uint8_t { NONE = 0, MOVES_EXHAUSTED = 1, NO_LEGAL_MOVE = 2 };

}  // namespace popucom

#endif  // POPUCOM_GAME_CONSTANTS_H_
