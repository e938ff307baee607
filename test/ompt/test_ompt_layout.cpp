// test/ompt/test_ompt_layout.cpp — rocprofiler-sdk/ompt/omp-tools.h's own declarations (what a
// GCC build sees) against LLVM's omp-tools.h (what clang sees): the same payload layout and
// enumerator values, so records read the same whichever compiled the tool (layout_probe.c).
#include <doctest/doctest.h>

#include <vector>

extern "C" int encore_ompt_layout_llvm(long long* out, int cap);
extern "C" int encore_ompt_layout_own(long long* out, int cap);

TEST_CASE("the OMPT payload has one layout under LLVM's omp-tools.h and under encore's declarations") {
    std::vector<long long> llvm(512), own(512);
    const int n_llvm = encore_ompt_layout_llvm(llvm.data(), static_cast<int>(llvm.size()));
    const int n_own = encore_ompt_layout_own(own.data(), static_cast<int>(own.size()));
    REQUIRE(n_llvm == n_own);
    REQUIRE(n_own <= static_cast<int>(own.size()));
    CHECK(n_own > 200);  // every union member's fields and every enumerator
    for (int i = 0; i < n_own; ++i) {
        CAPTURE(i);
        CHECK(llvm[static_cast<std::size_t>(i)] == own[static_cast<std::size_t>(i)]);
    }
}
