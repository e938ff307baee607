// test/libs/test_rccl.cpp — RCCL_API through libencore-rccl, against the fake NCCL of the suite
// (fake_nccl.cpp, built as libnccl.so.2: no NCCL or RCCL package exists here). The program is
// its own tool and calls NCCL as a framework does. One scenario per process (argv[1]):
//   preload   LD_PRELOAD=libencore-rccl.so:<fake>/libnccl.so.2 (the real library after encore in
//             the search order): all-reduce, broadcast, a group, communicator init/destroy,
//             version, error strings, then every function of the API once; each call traced
//             exactly once (ENTER and EXIT, one correlation id), arguments by name and value,
//             return values, the fake's results and out-parameters unchanged, the fake called
//             with exactly the program's arguments; an operation filter; RUNTIME_INITIALIZATION
//             (RCCL) with the library's version; ncclBcast (not an RCCL_API function) untraced;
//             RCCL_API buffer records, one per call
//   local     the fake dlopen'ed RTLD_LOCAL by path (as PyTorch loads libnccl.so.2 from its
//             package folder): RTLD_NEXT cannot see it, encore finds it by soname
//   env       ENCORE_RCCL_LIBRARY=<fake>: that library, nothing preloaded
//   missing   ENCORE_RCCL_LIBRARY=<no such file>: every call fails with ncclSystemError, a
//             string function returns encore's text, nothing crashes, one warning per function
//   self      ENCORE_RCCL_LIBRARY=<libencore-rccl itself>: the same as missing (it forwarded every
//             call to itself: a crash with a tool, an endless loop without)
//   untraced  the tool configures no RCCL kind: results unchanged, no records
//   queries   the C API's names and argument iteration of RCCL_API (no call made)
#include "../support/check.hpp"
#include "../support/tool_stub.hpp"
#include "buffered_api.hpp"
#include "fake_log.hpp"

#include <encore/domains/rccl.hpp>
#include <encore/encore.hpp>
#include <rocprofiler-sdk/callback_tracing.h>
#include <rocprofiler-sdk/rccl.h>
#include <rocprofiler-sdk/registration.h>

#include <dlfcn.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

extern "C" const char* encore_test_fake_nccl_log();
extern "C" void encore_test_fake_nccl_reset();

