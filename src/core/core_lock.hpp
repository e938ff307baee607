// src/core/core_lock.hpp — libencore's locks as signal handlers see them (private to libencore).
//
//   const core::counted_lock lk(g_mutex);   // instead of std::lock_guard, for the locks below
//   if (core::t_core_locks != 0) return ROCPROFILER_STATUS_ERROR_CONTEXT_ERROR;  // in a handler
//
// A signal handler runs on top of whatever its thread was doing. A C API call from one that waits
// for a lock the interrupted code holds waits for itself; one that waits for a lock whose holder
// waits for a lock the interrupted code holds (fork()'s handlers take them all in one order) waits
// as long. So the registry's lock, the thread map's lock and the warnings' lock count, per thread,
// while they are held; a call that must not wait from such a place (rocprofiler_start_context /
// _stop_context) reads the count first and refuses. No tool code runs under these locks, so only
// a signal handler ever sees the count above 0.
#pragma once

#include <atomic>
#include <cstdint>

namespace encore::core {

/// How many of the counted locks this thread holds (or is taking, or giving back). initial-exec:
/// read from signal handlers, where a first access to a dynamically allocated TLS block could
/// call malloc. Defined in core_lock.cpp.
extern __attribute__((tls_model("initial-exec"))) constinit thread_local std::uint32_t t_core_locks;

/// std::lock_guard that counts in t_core_locks: from just before the lock is taken (a handler that
/// interrupts the taking sees it already) to just after it is given back.
template <class Mutex>
class counted_lock {
public:
    explicit counted_lock(Mutex& m) noexcept : m_(m) {
        ++t_core_locks;
        std::atomic_signal_fence(std::memory_order_seq_cst);
        m_.lock();
    }
    ~counted_lock() {
        m_.unlock();
        std::atomic_signal_fence(std::memory_order_seq_cst);
        --t_core_locks;
    }
    counted_lock(const counted_lock&) = delete;
    counted_lock& operator=(const counted_lock&) = delete;

private:
    Mutex& m_;
};

}  // namespace encore::core
