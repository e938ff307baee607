/* rocprofiler-sdk/internal_threading.h — the threads buffers are delivered on, and callbacks
 * around the threads encore itself creates.
 *
 *   rocprofiler_callback_thread_t th;
 *   rocprofiler_create_callback_thread(&th);   // during tool initialization
 *   rocprofiler_assign_callback_thread(buf, th);
 *
 * Every buffer is delivered on one default callback thread unless assigned to another. */
#pragma once

#include <rocprofiler-sdk/defines.h>
#include <rocprofiler-sdk/fwd.h>

ROCPROFILER_EXTERN_C_INIT

/** Called on the creating thread just before / just after a library creates an internal thread. */
typedef void (*rocprofiler_internal_thread_library_cb_t)(rocprofiler_runtime_library_t, void*);

/** Register callbacks around internal thread creation by the libraries in `libs` (bits of
 *  rocprofiler_runtime_library_t). encore creates internal threads only as ROCPROFILER_LIBRARY
 *  (its callback threads); the other libraries' threads are the runtimes' own and are not
 *  reported. Registrations cannot be removed. Either callback may be NULL. Always SUCCESS. */
ROCPROFILER_API rocprofiler_status_t rocprofiler_at_internal_thread_create(
    rocprofiler_internal_thread_library_cb_t precreate, rocprofiler_internal_thread_library_cb_t postcreate, int libs,
    void* data) ROCPROFILER_NOEXCEPT;

/** A callback thread (a thread encore creates to deliver buffers on). */
typedef struct rocprofiler_callback_thread_t {
    uint64_t handle;
} rocprofiler_callback_thread_t;

/** Create a callback thread. Only during tool initialization: CONFIGURATION_LOCKED after it;
 *  INVALID_ARGUMENT for a null pointer; ERROR when the thread cannot be created. */
ROCPROFILER_API rocprofiler_status_t rocprofiler_create_callback_thread(
    rocprofiler_callback_thread_t* cb_thread_id) ROCPROFILER_NOEXCEPT;

/** Deliver buffer_id's records on cb_thread_id. Only during tool initialization:
 *  CONFIGURATION_LOCKED after it; BUFFER_NOT_FOUND, THREAD_NOT_FOUND for unknown ids. */
ROCPROFILER_API rocprofiler_status_t rocprofiler_assign_callback_thread(
    rocprofiler_buffer_id_t buffer_id, rocprofiler_callback_thread_t cb_thread_id) ROCPROFILER_NOEXCEPT;

ROCPROFILER_EXTERN_C_FINI
