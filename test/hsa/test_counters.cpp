// test/hsa/test_counters.cpp — counters and the dispatch counting service on the software runtime
// (the program is its own tool). Usage: test_counters <vector_add code object> api|values|replay
//
//   api:    every new C function with invalid ids, null pointers, wrong phases (configuration
//           locked) and repeated calls; agents without a counter source (the CPU agent, and any
//           agent before the runtime loaded encore) report none; the services that need hardware
//           encore cannot reach say so.
//   values: (context A under the current names, B under the 2024 ones) the counters of dispatches of several geometries (partial workgroups in 1, 2 and 3
//           dimensions) against a brute-force count of their workgroups and waves, and their time
//           counters against the record's timestamps; user_data and correlation ids; a config of
//           0 and a stopped context count nothing.
//   replay: under kernel replay, every pass a counting context takes part in is counted once with
//           that pass's config (a thread_local pass number set at PASS ENTER, as the reference's
//           kernel-replay samples do); a context stopped for some passes (replay_stop_context) is
//           not counted in them; an early exit (replay_continue) counts only the passes run; an
//           opted-out dispatch is counted once.
#include "../../examples/hsa/hsa_example.hpp"
#include "../support/check.hpp"
#include "../support/tool_stub.hpp"

#include <encore/counters.h>
#include <rocprofiler-sdk/buffer.h>
#include <rocprofiler-sdk/counters.h>
#include <rocprofiler-sdk/device_counting_service.h>
#include <rocprofiler-sdk/dispatch_counting_service.h>
#include <rocprofiler-sdk/dispatch_profile.h>
#include <rocprofiler-sdk/experimental/kernel_replay.h>
#include <rocprofiler-sdk/experimental/spm.h>
#include <rocprofiler-sdk/experimental/thread_trace.h>
#include <rocprofiler-sdk/pc_sampling.h>
#include <rocprofiler-sdk/rocprofiler.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

extern "C" int counter_layout_checked(void);  // c_counter_layout.c (its checks are at compile time)

