// popucom._core: the compiled core. Everything Python needs from C++ is bound
// here and in the bind_*.cpp files; the core library itself knows no Python.
#include "common.h"

PYBIND11_MODULE(_core, m) {
  m.doc() = "Match-n-POP rules, feature encoder and search, in C++.";
  popucom::bindings::bind_game(m);
  popucom::bindings::bind_features(m);
  popucom::bindings::bind_search(m);
  popucom::bindings::bind_nn(m);
  popucom::bindings::bind_native_net(m);

  pybind11::dict build;
  build["build_type"] = POPUCOM_BUILD_TYPE;
  build["native"] = static_cast<bool>(POPUCOM_NATIVE_BUILD);
  build["baseline_only"] = static_cast<bool>(POPUCOM_BASELINE_ONLY_BUILD);
  build["compiler"] = __VERSION__;
  // The generated stub (popucom/core_stub.py) depends on how this pybind11 spells signatures.
  build["pybind11"] = std::to_string(PYBIND11_VERSION_MAJOR) + "." + std::to_string(PYBIND11_VERSION_MINOR) + "." +
                      std::to_string(PYBIND11_VERSION_PATCH);
#if defined(__BMI2__)
  build["bmi2"] = true;
#else
  build["bmi2"] = false;
#endif
#if defined(__POPCNT__)
  build["popcnt"] = true;
#else
  build["popcnt"] = false;
#endif
  m.attr("BUILD_INFO") = build;
}
