// encore/replay/range_scope.hpp — a replay range as a C++ scope (RANGE_REPLAY service).
//
//   {
//       encore::replay::range_scope step(42);   // rocprofiler_range_replay_begin(42)
//       launch_layer();                          // pass 0: the program's own run, recorded
//   }                                            // rocprofiler_range_replay_end(): the passes
//
// A range belongs to the thread that opened it: destroy the scope on that thread (it cannot be
// moved). begin's status is kept (status()); a scope whose begin failed ends nothing. end() ends
// the range early and returns end's status; the destructor then does nothing. See
// <rocprofiler-sdk/experimental/range_replay.h> and docs/replay.md.
#pragma once

#include <rocprofiler-sdk/experimental/range_replay.h>

#include <cstdint>

namespace encore::replay {

class range_scope {
public:
    explicit range_scope(std::uint64_t range_id) noexcept : begin_(rocprofiler_range_replay_begin(range_id)) {}
    ~range_scope() { (void)end(); }
    range_scope(const range_scope&) = delete;
    range_scope& operator=(const range_scope&) = delete;

    /// Whether begin succeeded and the range has not been ended through this scope.
    [[nodiscard]] bool open() const noexcept { return begin_ == ROCPROFILER_STATUS_SUCCESS && !ended_; }
    /// What rocprofiler_range_replay_begin returned.
    [[nodiscard]] rocprofiler_status_t status() const noexcept { return begin_; }
    /// Ends the range now (its passes run here). A scope that is not open() returns
    /// INVALID_ARGUMENT without calling the C API: it never ends a range it did not open.
    rocprofiler_status_t end() noexcept {
        if (!open()) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
        const rocprofiler_status_t s = rocprofiler_range_replay_end();
        // Refused inside a RANGE_REPLAY callback: the range is still open, the destructor retries.
        if (s != ROCPROFILER_STATUS_ERROR_CONTEXT_ERROR) ended_ = true;
        return s;
    }

private:
    rocprofiler_status_t begin_;
    bool ended_ = false;
};

}  // namespace encore::replay
