#include "params.h"

#include <cmath>
#include <iomanip>
#include <sstream>
#include <stdexcept>

namespace popucom {

namespace {

// `value` as a double compares with both kinds of bound; NaN and infinities
// are refused (an infinite c_puct makes NaN of every score), and so is a huge
// finite value by the field's upper bound (see params.h).
void check_bounds(const char* name, double value, double lowest, double highest) {
  if (std::isfinite(value) && value >= lowest && value <= highest) return;
  std::ostringstream message;
  message << std::setprecision(12) << "SearchParams." << name << " = " << value << " is out of range: want " << lowest
          << " <= " << name << " <= " << highest;
  throw std::invalid_argument(message.str());
}

}  // namespace

void validate(const SearchParams& params) {
#define POPUCOM_CHECK_FIELD(type, name, value, lowest, highest, doc) \
  check_bounds(#name, static_cast<double>(params.name), lowest, highest);
  POPUCOM_SEARCH_PARAMS(POPUCOM_CHECK_FIELD)
#undef POPUCOM_CHECK_FIELD
}

}  // namespace popucom
