// test/support/tool_fixture.hpp — run a test's setup as a real tool initialization.
//
// Each call resets encore's registry (no contexts, not initialized), registers `setup` as a tool
// through encore::register_tool and runs encore::initialize(): configuration is open exactly
// while `setup` runs, as for a real tool.
#pragma once

#include <encore/encore.hpp>

#include "../../src/core/registration.hpp"

#include <functional>

namespace test_support {

inline std::function<int()>& setup_fn() {
    static std::function<int()> f;
    return f;
}

inline void run_tool(std::function<int()> setup) {
    encore::core::reset_registration_for_testing();
    setup_fn() = std::move(setup);
    encore::register_tool("test-tool", [](void*) { return setup_fn()(); });
    encore::initialize();
}

}  // namespace test_support