namespace {

using test_support::expect;

constexpr rocprofiler_status_t ok = ROCPROFILER_STATUS_SUCCESS;
std::string g_mode;
std::mutex g_mutex;

// A pointer the compiler cannot see is null, for the null-argument checks.
template <class T>
T* null_of() {
    T* volatile p = nullptr;
    return p;
}

// ---- helpers over the C API ---------------------------------------------------------------------

std::vector<rocprofiler_counter_id_t> counters_of(rocprofiler_agent_id_t agent, rocprofiler_status_t* status = nullptr) {
    std::vector<rocprofiler_counter_id_t> out;
    const auto s = rocprofiler_iterate_agent_supported_counters(
        agent,
        [](rocprofiler_agent_id_t, rocprofiler_counter_id_t* ids, size_t n, void* data) {
            auto* v = static_cast<std::vector<rocprofiler_counter_id_t>*>(data);
            v->insert(v->end(), ids, ids + n);
            return ROCPROFILER_STATUS_SUCCESS;
        },
        &out);
    if (status != nullptr) *status = s;
    return out;
}

std::string name_of(rocprofiler_counter_id_t id) {
    rocprofiler_counter_info_v0_t info{};
    if (rocprofiler_query_counter_info(id, ROCPROFILER_COUNTER_INFO_VERSION_0, &info) != ok || info.name == nullptr)
        return {};
    return info.name;
}

rocprofiler_counter_id_t counter_named(rocprofiler_agent_id_t agent, const std::string& name) {
    for (auto id : counters_of(agent))
        if (name_of(id) == name) return id;
    return {0};
}

rocprofiler_counter_config_id_t config_of(rocprofiler_agent_id_t agent, std::vector<std::string> names) {
    std::vector<rocprofiler_counter_id_t> ids;
    for (auto& n : names) ids.push_back(counter_named(agent, n));
    rocprofiler_counter_config_id_t cfg{0};
    const auto s = rocprofiler_create_counter_config(agent, ids.data(), ids.size(), &cfg);
    expect(s == ok && cfg.handle != 0, "create a config of " + std::to_string(names.size()) + " counters");
    return cfg;
}

std::vector<const rocprofiler_agent_v0_t*> agents_of(rocprofiler_agent_type_t type) {
    std::vector<const rocprofiler_agent_v0_t*> out;
    rocprofiler_query_available_agents(
        ROCPROFILER_AGENT_INFO_VERSION_0,
        [](rocprofiler_agent_version_t, const void** agents, size_t n, void* data) {
            auto* v = static_cast<std::vector<const rocprofiler_agent_v0_t*>*>(data);
            for (size_t i = 0; i < n; ++i) v->push_back(static_cast<const rocprofiler_agent_v0_t*>(agents[i]));
            return ROCPROFILER_STATUS_SUCCESS;
        },
        sizeof(rocprofiler_agent_v0_t), &out);
    std::vector<const rocprofiler_agent_v0_t*> typed;
    for (auto* a : out)
        if (a->type == type) typed.push_back(a);
    return typed;
}

// A kernel dispatch of any geometry (example::dispatch_1d is 1D only).
void dispatch(hsa_queue_t* q, uint64_t kernel, void* kernarg, rocprofiler_dim3_t grid, rocprofiler_dim3_t wg,
              uint32_t dims, hsa_signal_t done) {
    const uint64_t idx = hsa_queue_add_write_index_screlease(q, 1);
    while (idx - hsa_queue_load_read_index_scacquire(q) >= q->size) {
    }
    auto* p = static_cast<hsa_kernel_dispatch_packet_t*>(q->base_address) + (idx & (q->size - 1));
    std::memset(reinterpret_cast<char*>(p) + 4, 0, sizeof(*p) - 4);
    p->workgroup_size_x = static_cast<uint16_t>(wg.x);
    p->workgroup_size_y = static_cast<uint16_t>(wg.y);
    p->workgroup_size_z = static_cast<uint16_t>(wg.z);
    p->grid_size_x = grid.x;
    p->grid_size_y = grid.y;
    p->grid_size_z = grid.z;
    p->kernel_object = kernel;
    p->kernarg_address = kernarg;
    p->completion_signal = done;
    const uint16_t header = (HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
                            (1 << HSA_PACKET_HEADER_BARRIER) |
                            (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                            (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
    const uint16_t setup = static_cast<uint16_t>(dims << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS);
    __atomic_store_n(reinterpret_cast<uint32_t*>(p), header | (static_cast<uint32_t>(setup) << 16), __ATOMIC_RELEASE);
    hsa_signal_store_screlease(q->doorbell_signal, static_cast<hsa_signal_value_t>(idx));
}

// The expected workgroups and waves, counted the slow way: every workgroup, its work-items.
struct expected_geometry {
    uint64_t workgroups = 0, waves = 0;
};
expected_geometry brute_force(rocprofiler_dim3_t grid, rocprofiler_dim3_t wg, uint32_t wave) {
    expected_geometry e;
    for (uint32_t z = 0; z < grid.z; z += wg.z)
        for (uint32_t y = 0; y < grid.y; y += wg.y)
            for (uint32_t x = 0; x < grid.x; x += wg.x) {
                const uint64_t items = static_cast<uint64_t>(std::min(wg.x, grid.x - x)) * std::min(wg.y, grid.y - y) *
                                       std::min(wg.z, grid.z - z);
                ++e.workgroups;
                e.waves += (items + wave - 1) / wave;
            }
    return e;
}

// ---- what the tool saw ----------------------------------------------------------------------------

struct seen_record {
    rocprofiler_dispatch_counting_service_data_t data;
    rocprofiler_user_data_t user_data;
    std::map<std::string, double> values;  // counter name -> value
    std::vector<rocprofiler_counter_record_t> raw;
    uint64_t pass;     // t_pass at the record (replay mode)
    uint64_t context;  // which counting context
};
std::vector<seen_record> g_records;
std::map<uint64_t, uint64_t> g_dispatch_corr;  // dispatch id -> correlation at the dispatch callback
rocprofiler_context_id_t g_count_a{}, g_count_b{}, g_replay{};
rocprofiler_counter_config_id_t g_all{}, g_per_pass[4]{};
thread_local uint64_t t_pass = 0;
int g_callbacks_in_tool_init = 0;

void record_cb(rocprofiler_dispatch_counting_service_data_t data, rocprofiler_counter_record_t* records, size_t n,
               rocprofiler_user_data_t user_data, void* args) {
    seen_record r{data, user_data, {}, {}, t_pass, reinterpret_cast<uintptr_t>(args)};
    for (size_t i = 0; i < n; ++i) {
        rocprofiler_counter_id_t id{};
        if (rocprofiler_query_record_counter_id(records[i].id, &id) == ok)
            r.values[name_of(id)] = records[i].counter_value;
        r.raw.push_back(records[i]);
    }
    std::lock_guard lk(g_mutex);
    g_records.push_back(std::move(r));
}

void ignore_buffer(rocprofiler_context_id_t, rocprofiler_buffer_id_t, rocprofiler_record_header_t**, size_t, void*,
                   uint64_t) {}

// values mode, context C: the buffered service's records (a header per dispatch, then its values).
struct buffered_dispatch {
    rocprofiler_dispatch_counting_service_record_t header;
    std::map<std::string, double> values;
    size_t value_records = 0;
};
std::vector<buffered_dispatch> g_buffered;
uint64_t g_buffered_drops = 0, g_buffered_other = 0;
rocprofiler_context_id_t g_count_c{};
rocprofiler_buffer_id_t g_buffer_c{};

void counting_buffer_cb(rocprofiler_context_id_t ctx, rocprofiler_buffer_id_t, rocprofiler_record_header_t** headers,
                        size_t n, void*, uint64_t drops) {
    std::lock_guard lk(g_mutex);
    g_buffered_drops += drops;
    for (size_t i = 0; i < n; ++i) {
        const auto* h = headers[i];
        if (ctx.handle != g_count_c.handle || h->category != ROCPROFILER_BUFFER_CATEGORY_COUNTERS) {
            ++g_buffered_other;
        } else if (h->kind == ROCPROFILER_COUNTER_RECORD_PROFILE_COUNTING_DISPATCH_HEADER) {
            g_buffered.push_back({*static_cast<const rocprofiler_dispatch_counting_service_record_t*>(h->payload), {}, 0});
        } else if (h->kind == ROCPROFILER_COUNTER_RECORD_VALUE && !g_buffered.empty()) {
            const auto* v = static_cast<const rocprofiler_counter_record_t*>(h->payload);
            rocprofiler_counter_id_t id{};
            if (rocprofiler_query_record_counter_id(v->id, &id) == ok)
                g_buffered.back().values[name_of(id)] = v->counter_value;
            ++g_buffered.back().value_records;
        } else {
            ++g_buffered_other;
        }
    }
}

// values mode: every dispatch counted with all counters, except grids of 12345 work-items (config
// 0: not counted); user_data carries the dispatch id.
void values_dispatch_cb(rocprofiler_dispatch_counting_service_data_t d, rocprofiler_counter_config_id_t* cfg,
                        rocprofiler_user_data_t* ud, void*) {
    if (g_all.handle == 0)
        g_all = config_of(d.dispatch_info.agent_id, {"SQ_WAVES", "SPI_CSN_NUM_THREADGROUPS", "GRBM_COUNT",
                                                     "GRBM_GUI_ACTIVE", "ENCORE_KERNEL_BUSY_NS"});
    std::lock_guard lk(g_mutex);
    g_dispatch_corr[d.dispatch_info.dispatch_id] = d.correlation_id.internal;
    if (d.dispatch_info.grid_size.x == 12345) return;
    *cfg = g_all;
    ud->value = d.dispatch_info.dispatch_id * 7;
}

// The same under the 2024 names (dispatch_profile.h), for context B in values mode.
rocprofiler_dispatch_counting_service_data_t from_legacy(const rocprofiler_profile_counting_dispatch_data_t& l) {
    expect(l.size == sizeof(l) && l.correlation_id.ancestor == 0, "the 2024 data struct");
    rocprofiler_dispatch_counting_service_data_t d{};
    d.size = sizeof(d);
    d.correlation_id.internal = l.correlation_id.internal;
    d.correlation_id.external = l.correlation_id.external;
    d.start_timestamp = l.start_timestamp;
    d.end_timestamp = l.end_timestamp;
    d.dispatch_info = l.dispatch_info;
    return d;
}
void legacy_dispatch_cb(rocprofiler_profile_counting_dispatch_data_t d, rocprofiler_profile_config_id_t* cfg,
                        rocprofiler_user_data_t* ud, void* args) {
    values_dispatch_cb(from_legacy(d), cfg, ud, args);
}
void legacy_record_cb(rocprofiler_profile_counting_dispatch_data_t d, rocprofiler_record_counter_t* records, size_t n,
                      rocprofiler_user_data_t ud, void* args) {
    record_cb(from_legacy(d), records, n, ud, args);
}

// replay mode: the pass number selects the config, as counters_client.cpp does.
void replay_dispatch_cb(rocprofiler_dispatch_counting_service_data_t d, rocprofiler_counter_config_id_t* cfg,
                        rocprofiler_user_data_t*, void*) {
    if (g_per_pass[0].handle == 0) {
        const char* names[4] = {"SQ_WAVES", "SPI_CSN_NUM_THREADGROUPS", "GRBM_COUNT", "GRBM_GUI_ACTIVE"};
        for (int i = 0; i < 4; ++i) g_per_pass[i] = config_of(d.dispatch_info.agent_id, {names[i]});
    }
    *cfg = g_per_pass[t_pass % 4];
}

uint64_t four_passes(rocprofiler_kernel_dispatch_info_t, rocprofiler_user_data_t) { return 4; }
int stop_after_pass_1(rocprofiler_kernel_dispatch_info_t, uint64_t pass, uint64_t, rocprofiler_user_data_t) {
    return pass < 1 ? 1 : 0;
}

void replay_cb(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
    auto* p = static_cast<rocprofiler_callback_tracing_kernel_replay_data_t*>(r.payload);
    if (r.phase != ROCPROFILER_CALLBACK_PHASE_ENTER) return;
    const bool replayed = p->dispatch_info.workgroup_size.x == 67;
    if (r.operation == ROCPROFILER_KERNEL_REPLAY_CONFIG && replayed) {
        p->replay_pass_count = &four_passes;
        if (p->dispatch_info.grid_size.x == 67 * 2) p->replay_continue = &stop_after_pass_1;  // the early exit
    }
    if (r.operation == ROCPROFILER_KERNEL_REPLAY_PASS) {
        t_pass = p->current_pass;
        // B takes part in passes 0 and 3 only (local toggles are sticky across passes).
        if (p->current_pass == 1) expect(p->replay_stop_context(g_count_b) == ok, "stop B locally at pass 1");
        if (p->current_pass == 3) expect(p->replay_start_context(g_count_b) == ok, "start B locally at pass 3");
    }
}

// ---- api mode: what tool initialization may do ------------------------------------------------

void api_checks_at_init() {
    using cb_t = rocprofiler_dispatch_counting_service_cb_t;
    using rec_t = rocprofiler_dispatch_counting_record_cb_t;
    rocprofiler_context_id_t ctx{};
    expect(rocprofiler_create_context(&ctx) == ok, "create a context");
    const rocprofiler_context_id_t bogus{12345};
    expect(rocprofiler_configure_callback_dispatch_counting_service(
               bogus, &values_dispatch_cb, nullptr, &record_cb, nullptr) == ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND,
           "counting service: unknown context");
    expect(rocprofiler_configure_callback_dispatch_counting_service(ctx, null_of<std::remove_pointer_t<cb_t>>(),
                                                                    nullptr, &record_cb, nullptr) ==
               ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT,
           "counting service: null dispatch callback");
    expect(rocprofiler_configure_callback_dispatch_counting_service(ctx, &values_dispatch_cb, nullptr,
                                                                    null_of<std::remove_pointer_t<rec_t>>(), nullptr) ==
               ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT,
           "counting service: null record callback");
    expect(rocprofiler_configure_callback_dispatch_counting_service(ctx, &values_dispatch_cb, nullptr, &record_cb,
                                                                    nullptr) == ok,
           "counting service configured");
    expect(rocprofiler_configure_callback_dispatch_counting_service(ctx, &values_dispatch_cb, nullptr, &record_cb,
                                                                    nullptr) ==
               ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED,
           "counting service: configured twice on one context");
    expect(rocprofiler_configure_callback_dispatch_profile_counting_service(ctx, &legacy_dispatch_cb, nullptr,
                                                                            &legacy_record_cb, nullptr) ==
               ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED,
           "the 2024 form on a context that has the service");
    rocprofiler_context_id_t other{};
    expect(rocprofiler_create_context(&other) == ok, "create a second context");
    expect(rocprofiler_configure_callback_dispatch_profile_counting_service(
               other, &legacy_dispatch_cb, nullptr, nullptr, nullptr) == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT,
           "the 2024 form: null record callback");
    expect(rocprofiler_configure_callback_dispatch_profile_counting_service(bogus, &legacy_dispatch_cb, nullptr,
                                                                            &legacy_record_cb, nullptr) ==
               ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND,
           "the 2024 form: unknown context");
    expect(rocprofiler_configure_buffered_dispatch_profile_counting_service(other, {999}, &legacy_dispatch_cb, nullptr) ==
               ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND,
           "the 2024 buffered form: unknown buffer");
    expect(rocprofiler_configure_buffer_dispatch_counting_service(other, {999}, &values_dispatch_cb, nullptr) ==
               ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND,
           "buffered counting service: unknown buffer");
    rocprofiler_buffer_id_t other_buffer{}, ctx_buffer{};
    expect(rocprofiler_create_buffer(other, 4096, 2048, ROCPROFILER_BUFFER_POLICY_LOSSLESS, &ignore_buffer, nullptr,
                                     &other_buffer) == ok &&
               rocprofiler_create_buffer(ctx, 4096, 2048, ROCPROFILER_BUFFER_POLICY_LOSSLESS, &ignore_buffer, nullptr,
                                         &ctx_buffer) == ok,
           "buffers for the buffered service");
    expect(rocprofiler_configure_buffer_dispatch_counting_service(other, ctx_buffer, &values_dispatch_cb, nullptr) ==
               ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT,
           "buffered counting service: a buffer of another context");
    expect(rocprofiler_configure_buffer_dispatch_counting_service(other, other_buffer, &values_dispatch_cb, nullptr) == ok,
           "buffered counting service");
    expect(rocprofiler_configure_buffer_dispatch_counting_service(other, other_buffer, &values_dispatch_cb, nullptr) ==
               ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED,
           "buffered counting service: configured twice");
    expect(rocprofiler_configure_callback_dispatch_counting_service(other, &values_dispatch_cb, nullptr, &record_cb,
                                                                    nullptr) ==
               ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED,
           "the callback form on a context with the buffered service");
    rocprofiler_context_id_t third{};
    expect(rocprofiler_create_context(&third) == ok, "create a third context");
    rocprofiler_buffer_id_t third_buffer{};
    expect(rocprofiler_create_buffer(third, 4096, 2048, ROCPROFILER_BUFFER_POLICY_DISCARD, &ignore_buffer, nullptr,
                                     &third_buffer) == ok &&
               rocprofiler_configure_buffered_dispatch_profile_counting_service(third, third_buffer,
                                                                                &legacy_dispatch_cb, nullptr) == ok,
           "the 2024 buffered form");
    expect(rocprofiler_configure_buffer_dispatch_counting_service(bogus, {1}, &values_dispatch_cb, nullptr) ==
               ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND,
           "buffered counting service: unknown context");
    expect(rocprofiler_configure_buffer_dispatch_counting_service(other, {1}, null_of<std::remove_pointer_t<cb_t>>(),
                                                                  nullptr) == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT,
           "buffered counting service: null callback");
    expect(rocprofiler_configure_device_counting_service(other, {1}, {1}, nullptr, nullptr) ==
               ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED,
           "device counting: not implemented");
    size_t n = 0;
    expect(rocprofiler_sample_device_counting_service(other, {}, ROCPROFILER_COUNTER_FLAG_NONE, nullptr, &n) ==
               ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED,
           "device counting sample: not implemented");

    // The services that need hardware: NOT_IMPLEMENTED at configure time (agents are known here).
    const auto gpus = agents_of(ROCPROFILER_AGENT_TYPE_GPU);
    expect(!gpus.empty(), "a GPU agent during tool initialization");
    const rocprofiler_agent_id_t gpu = gpus.empty() ? rocprofiler_agent_id_t{0} : gpus[0]->id;
    expect(rocprofiler_configure_pc_sampling_service(other, gpu, ROCPROFILER_PC_SAMPLING_METHOD_HOST_TRAP,
                                                     ROCPROFILER_PC_SAMPLING_UNIT_TIME, 1000, {1},
                                                     0) == ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED,
           "PC sampling: not implemented");
    expect(rocprofiler_configure_pc_sampling_service(other, {999}, ROCPROFILER_PC_SAMPLING_METHOD_HOST_TRAP,
                                                     ROCPROFILER_PC_SAMPLING_UNIT_TIME, 1000, {1},
                                                     0) == ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND,
           "PC sampling: unknown agent");
    expect(rocprofiler_configure_pc_sampling_service(bogus, gpu, ROCPROFILER_PC_SAMPLING_METHOD_HOST_TRAP,
                                                     ROCPROFILER_PC_SAMPLING_UNIT_TIME, 1000, {1},
                                                     0) == ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND,
           "PC sampling: unknown context");
    rocprofiler_thread_trace_parameter_t params[1] = {{ROCPROFILER_THREAD_TRACE_PARAMETER_SHADER_ENGINE_MASK, {1}}};
    expect(rocprofiler_configure_dispatch_thread_trace_service(other, gpu, params, 1, nullptr, nullptr, nullptr) ==
               ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED,
           "dispatch thread trace: not implemented");
    expect(rocprofiler_configure_device_thread_trace_service(other, gpu, params, 1, nullptr, {}) ==
               ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED,
           "device thread trace: not implemented");
    expect(rocprofiler_configure_dispatch_thread_trace_service(bogus, gpu, params, 1, nullptr, nullptr, nullptr) ==
               ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND,
           "dispatch thread trace: unknown context");
    expect(rocprofiler_spm_configure_callback_dispatch_service(
               other,
               [](const rocprofiler_spm_dispatch_counting_service_data_t*, rocprofiler_counter_config_id_t*,
                  rocprofiler_user_data_t*, void*) {},
               nullptr,
               [](const rocprofiler_spm_dispatch_counting_service_data_t*, const rocprofiler_spm_counter_record_t**,
                  size_t, rocprofiler_spm_record_flag_t, rocprofiler_user_data_t, void*) {},
               nullptr) == ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED,
           "SPM dispatch service: not implemented");
    expect(rocprofiler_spm_configure_buffer_dispatch_service(
               other, {1},
               [](const rocprofiler_spm_dispatch_counting_service_data_t*, rocprofiler_counter_config_id_t*,
                  rocprofiler_user_data_t*, void*) {},
               nullptr) == ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED,
           "SPM buffer service: not implemented");
    expect(rocprofiler_spm_configure_callback_dispatch_service(bogus, nullptr, nullptr, nullptr, nullptr) ==
               ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND,
           "SPM dispatch service: unknown context");
    g_count_a = ctx;
    expect(rocprofiler_start_context(ctx) == ok, "start the counting context");
}

void api_checks_after_init() {
    const auto gpus = agents_of(ROCPROFILER_AGENT_TYPE_GPU);
    const auto cpus = agents_of(ROCPROFILER_AGENT_TYPE_CPU);
    expect(gpus.size() == 2 && cpus.size() == 1, "two GPU agents and a CPU agent");
    if (gpus.size() < 2 || cpus.empty()) return;
    const auto gpu = gpus[0]->id, gpu2 = gpus[1]->id, cpu = cpus[0]->id;
    const rocprofiler_agent_id_t unknown{0xdead};

    // Configuration is locked now.
    rocprofiler_context_id_t late{0};
    expect(rocprofiler_configure_callback_dispatch_counting_service(g_count_a, &values_dispatch_cb, nullptr, &record_cb,
                                                                    nullptr) ==
               ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED,
           "counting service after initialization: locked");
    expect(rocprofiler_configure_buffer_dispatch_counting_service(late, {1}, &values_dispatch_cb, nullptr) ==
               ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED,
           "buffered counting service after initialization: locked");
    expect(rocprofiler_configure_pc_sampling_service(g_count_a, gpu, ROCPROFILER_PC_SAMPLING_METHOD_HOST_TRAP,
                                                     ROCPROFILER_PC_SAMPLING_UNIT_TIME, 1000, {1},
                                                     0) == ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED,
           "PC sampling after initialization: locked");

    // Supported counters: the GPU agents have the five, the CPU agent none, an unknown agent is
    // an error, a null callback too.
    rocprofiler_status_t s{};
    const auto ids = counters_of(gpu, &s);
    expect(s == ok && ids.size() == 5, "a GPU agent of the software runtime has five counters");
    std::vector<std::string> names;
    for (auto id : ids) names.push_back(name_of(id));
    expect(names == std::vector<std::string>{"SQ_WAVES", "SPI_CSN_NUM_THREADGROUPS", "GRBM_COUNT", "GRBM_GUI_ACTIVE",
                                             "ENCORE_KERNEL_BUSY_NS"},
           "the counters' names");
    expect(counters_of(gpu2).size() == 5, "the second GPU agent too");
    int calls = 0;
    size_t seen = 99;
    struct probe {
        int* calls;
        size_t* seen;
    } pr{&calls, &seen};
    expect(rocprofiler_iterate_agent_supported_counters(
               cpu,
               [](rocprofiler_agent_id_t, rocprofiler_counter_id_t*, size_t n, void* d) {
                   auto* p = static_cast<probe*>(d);
                   ++*p->calls;
                   *p->seen = n;
                   return ROCPROFILER_STATUS_SUCCESS;
               },
               &pr) == ok &&
               calls == 1 && seen == 0,
           "the CPU agent has no counters (one call, empty)");
    counters_of(unknown, &s);
    expect(s == ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND, "supported counters: unknown agent");
    expect(rocprofiler_iterate_agent_supported_counters(
               gpu, null_of<std::remove_pointer_t<rocprofiler_available_counters_cb_t>>(), nullptr) ==
               ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT,
           "supported counters: null callback");
    expect(counters_of(gpu).size() == 5, "supported counters: repeated call, same answer");
    const auto waves = counter_named(gpu, "SQ_WAVES");

    // Counter info, both versions.
    rocprofiler_counter_info_v0_t v0{};
    expect(rocprofiler_query_counter_info(waves, ROCPROFILER_COUNTER_INFO_VERSION_0, &v0) == ok &&
               v0.id.handle == waves.handle && std::string(v0.block) == "SQ" && v0.description[0] != '\0' &&
               v0.is_derived == 0,
           "counter info v0");
    rocprofiler_counter_info_v1_t v1{};
    v1.size = sizeof(v1);
    expect(rocprofiler_query_counter_info(waves, ROCPROFILER_COUNTER_INFO_VERSION_1, &v1) == ok &&
               v1.dimensions_count == 1 && v1.dimensions[0]->instance_size == 1 && v1.dimensions_instances_count == 1 &&
               v1.dimensions_instances[0]->counter_id == waves.handle,
           "counter info v1: one dimension, one instance");
    rocprofiler_counter_id_t decoded{};
    expect(v1.dimensions_instances_count == 1 &&
               rocprofiler_query_record_counter_id(v1.dimensions_instances[0]->instance_id, &decoded) == ok &&
               decoded.handle == waves.handle,
           "the v1 instance's id decodes to its counter");
    v1.size = 8;
    expect(rocprofiler_query_counter_info(waves, ROCPROFILER_COUNTER_INFO_VERSION_1, &v1) ==
               ROCPROFILER_STATUS_ERROR_INCOMPATIBLE_ABI,
           "counter info v1: a struct too small");
    expect(rocprofiler_query_counter_info({0}, ROCPROFILER_COUNTER_INFO_VERSION_0, &v0) ==
               ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND,
           "counter info: counter 0");
    expect(rocprofiler_query_counter_info({77}, ROCPROFILER_COUNTER_INFO_VERSION_0, &v0) ==
               ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND,
           "counter info: unknown counter");
    expect(rocprofiler_query_counter_info(waves, ROCPROFILER_COUNTER_INFO_VERSION_0, nullptr) ==
               ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT,
           "counter info: null info");
    const auto bad_version = static_cast<rocprofiler_counter_info_version_id_t>(9);
    expect(rocprofiler_query_counter_info(waves, bad_version, &v0) == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT,
           "counter info: unknown version");
    expect(rocprofiler_query_counter_info(waves, ROCPROFILER_COUNTER_INFO_VERSION_NONE, &v0) ==
               ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT,
           "counter info: version NONE");

    // Instance counts and dimensions.
    size_t count = 0;
    expect(rocprofiler_query_counter_instance_count(gpu, waves, &count) == ok && count == 1, "one instance");
    expect(rocprofiler_query_counter_instance_count(cpu, waves, &count) ==
               ROCPROFILER_STATUS_ERROR_METRIC_NOT_VALID_FOR_AGENT,
           "instance count: an agent without a source");
    expect(rocprofiler_query_counter_instance_count(unknown, waves, &count) == ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND,
           "instance count: unknown agent");
    expect(rocprofiler_query_counter_instance_count(gpu, {77}, &count) == ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND,
           "instance count: unknown counter");
    expect(rocprofiler_query_counter_instance_count(gpu, waves, nullptr) == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT,
           "instance count: null out");
    std::vector<rocprofiler_counter_record_dimension_info_t> dims;
    expect(rocprofiler_iterate_counter_dimensions(
               waves,
               [](rocprofiler_counter_id_t, const rocprofiler_counter_record_dimension_info_t* d, size_t n, void* out) {
                   auto* v = static_cast<std::vector<rocprofiler_counter_record_dimension_info_t>*>(out);
                   v->insert(v->end(), d, d + n);
                   return ROCPROFILER_STATUS_SUCCESS;
               },
               &dims) == ok &&
               dims.size() == 1 && std::string(dims[0].name) == "DIMENSION_INSTANCE" && dims[0].instance_size == 1,
           "dimensions: one, DIMENSION_INSTANCE of size 1");
    expect(rocprofiler_iterate_counter_dimensions(
               {77},
               [](rocprofiler_counter_id_t, const rocprofiler_counter_record_dimension_info_t*, size_t, void*) {
                   return ROCPROFILER_STATUS_SUCCESS;
               },
               nullptr) == ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND,
           "dimensions: unknown counter");
    expect(rocprofiler_iterate_counter_dimensions(waves, nullptr, nullptr) == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT,
           "dimensions: null callback");
    size_t pos = 99;
    expect(rocprofiler_query_record_dimension_position(v1.dimensions_instances[0]->instance_id, dims[0].id, &pos) == ok &&
               pos == 0,
           "the instance's position in its dimension");
    expect(rocprofiler_query_record_dimension_position(v1.dimensions_instances[0]->instance_id, dims[0].id + 5, &pos) ==
               ROCPROFILER_STATUS_ERROR_DIM_NOT_FOUND,
           "position: unknown dimension");
    expect(rocprofiler_query_record_dimension_position(0, dims[0].id, &pos) == ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND,
           "position: an instance id of no counter");
    expect(rocprofiler_query_record_dimension_position(v1.dimensions_instances[0]->instance_id, dims[0].id, nullptr) ==
               ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT,
           "position: null out");
    expect(rocprofiler_query_record_counter_id(0, &decoded) == ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND,
           "record counter id: an instance id of no counter");
    expect(rocprofiler_query_record_counter_id(~0ull, &decoded) == ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND,
           "record counter id: garbage");
    expect(rocprofiler_query_record_counter_id(v1.dimensions_instances[0]->instance_id, nullptr) ==
               ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT,
           "record counter id: null out");
    rocprofiler_counter_id_t made{};
    expect(rocprofiler_create_counter("X", 1, "SQ_WAVES*2", 10, "", 0, gpu, &made) ==
               ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED,
           "derived counters: not implemented");
    expect(rocprofiler_create_counter(nullptr, 0, "", 0, "", 0, gpu, &made) == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT,
           "derived counters: null name");

    // Configs.
    rocprofiler_counter_id_t list[2] = {waves, counter_named(gpu, "GRBM_COUNT")};
    rocprofiler_counter_config_id_t cfg{0};
    expect(rocprofiler_create_counter_config(gpu, list, 2, nullptr) == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT,
           "config: null out");
    expect(rocprofiler_create_counter_config(gpu, nullptr, 2, &cfg) == ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT,
           "config: null list with a count");
    expect(rocprofiler_create_counter_config(gpu, list, 0, &cfg) == ROCPROFILER_STATUS_ERROR_NO_HARDWARE_COUNTERS,
           "config: no counters");
    expect(rocprofiler_create_counter_config(unknown, list, 2, &cfg) == ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND,
           "config: unknown agent");
    expect(rocprofiler_create_counter_config(cpu, list, 2, &cfg) == ROCPROFILER_STATUS_ERROR_AGENT_ARCH_NOT_SUPPORTED,
           "config: an agent without a counter source");
    rocprofiler_counter_id_t bad[1] = {{77}};
    expect(rocprofiler_create_counter_config(gpu, bad, 1, &cfg) == ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND,
           "config: unknown counter");
    expect(cfg.handle == 0, "a failed create leaves the id alone");
    expect(rocprofiler_create_counter_config(gpu, list, 1, &cfg) == ok && cfg.handle != 0, "config of SQ_WAVES");
    rocprofiler_counter_config_id_t merged = cfg;
    expect(rocprofiler_create_counter_config(gpu, list + 1, 1, &merged) == ok && merged.handle != cfg.handle,
           "config on a base: a new config");
    rocprofiler_counter_config_id_t on_other = cfg;
    expect(rocprofiler_create_counter_config(gpu2, list, 1, &on_other) == ROCPROFILER_STATUS_ERROR_AGENT_MISMATCH,
           "config on a base of another agent");
    rocprofiler_counter_config_id_t again{0};
    expect(rocprofiler_create_counter_config(gpu, list, 1, &again) == ok && again.handle != cfg.handle,
           "repeated create: a distinct config");
    // encore's multi-pass configs: the software runtime counts every set in one pass.
    rocprofiler_counter_config_id_t multi{0};
    std::size_t passes = 0;
    expect(encore_create_multipass_counter_config(gpu, list, 2, &multi, nullptr) ==
               ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT,
           "multi-pass config: null passes");
    expect(encore_create_multipass_counter_config(gpu, list, 2, nullptr, &passes) ==
               ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT,
           "multi-pass config: null out");
    expect(encore_create_multipass_counter_config(cpu, list, 2, &multi, &passes) ==
               ROCPROFILER_STATUS_ERROR_AGENT_ARCH_NOT_SUPPORTED,
           "multi-pass config: an agent without a counter source");
    expect(encore_create_multipass_counter_config(unknown, list, 2, &multi, &passes) ==
               ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND,
           "multi-pass config: unknown agent");
    expect(encore_create_multipass_counter_config(gpu, bad, 1, &multi, &passes) ==
               ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND,
           "multi-pass config: unknown counter");
    expect(passes == 0 && multi.handle == 0, "a failed multi-pass create leaves its outputs alone");
    expect(encore_create_multipass_counter_config(gpu, list, 2, &multi, &passes) == ok && multi.handle != 0 && passes == 1,
           "multi-pass config on the software runtime: one pass");
    expect(rocprofiler_destroy_counter_config(multi) == ok, "destroy a multi-pass config");
    expect(rocprofiler_destroy_counter_config(again) == ok, "destroy a config");
    expect(rocprofiler_destroy_counter_config(again) == ROCPROFILER_STATUS_ERROR_PROFILE_NOT_FOUND, "destroy it twice");
    expect(rocprofiler_destroy_counter_config({0}) == ROCPROFILER_STATUS_ERROR_PROFILE_NOT_FOUND, "destroy config 0");
    expect(rocprofiler_destroy_counter_config({1u << 30}) == ROCPROFILER_STATUS_ERROR_PROFILE_NOT_FOUND,
           "destroy an unknown config");
    rocprofiler_counter_config_id_t on_dead = again;
    expect(rocprofiler_create_counter_config(gpu, list, 1, &on_dead) == ROCPROFILER_STATUS_ERROR_PROFILE_NOT_FOUND,
           "config on a destroyed base");
    // The old names compile and work.
    rocprofiler_profile_config_id_t old{0};
    expect(rocprofiler_create_profile_config(gpu, list, 2, &old) == ok && rocprofiler_destroy_profile_config(old) == ok,
           "profile_config: the reference's earlier names");

    // Queries of the services that need hardware: none anywhere.
    size_t configs = 99;
    expect(rocprofiler_query_pc_sampling_agent_configurations(
               gpu,
               [](const rocprofiler_pc_sampling_configuration_t*, size_t n, void* d) {
                   *static_cast<size_t*>(d) = n;
                   return ROCPROFILER_STATUS_SUCCESS;
               },
               &configs) == ok &&
               configs == 0,
           "PC sampling: no configurations");
    expect(rocprofiler_query_pc_sampling_agent_configurations(unknown, nullptr, nullptr) ==
               ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT,
           "PC sampling query: null callback");
    expect(rocprofiler_query_pc_sampling_agent_configurations(
               unknown,
               [](const rocprofiler_pc_sampling_configuration_t*, size_t, void*) { return ROCPROFILER_STATUS_SUCCESS; },
               nullptr) == ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND,
           "PC sampling query: unknown agent");
    expect(std::string(rocprofiler_get_pc_sampling_instruction_type_name(ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_LDS)) ==
               "ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_LDS",
           "instruction type name");
    expect(rocprofiler_get_pc_sampling_instruction_type_name(ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_LAST) == nullptr,
           "instruction type name: LAST is none");
    expect(rocprofiler_get_pc_sampling_instruction_not_issued_reason_name(
               static_cast<rocprofiler_pc_sampling_instruction_not_issued_reason_t>(-1)) == nullptr,
           "not-issued reason name: out of range");
    expect(std::string(rocprofiler_get_pc_sampling_instruction_not_issued_reason_name(
               ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_WAITCNT)) ==
               "ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_WAITCNT",
           "not-issued reason name");
    expect(rocprofiler_spm_iterate_agent_supported_counters(
               gpu,
               [](rocprofiler_agent_id_t, rocprofiler_counter_id_t*, size_t, void*) {
                   return ROCPROFILER_STATUS_SUCCESS;
               },
               nullptr) == ROCPROFILER_STATUS_ERROR_AGENT_ARCH_NOT_SUPPORTED,
           "SPM counters: the agent has none");
    size_t spm_configs = 99;
    expect(rocprofiler_spm_query_agent_configurations(
               gpu,
               [](const rocprofiler_spm_available_configuration_t**, size_t n, void* d) {
                   *static_cast<size_t*>(d) = n;
                   return ROCPROFILER_STATUS_SUCCESS;
               },
               &spm_configs) == ok &&
               spm_configs == 0,
           "SPM: no configurations");
    rocprofiler_spm_parameters_t param{sizeof(param), ROCPROFILER_SPM_PARAMETER_TYPE_SAMPLE_INTERVAL_SCLK_CYCLES, 1200};
    rocprofiler_spm_parameters_t* params[1] = {&param};
    rocprofiler_counter_config_id_t spm_cfg{0};
    expect(rocprofiler_spm_create_counter_config(gpu, list, 1, params, 1, &spm_cfg) ==
               ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED,
           "SPM config: not implemented");
    expect(rocprofiler_spm_create_counter_config(gpu, list, 1, params, 1, nullptr) ==
               ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT,
           "SPM config: null out");
}

int tool_init(rocprofiler_client_finalize_t, void*) {
    ++g_callbacks_in_tool_init;
    if (g_mode == "api") {
        api_checks_at_init();
        return 0;
    }
    int bad = 0;
    bad += rocprofiler_create_context(&g_count_a) != ok;
    bad += rocprofiler_create_context(&g_count_b) != ok;
    if (g_mode == "discard") {
        // Context C alone: the buffered service into a one-page DISCARD buffer that is not
        // delivered before the flush, so most dispatches' records find it full.
        bad += rocprofiler_create_context(&g_count_c) != ok;
        bad += rocprofiler_create_buffer(g_count_c, 4096, 4096, ROCPROFILER_BUFFER_POLICY_DISCARD, &counting_buffer_cb,
                                         nullptr, &g_buffer_c) != ok;
        bad += rocprofiler_configure_buffer_dispatch_counting_service(g_count_c, g_buffer_c, &values_dispatch_cb,
                                                                      nullptr) != ok;
        bad += rocprofiler_start_context(g_count_c) != ok;
        return bad;
    }
    auto* dispatch_cb = g_mode == "values" ? &values_dispatch_cb : &replay_dispatch_cb;
    bad += rocprofiler_configure_callback_dispatch_counting_service(g_count_a, dispatch_cb, nullptr, &record_cb,
                                                                    reinterpret_cast<void*>(uintptr_t{1})) != ok;
    if (g_mode == "values")
        bad += rocprofiler_configure_callback_dispatch_profile_counting_service(
                   g_count_b, &legacy_dispatch_cb, nullptr, &legacy_record_cb, reinterpret_cast<void*>(uintptr_t{2})) !=
               ok;
    else
        bad += rocprofiler_configure_callback_dispatch_counting_service(g_count_b, dispatch_cb, nullptr, &record_cb,
                                                                        reinterpret_cast<void*>(uintptr_t{2})) != ok;
    if (g_mode == "values") {
        // Context C: the same counts into a buffer (records read at the end, after a flush).
        bad += rocprofiler_create_context(&g_count_c) != ok;
        bad += rocprofiler_create_buffer(g_count_c, 1 << 16, 1 << 15, ROCPROFILER_BUFFER_POLICY_LOSSLESS,
                                         &counting_buffer_cb, nullptr, &g_buffer_c) != ok;
        bad += rocprofiler_configure_buffer_dispatch_counting_service(g_count_c, g_buffer_c, &values_dispatch_cb,
                                                                      nullptr) != ok;
        bad += rocprofiler_start_context(g_count_c) != ok;
    }
    if (g_mode == "replay") {
        bad += rocprofiler_create_context(&g_replay) != ok;
        bad += rocprofiler_configure_callback_tracing_service(g_replay, ROCPROFILER_CALLBACK_TRACING_KERNEL_REPLAY,
                                                              nullptr, 0, &replay_cb, nullptr) != ok;
        bad += rocprofiler_start_context(g_replay) != ok;
    }
    bad += rocprofiler_start_context(g_count_a) != ok;
    bad += rocprofiler_start_context(g_count_b) != ok;
    return bad;
}

}  // namespace

ENCORE_TEST_TOOL("test-counters", &tool_init, nullptr)

int main(int argc, char** argv) {
    if (argc < 3) return 2;
    g_mode = argv[2];
    // Before the runtime loaded encore there are no agents: nothing has counters.
    rocprofiler_status_t s{};
    counters_of({1}, &s);
    expect(s == ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND, "before hsa_init: no agent has counters");
    rocprofiler_counter_config_id_t early{0};
    rocprofiler_counter_id_t one[1] = {{1}};
    expect(rocprofiler_create_counter_config({1}, one, 1, &early) == ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND,
           "before hsa_init: no config");

    expect(counter_layout_checked() == 1, "the C headers' layout checks compiled");
    HSA_CHECK(hsa_init());
    expect(g_callbacks_in_tool_init == 1, "the tool was initialized");
    if (g_mode == "api") {
        api_checks_after_init();
        HSA_CHECK(hsa_shut_down());
        return test_support::finish();
    }
    if (g_mode == "discard") {
        // A counting dispatch's header and its values arrive together or not at all (issue 40 item
        // 16: a full DISCARD ring kept a header that announced 5 values and 2 of them).
        constexpr int dispatches = 40;
        {
            hsa_agent_t cpu = example::agents(HSA_DEVICE_TYPE_CPU).at(0);
            hsa_agent_t gpu = example::agents(HSA_DEVICE_TYPE_GPU).at(0);
            example::CodeObject co(argv[1], gpu);
            const uint64_t kernel = co.kernel("vector_add", gpu);
            auto* args = example::alloc_vector_add_args(cpu, gpu, 1u << 16);
            hsa_queue_t* q = nullptr;
            HSA_CHECK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_SINGLE, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &q));
            for (int i = 0; i < dispatches; ++i) {
                hsa_signal_t done{};
                HSA_CHECK(hsa_signal_create(1, 0, nullptr, &done));
                dispatch(q, kernel, args, {4096, 1, 1}, {256, 1, 1}, 1, done);
                example::wait_done(done);
                HSA_CHECK(hsa_signal_destroy(done));
            }
            HSA_CHECK(hsa_queue_destroy(q));
        }
        expect(rocprofiler_flush_buffer(g_buffer_c) == ok, "flush C's buffer");
        HSA_CHECK(hsa_shut_down());
        std::lock_guard lk(g_mutex);
        size_t whole = 0;
        for (const auto& b : g_buffered) whole += b.header.num_records == 5 && b.value_records == 5;
        const size_t kept = g_buffered.size();
        expect(kept > 0 && kept < static_cast<size_t>(dispatches),
               "the full DISCARD buffer kept some dispatches' records: " + std::to_string(kept));
        expect(whole == kept,
               "every header kept came with its 5 values: " + std::to_string(whole) + " of " + std::to_string(kept));
        expect(g_buffered_drops == 6 * (dispatches - kept),
               "the dropped groups counted whole (6 records each): " + std::to_string(g_buffered_drops));
        return test_support::finish();
    }
    const uint32_t wave = 64;  // the software runtime's wavefront (docs/sim.md); checked below
    struct shape {
        rocprofiler_dim3_t grid, wg;
        uint32_t dims;
    };
    std::vector<shape> shapes;
    {
        hsa_agent_t cpu = example::agents(HSA_DEVICE_TYPE_CPU).at(0);
        hsa_agent_t gpu = example::agents(HSA_DEVICE_TYPE_GPU).at(0);
        uint32_t agent_wave = 0;
        HSA_CHECK(hsa_agent_get_info(gpu, HSA_AGENT_INFO_WAVEFRONT_SIZE, &agent_wave));
        expect(agent_wave == wave, "the GPU agent's wavefront is 64");
        example::CodeObject co(argv[1], gpu);
        const uint64_t kernel = co.kernel("vector_add", gpu);
        auto* args = example::alloc_vector_add_args(cpu, gpu, 1u << 16);
        hsa_queue_t* q = nullptr;
        HSA_CHECK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_SINGLE, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &q));
        if (g_mode == "values") {
            shapes = {
                {{4096, 1, 1}, {256, 1, 1}, 1},   // full workgroups of 4 waves
                {{1000, 1, 1}, {64, 1, 1}, 1},    // a partial last workgroup
                {{200, 1, 1}, {96, 1, 1}, 1},     // 96 = 1.5 waves; the partial group of 8 is one wave
                {{100, 1, 1}, {1000, 1, 1}, 1},   // one group smaller than its size
                {{67 * 3, 1, 1}, {67, 1, 1}, 1},  // the samples' 67
                {{30, 17, 1}, {8, 8, 1}, 2},      // partial in x and y
                {{9, 10, 11}, {4, 4, 4}, 3},      // partial in three dimensions
                {{12345, 1, 1}, {64, 1, 1}, 1},   // config 0: not counted
            };
        } else {
            shapes = {
                {{67 * 5 + 10, 1, 1}, {67, 1, 1}, 1},  // replayed, 4 passes, a partial group
                {{64 * 3, 1, 1}, {64, 1, 1}, 1},       // opted out: counted once
                {{67 * 2, 1, 1}, {67, 1, 1}, 1},       // replayed, stops after pass 1
            };
        }
        for (const auto& sh : shapes) {
            hsa_signal_t done{};
            HSA_CHECK(hsa_signal_create(1, 0, nullptr, &done));
            dispatch(q, kernel, args, sh.grid, sh.wg, sh.dims, done);
            example::wait_done(done);
            HSA_CHECK(hsa_signal_destroy(done));
        }
        if (g_mode == "values") {
            // A stopped context counts nothing.
            expect(rocprofiler_stop_context(g_count_b) == ok, "stop B");
            hsa_signal_t done{};
            HSA_CHECK(hsa_signal_create(1, 0, nullptr, &done));
            dispatch(q, kernel, args, {640, 1, 1}, {64, 1, 1}, 1, done);
            example::wait_done(done);
            HSA_CHECK(hsa_signal_destroy(done));
        }
        HSA_CHECK(hsa_queue_destroy(q));
    }
    HSA_CHECK(hsa_shut_down());  // every record delivered
    if (g_mode == "values") expect(rocprofiler_flush_buffer(g_buffer_c) == ok, "flush C's buffer");

    std::lock_guard lk(g_mutex);
    if (g_mode == "values") {
        // C (buffered): one header and five values per counted dispatch, the same values and
        // times as A's records of that dispatch.
        expect(g_buffered.size() == 7 + 1 && g_buffered_drops == 0 && g_buffered_other == 0,
               "buffered: one header per counted dispatch, nothing dropped, nothing else in the buffer: " +
                   std::to_string(g_buffered.size()));
        size_t same = 0;
        for (const auto& b : g_buffered) {
            for (const auto& r : g_records)
                if (r.context == 1 && r.data.dispatch_info.dispatch_id == b.header.dispatch_info.dispatch_id) {
                    same += b.header.size == sizeof(b.header) && b.header.num_records == 5 && b.value_records == 5 &&
                            b.values == r.values && b.header.start_timestamp == r.data.start_timestamp &&
                            b.header.end_timestamp == r.data.end_timestamp &&
                            b.header.correlation_id.internal == r.data.correlation_id.internal;
                    break;
                }
        }
        expect(same == g_buffered.size(), "buffered records equal the callback service's: " + std::to_string(same));
        // 7 counted shapes x 2 contexts, then the last dispatch by A only.
        expect(g_records.size() == 7 * 2 + 1,
               "one record set per counted dispatch and context: " + std::to_string(g_records.size()));
        for (const auto& r : g_records) {
            const auto& info = r.data.dispatch_info;
            const auto e = brute_force(info.grid_size, info.workgroup_size, wave);
            const std::string what = "grid " + std::to_string(info.grid_size.x) + "x" +
                                     std::to_string(info.grid_size.y) + "x" + std::to_string(info.grid_size.z) +
                                     " wg " + std::to_string(info.workgroup_size.x) + "x" +
                                     std::to_string(info.workgroup_size.y) + "x" + std::to_string(info.workgroup_size.z);
            expect(r.values.size() == 5 && r.raw.size() == 5, what + ": five records");
            expect(r.values.count("SQ_WAVES") && r.values.at("SQ_WAVES") == static_cast<double>(e.waves),
                   what + ": SQ_WAVES = " + std::to_string(e.waves));
            expect(r.values.count("SPI_CSN_NUM_THREADGROUPS") &&
                       r.values.at("SPI_CSN_NUM_THREADGROUPS") == static_cast<double>(e.workgroups),
                   what + ": workgroups = " + std::to_string(e.workgroups));
            const double window = static_cast<double>(r.data.end_timestamp - r.data.start_timestamp);
            expect(r.data.end_timestamp > r.data.start_timestamp && r.data.start_timestamp != 0,
                   what + ": the record's times");
            // The software runtime's clock is 1 GHz: ticks are ns, and its timestamps encore's.
            // (Within 2 ns: both go through encore's clock conversion, in doubles.)
            expect(r.values.count("GRBM_GUI_ACTIVE") && std::abs(r.values.at("GRBM_GUI_ACTIVE") - window) <= 2,
                   what + ": GRBM_GUI_ACTIVE is the dispatch's time");
            expect(r.values.count("GRBM_COUNT") && r.values.at("GRBM_COUNT") == r.values.at("GRBM_GUI_ACTIVE"),
                   what + ": GRBM_COUNT over the same window");
            expect(r.values.count("ENCORE_KERNEL_BUSY_NS") && std::abs(r.values.at("ENCORE_KERNEL_BUSY_NS") - window) <= 2,
                   what + ": busy ns");
            expect(r.user_data.value == info.dispatch_id * 7, what + ": the dispatch callback's user_data");
            bool each = true;
            for (const auto& raw : r.raw)
                each = each && raw.dispatch_id == info.dispatch_id && raw.user_data.value == info.dispatch_id * 7 &&
                       raw.agent_id.handle == info.agent_id.handle;
            expect(each, what + ": each record's dispatch, user_data and agent");
            expect(r.data.correlation_id.internal != 0 &&
                       r.data.correlation_id.internal == g_dispatch_corr[info.dispatch_id],
                   what + ": correlation id as at the dispatch callback");
            expect(info.grid_size.x != 12345, "a config of 0 is not counted");
        }
        int a_last = 0, b_last = 0;
        for (const auto& r : g_records)
            if (r.data.dispatch_info.grid_size.x == 640) (r.context == 1 ? a_last : b_last)++;
        expect(a_last == 1 && b_last == 0, "a stopped context counts nothing");
    } else {
        std::map<uint64_t, std::vector<const seen_record*>> by_grid;  // grid x -> A's records
        std::map<uint64_t, std::vector<uint64_t>> b_passes;
        for (const auto& r : g_records) {
            if (r.context == 1) by_grid[r.data.dispatch_info.grid_size.x].push_back(&r);
            if (r.context == 2) b_passes[r.data.dispatch_info.grid_size.x].push_back(r.pass);
        }
        const char* names[4] = {"SQ_WAVES", "SPI_CSN_NUM_THREADGROUPS", "GRBM_COUNT", "GRBM_GUI_ACTIVE"};
        const auto& four = by_grid[67 * 5 + 10];
        expect(four.size() == 4, "4 passes: 4 records for A, got " + std::to_string(four.size()));
        for (size_t i = 0; i < four.size(); ++i) {
            const auto& r = *four[i];
            expect(r.pass == i && r.values.size() == 1 && r.values.count(names[i]) == 1,
                   "pass " + std::to_string(i) + " counted with its own config (" + names[i] + ")");
            expect(r.data.dispatch_info.dispatch_id == four[0]->data.dispatch_info.dispatch_id,
                   "every pass is the same dispatch");
        }
        const auto e = brute_force({67 * 5 + 10, 1, 1}, {67, 1, 1}, wave);
        expect(four.size() == 4 && four[0]->values.count("SQ_WAVES") && four[0]->values.at("SQ_WAVES") == e.waves,
               "pass 0's SQ_WAVES matches the geometry");
        expect(four.size() == 4 && four[1]->values.count("SPI_CSN_NUM_THREADGROUPS") &&
                   four[1]->values.at("SPI_CSN_NUM_THREADGROUPS") == e.workgroups,
               "pass 1's workgroups match the geometry");
        expect(four.size() == 4 && four[3]->values.count("GRBM_GUI_ACTIVE") && four[3]->values.at("GRBM_GUI_ACTIVE") > 0,
               "pass 3's busy time");
        expect(b_passes[67 * 5 + 10] == std::vector<uint64_t>{0, 3}, "B, stopped for passes 1 and 2, counted 0 and 3");
        expect(by_grid[64 * 3].size() == 1, "the opted-out dispatch is counted once");
        const auto& early = by_grid[67 * 2];
        expect(early.size() == 2 && early[0]->pass == 0 && early[1]->pass == 1,
               "an early exit after pass 1 counts passes 0 and 1");
        expect(b_passes[67 * 2] == std::vector<uint64_t>{0}, "B (stopped from pass 1) counted pass 0 of the early exit");
    }
    return test_support::finish();
}
