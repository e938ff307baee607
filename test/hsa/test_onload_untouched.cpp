// test/hsa/test_onload_untouched.cpp — libencore-hsa's OnLoad with tools that configure nothing
// leaves every slot of the runtime's table exactly as it was (compared pointer by pointer), and
// OnUnload too. A table built here stands in for the runtime's.
#include "../support/fake_hsa.hpp"

#include <cstdio>
#include <cstring>

extern "C" bool OnLoad(HsaApiTable* table, uint64_t runtime_version, uint64_t failed_tool_count,
                       const char* const* failed_tool_names);
extern "C" void OnUnload();

int main() {
    fake_hsa::tables t;
    const CoreApiTable core_before = t.core;
    const AmdExtTable amd_before = t.amd;
    int failures = 0;
    const char* missing[] = {"/nonexistent/tool.so"};
    if (!OnLoad(&t.root, 1, 1, missing)) {
        std::fprintf(stderr, "OnLoad refused a valid table\n");
        ++failures;
    }
    if (std::memcmp(&core_before, &t.core, sizeof(core_before)) != 0 ||
        std::memcmp(&amd_before, &t.amd, sizeof(amd_before)) != 0) {
        std::fprintf(stderr, "OnLoad changed the table although no context configured anything\n");
        ++failures;
    }
    OnUnload();
    if (std::memcmp(&core_before, &t.core, sizeof(core_before)) != 0) {
        std::fprintf(stderr, "OnUnload changed the table\n");
        ++failures;
    }
    if (OnLoad(nullptr, 1, 0, nullptr)) {
        std::fprintf(stderr, "OnLoad accepted a null table\n");
        ++failures;
    }
    std::printf("%d passed, %d failed\n", 4 - failures, failures);
    return failures == 0 ? 0 : 1;
}
