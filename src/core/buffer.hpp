// src/core/buffer.hpp — buffers: per-thread lock-free rings drained by callback threads
// (rocprofiler-sdk/buffer.h, internal_threading.h). Private to libencore except buffer_emit,
// which any part of encore may call to write a record into a tool's buffer.
//
//   // a backend or service that produces records of its own (e.g. buffered dispatch counting):
//   encore::core::buffer_emit(buffer, ROCPROFILER_BUFFER_CATEGORY_COUNTERS, kind, &rec, sizeof rec);
//
// Design (docs/buffer-tracing.md): each producer thread writes into its own single-producer ring
// per buffer (no lock, no store to a shared cache line on the fast path); the buffer's callback
// thread is the ring's one consumer and hands the tool pointers into the ring itself.
#pragma once

#include <encore/tracing/detail/core.hpp>  // ENCORE_API
#include <rocprofiler-sdk/buffer.h>
#include <rocprofiler-sdk/fwd.h>
#include <rocprofiler-sdk/internal_threading.h>

#include <cstddef>
#include <cstdint>

namespace encore::core {

/// Writes one record (`bytes` of payload, copied; 8-byte aligned in the ring) into buffer `id`
/// from the calling thread. The tool's callback gets a header {category, kind, payload} pointing
/// at the copy. Returns SUCCESS; BUFFER_NOT_FOUND (unknown or destroyed buffer);
/// INVALID_ARGUMENT (null payload with bytes > 0, kind or category past 16 bits);
/// OUT_OF_RESOURCES when the record was dropped: DISCARD policy and the thread's ring is full, a
/// record larger than a ring, no memory for the thread's ring, LOSSLESS where waiting for room
/// would wait for itself (on the buffer's own callback thread, or for a callback thread that waits
/// for this one or is blocked on a resource it holds: set_held_resource), or a record that
/// interrupted the thread's own record into the same buffer (a signal handler's). Every drop is
/// counted and reported as the next delivery's drop_count. Thread-safe; never takes a lock once the
/// thread has its ring. Async-signal-safe: a signal handler may call it on any thread but a
/// callback thread (no malloc, no lock; a thread's first record maps its ring with mmap).
ENCORE_API rocprofiler_status_t buffer_emit(rocprofiler_buffer_id_t id, std::uint32_t category, std::uint32_t kind,
                                            const void* payload, std::size_t bytes) noexcept;

/// For records that must reach the tool together or not at all (a counting dispatch's header and
/// its values): whether a DISCARD buffer's ring of the calling thread has room now for a record of
/// `first_bytes` and `count` records of `each_bytes` of payload; when not, the group is counted
/// as dropped (1 + count, reported as the next delivery's drop_count) and the caller writes none
/// of it. True for LOSSLESS buffers (their records wait for room) and for an unknown buffer.
ENCORE_API bool buffer_group_fits(rocprofiler_buffer_id_t id, std::size_t first_bytes, std::size_t each_bytes,
                                  std::size_t count) noexcept;

/// The context a live buffer belongs to, or false for an unknown or destroyed buffer.
[[nodiscard]] ENCORE_API bool buffer_context(rocprofiler_buffer_id_t id, rocprofiler_context_id_t& out) noexcept;

rocprofiler_status_t create_buffer(rocprofiler_context_id_t context, std::size_t size, std::size_t watermark,
                                   rocprofiler_buffer_policy_t policy, rocprofiler_buffer_tracing_cb_t callback,
                                   void* callback_data, rocprofiler_buffer_id_t* out) noexcept;
rocprofiler_status_t flush_buffer(rocprofiler_buffer_id_t id) noexcept;
rocprofiler_status_t destroy_buffer(rocprofiler_buffer_id_t id) noexcept;
rocprofiler_status_t create_callback_thread(rocprofiler_callback_thread_t* out) noexcept;
rocprofiler_status_t assign_callback_thread(rocprofiler_buffer_id_t id, rocprofiler_callback_thread_t th) noexcept;
rocprofiler_status_t at_internal_thread_create(rocprofiler_internal_thread_library_cb_t pre,
                                               rocprofiler_internal_thread_library_cb_t post, int libs,
                                               void* data) noexcept;

/// Delivers everything every live buffer holds: at finalization (before the tools' finalize
/// runs), and before code-object UNLOAD records (a buffered dispatch record of a kernel reaches
/// the tool while the kernel's symbol is still registered, so tools that map kernel ids to names
/// at LOAD and forget them at UNLOAD, as the reference's 2024 samples do, find the name).
ENCORE_API void flush_all_buffers() noexcept;

/// Finalization (a tool's, or the process's: `all`): every live buffer of the client's contexts is
/// delivered (flushed), then ended as destroy ends it, so that no record reaches its callback
/// after this returns; what was written too late for the last delivery is said on stderr.
void close_buffers(std::uint32_t client, bool all) noexcept;

/// The deadlock checks of the buffer paths' waits (buffer.cpp, "waits on callback threads"), for a
/// backend lock that a buffer callback may wait for while its holder writes records or flushes:
/// kernel replay's agent gates (src/hsa/replay_gate.cpp). set_held_resource: the calling thread
/// now holds `resource` (an opaque non-zero key; 0: none), so a LOSSLESS record it writes, or a
/// flush it asks for, does not wait for a callback thread blocked on that resource (the record is
/// dropped and counted; the flush returns BUFFER_BUSY). set_blocked_on: the calling thread, if it
/// is a buffer callback thread, is about to block on `resource` (0 once it no longer is). Each
/// returns the value it replaces.
ENCORE_API std::uint64_t set_held_resource(std::uint64_t resource) noexcept;
ENCORE_API std::uint64_t set_blocked_on(std::uint64_t resource) noexcept;

/// Warns, per live buffer, of DISCARD drops that no delivery reported (no record followed
/// them): at finalization, after the last flush. destroy_buffer does the same for its buffer.
void warn_undelivered_drops() noexcept;

/// Destroys every buffer and forgets the callback threads' assignments. Test suites only:
/// callers guarantee that nothing writes into a buffer meanwhile.
ENCORE_API void buffers_reset_for_testing() noexcept;
/// Forgets every buffer tracing service (buffer_tracing.cpp). Test suites only.
ENCORE_API void buffer_services_reset_for_testing() noexcept;

}  // namespace encore::core
