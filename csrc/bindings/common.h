// Helpers shared by the binding files: argument conversion with clear errors
// and numpy buffer checks. The only place besides the bind_*.cpp files that
// includes pybind11.
#ifndef POPUCOM_BINDINGS_COMMON_H_
#define POPUCOM_BINDINGS_COMMON_H_

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>
#include <vector>

#include "../game/bitboard.h"
#include "../game/position.h"

namespace popucom {
namespace bindings {

namespace py = pybind11;

// A move given as a square index (int) or text ("e5"). Raises TypeError for
// other types and ValueError for unreadable text or a square off the board.
int move_from_object(py::handle move);

// A set of squares given as a whitespace-separated string, or an iterable of
// square indices or texts.
Bitboard squares_from_object(py::handle squares, const char* what);

py::int_ bitboard_to_int(Bitboard b);

// Checks dtype, C-contiguity and shape of a numpy argument. `shape` entries of
// -1 match any size. Raises TypeError (not an ndarray / wrong dtype) or
// ValueError (shape, layout, read-only when writable is required).
void check_array(const py::array& a, const char* name, const py::dtype& dtype, const std::vector<py::ssize_t>& shape,
                 bool writable);

void bind_game(py::module_& m);
void bind_features(py::module_& m);
void bind_search(py::module_& m);
void bind_nn(py::module_& m);
void bind_native_net(py::module_& m);

}  // namespace bindings
}  // namespace popucom

#endif  // POPUCOM_BINDINGS_COMMON_H_