namespace {

using encore::domains::rccl;
using test_support::expect;

struct rec {
    int op;
    rocprofiler_callback_phase_t phase;
    std::uint64_t internal, ancestor;
    std::string args;  // "name=value;..." (max_deref 0)
    std::int32_t ret = 0;
    const char* str = nullptr;
    std::size_t count_field = 0;  // args.ncclAllReduce.count, read through the C union
};

std::mutex g_mutex;
std::vector<rec> g_all, g_filtered;
std::vector<std::uint64_t> g_init_versions;
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

void on_rccl(std::vector<rec>& out, rocprofiler_callback_tracing_record_t r) {
    rec c{r.operation, r.phase, r.correlation_id.internal, r.correlation_id.ancestor, {}};
    if (rocprofiler_iterate_callback_tracing_kind_operation_args(r, &collect_arg, 0, &c.args) !=
        ROCPROFILER_STATUS_SUCCESS)
        c.args = "<iterate failed>";
    const auto* p = static_cast<const rocprofiler_callback_tracing_rccl_api_data_t*>(r.payload);
    if (r.operation == ROCPROFILER_RCCL_API_ID_ncclAllReduce) c.count_field = p->args.ncclAllReduce.count;
    if (r.phase == ROCPROFILER_CALLBACK_PHASE_EXIT) {
        c.ret = p->retval.ncclResult_t_retval;
        c.str = p->retval.const_charp_retval;
    }
    std::lock_guard lk(g_mutex);
    out.push_back(std::move(c));
}

rocprofiler_context_id_t g_a{}, g_b{}, g_c{};
buffered_api g_buffered{ROCPROFILER_BUFFER_TRACING_RCCL_API};  // RCCL_API buffer records, context D

int tool_init(rocprofiler_client_finalize_t, void*) {
    if (g_scenario == "untraced" || g_scenario == "queries") return 0;
    int bad = 0;
    bad += rocprofiler_create_context(&g_a) != ROCPROFILER_STATUS_SUCCESS;
    bad += rocprofiler_create_context(&g_b) != ROCPROFILER_STATUS_SUCCESS;
    bad += rocprofiler_create_context(&g_c) != ROCPROFILER_STATUS_SUCCESS;
    bad += rocprofiler_configure_callback_tracing_service(
               g_a, ROCPROFILER_CALLBACK_TRACING_RCCL_API, nullptr, 0,
               [](rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) { on_rccl(g_all, r); },
               nullptr) != ROCPROFILER_STATUS_SUCCESS;
    const rocprofiler_tracing_operation_t only[] = {ROCPROFILER_RCCL_API_ID_ncclAllReduce,
                                                    ROCPROFILER_RCCL_API_ID_ncclGroupStart};
    bad += rocprofiler_configure_callback_tracing_service(
               g_b, ROCPROFILER_CALLBACK_TRACING_RCCL_API, only, 2,
               [](rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) { on_rccl(g_filtered, r); },
               nullptr) != ROCPROFILER_STATUS_SUCCESS;
    const rocprofiler_tracing_operation_t init_op[] = {ROCPROFILER_RUNTIME_INITIALIZATION_RCCL};
    bad += rocprofiler_configure_callback_tracing_service(
               g_c, ROCPROFILER_CALLBACK_TRACING_RUNTIME_INITIALIZATION, init_op, 1,
               [](rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
                   std::lock_guard lk(g_mutex);
                   g_init_versions.push_back(
                       static_cast<const rocprofiler_callback_tracing_runtime_initialization_data_t*>(r.payload)->version);
               },
               nullptr) != ROCPROFILER_STATUS_SUCCESS;
    bad += g_buffered.configure();
    // Bad input: an op id past the kind, a second service of the same kind in one context.
    const rocprofiler_tracing_operation_t past_end[] = {ROCPROFILER_RCCL_API_ID_LAST};
    bad += rocprofiler_configure_callback_tracing_service(
               g_c, ROCPROFILER_CALLBACK_TRACING_RCCL_API, past_end, 1,
               [](rocprofiler_callback_tracing_record_t, rocprofiler_user_data_t*, void*) {},
               nullptr) != ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND;
    bad += rocprofiler_configure_callback_tracing_service(
               g_a, ROCPROFILER_CALLBACK_TRACING_RCCL_API, nullptr, 0,
               [](rocprofiler_callback_tracing_record_t, rocprofiler_user_data_t*, void*) {},
               nullptr) != ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED;
    for (auto c : {g_a, g_b, g_c}) bad += rocprofiler_start_context(c) != ROCPROFILER_STATUS_SUCCESS;
    return bad;
}

std::vector<rec> of(const std::vector<rec>& v, int op, rocprofiler_callback_phase_t phase) {
    std::lock_guard lk(g_mutex);
    std::vector<rec> out;
    for (const auto& c : v)
        if (c.op == op && c.phase == phase) out.push_back(c);
    return out;
}
std::size_t size_of(const std::vector<rec>& v) {
    std::lock_guard lk(g_mutex);
    return v.size();
}

constexpr auto ENTER = ROCPROFILER_CALLBACK_PHASE_ENTER;
constexpr auto EXIT = ROCPROFILER_CALLBACK_PHASE_EXIT;

ncclResult_t fake_result(int op) { return static_cast<ncclResult_t>((op + 1) % ncclNumResults); }

std::string ptr(const void* p) {
    char b[32];
    std::snprintf(b, sizeof b, "%p", p);
    return b;
}

// The fake's own functions (its log, ncclBcast): in the global scope when it is preloaded, else
// through the handle main() opened it with.
void* g_fake = RTLD_DEFAULT;
template <class F>
F fake_fn(const char* name) {
    void* p = ::dlsym(g_fake, name);
    F f = nullptr;
    std::memcpy(&f, &p, sizeof f);
    return f;
}
std::string fake_log_now() {
    auto get = fake_fn<const char* (*)()>("encore_test_fake_nccl_log");
    return get != nullptr ? get() : std::string("<no fake>");
}
void fake_log_reset() {
    if (auto reset = fake_fn<void (*)()>("encore_test_fake_nccl_reset")) reset();
}

// Checks one traced call of op `op` made since `before` records: exactly one ENTER and one EXIT,
// one correlation id, the arguments as `args`, the return code `ret`.
void check_traced_once(std::size_t before, int op, const std::string& what, const std::string& args,
                       std::optional<std::int32_t> ret) {
    std::vector<rec> mine;
    {
        std::lock_guard lk(g_mutex);
        mine.assign(g_all.begin() + static_cast<std::ptrdiff_t>(before), g_all.end());
    }
    expect(mine.size() == 2, what + ": two records (ENTER, EXIT), got " + std::to_string(mine.size()));
    if (mine.size() != 2) return;
    expect(mine[0].op == op && mine[1].op == op, what + ": the operation id");
    expect(mine[0].phase == ENTER && mine[1].phase == EXIT, what + ": ENTER then EXIT");
    expect(mine[0].internal == mine[1].internal && mine[0].internal != 0, what + ": one correlation id");
    expect(mine[0].ancestor == 0, what + ": a top-level call has no ancestor");
    expect(mine[1].args == args, what + ": arguments " + mine[1].args + " (expected " + args + ")");
    if (ret) expect(mine[1].ret == *ret, what + ": the EXIT record's return value " + std::to_string(mine[1].ret));
}

void scenario_program(bool traced) {
    // The first call starts encore (the tool's init runs inside it) and is traced.
    std::size_t before = size_of(g_all);
    int version = 0;
    expect(ncclGetVersion(&version) == fake_result(ROCPROFILER_RCCL_API_ID_ncclGetVersion) && version == 21903,
           "ncclGetVersion: the library's result and version, unchanged");
    if (traced) {
        check_traced_once(before, ROCPROFILER_RCCL_API_ID_ncclGetVersion, "ncclGetVersion",
                          "version=" + ptr(&version) + ";", fake_result(ROCPROFILER_RCCL_API_ID_ncclGetVersion));
        std::lock_guard lk(g_mutex);
        expect(g_init_versions.size() == 1 && g_init_versions[0] == 21903,
               "one RUNTIME_INITIALIZATION (RCCL) record with the library's ncclGetVersion: " +
                   std::to_string(g_init_versions.size()) +
                   (g_init_versions.empty() ? std::string() : " " + std::to_string(g_init_versions[0])));
    }

    ncclUniqueId id;
    std::memset(&id, 0, sizeof id);
    before = size_of(g_all);
    const ncclResult_t e_id = ncclGetUniqueId(&id);
    expect(e_id == fake_result(ROCPROFILER_RCCL_API_ID_ncclGetUniqueId) && id.internal[0] == 'F' &&
               id.internal[127] == 'F',
           "ncclGetUniqueId: result and id unchanged");
    if (traced)
        check_traced_once(before, ROCPROFILER_RCCL_API_ID_ncclGetUniqueId, "ncclGetUniqueId", "out=" + ptr(&id) + ";",
                          e_id);

    ncclComm_t comm = nullptr;
    before = size_of(g_all);
    const ncclResult_t e_init = ncclCommInitRank(&comm, 1, id, 0);
    expect(e_init == fake_result(ROCPROFILER_RCCL_API_ID_ncclCommInitRank) && comm != nullptr,
           "ncclCommInitRank: result and communicator unchanged");
    if (traced) {
        // The id is passed by value: its 128 bytes print as bytes (64 shown).
        std::string bytes = "{bytes:";
        for (int i = 0; i < 64; ++i) bytes += "46";
        bytes += "...}";
        check_traced_once(before, ROCPROFILER_RCCL_API_ID_ncclCommInitRank, "ncclCommInitRank",
                          "newcomm=" + ptr(&comm) + ";nranks=1;commId=" + bytes + ";myrank=0;", e_init);
    }

    float send[16] = {}, recv[16] = {};
    auto* stream = reinterpret_cast<hipStream_t>(0x5000);
    before = size_of(g_all);
    expect(ncclGroupStart() == fake_result(ROCPROFILER_RCCL_API_ID_ncclGroupStart), "ncclGroupStart: result");
    if (traced)
        check_traced_once(before, ROCPROFILER_RCCL_API_ID_ncclGroupStart, "ncclGroupStart", "",
                          fake_result(ROCPROFILER_RCCL_API_ID_ncclGroupStart));
    before = size_of(g_all);
    expect(ncclAllReduce(send, recv, 16, ncclFloat32, ncclSum, comm, stream) ==
               fake_result(ROCPROFILER_RCCL_API_ID_ncclAllReduce),
           "ncclAllReduce: result");
    if (traced) {
        check_traced_once(before, ROCPROFILER_RCCL_API_ID_ncclAllReduce, "ncclAllReduce",
                          "sendbuff=" + ptr(send) + ";recvbuff=" + ptr(recv) +
                              ";count=16;datatype=ncclFloat32;op=ncclSum;comm=" + ptr(comm) + ";stream=" + ptr(stream) +
                              ";",
                          fake_result(ROCPROFILER_RCCL_API_ID_ncclAllReduce));
        const auto e = of(g_all, ROCPROFILER_RCCL_API_ID_ncclAllReduce, ENTER);
        expect(e.size() == 1 && e[0].count_field == 16, "args.ncclAllReduce.count read through the C union");
    }
    before = size_of(g_all);
    expect(ncclBroadcast(send, recv, 8, ncclInt64, 0, comm, stream) == fake_result(ROCPROFILER_RCCL_API_ID_ncclBroadcast),
           "ncclBroadcast: result");
    if (traced)
        check_traced_once(before, ROCPROFILER_RCCL_API_ID_ncclBroadcast, "ncclBroadcast",
                          "sendbuff=" + ptr(send) + ";recvbuff=" + ptr(recv) +
                              ";count=8;datatype=ncclInt64;root=0;comm=" + ptr(comm) + ";stream=" + ptr(stream) + ";",
                          fake_result(ROCPROFILER_RCCL_API_ID_ncclBroadcast));
    before = size_of(g_all);
    expect(ncclGroupEnd() == fake_result(ROCPROFILER_RCCL_API_ID_ncclGroupEnd), "ncclGroupEnd: result");
    if (traced)
        check_traced_once(before, ROCPROFILER_RCCL_API_ID_ncclGroupEnd, "ncclGroupEnd", "",
                          fake_result(ROCPROFILER_RCCL_API_ID_ncclGroupEnd));

    // A function RCCL_API does not list goes to the library untraced.
    before = size_of(g_all);
    auto bcast = fake_fn<ncclResult_t (*)(void*, size_t, ncclDataType_t, int, ncclComm_t, hipStream_t)>("ncclBcast");
    expect(::dlsym(RTLD_DEFAULT, "ncclBcast") == nullptr ||
               ::dlsym(RTLD_DEFAULT, "ncclBcast") == reinterpret_cast<void*>(bcast),
           "libencore-rccl does not export ncclBcast");
    expect(bcast != nullptr && bcast(recv, 4, ncclInt8, 0, comm, stream) == ncclSuccess,
           "ncclBcast: the library's result");
    expect(size_of(g_all) == before, "ncclBcast is not an RCCL_API operation: no record");

    before = size_of(g_all);
    const char* s = ncclGetErrorString(ncclInvalidUsage);
    expect(s != nullptr && std::string(s) == "fake-nccl: invalid usage", "ncclGetErrorString: the library's text");
    if (traced) {
        check_traced_once(before, ROCPROFILER_RCCL_API_ID_ncclGetErrorString, "ncclGetErrorString",
                          "code=ncclInvalidUsage;", std::nullopt);
        const auto x = of(g_all, ROCPROFILER_RCCL_API_ID_ncclGetErrorString, EXIT);
        expect(!x.empty() && x.back().str == s, "the EXIT record's string return value is the library's pointer");
    }
    before = size_of(g_all);
    expect(ncclCommDestroy(comm) == fake_result(ROCPROFILER_RCCL_API_ID_ncclCommDestroy), "ncclCommDestroy: result");
    if (traced)
        check_traced_once(before, ROCPROFILER_RCCL_API_ID_ncclCommDestroy, "ncclCommDestroy", "comm=" + ptr(comm) + ";",
                          fake_result(ROCPROFILER_RCCL_API_ID_ncclCommDestroy));

    // Every function of the API once, looked up by name (what a program linked against the
    // library calls): arguments of distinct values, every pointer at memory of its own (the fake
    // writes out-parameters). The fake must see exactly these arguments, and the program its
    // result; encore must trace each once.
    fake_log_reset();
    static unsigned char memory[64][256];
    std::memset(memory, 0, sizeof memory);
    std::string expected_log;
    encore::api::for_each_op<rccl>([&](auto I) {
        using op = rccl::op_at<I>;
        using F = typename op::function_type;
        void* sym = ::dlsym(RTLD_DEFAULT, op::c_name());
        expect(sym != nullptr, std::string(op::c_name()) + ": exported");
        if (sym == nullptr) return;
        F* f = nullptr;
        std::memcpy(&f, &sym, sizeof f);
        auto arg = [&]<std::size_t J>(std::integral_constant<std::size_t, J>) {
            using T = typename op::template arg<J>;
            if constexpr (std::is_pointer_v<T>)
                return reinterpret_cast<T>(memory[J]);
            else if constexpr (std::is_enum_v<T>)
                return static_cast<T>(J % 3);
            else if constexpr (std::is_same_v<T, ncclUniqueId>) {
                ncclUniqueId u;
                std::memset(&u, 'A' + static_cast<int>(J), sizeof u);
                return u;
            } else
                return static_cast<T>(J + 1);
        };
        const std::size_t n_before = size_of(g_all);
        // The library's own group calls inside ncclCommInitAll (fake_nccl.cpp, as NCCL does).
        constexpr bool init_all = I == static_cast<std::size_t>(ROCPROFILER_RCCL_API_ID_ncclCommInitAll);
        if constexpr (init_all) expected_log += "ncclGroupStart();ncclGroupEnd();";
        [&]<std::size_t... J>(std::index_sequence<J...>) {
            expected_log += fake_log::call(op::c_name(), arg(std::integral_constant<std::size_t, J>{})...);
            if constexpr (std::is_same_v<typename op::return_type, ncclResult_t>) {
                const ncclResult_t r = f(arg(std::integral_constant<std::size_t, J>{})...);
                expect(r == fake_result(static_cast<int>(I)), std::string(op::c_name()) + ": the library's result");
            } else {
                const char* r = f(arg(std::integral_constant<std::size_t, J>{})...);
                expect(r != nullptr && std::strncmp(r, "fake-nccl", 9) == 0,
                       std::string(op::c_name()) + ": the library's string");
            }
        }
        (std::make_index_sequence<op::arity>{});
        if (traced) {
            std::vector<rec> mine;
            {
                std::lock_guard lk(g_mutex);
                mine.assign(g_all.begin() + static_cast<std::ptrdiff_t>(n_before), g_all.end());
            }
            if constexpr (init_all) {
                // Its ENTER and EXIT around the two calls the library made inside it, each traced
                // once with ncclCommInitAll as its ancestor.
                const bool shape = mine.size() == 6 && mine[0].op == static_cast<int>(I) &&
                                   mine[5].op == static_cast<int>(I) && mine[0].phase == ENTER &&
                                   mine[5].phase == EXIT && mine[0].internal == mine[5].internal &&
                                   mine[1].op == ROCPROFILER_RCCL_API_ID_ncclGroupStart &&
                                   mine[3].op == ROCPROFILER_RCCL_API_ID_ncclGroupEnd;
                bool inside = shape;
                for (std::size_t k = 1; shape && k < 5; ++k) inside = inside && mine[k].ancestor == mine[0].internal;
                expect(shape && inside && mine[1].internal == mine[2].internal && mine[3].internal == mine[4].internal,
                       "ncclCommInitAll: traced once, with the library's own ncclGroupStart / ncclGroupEnd inside it "
                       "(their ancestor), each traced once");
                if (shape) mine = {mine[0], mine[5]};
            }
            expect(mine.size() == 2 && mine[0].op == static_cast<int>(I) && mine[1].op == static_cast<int>(I) &&
                       mine[0].phase == ENTER && mine[1].phase == EXIT && mine[0].internal == mine[1].internal,
                   std::string(op::c_name()) + ": traced once (ENTER, EXIT)");
            // Every parameter named as the reference names it, in order.
            std::string names;
            for (const char* pn : op::param_c_names) names += std::string(pn) + "=";
            std::string got;
            if (mine.size() == 2)
                for (std::size_t k = 0; k < mine[1].args.size(); ++k) {
                    const std::size_t eq = mine[1].args.find('=', k);
                    if (eq == std::string::npos) break;
                    got += mine[1].args.substr(k, eq - k + 1);
                    k = mine[1].args.find(';', eq);
                    if (k == std::string::npos) break;
                }
            expect(got == names, std::string(op::c_name()) + ": argument names " + got);
        }
    });
    expect(fake_log_now() == expected_log, "the library got exactly the program's arguments, once each:\n  " +
                                               fake_log_now() + "\nexpected\n  " + expected_log);
}

void scenario_preload() {
    scenario_program(true);
    // The buffer got one record per traced call, in call order.
    expect(g_buffered.flush(), "flush the RCCL_API buffer");
    {
        std::lock_guard lk(g_mutex);
        std::vector<int> exits;
        for (const auto& r : g_all)
            if (r.phase == EXIT) exits.push_back(r.op);
        std::lock_guard lb(g_buffered.mutex);
        expect(g_buffered.ok && g_buffered.ops == exits, "one RCCL_API buffer record per call (" +
                                                             std::to_string(g_buffered.ops.size()) + " of " +
                                                             std::to_string(exits.size()) + "), in order, no drops");
    }
    // The filtered context saw only its two operations, each call once.
    std::lock_guard lk(g_mutex);
    std::size_t reduce = 0, group = 0, other = 0;
    for (const auto& r : g_filtered) {
        if (r.op == ROCPROFILER_RCCL_API_ID_ncclAllReduce)
            ++reduce;
        else if (r.op == ROCPROFILER_RCCL_API_ID_ncclGroupStart)
            ++group;
        else
            ++other;
    }
    expect(reduce == 4 && group == 6 && other == 0,
           "the filtered context: ncclAllReduce (2 calls) and ncclGroupStart (3: one inside ncclCommInitAll) only");
}

void scenario_missing() {
    int version = 0;
    expect(ncclGetVersion(&version) == ncclSystemError && version == 0, "no library: ncclSystemError, no write");
    expect(ncclGetVersion(&version) == ncclSystemError, "no library: again the same status");
    expect(ncclAllReduce(nullptr, nullptr, 0, ncclFloat, ncclSum, nullptr, nullptr) == ncclSystemError,
           "no library: a collective fails too");
    const char* s = ncclGetErrorString(ncclSuccess);
    expect(s != nullptr && std::strstr(s, "missing") != nullptr, "no library: a string function says so");
    expect(of(g_all, ROCPROFILER_RCCL_API_ID_ncclAllReduce, EXIT).size() == 1 &&
               of(g_all, ROCPROFILER_RCCL_API_ID_ncclAllReduce, EXIT)[0].ret == ncclSystemError,
           "no library: the failed call is still traced, with encore's status");
}

void scenario_queries() {
    // Names by id, as the reference numbers them (independent of the domain's order).
    const std::pair<int, const char*> named[] = {
        {ROCPROFILER_RCCL_API_ID_ncclAllGather, "ncclAllGather"},
        {ROCPROFILER_RCCL_API_ID_ncclAllReduce, "ncclAllReduce"},
        {ROCPROFILER_RCCL_API_ID_ncclBroadcast, "ncclBroadcast"},
        {ROCPROFILER_RCCL_API_ID_ncclGroupStart, "ncclGroupStart"},
        {ROCPROFILER_RCCL_API_ID_ncclGroupEnd, "ncclGroupEnd"},
        {ROCPROFILER_RCCL_API_ID_ncclCommInitRank, "ncclCommInitRank"},
        {ROCPROFILER_RCCL_API_ID_ncclGetErrorString, "ncclGetErrorString"},
        {ROCPROFILER_RCCL_API_ID_mscclRunAlgo, "mscclRunAlgo"},
        {ROCPROFILER_RCCL_API_ID_ncclCommDeregister, "ncclCommDeregister"},
    };
    for (const auto& [op, name] : named) {
        const char* n = nullptr;
        uint64_t len = 0;
        expect(rocprofiler_query_callback_tracing_kind_operation_name(ROCPROFILER_CALLBACK_TRACING_RCCL_API, op, &n,
                                                                      &len) == ROCPROFILER_STATUS_SUCCESS &&
                   n != nullptr && std::string(n) == name && len == std::strlen(name),
               std::string("operation name of ") + name);
    }
    expect(ROCPROFILER_RCCL_API_ID_LAST == 37 && ROCPROFILER_RCCL_API_ID_ncclCommDeregister == 36,
           "37 operations, the reference's last id 36");
    const char* n = nullptr;
    expect(rocprofiler_query_callback_tracing_kind_operation_name(ROCPROFILER_CALLBACK_TRACING_RCCL_API,
                                                                  ROCPROFILER_RCCL_API_ID_LAST, &n, nullptr) ==
               ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND,
           "an id past the last: OPERATION_NOT_FOUND");
    expect(rocprofiler_query_callback_tracing_kind_operation_name(ROCPROFILER_CALLBACK_TRACING_RCCL_API, -1, &n, nullptr) ==
               ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND,
           "id -1: OPERATION_NOT_FOUND");
    int count = 0;
    expect(rocprofiler_iterate_callback_tracing_kind_operations(
               ROCPROFILER_CALLBACK_TRACING_RCCL_API,
               [](rocprofiler_callback_tracing_kind_t, rocprofiler_tracing_operation_t, void* d) {
                   ++*static_cast<int*>(d);
                   return 0;
               },
               &count) == ROCPROFILER_STATUS_SUCCESS &&
               count == 37,
           "iterating RCCL_API's operations: 37");
    // Argument iteration on a record the tool made up: the right size iterates, a wrong size or
    // an unknown operation is refused.
    rocprofiler_callback_tracing_rccl_api_data_t p{};
    p.size = sizeof p;
    p.args.ncclCommCount.count = nullptr;
    rocprofiler_callback_tracing_record_t r{};
    r.kind = ROCPROFILER_CALLBACK_TRACING_RCCL_API;
    r.operation = ROCPROFILER_RCCL_API_ID_ncclCommCount;
    r.phase = ROCPROFILER_CALLBACK_PHASE_ENTER;
    r.payload = &p;
    std::string args;
    expect(rocprofiler_iterate_callback_tracing_kind_operation_args(r, &collect_arg, 1, &args) ==
                   ROCPROFILER_STATUS_SUCCESS &&
               args == "comm=(null);count=(null);",
           "argument iteration of a made-up record: " + args);
    p.size = 8;
    expect(rocprofiler_iterate_callback_tracing_kind_operation_args(r, &collect_arg, 1, &args) ==
               ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT,
           "a payload of the wrong size: INVALID_ARGUMENT");
    p.size = sizeof p;
    r.operation = ROCPROFILER_RCCL_API_ID_LAST;
    expect(rocprofiler_iterate_callback_tracing_kind_operation_args(r, &collect_arg, 1, &args) ==
               ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND,
           "an unknown operation: OPERATION_NOT_FOUND");
    static_assert(sizeof(rocprofiler_rccl_api_args_t) == 152, "the reference's union size (ncclCommInitRankConfig)");
}

}  // namespace

