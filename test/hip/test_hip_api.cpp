// test/hip/test_hip_api.cpp — HIP runtime API tracing against the real libamdhip64.so.5 (no GPU:
// it returns real errors), with libencore-hip preloaded (LD_PRELOAD, as encore-trace does).
//
// The program is its own tool. One scenario per process (argv[1]):
//   api      context A traces every HIP_RUNTIME_API op, B only hipGetDeviceCount and hipMalloc,
//            C HIP_COMPILER_API; checks each call traced once with its argument names/values and
//            its return value by name, results equal to the untraced runtime's, filters,
//            start/stop mid-run, external correlation ids, RUNTIME_INITIALIZATION (HIP)
//   derived  HIP_STREAM / HIP_EVENT / HIP_GRAPH records of stream, event and graph calls (they
//            fail without a GPU: creation records are absent, SET/RECORD/WAIT/LAUNCH reflect
//            what was attempted)
//   nohip    the tool configures only HSA: HIP calls produce no records and return unchanged
//   fake     (ENCORE_HIP_LIBRARY=libencore_test_fake_hip.so, whose calls succeed) the CREATE /
//            DESTROY / EXEC_CREATE / EXEC_DESTROY records and ids of successful calls
#include "../support/check.hpp"
#include "../support/tool_stub.hpp"

#include <encore/domains/hip.hpp>
#include <encore/encore.hpp>
#include <rocprofiler-sdk/hip/compiler_api_id.h>
#include <rocprofiler-sdk/hip/runtime_api_id.h>

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

extern "C" void** __hipRegisterFatBinary(const void* data);
extern "C" void __hipUnregisterFatBinary(void** modules);

