// A minimal assertion harness for the native tests: TEST registers a case in a
// named suite, SLOW_TEST one that `--skip-slow` leaves out (the default pytest
// run skips them; ctest and `pytest -m slow` run every case); CHECK and
// CHECK_EQ record failures with file and line.
#ifndef POPUCOM_TESTS_TESTING_H_
#define POPUCOM_TESTS_TESTING_H_

#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace testing {

struct Case {
  std::string suite, name;
  std::function<void()> body;
  bool slow = false;
};

std::vector<Case>& registry();
void fail(const char* file, int line, const std::string& message);

struct Registrar {
  Registrar(const char* suite, const char* name, std::function<void()> body, bool slow = false) {
    registry().push_back({suite, name, std::move(body), slow});
  }
};

}  // namespace testing

#define TEST_CONCAT2(a, b) a##b
#define TEST_CONCAT(a, b) TEST_CONCAT2(a, b)
#define REGISTER_TEST(suite, name, slow)                                                                  \
  static void TEST_CONCAT(test_, name)();                                                                 \
  static testing::Registrar TEST_CONCAT(registrar_, name)(#suite, #name, TEST_CONCAT(test_, name), slow); \
  static void TEST_CONCAT(test_, name)()
#define TEST(suite, name) REGISTER_TEST(suite, name, false)
#define SLOW_TEST(suite, name) REGISTER_TEST(suite, name, true)

#define CHECK(cond)                                                     \
  do {                                                                  \
    if (!(cond)) testing::fail(__FILE__, __LINE__, "CHECK(" #cond ")"); \
  } while (0)

#define CHECK_EQ(a, b)                                                              \
  do {                                                                              \
    const auto& check_a_ = (a);                                                     \
    const auto& check_b_ = (b);                                                     \
    if (!(check_a_ == check_b_)) {                                                  \
      std::ostringstream check_msg_;                                                \
      check_msg_ << "CHECK_EQ(" #a ", " #b "): " << check_a_ << " != " << check_b_; \
      testing::fail(__FILE__, __LINE__, check_msg_.str());                          \
    }                                                                               \
  } while (0)

#define CHECK_THROWS(expr, exception_type)                                                 \
  do {                                                                                     \
    bool thrown_ = false;                                                                  \
    try {                                                                                  \
      (void)(expr);                                                                        \
    } catch (const exception_type&) { thrown_ = true; }                                    \
    if (!thrown_) testing::fail(__FILE__, __LINE__, "no " #exception_type " from " #expr); \
  } while (0)

#endif  // POPUCOM_TESTS_TESTING_H_
