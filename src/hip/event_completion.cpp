// src/hip/event_completion.cpp — the HIP_EVENT RECORD phase-NONE record: when a successfully
// recorded event completes, with the time it was enqueued and the time its completion was seen.
//
// How completion is observed: right after a successful hipEventRecord(event, stream), encore
// enqueues a host callback on the same stream (the runtime's hipStreamAddCallback, called
// directly so it is not traced). The runtime runs it once all work before it on the stream,
// the event's marker included, has completed. Chosen over polling hipEventQuery from a helper
// thread: no thread or polling interval of encore's, and the runtime itself says when (and,
// through the callback's status, whether) the stream got there. Its cost: one more command in
// the program's stream, which HIP 5.2 holds until the callback returns, so a tool's callback
// that blocks delays that stream.
//
// Timestamps (CLOCK_BOOTTIME, like every encore timestamp; rocprofiler_get_timestamp):
//   start  when the runtime's hipEventRecord returned success (the marker is in the stream)
//   end    when the runtime ran the host callback (completion as the host sees it)
// so end >= start, and [start, end] contains the marker's execution. The GPU-side start/end of
// the barrier packet (what the reference reports) come from the HSA queue under the stream,
// which ROCm 5.2's HIP does not expose to an interposer.
//
// Failure: if the callback cannot be enqueued (no such function, the runtime refuses) or the
// runtime runs it with an error status, no record is sent; nothing waits on it, so nothing hangs.
#include "interposer.hpp"

#include <rocprofiler-sdk/rocprofiler.h>

#include <cstring>
#include <memory>
#include <new>

namespace encore::hip {
namespace {

struct pending {
    backend::event record;  // the RECORD's contexts, correlation and user_data
    rocprofiler_callback_tracing_hip_event_data_t payload;
};

void on_reached(hipStream_t, hipError_t status, void* data) {
    std::unique_ptr<pending> p(static_cast<pending*>(data));
    if (status != hipSuccess) return;  // the stream failed before the event: it did not complete
    p->payload.end_timestamp = timestamp_now();
    p->record.deliver(ROCPROFILER_CALLBACK_PHASE_NONE, &p->payload);
}

using add_callback_fn = hipError_t (*)(hipStream_t, hipStreamCallback_t, void*, unsigned int);

add_callback_fn add_callback() noexcept {
    static const add_callback_fn f = [] {
        add_callback_fn g = nullptr;
        void* p = find_original("hipStreamAddCallback");
        std::memcpy(&g, &p, sizeof(g));  // object -> function pointer (POSIX dlsym)
        return g;
    }();
    return f;
}

}  // namespace

std::uint64_t timestamp_now() noexcept {
    rocprofiler_timestamp_t t = 0;
    if (rocprofiler_get_timestamp(&t) != ROCPROFILER_STATUS_SUCCESS) return 0;
    return t;
}

void watch_completion(const backend::event& record, const rocprofiler_callback_tracing_hip_event_data_t& payload,
                      hipStream_t stream, std::uint64_t returned_at) noexcept {
    const add_callback_fn add = add_callback();
    if (add == nullptr) return;
    std::unique_ptr<pending> p(new (std::nothrow) pending{record, payload});
    if (p == nullptr) return;
    p->payload.start_timestamp = returned_at;
    p->payload.end_timestamp = 0;
    // The runtime owns the pending record from here when it accepts the callback.
    if (add(stream, &on_reached, p.get(), 0) == hipSuccess) (void)p.release();
}


}  // namespace encore::hip
