// Helpers shared by the native test files.
#ifndef POPUCOM_TESTS_HELPERS_H_
#define POPUCOM_TESTS_HELPERS_H_

#include <string>

#include "../game/bitboard.h"
#include "../game/notation.h"

namespace testing {

// The squares of a text list like "a1 b2 c3".
inline popucom::Bitboard squares(const std::string& text) {
  popucom::Bitboard b;
  for (int sq : popucom::parse_record(text)) b.set(sq);
  return b;
}

}  // namespace testing

#endif  // POPUCOM_TESTS_HELPERS_H_
