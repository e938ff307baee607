// src/backend/interposer.hpp — what every interposing backend library (libencore-hip: the HIP
// runtime's exports; libencore-cuda: the CUDA driver's) does the same way: run encore's
// initialization from the first intercepted call, find each operation's original on its first
// call, and warn once about originals the runtime lacks.
//
// A backend defines a policy type B with
//   template <class D, std::size_t I, class R, class... A>
//   static R (*original())(A...) noexcept;                       // op I's real function, or null
//                                                                // (by_name<B, D, I, R, A...>: by dlsym)
//   static void on_configured() noexcept;                        // once tools are configured
//   template <class R> static R missing_result() noexcept;      // what a call without original returns
//   template <class D, std::size_t I, class R, class... A>
//   static R (*route(R (*real)(A...)))(A...) noexcept;           // what op I's wrapper forwards to
//   static constexpr const char* library = "libencore-...";      // for messages
//   static constexpr const char* runtime = "the ... runtime";
// and uses backend_init<B> and lazy<D, I, B> (the initial `next` of its wrappers); its generated
// exports call exports::forward (below).
#pragma once

#include <encore/tracing/wrapper.hpp>

#include "core/registration.hpp"
#include "core/warn.hpp"

#include <atomic>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

namespace encore::backend {

enum class init_result {
    done_before,       // initialization had already run
    done_now,          // this call ran encore's tool initialization
    in_progress_here,  // called from a tool's initialization on this thread: configuration is open
};

/// One backend library's view of encore's initialization (each library has its own state: the
/// template's statics are hidden in each).
template <class B>
class backend_init {
public:
    /// Runs encore's initialization (once, from whichever intercepted call comes first) and the
    /// backend's on_configured. A tool's initialization calling into the runtime on the same
    /// thread gets in_progress_here: configuration is still open, nothing is decided then.
    static init_result ensure() noexcept {
        if (done_.load(std::memory_order_acquire)) return init_result::done_before;
        if (initializing_) return init_result::in_progress_here;
        std::lock_guard lk(mutex_);
        if (done_.load(std::memory_order_relaxed)) return init_result::done_before;
        initializing_ = true;
        const bool fresh = core::init_state() == 0;
        core::initialize();
        if (core::init_state() != 1) {
            // This thread is inside the core's initialization (a tool's initialization called
            // the runtime from another backend's entry): decide later.
            initializing_ = false;
            return init_result::in_progress_here;
        }
        B::on_configured();
        initializing_ = false;
        done_.store(true, std::memory_order_release);
        return fresh ? init_result::done_now : init_result::done_before;
    }

    [[nodiscard]] static bool done() noexcept { return done_.load(std::memory_order_acquire); }

    /// Warns once per function that the runtime lacks `name` (the resolver stays in place, so
    /// this runs on every call of it).
    static void report_missing(const char* name) noexcept {
        char key[256];
        std::snprintf(key, sizeof key, "%s missing %s", B::library, name);
        if (core::first_time(key)) core::warn("%s: %s has no %s; calls to it fail", B::library, B::runtime, name);
    }

private:
    static inline std::atomic<bool> done_{false};
    static inline std::mutex mutex_;
    static inline thread_local bool initializing_ = false;
};

/// Op I's original found by name through the policy's `find_original(const char*)` (dlsym-like).
template <class B, class D, std::size_t I, class R, class... A>
R (*by_name() noexcept)
(A...) {
    R (*f)(A...) = nullptr;
    void* p = B::find_original(D::template op_at<I>::c_name());
    std::memcpy(&f, &p, sizeof(f));  // object -> function pointer (POSIX dlsym)
    return f;
}

template <class D, std::size_t I, class B, class F = typename D::template op_at<I>::function_type>
struct lazy;

/// What wrapper<D, I>::next holds until the op's first call: finds the original, decides (once
/// configuration is final) what the wrapper forwards to, and makes the first call.
template <class D, std::size_t I, class B, class R, class... A>
struct lazy<D, I, B, R(A...)> {
    static R first_call(A... a) {
        using op = typename D::template op_at<I>;
        const init_result s = backend_init<B>::ensure();
        R (*real)(A...) = B::template original<D, I, R, A...>();
        if (real == nullptr) {
            backend_init<B>::report_missing(op::c_name());
            return B::template missing_result<R>();
        }
        // A tool's initialization calling the runtime: configuration is not final, decide later
        // (the resolver stays in place for the next call).
        if (s == init_result::in_progress_here) return real(a...);
        R (*target)(A...) = B::template route<D, I>(real);
        tracing::wrapper<D, I>::next.store(target, std::memory_order_release);
        // This call started the tools: go through the wrapper again so it is traced like any
        // later call (the wrapper checked its subscribers before any context existed). Any other
        // first call was already traced by the wrapper that called this resolver.
        if (s == init_result::done_now) return tracing::wrapper<D, I>::call(a...);
        return target(a...);
    }
};

}  // namespace encore::backend

namespace encore::exports {
/// What each generated export does (backend/exports.hpp): the op's wrapper, inlined (one load and a
/// tail call when no context wants the op).
template <class D, std::size_t I, class... A>
[[gnu::always_inline]] inline auto forward(A... a) {
    return tracing::wrapper<D, I>::call(a...);
}
}  // namespace encore::exports
