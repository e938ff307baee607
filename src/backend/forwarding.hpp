// src/backend/forwarding.hpp — what a library that interposes another library's exported C
// functions and forwards to it (libencore-rccl over librccl / libnccl, and the rocDecode,
// rocJPEG, rocSHMEM and hipFile interposers) has in common: where the real functions are, and
// the lazy-resolution policy (backend/interposer.hpp) built from a short description.
//
//   struct rccl_library {                       // the whole description of one library
//       static constexpr const char* library = "libencore-rccl";       // for messages
//       static constexpr const char* runtime = "the RCCL / NCCL library";
//       static constexpr auto initialization = ROCPROFILER_RUNTIME_INITIALIZATION_RCCL;
//       static backend::real_library& real() noexcept;                // its env var, sonames
//       static std::uint64_t version() noexcept;                       // asked untraced
//       template <class R> static R missing_result() noexcept;        // no such function
//   };
//   using policy = backend::forwarding_policy<rccl_library>;
//
// (src/libs/library.hpp writes real() and missing_result() from a few constants.)
// A library whose calls need more than forwarding (HIP's derived kinds) writes its own policy.
#pragma once

#include "backend/events.hpp"
#include "backend/interposer.hpp"

#include <rocprofiler-sdk/fwd.h>

#include <cstddef>
#include <cstdint>
#include <mutex>

namespace encore::backend {

/// Where a forwarding library's originals come from, decided at the first lookup:
///   $env=path   that library (a test's fake, another build of the library);
///   otherwise   the next definition after the interposer in the process's search order
///               (RTLD_NEXT: the real library when the interposer is preloaded or linked first);
///   otherwise   the first of `sonames` that dlopen finds. dlopen of a soname matches a library
///               already loaded under that soname from any folder, also one loaded RTLD_LOCAL
///               (PyTorch's libnccl.so.2 in its nvidia-nccl package folder), which RTLD_NEXT,
///               searching the global scope only, does not see.
class real_library {
public:
    /// `library` names the interposer in messages; up to 4 sonames are kept, tried in order.
    real_library(const char* library, const char* env, const char* const* sonames, std::size_t count) noexcept;
    /// The real function called `name`, or null.
    [[nodiscard]] void* find(const char* name) noexcept;

private:
    void open_explicit() noexcept;

    const char* library_;
    const char* env_;
    const char* sonames_[4] = {};
    std::once_flag explicit_once_;
    bool use_explicit_ = false;
    void* explicit_ = nullptr;
    std::mutex fallback_mutex_;
    void* fallback_ = nullptr;
    std::once_flag self_once_;  // the message that the named library is this interposer, once
};

/// The lazy-resolution policy (backend/interposer.hpp) of a library that only forwards: every op
/// goes to the real function through its wrapper; the first call runs encore's initialization
/// and delivers the library's RUNTIME_INITIALIZATION record.
template <class L>
struct forwarding_policy {
    static constexpr const char* library = L::library;
    static constexpr const char* runtime = L::runtime;
    static void* find_original(const char* name) noexcept { return L::real().find(name); }
    template <class D, std::size_t I, class R, class... A>
    static R (*original())(A...) {
        return by_name<forwarding_policy, D, I, R, A...>();
    }
    static void on_configured() noexcept {
        deliver_runtime_initialization(L::initialization, [] { return L::version(); });
    }
    template <class R>
    static R missing_result() noexcept {
        return L::template missing_result<R>();
    }
    template <class D, std::size_t I, class R, class... A>
    static R (*route(R (*real)(A...)))(A...) {
        return real;
    }
};

}  // namespace encore::backend
