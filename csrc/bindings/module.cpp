// popucom._core: the compiled core. Everything Python needs from C++ is bound
// here and in the bind_*.cpp files; the core library itself knows no Python.
#include "common.h"

PYBIND11_MODULE(_core, m) {
  m.doc() = "Match-n-POP rules, feature encoder and search, in C++.";
  popucom::bindings::bind_game(m);
  popucom::bindings::bind_features(m);
}
