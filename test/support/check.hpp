// test/support/check.hpp — checks for the test programs that are not doctest executables (they
// are their own tools, or run under HSA_TOOLS_LIB, one process per scenario).
//
//   test_support::expect(records.size() == 200, "every dispatch reported once");
//   return test_support::finish();   // prints "N passed, M failed"; exit status 0 iff none failed
#pragma once

#include <atomic>
#include <cstdio>
#include <string>

namespace test_support {

inline std::atomic<int> checks_passed{0};
inline std::atomic<int> checks_failed{0};

/// Records one check; a failure is printed at once with what was expected.
inline void expect(bool ok, const std::string& what) {
    if (ok) {
        ++checks_passed;
    } else {
        ++checks_failed;
        std::fprintf(stderr, "FAILED: %s\n", what.c_str());
    }
}

/// Prints the closing line test runners read and returns the exit status.
inline int finish() {
    std::printf("%d passed, %d failed\n", checks_passed.load(), checks_failed.load());
    return checks_failed.load() == 0 ? 0 : 1;
}

}  // namespace test_support
