#include "common.h"

#include "../game/notation.h"

namespace popucom {
namespace bindings {

int move_from_object(py::handle move) {
  if (py::isinstance<py::str>(move)) return parse_square(move.cast<std::string>());
  // Integers of other types (numpy.int64 from an argmax) count through __index__; bools
  // and floats do not.
  const bool integer =
      py::isinstance<py::int_>(move) || (!py::isinstance<py::float_>(move) && PyIndex_Check(move.ptr()));
  if (py::isinstance<py::bool_>(move) || !integer)
    throw py::type_error("a move is a square index (int 0..80) or text like 'e5', not " +
                         std::string(py::str(py::type::handle_of(move).attr("__name__"))));
  PyObject* index = PyNumber_Index(move.ptr());
  if (index == nullptr) throw py::error_already_set();
  const py::int_ value = py::reinterpret_steal<py::int_>(index);
  if (value < py::int_(0) || value >= py::int_(NUM_SQUARES))
    throw py::value_error("square " + std::string(py::str(value)) + " is off the board (want 0..80)");
  return value.cast<int>();
}

Bitboard squares_from_object(py::handle squares, const char* what) {
  Bitboard b;
  const auto add = [&](int sq) {
    if (b.test(sq)) throw py::value_error(std::string(what) + ": square " + square_to_text(sq) + " is listed twice");
    b.set(sq);
  };
  try {
    if (py::isinstance<py::str>(squares)) {
      for (int sq : parse_record(squares.cast<std::string>())) add(sq);
    } else {
      for (py::handle item : py::iter(squares)) add(move_from_object(item));
    }
  } catch (const std::invalid_argument& e) {
    throw py::value_error(std::string(what) + ": " + e.what());
  } catch (py::error_already_set& e) {
    if (e.matches(PyExc_TypeError))
      throw py::type_error(std::string(what) + ": want a string of squares or an iterable of squares");
    throw;
  }
  return b;
}

py::int_ bitboard_to_int(Bitboard b) { return py::int_(py::int_(b.lo) | (py::int_(b.hi) << py::int_(64))); }

void check_array(const py::array& a, const char* name, const py::dtype& dtype, const std::vector<py::ssize_t>& shape,
                 bool writable) {
  if (!a.dtype().is(dtype) && !a.dtype().equal(dtype))
    throw py::type_error(std::string(name) + " must have dtype " + std::string(py::str(dtype)) + ", got " +
                         std::string(py::str(a.dtype())));
  std::string want = "(", got = "(";
  bool ok = a.ndim() == static_cast<py::ssize_t>(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) {
    want += (shape[i] < 0 ? std::string("N") : std::to_string(shape[i])) + (i + 1 < shape.size() ? ", " : ")");
    if (ok && shape[i] >= 0 && a.shape(i) != shape[i]) ok = false;
  }
  for (py::ssize_t i = 0; i < a.ndim(); ++i) got += std::to_string(a.shape(i)) + (i + 1 < a.ndim() ? ", " : "");
  got += ")";
  if (!ok) throw py::value_error(std::string(name) + " must have shape " + want + ", got " + got);
  if (!(a.flags() & py::array::c_style)) throw py::value_error(std::string(name) + " must be C-contiguous");
  if (writable && !a.writeable()) throw py::value_error(std::string(name) + " must be writable");
}

}  // namespace bindings
}  // namespace popucom
