// Runs the native tests: `popucom_cpp_tests [--skip-slow] [suite ...]` (all
// suites if none; --skip-slow leaves out the cases registered with SLOW_TEST).
#include <chrono>
#include <cstdlib>
#include <set>

#include "testing.h"

namespace testing {

namespace {
int failures = 0;
}

std::vector<Case>& registry() {
  static std::vector<Case> cases;
  return cases;
}

void fail(const char* file, int line, const std::string& message) {
  ++failures;
  std::cerr << file << ":" << line << ": FAILED " << message << "\n";
}

}  // namespace testing

int main(int argc, char** argv) {
  std::set<std::string> suites(argv + 1, argv + argc);
  const bool skip_slow = suites.erase("--skip-slow") > 0;
  int run = 0, failed_cases = 0, skipped = 0;
  for (const auto& c : testing::registry()) {
    if (!suites.empty() && !suites.count(c.suite)) continue;
    if (skip_slow && c.slow) {
      ++skipped;
      continue;
    }
    const int before = testing::failures;
    const auto started = std::chrono::steady_clock::now();
    try {
      c.body();
    } catch (const std::exception& e) { testing::fail(__FILE__, __LINE__, c.name + " threw: " + e.what()); }
    ++run;
    const bool ok = testing::failures == before;
    failed_cases += !ok;
    // Each case's time, so that a slow one shows (the suite runs inside the default test run).
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count();
    std::cout << (ok ? "ok   " : "FAIL ") << c.suite << "." << c.name << " (" << ms << " ms)\n";
  }
  std::cout << (run - failed_cases) << " passed, " << failed_cases << " failed, " << skipped << " slow skipped\n";
  return (failed_cases == 0 && run > 0) ? EXIT_SUCCESS : EXIT_FAILURE;
}