ENCORE_TEST_TOOL("test-rccl", &tool_init, nullptr)

int main(int argc, char** argv) {
    g_scenario = argc > 1 ? argv[1] : "preload";
    if (g_scenario == "local" || g_scenario == "env") {
        // The fake by path, RTLD_LOCAL (as PyTorch loads libnccl.so.2): not in the global scope.
        const char* path = argc > 2 ? argv[2] : "";
        g_fake = ::dlopen(path, RTLD_NOW | RTLD_LOCAL);
        expect(g_fake != nullptr, std::string("the fake loads RTLD_LOCAL from ") + path);
        expect(::dlsym(RTLD_DEFAULT, "encore_test_fake_nccl_log") == nullptr, "the fake is not in the global scope");
        if (g_fake == nullptr) return test_support::finish();
    }
    if (g_scenario == "preload" || g_scenario == "env" || g_scenario == "local") {
        scenario_preload();
    } else if (g_scenario == "missing" || g_scenario == "self") {
        scenario_missing();
    } else if (g_scenario == "untraced") {
        scenario_program(false);
        expect(size_of(g_all) == 0, "no context: no records");
    } else if (g_scenario == "queries") {
        scenario_queries();
    } else {
        std::fprintf(stderr, "unknown scenario %s\n", g_scenario.c_str());
        return 2;
    }
    return test_support::finish();
}
