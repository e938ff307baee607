// encore/tracing/tool.hpp — the C++ face of contexts, services and tool registration.
//
//   #include <encore/encore.hpp>
//   using encore::domains::hsa_core;
//
//   static int init(void*) {
//       encore::context ctx;
//       encore::context::create(ctx);
//       ctx.trace<hsa_core>(encore::ops<hsa_core, "hsa_queue_create", "hsa_signal_create">(),
//           [](const encore::record& r, rocprofiler_user_data_t& ud) { ... });
//       return ctx.start() == ROCPROFILER_STATUS_SUCCESS ? 0 : 1;
//   }
//   static encore::tool_registration reg{"my-tool", &init};   // found at initialization
//
// Every function returns the C API's status; nothing throws.
#pragma once

#include <encore/api/domain.hpp>
#include <encore/tracing/detail/core.hpp>
#include <rocprofiler-sdk/callback_tracing.h>
#include <rocprofiler-sdk/context.h>
#include <rocprofiler-sdk/experimental/kernel_replay.h>
#include <rocprofiler-sdk/external_correlation.h>
#include <rocprofiler-sdk/registration.h>

#include <array>
#include <bitset>
#include <new>
#include <span>
#include <type_traits>
#include <utility>

namespace encore {

using status = rocprofiler_status_t;
using record = rocprofiler_callback_tracing_record_t;

/// A compile-time selection of operations of a domain, by name: a misspelt name does not compile,
/// and the first error names it and the domain (api::encore_error_unknown_operation).
template <class Domain, api::fixed_string... Names>
[[nodiscard]] constexpr std::array<rocprofiler_tracing_operation_t, sizeof...(Names)> ops() {
    // Checked here, where the domain is its short name, so that id_of is never instantiated for a
    // bad name: each line of the diagnostics inside it spells the domain's whole op list.
    if constexpr ((Domain::find(Names.view()).has_value() && ...))
        return {Domain::template id_of<Names>()...};
    else
        return {api::detail::check_operation_name<Names, Domain::fixed_name, Domain::find(Names.view()).has_value()>()...};
}

namespace detail {
template <class F>
struct callback_holder {
    F f;
    // By address: the record is not copied on its way to f.
    static void trampoline(const record* r, rocprofiler_user_data_t* ud, void* self) {
        static_cast<callback_holder*>(self)->f(*r, *ud);
    }
};
}  // namespace detail

class context {
public:
    context() = default;
    explicit context(rocprofiler_context_id_t id) noexcept : id_(id) {}

    /// Creates a context (only during tool initialization).
    static status create(context& out) noexcept { return rocprofiler_create_context(&out.id_); }

    [[nodiscard]] rocprofiler_context_id_t id() const noexcept { return id_; }
    status start() const noexcept { return rocprofiler_start_context(id_); }
    status stop() const noexcept { return rocprofiler_stop_context(id_); }
    [[nodiscard]] bool active() const noexcept {
        int s = 0;
        return rocprofiler_context_is_active(id_, &s) == ROCPROFILER_STATUS_SUCCESS && s == 1;
    }

    /// Callback tracing of Domain (all operations, or those in `selection`) with a C callback.
    template <class Domain>
    status trace(rocprofiler_callback_tracing_cb_t cb, void* data,
                 std::span<const rocprofiler_tracing_operation_t> selection = {}) const noexcept {
        return rocprofiler_configure_callback_tracing_service(
            id_, static_cast<rocprofiler_callback_tracing_kind_t>(Domain::id),
            selection.empty() ? nullptr : selection.data(), selection.size(), cb, data);
    }

    /// Same with encore's callback form, which gets the record's address instead of a copy (the
    /// cheaper one per call; the record is valid only during the callback).
    template <class Domain>
    status trace(encore_callback_tracing_ptr_cb_t cb, void* data,
                 std::span<const rocprofiler_tracing_operation_t> selection = {}) const noexcept {
        return encore_configure_callback_tracing_service_ptr(
            id_, static_cast<rocprofiler_callback_tracing_kind_t>(Domain::id),
            selection.empty() ? nullptr : selection.data(), selection.size(), cb, data);
    }

    /// Same with any callable `f(const encore::record&, rocprofiler_user_data_t&)`. The callable
    /// lives as long as the process (contexts are never destroyed).
    template <class Domain, class F>
    requires std::is_invocable_v<F&, const record&, rocprofiler_user_data_t&> status trace(
        std::span<const rocprofiler_tracing_operation_t> selection, F&& f)
    const noexcept {
        using holder = detail::callback_holder<std::decay_t<F>>;
        auto* h = new (std::nothrow) holder{std::forward<F>(f)};
        if (h == nullptr) return ROCPROFILER_STATUS_ERROR_OUT_OF_RESOURCES;
        const status s = trace<Domain>(&holder::trampoline, h, selection);
        if (s != ROCPROFILER_STATUS_SUCCESS) delete h;
        return s;
    }
    template <class Domain, class F>
    requires std::is_invocable_v<F&, const record&, rocprofiler_user_data_t&> status trace(F&& f)
    const noexcept { return trace<Domain>(std::span<const rocprofiler_tracing_operation_t>{}, std::forward<F>(f)); }

    /// encore's options for this context's KERNEL_REPLAY service (configure that first; only
    /// during tool initialization). Zeros keep the defaults (docs/replay.md).
    status replay_options(encore_replay_snapshot_policy_t policy, std::uint64_t chunk_size = 0,
                          std::uint64_t memory_budget = 0, std::uint64_t wait_timeout_ns = 0) const noexcept {
        encore_kernel_replay_options_t o{sizeof(o), policy, chunk_size, memory_budget, wait_timeout_ns};
        return encore_configure_kernel_replay_options(id_, &o);
    }

    status push_external_correlation_id(rocprofiler_thread_id_t tid, rocprofiler_user_data_t v) const noexcept {
        return rocprofiler_push_external_correlation_id(id_, tid, v);
    }
    status pop_external_correlation_id(rocprofiler_thread_id_t tid, rocprofiler_user_data_t* v = nullptr) const noexcept {
        return rocprofiler_pop_external_correlation_id(id_, tid, v);
    }

private:
    rocprofiler_context_id_t id_{UINT64_MAX};
};

/// Registers a C++ tool without exporting rocprofiler_configure: `initialize(data)` runs during
/// encore's initialization with configuration open (return 0 for success), `finalize(data)` at
/// exit. Must run before initialization (e.g. as a namespace-scope object).
ENCORE_API status register_tool(const char* name, int (*initialize)(void*), void (*finalize)(void*) = nullptr,
                                void* data = nullptr) noexcept;

struct tool_registration {
    status result;
    tool_registration(const char* name, int (*initialize)(void*), void (*finalize)(void*) = nullptr,
                      void* data = nullptr) noexcept
        : result(register_tool(name, initialize, finalize, data)) {}
};

/// Runs tool discovery and initialization now, if no runtime has done it yet (once per process).
ENCORE_API void initialize() noexcept;

/// The union of operations of kind k that any valid context configured: what install() needs.
ENCORE_API std::bitset<max_ops_per_kind> configured_operations(kind k) noexcept;

}  // namespace encore
