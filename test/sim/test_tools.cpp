// Tool loading through HSA_TOOLS_LIB (set by meson for this executable):
//   "/nonexistent/dir\ with\ space/<missing lib> <test tool> \"<reject tool>\"" (ROCr's syntax)
#include <doctest/doctest.h>

#include "sim_test_util.hpp"

#include <dlfcn.h>

using namespace simtest;

TEST_CASE("HSA_TOOLS_LIB tools see the table, intercept calls and are unloaded at the last shut_down") {
    const char* tool_path = getenv("ENCORE_SIM_TEST_TOOL");
    const char* reject_path = getenv("ENCORE_SIM_TEST_REJECT_TOOL");
    REQUIRE(tool_path);
    REQUIRE(reject_path);
    REQUIRE(dlopen(tool_path, RTLD_NOW | RTLD_NOLOAD) == nullptr);

    REQUIRE(hsa_init() == HSA_STATUS_SUCCESS);  // the missing library is not fatal
    void* tool = dlopen(tool_path, RTLD_NOW | RTLD_NOLOAD);
    REQUIRE(tool != nullptr);
    auto calls = reinterpret_cast<int (*)()>(dlsym(tool, "test_tool_calls"));
    auto unloaded = reinterpret_cast<int (*)()>(dlsym(tool, "test_tool_unloaded"));
    auto loads = reinterpret_cast<int (*)()>(dlsym(tool, "test_tool_loads"));
    auto table_ok = reinterpret_cast<int (*)()>(dlsym(tool, "test_tool_table_ok"));
    auto failed_count = reinterpret_cast<uint64_t (*)()>(dlsym(tool, "test_tool_failed_count"));
    auto failed_name = reinterpret_cast<const char* (*)(uint64_t)>(dlsym(tool, "test_tool_failed_name"));
    REQUIRE(reinterpret_cast<void*>(calls) != nullptr);
    REQUIRE(reinterpret_cast<void*>(unloaded) != nullptr);
    CHECK(loads() == 1);
    CHECK(table_ok() == 1);
    CHECK(failed_count() == 1);
    REQUIRE(failed_name(0) != nullptr);
    // One name, its escaped spaces kept, and the quoted reject tool found: HSA_TOOLS_LIB is split
    // as ROCr splits it.
    CHECK(std::string(failed_name(0)) == "/nonexistent/dir with space/libencore_missing_tool.so");

    // The rejecting tool ran and was unloaded.
    CHECK(getenv("ENCORE_SIM_TEST_REJECT_ONLOAD") != nullptr);
    CHECK(getenv("ENCORE_SIM_TEST_REJECT_ONUNLOAD") == nullptr);  // like ROCr: not called
    CHECK(dlopen(reject_path, RTLD_NOW | RTLD_NOLOAD) == nullptr);

    // The program's calls go through the tool's wrapper.
    const int before = calls();
    hsa_agent_t g = gpu();
    char name[64] = {};
    CHECK(hsa_agent_get_info(g, HSA_AGENT_INFO_NAME, name) == HSA_STATUS_SUCCESS);
    CHECK(std::string(name) == "encore-sim-gpu");
    CHECK(calls() >= before + 2);  // gpu() queries the device type, then the name query

    // Nested init/shut_down neither reloads nor unloads tools.
    REQUIRE(hsa_init() == HSA_STATUS_SUCCESS);
    CHECK(loads() == 1);
    CHECK(hsa_shut_down() == HSA_STATUS_SUCCESS);
    CHECK(unloaded() == 0);
    CHECK(hsa_shut_down() == HSA_STATUS_SUCCESS);
    CHECK(unloaded() == 1);

    // After the last shut_down the tool's replacement is gone from the table.
    const int after = calls();
    CHECK(hsa_agent_get_info(g, HSA_AGENT_INFO_NAME, name) == HSA_STATUS_ERROR_NOT_INITIALIZED);
    CHECK(calls() == after);

    // Re-initialization loads the tools again.
    REQUIRE(hsa_init() == HSA_STATUS_SUCCESS);
    CHECK(loads() == 2);
    CHECK(hsa_shut_down() == HSA_STATUS_SUCCESS);
    CHECK(unloaded() == 2);
    dlclose(tool);
}
