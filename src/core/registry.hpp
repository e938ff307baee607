// src/core/registry.hpp — the core's mutable tracing state (private to libencore).
#pragma once

#include <encore/api/kind.hpp>
#include <encore/tracing/detail/core.hpp>
#include <encore/tracing/kinds.hpp>
#include <rocprofiler-sdk/callback_tracing.h>
#include <rocprofiler-sdk/external_correlation.h>
#include <rocprofiler-sdk/fwd.h>

#include <atomic>
#include <bitset>
#include <cstdint>
#include <mutex>
#include <string>

namespace encore::core {

using tracing::max_contexts;

struct service_set;

/// Whose service on a kind it is: a tool's own callback, or a service encore builds on the
/// callback machinery (the buffer tracing service's adapter, buffer_tracing.cpp).
enum class service_owner : std::uint8_t { tool, internal };

struct callback_service {
    bool configured = false;                    // the callback itself is in tracing::detail::slots
    std::bitset<max_ops_per_kind> ops;          // what the slot is subscribed to (a pair's two together)
    service_owner owner = service_owner::tool;  // of the first service configured
    // Several services on one kind of one context: a tool's callback and up to two internal ones
    // (the reference keeps a context's callback and buffer services apart, so a tool may ask for
    // both). The slot then calls each through the set (registry.cpp).
    service_set* set = nullptr;
};

struct external_request_service {
    bool configured = false;
    rocprofiler_external_correlation_id_request_cb_t callback = nullptr;
    void* data = nullptr;
    std::bitset<ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_LAST> kinds;
};

/// A context. Its services are written only while configuration is open (tool initialization)
/// and read-only afterwards; `active` and `valid` change at run time.
struct context {
    std::atomic<bool> active{false};
    std::atomic<bool> valid{false};
    std::uint32_t client = 0;  // the tool that created it
    callback_service services[kind_count];
    external_request_service external_request;
};

/// Kind -> what encore knows of it (names, operations, argument iteration).
struct kind_info {
    const char* name = nullptr;
    op_id first_op = 0;
    std::size_t op_count = 0;
    const char* const* op_names = nullptr;
    rocprofiler_status_t (*iterate_args)(const rocprofiler_callback_tracing_record_t&,
                                         rocprofiler_callback_tracing_operation_args_cb_t, int32_t, void*) = nullptr;
    // Where the payload keeps a call's arguments and return value (API kinds whose arguments
    // iterate; encore_query_operation_payload_layout): the payload struct's size, the offset and
    // size of its return value, the offset of its arguments and each operation's argument bytes.
    std::uint32_t payload_size = 0, args_offset = 0, retval_offset = 0, retval_size = 0;
    const std::uint16_t* op_args_sizes = nullptr;
    // The return value of a record's payload as text (encore_format_callback_tracing_retval).
    rocprofiler_status_t (*format_retval)(const rocprofiler_callback_tracing_record_t&, int32_t, std::string&) = nullptr;
};

/// What the core knows of kind k (its name at least), or null for an id that is no kind.
[[nodiscard]] const kind_info* find_kind(rocprofiler_callback_tracing_kind_t k) noexcept;
/// The name of operation `op` of a kind (the callback and the buffer name queries): SUCCESS, with
/// `*name` / `*name_len` set where not null; NOT_IMPLEMENTED when the kind has no named
/// operations in this process; OPERATION_NOT_FOUND for an id outside them.
rocprofiler_status_t operation_name(const kind_info& k, rocprofiler_tracing_operation_t op, const char** name,
                                    uint64_t* name_len) noexcept;
/// Whether a library that produces kind k (encore/tracing/kinds.hpp) is present in this process.
/// Configuring works either way; a configured kind nothing produces is warned at finalization.
[[nodiscard]] bool kind_produced(kind k) noexcept;
/// A backend library declares itself present when it loads (tracing::produced_by:: bits): the
/// kinds it produces get records from then on.
ENCORE_API void add_producer(std::uint32_t produced_by) noexcept;
/// A backend attaching to its runtime (HSA OnLoad): true for the first, false while another
/// instance (the same library listed twice, or a second copy of it) is attached, which must
/// then stay out of the way. detach_backend when the attached one lets go (OnUnload).
ENCORE_API bool attach_backend(std::uint32_t produced_by) noexcept;
ENCORE_API void detach_backend(std::uint32_t produced_by) noexcept;
/// Why kind k produces nothing in this process, as the end of a sentence ("libencore-hip is not
/// loaded ..."), or null when a library that produces it is present. kinds.cpp.
[[nodiscard]] const char* why_not_produced(kind k) noexcept;
/// At finalization: one warning per kind some context configured that nothing in this process
/// produces, saying why. Configuring such a kind succeeds (a tool that stops at the first error
/// status must start); this is where the user learns its callbacks never ran. `configured`: the
/// kinds some context configured (configured_kinds(), passed in by finalization so that kinds.cpp
/// does not call back up into registry.cpp). kinds.cpp.
void warn_unproduced_kinds(const std::bitset<kind_count>& configured) noexcept;
/// Gives the core a kind's names and argument iteration (core/kinds.hpp: kind_registration).
/// `info` lives as long as the process.
ENCORE_API void register_kind_info(kind k, const kind_info* info) noexcept;

// ---- contexts and services (registry.cpp) ---------------------------------------------------
[[nodiscard]] bool configuration_open() noexcept;
void set_configuration_open(bool open, std::uint32_t client) noexcept;
/// configured_operations(k).any() for the backends' per-call paths (a CUDA launch asks whether
/// replay is configured): while configuration is closed, one relaxed load of a value cached per
/// kind; recomputed under the registry's lock when configuration opens or closes, a client's
/// contexts are invalidated, or a test resets the registry.
ENCORE_API bool kind_configured(kind k) noexcept;
[[nodiscard]] context* find_context(rocprofiler_context_id_t id) noexcept;
rocprofiler_status_t create_context(rocprofiler_context_id_t* out) noexcept;
rocprofiler_status_t start_context(rocprofiler_context_id_t id) noexcept;
rocprofiler_status_t stop_context(rocprofiler_context_id_t id) noexcept;
/// A service on kind k of context `id`. A context's kind takes one tool callback and up to two
/// internal services (each sees only its own operations; an internal one gets a user_data of its
/// own); one more is SERVICE_ALREADY_CONFIGURED.
rocprofiler_status_t configure_callback_service(rocprofiler_context_id_t id, rocprofiler_callback_tracing_kind_t k,
                                                const rocprofiler_tracing_operation_t* ops, unsigned long count,
                                                tracing::detail::callback_slot cb,
                                                service_owner owner = service_owner::tool) noexcept;
rocprofiler_status_t configure_external_request(rocprofiler_context_id_t id,
                                                const rocprofiler_external_correlation_id_request_kind_t* kinds,
                                                unsigned long count, rocprofiler_external_correlation_id_request_cb_t cb,
                                                void* data) noexcept;
/// Stops every context of a client and marks them invalid (failed or finalized tool).
void invalidate_client_contexts(std::uint32_t client) noexcept;
/// The kinds a callback service of some context (valid or not) was configured for.
[[nodiscard]] std::bitset<kind_count> configured_kinds() noexcept;
/// Stops every context (finalization): wrappers go back to one load + the original.
void stop_all_contexts() noexcept;

// ---- threads and correlation ids -------------------------------------------------------------
[[nodiscard]] std::uint64_t this_thread_id() noexcept;
rocprofiler_status_t push_external(rocprofiler_context_id_t ctx, rocprofiler_thread_id_t tid,
                                   rocprofiler_user_data_t v) noexcept;
rocprofiler_status_t pop_external(rocprofiler_context_id_t ctx, rocprofiler_thread_id_t tid,
                                  rocprofiler_user_data_t* out) noexcept;

/// The registry's part of reset_for_testing (registration.hpp): contexts, services, masks and
/// the threads' stacks forgotten. Test suites only.
void reset_registry_for_testing() noexcept;

}  // namespace encore::core
