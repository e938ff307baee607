// test/support/stderr_capture.hpp — what a doctest case's code writes to stderr, for the tests of
// encore's warnings (warn-once, tool boundary, unproduced kinds).
//
//   const std::string err = test_support::stderr_of([] { encore::initialize(); });
//   CHECK(test_support::occurrences(err, "tool throws-at-init") == 1);
#pragma once

#include <doctest/doctest.h>
#include <unistd.h>

#include <cstddef>
#include <cstdio>
#include <string>

namespace test_support {

/// Everything written to file descriptor 2 while `f` runs (through a temporary file).
template <class F>
std::string stderr_of(F&& f) {
    std::fflush(stderr);
    std::FILE* tmp = std::tmpfile();
    REQUIRE(tmp != nullptr);
    const int saved = ::dup(2);
    ::dup2(::fileno(tmp), 2);
    f();
    std::fflush(stderr);
    ::dup2(saved, 2);
    ::close(saved);
    std::string out;
    std::rewind(tmp);
    for (int c; (c = std::fgetc(tmp)) != EOF;) out += static_cast<char>(c);
    std::fclose(tmp);
    return out;
}

/// How many times `what` occurs in `text`, occurrences that overlap included.
inline std::size_t occurrences(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

}  // namespace test_support
