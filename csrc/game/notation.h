// Text coordinates and game records. A square is written as a column letter
// a..i (col 0..8) and a row number 1..9 (row 0..8): "a1" is square 0 (top-left),
// "e5" square 40. Parsing is case-insensitive; output is lower case. A record
// is the moves in order, Black first, separated by whitespace.
#ifndef POPUCOM_GAME_NOTATION_H_
#define POPUCOM_GAME_NOTATION_H_

#include <string>
#include <vector>

namespace popucom {

std::string square_to_text(int sq);         // throws std::invalid_argument if out of range
int parse_square(const std::string& text);  // throws std::invalid_argument naming the text
// Squares of a record; throws std::invalid_argument naming the bad token and its position.
std::vector<int> parse_record(const std::string& record);
std::string format_record(const std::vector<int>& moves);

}  // namespace popucom

#endif  // POPUCOM_GAME_NOTATION_H_
