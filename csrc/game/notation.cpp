#include "notation.h"

#include <cctype>
#include <sstream>
#include <stdexcept>

#include "constants.h"

namespace popucom {

std::string square_to_text(int sq) {
  if (sq < 0 || sq >= NUM_SQUARES)
    throw std::invalid_argument("square " + std::to_string(sq) + " is off the board (want 0..80)");
  return std::string(1, static_cast<char>('a' + sq % BOARD_SIZE)) + std::to_string(sq / BOARD_SIZE + 1);
}

int parse_square(const std::string& text) {
  const auto bad = [&](const char* why) { return std::invalid_argument("cannot read move '" + text + "': " + why); };
  if (text.size() != 2) throw bad("want a column a-i then a row 1-9, like e5");
  const int col = std::tolower(static_cast<unsigned char>(text[0])) - 'a';
  const int row = text[1] - '1';
  if (col < 0 || col >= BOARD_SIZE) throw bad("the column must be a letter a-i");
  if (row < 0 || row >= BOARD_SIZE) throw bad("the row must be a digit 1-9");
  return row * BOARD_SIZE + col;
}

std::vector<int> parse_record(const std::string& record) {
  std::istringstream in(record);
  std::vector<int> moves;
  std::string token;
  while (in >> token) {
    try {
      moves.push_back(parse_square(token));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("record move " + std::to_string(moves.size() + 1) + ": " + e.what());
    }
  }
  return moves;
}

std::string format_record(const std::vector<int>& moves) {
  std::string out;
  for (size_t i = 0; i < moves.size(); ++i) {
    if (i) out += ' ';
    out += square_to_text(moves[i]);
  }
  return out;
}

}  // namespace popucom
