// test/libs/fake_prelude.hpp — the prelude of the generated fake libraries (every library of
// encore/domains/libs.hpp but RCCL and rocSHMEM, which have hand-written fakes):
// tools/gen_exports.py writes each function of the domain with its C signature, and here each one
// records its call (fake_log.hpp) and returns fake_results::result<D, I>().
//
// The fakes are made from the same declarations as the interposers, so they check interposition,
// forwarding, arguments and results, not the prototypes; those are checked where the generated
// definitions meet the declarations in rocprofiler-sdk/<lib>/details/*.h (a C function declared
// twice with different types does not compile). No package of these libraries exists here.
#pragma once

#include "backend/exports.hpp"
#include "fake_log.hpp"
#include "fake_results.hpp"

#include <mutex>
#include <string>

namespace fake {
inline std::mutex log_mutex;
inline std::string log;
}  // namespace fake

/// The calls so far ("name(a0,a1,...);" each), and a reset.
extern "C" ENCORE_EXPORT const char* encore_test_fake_log() {
    static thread_local std::string copy;
    std::lock_guard lk(fake::log_mutex);
    copy = fake::log;
    return copy.c_str();
}
extern "C" ENCORE_EXPORT void encore_test_fake_reset() {
    std::lock_guard lk(fake::log_mutex);
    fake::log.clear();
}

namespace encore::exports {
template <class D, std::size_t I, class... A>
auto forward(A... a) {
    {
        std::lock_guard lk(fake::log_mutex);
        fake::log += fake_log::call(D::c_names[I], a...);
    }
    // hipFileGetVersion says 0.3.1 (what encore's RUNTIME_INITIALIZATION record reports).
    if constexpr (std::is_same_v<D, encore::domains::hipfile> &&
                  I == static_cast<std::size_t>(encore::domains::hipfile::id_of<"hipFileGetVersion">())) {
        const unsigned parts[] = {0, 3, 1};
        unsigned* out[] = {a...};
        for (int k = 0; k < 3; ++k)
            if (out[k] != nullptr) *out[k] = parts[k];
    }
    if constexpr (!std::is_void_v<ret_t<D, I>>) return fake_results::result<D, I>();
}
}  // namespace encore::exports