namespace {

using encore::domains::hip_compiler;
using encore::domains::hip_runtime;
using test_support::expect;

struct call_record {
    rocprofiler_callback_tracing_kind_t kind;
    int op;
    rocprofiler_callback_phase_t phase;
    std::uint64_t internal, external, ancestor, tid;
    std::string args;    // "name=value;..." (EXIT only, max_deref 1)
    std::string retval;  // by name (EXIT only)
    std::uint64_t stream_id = 0, event_id = 0, queue = 0, source_queue = 0, exec_id = 0, version = 0;
    const void* exec_value = nullptr;  // HIP_GRAPH: the hipGraphExec_t itself
    std::uint64_t start_ts = 0, end_ts = 0;
};

std::mutex g_mutex;
std::vector<call_record> g_a, g_b, g_c, g_d;
encore::context g_ctx_a, g_ctx_b, g_ctx_c, g_ctx_d;
std::string g_scenario;

int collect_arg(rocprofiler_callback_tracing_kind_t, rocprofiler_tracing_operation_t, uint32_t, const void* const,
                int32_t, const char*, const char* name, const char* value, int32_t, void* data) {
    auto* s = static_cast<std::string*>(data);
    *s += name;
    *s += '=';
    *s += value;
    *s += ';';
    return 0;
}

template <class Domain>
void on_api(std::vector<call_record>& out, rocprofiler_callback_tracing_record_t r) {
    call_record c{r.kind,
                  r.operation,
                  r.phase,
                  r.correlation_id.internal,
                  r.correlation_id.external.value,
                  r.correlation_id.ancestor,
                  r.thread_id,
                  {},
                  {}};
    if (r.phase == ROCPROFILER_CALLBACK_PHASE_EXIT) {
        // The C API path for argument strings, the C++ one for the return value.
        if (rocprofiler_iterate_callback_tracing_kind_operation_args(r, &collect_arg, 1, &c.args) !=
            ROCPROFILER_STATUS_SUCCESS)
            c.args = "<iterate failed>";
        encore::api::visit<Domain>(r.operation, [&](auto I) {
            if constexpr (!std::is_void_v<typename Domain::template op_at<I>::return_type>) {
                encore::format_context ctx{c.retval, 1};  // 1: a returned string prints as text
                encore::format_value(ctx, encore::tracing::retval_of<Domain, I>(r.payload));
            }
        });
    }
    std::lock_guard lk(g_mutex);
    out.push_back(std::move(c));
}

void on_event(std::vector<call_record>& out, rocprofiler_callback_tracing_record_t r) {
    call_record c{r.kind,
                  r.operation,
                  r.phase,
                  r.correlation_id.internal,
                  r.correlation_id.external.value,
                  r.correlation_id.ancestor,
                  r.thread_id,
                  {},
                  {}};
    switch (r.kind) {
        case ROCPROFILER_CALLBACK_TRACING_HIP_STREAM: {
            const auto* p = static_cast<const rocprofiler_callback_tracing_hip_stream_data_t*>(r.payload);
            c.stream_id = p->stream_id.handle;
            break;
        }
        case ROCPROFILER_CALLBACK_TRACING_HIP_EVENT: {
            const auto* p = static_cast<const rocprofiler_callback_tracing_hip_event_data_t*>(r.payload);
            c.event_id = p->event_id;
            c.queue = p->queue_id.handle;
            c.source_queue = p->source_queue_id.handle;
            c.start_ts = p->start_timestamp;
            c.end_ts = p->end_timestamp;
            break;
        }
        case ROCPROFILER_CALLBACK_TRACING_HIP_GRAPH: {
            const auto* p = static_cast<const rocprofiler_callback_tracing_hip_graph_data_t*>(r.payload);
            c.exec_id = p->graph_exec_id.handle;
            c.exec_value = p->graph_exec_value.ptr;
            break;
        }
        case ROCPROFILER_CALLBACK_TRACING_RUNTIME_INITIALIZATION: {
            const auto* p = static_cast<const rocprofiler_callback_tracing_runtime_initialization_data_t*>(r.payload);
            c.version = p->version;
            break;
        }
        case ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API: on_api<hip_runtime>(out, r); return;
        default: break;
    }
    std::lock_guard lk(g_mutex);
    out.push_back(std::move(c));
}

int tool_init(rocprofiler_client_finalize_t, void*) {
    using encore::context;
    if (g_scenario == "api") {
        for (auto* c : {&g_ctx_a, &g_ctx_b, &g_ctx_c, &g_ctx_d})
            if (context::create(*c) != ROCPROFILER_STATUS_SUCCESS) return 1;
        int bad = 0;
        bad += g_ctx_a.trace<hip_runtime>([](rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*,
                                             void*) { on_api<hip_runtime>(g_a, r); },
                                          nullptr) != ROCPROFILER_STATUS_SUCCESS;
        bad += g_ctx_b.trace<hip_runtime>([](rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*,
                                             void*) { on_api<hip_runtime>(g_b, r); },
                                          nullptr, encore::ops<hip_runtime, "hipGetDeviceCount", "hipMalloc">()) !=
               ROCPROFILER_STATUS_SUCCESS;
        bad += g_ctx_c.trace<hip_compiler>([](rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*,
                                              void*) { on_api<hip_compiler>(g_c, r); },
                                           nullptr) != ROCPROFILER_STATUS_SUCCESS;
        bad += rocprofiler_configure_callback_tracing_service(
                   g_ctx_d.id(), ROCPROFILER_CALLBACK_TRACING_RUNTIME_INITIALIZATION, nullptr, 0,
                   [](rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) { on_event(g_d, r); },
                   nullptr) != ROCPROFILER_STATUS_SUCCESS;
        // Bad input to the HIP kinds: an op id past the kind, a repeat.
        const rocprofiler_tracing_operation_t past_end = ROCPROFILER_HIP_COMPILER_API_ID_LAST;
        bad += rocprofiler_configure_callback_tracing_service(
                   g_ctx_d.id(), ROCPROFILER_CALLBACK_TRACING_HIP_COMPILER_API, &past_end, 1,
                   [](rocprofiler_callback_tracing_record_t, rocprofiler_user_data_t*, void*) {},
                   nullptr) != ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND;
        bad += g_ctx_c.trace<hip_compiler>([](rocprofiler_callback_tracing_record_t, rocprofiler_user_data_t*, void*) {},
                                           nullptr) != ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED;
        if (bad != 0) return 1;
        for (auto* c : {&g_ctx_a, &g_ctx_b, &g_ctx_c, &g_ctx_d})
            if (c->start() != ROCPROFILER_STATUS_SUCCESS) return 1;
        return 0;
    }
    if (g_scenario == "derived" || g_scenario == "fake") {
        if (context::create(g_ctx_a) != ROCPROFILER_STATUS_SUCCESS) return 1;
        auto cb = [](rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) { on_event(g_a, r); };
        for (auto k : {ROCPROFILER_CALLBACK_TRACING_HIP_STREAM, ROCPROFILER_CALLBACK_TRACING_HIP_EVENT,
                       ROCPROFILER_CALLBACK_TRACING_HIP_GRAPH, ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API})
            if (rocprofiler_configure_callback_tracing_service(g_ctx_a.id(), k, nullptr, 0, cb, nullptr) !=
                ROCPROFILER_STATUS_SUCCESS)
                return 1;
        return g_ctx_a.start() == ROCPROFILER_STATUS_SUCCESS ? 0 : 1;
    }
    // nohip: HSA only.
    if (context::create(g_ctx_a) != ROCPROFILER_STATUS_SUCCESS) return 1;
    if (rocprofiler_configure_callback_tracing_service(
            g_ctx_a.id(), ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API, nullptr, 0,
            [](rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) { on_event(g_a, r); },
            nullptr) != ROCPROFILER_STATUS_SUCCESS)
        return 1;
    return g_ctx_a.start() == ROCPROFILER_STATUS_SUCCESS ? 0 : 1;
}

// The real runtime's functions, called directly (untraced) to compare results.
template <class F>
F real(const char* name) {
    static void* h = ::dlopen("libamdhip64.so.5", RTLD_NOW | RTLD_NOLOAD);
    void* p = h != nullptr ? ::dlsym(h, name) : nullptr;
    F f = nullptr;
    std::memcpy(&f, &p, sizeof(f));
    return f;
}

std::vector<call_record> of(const std::vector<call_record>& v, int op, rocprofiler_callback_phase_t phase,
                            rocprofiler_callback_tracing_kind_t k = ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API) {
    std::lock_guard lk(g_mutex);
    std::vector<call_record> out;
    for (const auto& c : v)
        if (c.kind == k && c.op == op && c.phase == phase) out.push_back(c);
    return out;
}

std::size_t size_of(const std::vector<call_record>& v) {
    std::lock_guard lk(g_mutex);
    return v.size();
}

constexpr auto ENTER = ROCPROFILER_CALLBACK_PHASE_ENTER;
constexpr auto EXIT = ROCPROFILER_CALLBACK_PHASE_EXIT;
constexpr auto NONE = ROCPROFILER_CALLBACK_PHASE_NONE;

void scenario_api() {
    // The first HIP call initializes encore (this tool's init runs inside it) and is traced.
    int count = -1;
    const hipError_t e_count = hipGetDeviceCount(&count);
    int real_count = -1;
    expect(e_count == real<hipError_t (*)(int*)>("hipGetDeviceCount")(&real_count) && count == real_count,
           "hipGetDeviceCount: same result as the untraced runtime");
    expect(e_count == hipErrorNoDevice, "no GPU here: hipErrorNoDevice");
    {
        const auto x = of(g_a, ROCPROFILER_HIP_RUNTIME_API_ID_hipGetDeviceCount, EXIT);
        expect(x.size() == 1, "the first HIP call is traced once");
        expect(!x.empty() && x[0].retval == "hipErrorNoDevice",
               "return value by name at EXIT: " + (x.empty() ? "" : x[0].retval));
        expect(!x.empty() && x[0].args == "count=" + std::to_string(count) + ";",
               "argument name and dereferenced value: " + (x.empty() ? "" : x[0].args));
        expect(!x.empty() && x[0].ancestor == 0 && x[0].internal != 0, "top-level call: internal id, no ancestor");
    }
    expect(of(g_d, ROCPROFILER_RUNTIME_INITIALIZATION_HIP, NONE, ROCPROFILER_CALLBACK_TRACING_RUNTIME_INITIALIZATION)
                   .size() == 1,
           "one RUNTIME_INITIALIZATION (HIP) record");
    {
        int rv = 0;
        (void)real<hipError_t (*)(int*)>("hipRuntimeGetVersion")(&rv);
        const auto ri = of(g_d, ROCPROFILER_RUNTIME_INITIALIZATION_HIP, NONE,
                           ROCPROFILER_CALLBACK_TRACING_RUNTIME_INITIALIZATION);
        expect(!ri.empty() && ri[0].version == static_cast<std::uint64_t>(rv) && rv > 0,
               "it carries the runtime's version");
    }

    // A batch of calls: each traced exactly once (internal calls of the runtime are not seen).
    const std::size_t before = size_of(g_a);
    int v1 = 0, v2 = 0, r1 = 0, r2 = 0;
    expect(hipDriverGetVersion(&v1) == real<hipError_t (*)(int*)>("hipDriverGetVersion")(&r1) && v1 == r1,
           "hipDriverGetVersion unchanged");
    expect(hipRuntimeGetVersion(&v2) == real<hipError_t (*)(int*)>("hipRuntimeGetVersion")(&r2) && v2 == r2,
           "hipRuntimeGetVersion unchanged");
    void* ptr = reinterpret_cast<void*>(0x1);
    const hipError_t e_malloc = hipMalloc(&ptr, 16);
    void* rptr = nullptr;
    expect(e_malloc == real<hipError_t (*)(void**, size_t)>("hipMalloc")(&rptr, 16), "hipMalloc: same error as untraced");
    const char* s1 = hipGetErrorString(hipErrorNoDevice);
    expect(s1 == real<const char* (*)(hipError_t)>("hipGetErrorString")(hipErrorNoDevice),
           "hipGetErrorString: same pointer");
    const char* n1 = hipGetErrorName(e_malloc);
    hipStream_t stream = nullptr;
    const hipError_t e_stream = hipStreamCreate(&stream);
    const hipError_t e_sdestroy = hipStreamDestroy(stream);
    const hipError_t e_null_count = hipGetDeviceCount(nullptr);  // a null out-pointer, passed through
    constexpr std::size_t calls = 8;
    expect(size_of(g_a) == before + 2 * calls,
           "8 calls, 8 ENTER + 8 EXIT records in context A (got " + std::to_string(size_of(g_a) - before) + ")");
    {
        const auto m = of(g_a, ROCPROFILER_HIP_RUNTIME_API_ID_hipMalloc, EXIT);
        expect(m.size() == 1 && m[0].args.find("size=16;") != std::string::npos && m[0].args.rfind("ptr=", 0) == 0,
               "hipMalloc args: " + (m.empty() ? "" : m[0].args));
        const char* name = nullptr;
        for (const auto& [v, n] : encore::api::enum_names<hipError_t>::values)
            if (v == e_malloc) {
                name = n;
                break;
            }
        expect(m.size() == 1 && name != nullptr && m[0].retval == name,
               "hipMalloc EXIT carries " + std::string(name ? name : "?"));
        const auto g = of(g_a, ROCPROFILER_HIP_RUNTIME_API_ID_hipGetErrorString, EXIT);
        expect(g.size() == 1 && g[0].args == "hipError=hipErrorNoDevice;" && g[0].retval == "\"" + std::string(s1) + "\"",
               "hipGetErrorString: enum argument and string result by value: " +
                   (g.empty() ? "" : g[0].args + " -> " + g[0].retval));
        const auto gn = of(g_a, ROCPROFILER_HIP_RUNTIME_API_ID_hipGetErrorName, EXIT);
        expect(gn.size() == 1 && gn[0].retval == "\"" + std::string(n1) + "\"", "hipGetErrorName traced");
        const auto sc = of(g_a, ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamCreate, EXIT);
        expect(sc.size() == 1 && e_stream != hipSuccess, "hipStreamCreate traced and fails without a GPU");
        const auto sd = of(g_a, ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamDestroy, EXIT);
        expect(sd.size() == 1 && sd[0].args == "stream=(null);" && e_sdestroy != hipSuccess,
               "hipStreamDestroy(null) traced: " + (sd.empty() ? "" : sd[0].args));
        const auto nc = of(g_a, ROCPROFILER_HIP_RUNTIME_API_ID_hipGetDeviceCount, EXIT);
        expect(nc.size() == 2 && nc[1].args == "count=(null);" && e_null_count == hipErrorInvalidValue,
               "a null out-pointer prints (null) and the runtime's error passes through");
    }
    // Filter: context B sees only hipGetDeviceCount and hipMalloc.
    {
        std::lock_guard lk(g_mutex);
        bool only = true;
        for (const auto& c : g_b)
            only = only && (c.op == ROCPROFILER_HIP_RUNTIME_API_ID_hipGetDeviceCount ||
                            c.op == ROCPROFILER_HIP_RUNTIME_API_ID_hipMalloc);
        expect(only && g_b.size() == 2 * 3, "context B's filter: 2 hipGetDeviceCount + 1 hipMalloc, ENTER+EXIT each");
    }
    // ENTER/EXIT pairing and correlation: each EXIT's internal id has exactly one ENTER.
    {
        std::lock_guard lk(g_mutex);
        std::map<std::uint64_t, int> n;
        for (const auto& c : g_a) n[c.internal] += c.phase == ENTER ? 1 : 10;
        bool paired = true;
        for (auto& [id, k] : n) paired = paired && k == 11;
        expect(paired, "every call has one ENTER and one EXIT with the same internal id");
    }
    // External correlation ids: pushed for this thread, seen by A's next call.
    rocprofiler_thread_id_t tid = 0;
    rocprofiler_get_thread_id(&tid);
    expect(g_ctx_a.push_external_correlation_id(tid, {.value = 4242}) == ROCPROFILER_STATUS_SUCCESS, "push external id");
    (void)hipGetLastError();
    {
        const auto x = of(g_a, ROCPROFILER_HIP_RUNTIME_API_ID_hipGetLastError, EXIT);
        expect(x.size() == 1 && x[0].external == 4242, "external correlation id in the HIP record");
    }
    rocprofiler_user_data_t popped{};
    expect(g_ctx_a.pop_external_correlation_id(tid, &popped) == ROCPROFILER_STATUS_SUCCESS && popped.value == 4242,
           "pop");

    // Stop B mid-run, then restart it.
    expect(g_ctx_b.stop() == ROCPROFILER_STATUS_SUCCESS, "stop B");
    const std::size_t b_before = size_of(g_b), a_before = size_of(g_a);
    (void)hipGetDeviceCount(&count);
    expect(size_of(g_b) == b_before && size_of(g_a) == a_before + 2, "stopped B sees nothing, A still traces");
    expect(g_ctx_b.start() == ROCPROFILER_STATUS_SUCCESS, "restart B");
    (void)hipGetDeviceCount(&count);
    expect(size_of(g_b) == b_before + 2, "restarted B sees calls again");

    const char* name = nullptr;
    expect(rocprofiler_query_callback_tracing_kind_operation_name(ROCPROFILER_CALLBACK_TRACING_HIP_COMPILER_API,
                                                                  ROCPROFILER_HIP_COMPILER_API_ID___hipRegisterFatBinary,
                                                                  &name, nullptr) == ROCPROFILER_STATUS_SUCCESS &&
               std::string(name) == "__hipRegisterFatBinary",
           "HIP_COMPILER_API op names by id");

    // HIP_COMPILER_API: what a module constructor and a <<<>>> launch call.
    struct {
        unsigned magic, version;
        const void *binary, *unused;
    } fatbin{0x48495046u, 1, nullptr, nullptr};  // "HIPF", no code objects
    void** modules = __hipRegisterFatBinary(&fatbin);
    expect(modules != nullptr, "__hipRegisterFatBinary returns a module list");
    __hipUnregisterFatBinary(modules);
    dim3 grid(2, 1, 1), block(64, 1, 1);
    const hipError_t push = __hipPushCallConfiguration(grid, block, 0, nullptr);
    expect(push == real<hipError_t (*)(dim3, dim3, size_t, hipStream_t)>("__hipPushCallConfiguration")(grid, block, 0,
                                                                                                       nullptr),
           "__hipPushCallConfiguration: same status as untraced");
    {
        const auto f = of(g_c, ROCPROFILER_HIP_COMPILER_API_ID___hipRegisterFatBinary, EXIT,
                          ROCPROFILER_CALLBACK_TRACING_HIP_COMPILER_API);
        const auto u = of(g_c, ROCPROFILER_HIP_COMPILER_API_ID___hipUnregisterFatBinary, EXIT,
                          ROCPROFILER_CALLBACK_TRACING_HIP_COMPILER_API);
        const auto p = of(g_c, ROCPROFILER_HIP_COMPILER_API_ID___hipPushCallConfiguration, EXIT,
                          ROCPROFILER_CALLBACK_TRACING_HIP_COMPILER_API);
        expect(f.size() == 1 && u.size() == 1, "fat binary register/unregister traced as HIP_COMPILER_API");
        expect(p.size() == 1 && p[0].args.find("gridDim={x=2, y=1, z=1}") != std::string::npos,
               "push configuration args: " + (p.empty() ? "" : p[0].args));
        expect(of(g_a, ROCPROFILER_HIP_RUNTIME_API_ID___hipPushCallConfiguration, EXIT).empty(),
               "__hipPushCallConfiguration is not also a HIP_RUNTIME_API record");
    }
}

void scenario_derived() {
    hipStream_t s = nullptr;
    const hipError_t e_create = hipStreamCreate(&s);
    expect(e_create != hipSuccess, "hipStreamCreate fails without a GPU");
    expect(of(g_a, ROCPROFILER_HIP_STREAM_CREATE, NONE, ROCPROFILER_CALLBACK_TRACING_HIP_STREAM).empty(),
           "no CREATE record for a stream that was not created");
    // A call on a (bogus, never created) stream: SET around it, with the stream's id.
    auto* bogus = reinterpret_cast<hipStream_t>(0x1000);
    (void)hipStreamQuery(bogus);
    const auto set_enter = of(g_a, ROCPROFILER_HIP_STREAM_SET, ENTER, ROCPROFILER_CALLBACK_TRACING_HIP_STREAM);
    const auto set_exit = of(g_a, ROCPROFILER_HIP_STREAM_SET, EXIT, ROCPROFILER_CALLBACK_TRACING_HIP_STREAM);
    expect(set_enter.size() == 1 && set_exit.size() == 1 && set_enter[0].stream_id == 1 && set_exit[0].stream_id == 1,
           "hipStreamQuery: SET ENTER/EXIT, stream id 1 (first seen)");
    const auto q = of(g_a, ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamQuery, ENTER);
    expect(q.size() == 1 && !set_enter.empty() && set_enter[0].internal == q[0].internal,
           "the SET record carries the enclosing HIP call's correlation id");
    (void)hipDeviceSynchronize();  // no stream argument: no SET
    expect(of(g_a, ROCPROFILER_HIP_STREAM_SET, ENTER, ROCPROFILER_CALLBACK_TRACING_HIP_STREAM).size() == 1,
           "no SET without a stream");
    (void)hipStreamSynchronize(nullptr);
    const auto null_set = of(g_a, ROCPROFILER_HIP_STREAM_SET, ENTER, ROCPROFILER_CALLBACK_TRACING_HIP_STREAM);
    expect(null_set.size() == 2 && null_set[1].stream_id == 0, "the null stream is id 0");
    expect(hipStreamDestroy(bogus) != hipSuccess, "destroying a bogus stream fails");
    expect(of(g_a, ROCPROFILER_HIP_STREAM_DESTROY, NONE, ROCPROFILER_CALLBACK_TRACING_HIP_STREAM).empty(),
           "no DESTROY record for a failed destroy");

    // Events: RECORD on a stream, WAIT on another.
    auto* ev = reinterpret_cast<hipEvent_t>(0x2000);
    auto* other = reinterpret_cast<hipStream_t>(0x3000);
    const hipError_t e_record = hipEventRecord(ev, bogus);
    expect(e_record != hipSuccess &&
               e_record == real<hipError_t (*)(hipEvent_t, hipStream_t)>("hipEventRecord")(ev, bogus),
           "hipEventRecord fails without a GPU, with the runtime's own error");
    (void)hipStreamWaitEvent(other, ev, 0);
    const auto rec = of(g_a, ROCPROFILER_HIP_EVENT_RECORD, ENTER, ROCPROFILER_CALLBACK_TRACING_HIP_EVENT);
    const auto rec_exit = of(g_a, ROCPROFILER_HIP_EVENT_RECORD, EXIT, ROCPROFILER_CALLBACK_TRACING_HIP_EVENT);
    const auto wait = of(g_a, ROCPROFILER_HIP_EVENT_WAIT, ENTER, ROCPROFILER_CALLBACK_TRACING_HIP_EVENT);
    expect(rec.size() == 1 && rec_exit.size() == 1 && rec[0].event_id == 1 && rec[0].queue == 1 &&
               rec[0].source_queue == 1,
           "RECORD: event 1 on stream 1, source = queue");
    expect(wait.size() == 1 && wait[0].event_id == 1 && wait[0].queue == 2 && wait[0].source_queue == 0,
           "WAIT: event 1 on stream 2; the record failed, so its source is unknown (0)");
    (void)hipDeviceSynchronize();
    expect(of(g_a, ROCPROFILER_HIP_EVENT_RECORD, NONE, ROCPROFILER_CALLBACK_TRACING_HIP_EVENT).empty() &&
               rec.size() == 1 && rec_exit.size() == 1 && rec[0].start_ts == 0 && rec_exit[0].end_ts == 0,
           "a failed record: no completion (NONE) record, zero timestamps in ENTER/EXIT");

    // Graphs: instantiate fails (no EXEC_CREATE), launch is traced ENTER/EXIT, destroy fails.
    hipGraphExec_t exec = nullptr;
    expect(hipGraphInstantiate(&exec, nullptr, nullptr, nullptr, 0) != hipSuccess, "hipGraphInstantiate fails");
    expect(of(g_a, ROCPROFILER_HIP_GRAPH_EXEC_CREATE, NONE, ROCPROFILER_CALLBACK_TRACING_HIP_GRAPH).empty(),
           "no EXEC_CREATE");
    auto* bogus_exec = reinterpret_cast<hipGraphExec_t>(0x4000);
    (void)hipGraphLaunch(bogus_exec, nullptr);
    const auto l_in = of(g_a, ROCPROFILER_HIP_GRAPH_EXEC_LAUNCH, ENTER, ROCPROFILER_CALLBACK_TRACING_HIP_GRAPH);
    const auto l_out = of(g_a, ROCPROFILER_HIP_GRAPH_EXEC_LAUNCH, EXIT, ROCPROFILER_CALLBACK_TRACING_HIP_GRAPH);
    expect(l_in.size() == 1 && l_out.size() == 1 && l_in[0].exec_id == 1 && l_in[0].exec_value == bogus_exec,
           "EXEC_LAUNCH ENTER/EXIT with graph exec id 1 and the exec passed");
    expect(hipGraphExecDestroy(bogus_exec) != hipSuccess, "destroying a bogus exec fails");
    expect(of(g_a, ROCPROFILER_HIP_GRAPH_EXEC_DESTROY, NONE, ROCPROFILER_CALLBACK_TRACING_HIP_GRAPH).empty(),
           "no EXEC_DESTROY");
}

// The knobs of the stand-in runtime (fake_hip.cpp).
template <class F>
F fake_knob(const char* name) {
    static void* h = ::dlopen(std::getenv("ENCORE_HIP_LIBRARY"), RTLD_NOW | RTLD_NOLOAD);
    void* p = h != nullptr ? ::dlsym(h, name) : nullptr;
    F f = nullptr;
    std::memcpy(&f, &p, sizeof(f));
    return f;
}

std::size_t index_of(const std::vector<call_record>& v, int kind, int op, rocprofiler_callback_phase_t phase,
                     std::size_t nth = 0) {
    std::lock_guard lk(g_mutex);
    for (std::size_t i = 0; i < v.size(); ++i)
        if (v[i].kind == kind && v[i].op == op && v[i].phase == phase && nth-- == 0) return i;
    return static_cast<std::size_t>(-1);
}

// HIP_EVENT RECORD's completion record (phase NONE) on the stand-in runtime, whose stream
// callbacks run on a thread of their own when the stream is synchronized.
void check_event_completion(hipStream_t s1, hipStream_t s2, hipEvent_t ev) {
    constexpr auto EV = ROCPROFILER_CALLBACK_TRACING_HIP_EVENT;
    auto fail_add = fake_knob<void (*)(int)>("encore_test_fake_hip_fail_add_callback");
    auto status = fake_knob<void (*)(int)>("encore_test_fake_hip_callback_status");
    expect(fail_add != nullptr && status != nullptr, "the stand-in's knobs");
    if (fail_add == nullptr || status == nullptr) return;
    expect(of(g_a, ROCPROFILER_HIP_EVENT_RECORD, NONE, EV).empty(), "no completion record before the stream gets there");
    expect(hipStreamSynchronize(s1) == hipSuccess, "synchronize the recording stream");
    const auto done = of(g_a, ROCPROFILER_HIP_EVENT_RECORD, NONE, EV);
    const auto rec_in = of(g_a, ROCPROFILER_HIP_EVENT_RECORD, ENTER, EV);
    const auto rec_out = of(g_a, ROCPROFILER_HIP_EVENT_RECORD, EXIT, EV);
    const auto api = of(g_a, ROCPROFILER_HIP_RUNTIME_API_ID_hipEventRecord, EXIT);
    expect(done.size() == 1, "one completion record for the successful record (got " + std::to_string(done.size()) + ")");
    if (done.size() != 1 || rec_in.empty() || rec_out.empty() || api.empty()) return;
    expect(done[0].event_id == rec_in[0].event_id && done[0].queue == 1 && done[0].source_queue == 1,
           "completion: the event's id, queue = source queue = the recording stream's id");
    expect(done[0].start_ts != 0 && done[0].end_ts >= done[0].start_ts,
           "completion timestamps: non-zero start, end >= start (" + std::to_string(done[0].start_ts) + ", " +
               std::to_string(done[0].end_ts) + ")");
    expect(rec_in[0].start_ts == 0 && rec_in[0].end_ts == 0 && rec_out[0].start_ts == 0 && rec_out[0].end_ts == 0,
           "ENTER/EXIT carry zero timestamps");
    expect(done[0].internal == api[0].internal && done[0].internal == rec_in[0].internal,
           "completion carries the hipEventRecord call's correlation id");
    expect(done[0].tid == rec_in[0].tid, "and the recording thread's id (it arrives on the runtime's thread)");
    expect(index_of(g_a, EV, ROCPROFILER_HIP_EVENT_RECORD, NONE) > index_of(g_a, EV, ROCPROFILER_HIP_EVENT_RECORD, EXIT),
           "completion comes after RECORD's EXIT");
    (void)hipStreamSynchronize(s1);
    expect(of(g_a, ROCPROFILER_HIP_EVENT_RECORD, NONE, EV).size() == 1, "once per record");

    // The runtime refuses the callback: the record succeeds, no completion record.
    fail_add(1);
    expect(hipEventRecord(ev, s2) == hipSuccess, "record while the stand-in refuses callbacks");
    fail_add(0);
    (void)hipStreamSynchronize(s2);
    expect(of(g_a, ROCPROFILER_HIP_EVENT_RECORD, NONE, EV).size() == 1, "refused callback: no completion record");
    // The stream fails before the event: the callback runs with an error, no completion record.
    status(hipErrorLaunchFailure);
    expect(hipEventRecord(ev, s2) == hipSuccess, "record on a stream that will fail");
    (void)hipStreamSynchronize(s2);
    status(hipSuccess);
    expect(of(g_a, ROCPROFILER_HIP_EVENT_RECORD, NONE, EV).size() == 1, "failed stream: no completion record");
    // The null stream, and two records pending at once.
    expect(hipEventRecord(ev, nullptr) == hipSuccess && hipEventRecord(ev, s2) == hipSuccess, "two more records");
    (void)hipDeviceSynchronize();
    const auto more = of(g_a, ROCPROFILER_HIP_EVENT_RECORD, NONE, EV);
    expect(more.size() == 3 && more[1].queue == 0 && more[1].source_queue == 0 && more[2].queue == 2 &&
               more[1].internal != more[2].internal,
           "completion records of the null stream (queue 0) and stream 2, each with its own call's id");
}

void scenario_fake() {
    hipStream_t s1 = nullptr, s2 = nullptr;
    expect(hipStreamCreate(&s1) == hipSuccess && hipStreamCreate(&s2) == hipSuccess && s1 != s2,
           "the stand-in creates streams");
    const auto created = of(g_a, ROCPROFILER_HIP_STREAM_CREATE, NONE, ROCPROFILER_CALLBACK_TRACING_HIP_STREAM);
    expect(created.size() == 2 && created[0].stream_id == 1 && created[1].stream_id == 2, "CREATE records, ids 1 and 2");
    const auto api = of(g_a, ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamCreate, EXIT);
    expect(api.size() == 2 && !created.empty() && created[0].internal == api[0].internal,
           "CREATE carries the hipStreamCreate call's correlation id");
    (void)hipStreamQuery(s2);
    const auto set = of(g_a, ROCPROFILER_HIP_STREAM_SET, ENTER, ROCPROFILER_CALLBACK_TRACING_HIP_STREAM);
    expect(set.size() == 1 && set[0].stream_id == 2, "SET names the created stream's id");
    auto* ev = reinterpret_cast<hipEvent_t>(0x777);
    expect(hipEventRecord(ev, s1) == hipSuccess && hipStreamWaitEvent(s2, ev, 0) == hipSuccess,
           "record and wait succeed");
    const auto wait = of(g_a, ROCPROFILER_HIP_EVENT_WAIT, ENTER, ROCPROFILER_CALLBACK_TRACING_HIP_EVENT);
    expect(wait.size() == 1 && wait[0].queue == 2 && wait[0].source_queue == 1,
           "WAIT on stream 2 for an event recorded on stream 1");
    check_event_completion(s1, s2, ev);
    expect(hipStreamDestroy(s1) == hipSuccess, "destroy");
    const auto destroyed = of(g_a, ROCPROFILER_HIP_STREAM_DESTROY, NONE, ROCPROFILER_CALLBACK_TRACING_HIP_STREAM);
    expect(destroyed.size() == 1 && destroyed[0].stream_id == 1, "DESTROY record with the stream's id");
    hipGraphExec_t e1 = nullptr;
    expect(hipGraphInstantiate(&e1, nullptr, nullptr, nullptr, 0) == hipSuccess, "instantiate");
    (void)hipGraphLaunch(e1, s2);
    expect(hipGraphExecDestroy(e1) == hipSuccess, "exec destroy");
    const auto ec = of(g_a, ROCPROFILER_HIP_GRAPH_EXEC_CREATE, NONE, ROCPROFILER_CALLBACK_TRACING_HIP_GRAPH);
    const auto el = of(g_a, ROCPROFILER_HIP_GRAPH_EXEC_LAUNCH, EXIT, ROCPROFILER_CALLBACK_TRACING_HIP_GRAPH);
    const auto ed = of(g_a, ROCPROFILER_HIP_GRAPH_EXEC_DESTROY, NONE, ROCPROFILER_CALLBACK_TRACING_HIP_GRAPH);
    expect(ec.size() == 1 && el.size() == 1 && ed.size() == 1 && ec[0].exec_id == 1 && el[0].exec_id == 1 &&
               ed[0].exec_id == 1,
           "EXEC_CREATE / EXEC_LAUNCH / EXEC_DESTROY with one graph exec id");
    // Proton maps graph_exec_value (the hipGraphExec_t) to graph_exec_id at EXEC_CREATE.
    expect(e1 != nullptr && ec.size() == 1 && el.size() == 1 && ed.size() == 1 && ec[0].exec_value == e1 &&
               el[0].exec_value == e1 && ed[0].exec_value == e1,
           "every HIP_GRAPH record carries the exec itself in graph_exec_value");
    // A function the stand-in lacks: a clear error, not a crash.
    int n = 0;
    expect(hipGetDeviceCount(&n) == hipErrorSharedObjectSymbolNotFound,
           "missing function: hipErrorSharedObjectSymbolNotFound");
}

void scenario_nohip() {
    int count = -1, real_count = -2;
    const hipError_t e = hipGetDeviceCount(&count);
    expect(e == real<hipError_t (*)(int*)>("hipGetDeviceCount")(&real_count) && count == real_count, "unchanged result");
    hipStream_t s = nullptr;
    (void)hipStreamCreate(&s);
    (void)hipStreamQuery(reinterpret_cast<hipStream_t>(0x1000));
    expect(size_of(g_a) == 0, "no records: nothing HIP was configured");
    // HIP kinds can be configured in this process (libencore-hip is loaded) but were not.
    rocprofiler_context_id_t late{};
    expect(rocprofiler_create_context(&late) == ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED, "configuration is locked");
}

}  // namespace

ENCORE_TEST_TOOL("test-hip-api", &tool_init, nullptr)

int main(int argc, char** argv) {
    g_scenario = argc > 1 ? argv[1] : "api";
    if (g_scenario == "api")
        scenario_api();
    else if (g_scenario == "derived")
        scenario_derived();
    else if (g_scenario == "nohip")
        scenario_nohip();
    else if (g_scenario == "fake")
        scenario_fake();
    else {
        std::fprintf(stderr, "unknown scenario %s\n", g_scenario.c_str());
        return 2;
    }
    return test_support::finish();
}
