// hsa_core_tool.cpp — a C++ tool built against an *installed* encore (see ../README.md).
//
// Compile-time domain selection: it traces the HSA core table only (`hsa_core`), so encore
// installs wrappers into that table alone; AMD-extension calls (hsa_amd_memory_pool_allocate,
// ...) run untraced. Counts EXIT records per operation, reads hsa_queue_create's `size`
// argument typed, checks ENTER/EXIT pairing through user_data, and prints one summary line when
// encore finalizes the tool:
//
//   hsa_core_tool: 42 calls, 42 enter, 42 exit, hsa_queue_create=1 (size=4096), other kinds=0, bad=0
#include <encore/domains/hsa.hpp>
#include <encore/encore.hpp>

#include <array>
#include <atomic>
#include <cstdint>
#include <cstdio>

namespace {

using encore::domains::hsa_core;
constexpr auto queue_create = hsa_core::id_of<"hsa_queue_create">();  // misspelt: compile error

std::array<std::atomic<std::uint64_t>, hsa_core::size> g_exits{};
std::atomic<std::uint64_t> g_enters{0}, g_other_kinds{0}, g_bad{0}, g_queue_size{0};

void on_call(const encore::record& r, rocprofiler_user_data_t& ud) {
    if (r.kind != static_cast<rocprofiler_callback_tracing_kind_t>(hsa_core::id)) {
        g_other_kinds.fetch_add(1, std::memory_order_relaxed);
        return;
    }
    if (r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER) {
        g_enters.fetch_add(1, std::memory_order_relaxed);
        ud.value = r.correlation_id.internal;  // EXIT of the same call must see it
        return;
    }
    if (ud.value != r.correlation_id.internal || !hsa_core::contains(r.operation))
        g_bad.fetch_add(1, std::memory_order_relaxed);
    if (r.operation == queue_create)
        g_queue_size.store(encore::tracing::args_of<hsa_core, queue_create>(r.payload).get<1>(),
                           std::memory_order_relaxed);
    if (hsa_core::contains(r.operation)) g_exits[r.operation].fetch_add(1, std::memory_order_relaxed);
}

int initialize(rocprofiler_client_finalize_t, void*) {
    encore::context ctx;
    if (encore::context::create(ctx) != ROCPROFILER_STATUS_SUCCESS) return 1;
    if (ctx.trace<hsa_core>(on_call) != ROCPROFILER_STATUS_SUCCESS) return 1;
    return ctx.start() == ROCPROFILER_STATUS_SUCCESS ? 0 : 1;
}

void finalize(void*) {
    std::uint64_t exits = 0;
    for (const auto& n : g_exits) exits += n.load(std::memory_order_relaxed);
    std::printf("hsa_core_tool: %llu calls, %llu enter, %llu exit, hsa_queue_create=%llu (size=%llu), "
                "other kinds=%llu, bad=%llu\n",
                static_cast<unsigned long long>(exits), static_cast<unsigned long long>(g_enters.load()),
                static_cast<unsigned long long>(exits), static_cast<unsigned long long>(g_exits[queue_create].load()),
                static_cast<unsigned long long>(g_queue_size.load()),
                static_cast<unsigned long long>(g_other_kinds.load()), static_cast<unsigned long long>(g_bad.load()));
    std::fflush(stdout);
}

}  // namespace

extern "C" rocprofiler_tool_configure_result_t* rocprofiler_configure(uint32_t, const char*, uint32_t,
                                                                      rocprofiler_client_id_t* id) {
    id->name = "hsa_core_tool";
    static rocprofiler_tool_configure_result_t result{sizeof(result), &initialize, &finalize, nullptr};
    return &result;
}
