/* rocprofiler-sdk/buffer.h — buffers: where the buffer tracing service (buffer_tracing.h) and
 * other buffered services write their records, delivered in batches on a callback thread.
 *
 *   rocprofiler_buffer_id_t buf;
 *   rocprofiler_create_buffer(ctx, 1 << 20, 1 << 19, ROCPROFILER_BUFFER_POLICY_LOSSLESS,
 *                             on_records, my_data, &buf);
 *   rocprofiler_configure_buffer_tracing_service(ctx, ROCPROFILER_BUFFER_TRACING_HSA_CORE_API,
 *                                                NULL, 0, buf);
 *
 * encore gives each producer thread its own lock-free ring of `size` bytes per buffer; the
 * buffer's callback thread (internal_threading.h) drains the rings. See docs/buffer-tracing.md. */
#pragma once

#include <rocprofiler-sdk/defines.h>
#include <rocprofiler-sdk/fwd.h>

ROCPROFILER_EXTERN_C_INIT

/** Called on the buffer's callback thread with a batch of records (num_headers >= 1). The
 *  headers and what their payloads point at are valid only during the call. drop_count: records
 *  dropped (DISCARD policy) since the previous delivery. */
typedef void (*rocprofiler_buffer_tracing_cb_t)(rocprofiler_context_id_t context, rocprofiler_buffer_id_t buffer_id,
                                                rocprofiler_record_header_t** headers, size_t num_headers, void* data,
                                                uint64_t drop_count);

/** Create a buffer for `context`: each producer thread's ring holds `size` bytes (rounded up to
 *  a power of two, at least 4 KiB); the callback runs once the buffer holds `watermark` bytes,
 *  all rings together (0: at every record), on flush, on destroy and at finalization. Only during tool initialization.
 *  Returns CONFIGURATION_LOCKED outside it, CONTEXT_NOT_FOUND, INVALID_ARGUMENT (null callback or
 *  buffer_id, size 0, watermark > size, an unknown policy), OUT_OF_RESOURCES (no buffer left or
 *  no memory). */
ROCPROFILER_API rocprofiler_status_t rocprofiler_create_buffer(rocprofiler_context_id_t context, size_t size,
                                                               size_t watermark, rocprofiler_buffer_policy_t policy,
                                                               rocprofiler_buffer_tracing_cb_t callback,
                                                               void* callback_data,
                                                               rocprofiler_buffer_id_t* buffer_id) ROCPROFILER_NOEXCEPT;

/** Deliver the buffered records, then free the buffer (its id is then unknown: BUFFER_NOT_FOUND).
 *  A record written into it afterwards is dropped. BUFFER_BUSY from inside its own callback. */
ROCPROFILER_API rocprofiler_status_t rocprofiler_destroy_buffer(rocprofiler_buffer_id_t buffer_id) ROCPROFILER_NOEXCEPT;

/** Deliver every record written before the call, by any thread, and return once the callback
 *  has run (on the buffer's callback thread). BUFFER_NOT_FOUND for an unknown or destroyed
 *  buffer; BUFFER_BUSY when called from inside this buffer's own callback. */
ROCPROFILER_API rocprofiler_status_t rocprofiler_flush_buffer(rocprofiler_buffer_id_t buffer_id) ROCPROFILER_NOEXCEPT;

ROCPROFILER_EXTERN_C_FINI
