// test/libs/test_lib.cpp — every library API kind of encore/domains/libs.hpp (but RCCL_API:
// test_rccl.cpp) through its interposer (libencore-rocdecode, -rocjpeg, ..., preloaded), against
// fake libraries built in the suite (none of these libraries has a package here;
// fake_prelude.hpp, fake_rocshmem.cpp). The program is its own tool. argv: LIBRARY SCENARIO
//   traced    every function of the library once, with arguments of distinct values: each call
//             traced exactly once (ENTER, EXIT, one correlation id), its arguments by the
//             reference's names, its return value in the EXIT record and back to the program
//             unchanged; the fake called with exactly the program's arguments; one
//             RUNTIME_INITIALIZATION record of the library; the operation names by id; for
//             a library whose kind has a buffer kind (ROCJPEG_API), one buffer record per call
//   untraced  no context: the same calls and results, no records
//   missing   ENCORE_<LIB>_LIBRARY names no file: each call fails with the library's own "not
//             there" status (rocSHMEM: the accessor returns no table), nothing crashes
//   short     (rocshmem) the library's table is shorter than encore's declaration: the slots it
//             has are traced, the others are left alone and the size is the library's
// or argv: declared NAME...  (test/libs/meson.build's libs_declared: the interposers meson builds)
//   the names are exactly encore/domains/libs.hpp's libraries; a library in one list and not the
//   other is named
#include "../../src/core/registration.hpp"
#include "../support/check.hpp"
#include "../support/tool_stub.hpp"
#include "buffered_api.hpp"
#include "fake_log.hpp"
#include "fake_results.hpp"

#include <encore/domains/libs.hpp>
#include <encore/encore.hpp>
#include <rocprofiler-sdk/callback_tracing.h>
#include <rocprofiler-sdk/registration.h>

#include <dlfcn.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace {

using test_support::expect;
namespace d = encore::domains;

struct rec {
    int op;
    rocprofiler_callback_phase_t phase;
    std::uint64_t internal, ancestor;
    std::string args;
    unsigned char retval[32] = {};
};

std::mutex g_mutex;
std::vector<rec> g_records;
std::vector<std::uint64_t> g_init_versions;
std::string g_lib, g_scenario;
rocprofiler_callback_tracing_kind_t g_kind = ROCPROFILER_CALLBACK_TRACING_NONE;
rocprofiler_runtime_initialization_operation_t g_init_op = ROCPROFILER_RUNTIME_INITIALIZATION_NONE;
// The library kind's buffer records, where it has a buffer kind made of its calls (ROCJPEG_API; the
// buffer kind list says which), in a context of their own.
buffered_api g_buffered{ROCPROFILER_BUFFER_TRACING_NONE};

int collect_arg(rocprofiler_callback_tracing_kind_t, rocprofiler_tracing_operation_t, uint32_t, const void* const,
                int32_t, const char*, const char* name, const char* value, int32_t, void* data) {
    auto* s = static_cast<std::string*>(data);
    *s += name;
    *s += '=';
    *s += value;
    *s += ';';
    return 0;
}

// Every library payload is {size, args, retval}: the retval bytes follow the args union.
template <class P>
void on_record(rocprofiler_callback_tracing_record_t r) {
    rec c{r.operation, r.phase, r.correlation_id.internal, r.correlation_id.ancestor, {}};
    if (rocprofiler_iterate_callback_tracing_kind_operation_args(r, &collect_arg, 0, &c.args) !=
        ROCPROFILER_STATUS_SUCCESS)
        c.args = "<iterate failed>";
    const auto* p = static_cast<const P*>(r.payload);
    static_assert(sizeof(p->retval) <= sizeof(c.retval));
    std::memcpy(c.retval, &p->retval, sizeof(p->retval));
    std::lock_guard lk(g_mutex);
    g_records.push_back(std::move(c));
}

/// The callback of library D's kind: its records read as D's payload struct (payload_of).
template <class D>
rocprofiler_callback_tracing_cb_t record_cb() {
    return [](rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
        on_record<typename encore::tracing::payload_of<D::id>::type>(r);
    };
}
rocprofiler_callback_tracing_cb_t g_record_cb = nullptr;

int tool_init(rocprofiler_client_finalize_t, void*) {
    if (g_scenario == "untraced") return 0;
    rocprofiler_context_id_t ctx{};
    int bad = rocprofiler_create_context(&ctx) != ROCPROFILER_STATUS_SUCCESS;
    bad += rocprofiler_configure_callback_tracing_service(ctx, g_kind, nullptr, 0, g_record_cb, nullptr) !=
           ROCPROFILER_STATUS_SUCCESS;
    const rocprofiler_tracing_operation_t init_op[] = {g_init_op};
    bad += rocprofiler_configure_callback_tracing_service(
               ctx, ROCPROFILER_CALLBACK_TRACING_RUNTIME_INITIALIZATION, init_op, 1,
               [](rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
                   std::lock_guard lk(g_mutex);
                   g_init_versions.push_back(
                       static_cast<const rocprofiler_callback_tracing_runtime_initialization_data_t*>(r.payload)->version);
               },
               nullptr) != ROCPROFILER_STATUS_SUCCESS;
    if (g_buffered.kind != ROCPROFILER_BUFFER_TRACING_NONE) bad += g_buffered.configure();
    return bad + (rocprofiler_start_context(ctx) != ROCPROFILER_STATUS_SUCCESS);
}

std::size_t size_of_records() {
    std::lock_guard lk(g_mutex);
    return g_records.size();
}

// The fake's reset, through whichever fake is loaded.
void encore_test_fake_reset_fn() {
    auto* reset = reinterpret_cast<void (*)()>(::dlsym(RTLD_DEFAULT, "encore_test_fake_reset"));
    if (reset != nullptr) reset();
}

std::string fake_log_now() {
    auto* get = reinterpret_cast<const char* (*)()>(::dlsym(RTLD_DEFAULT, "encore_test_fake_log"));
    return get != nullptr ? get() : "<no fake>";
}

/// Op I of D as the program reaches it: the exported symbol (libencore-<lib>, preloaded), or for
/// rocSHMEM the slot of the table RocshmemGetFunctionTable hands out.
template <class D, std::size_t I>
auto callable() {
    using F = typename D::template op_at<I>::function_type;
    F* f = nullptr;
    if constexpr (std::is_same_v<D, d::rocshmem>) {
        auto* get = reinterpret_cast<const rocshmemApiFuncTable* (*)()>(::dlsym(RTLD_DEFAULT, "RocshmemGetFunctionTable"));
        const rocshmemApiFuncTable* t = get != nullptr ? get() : nullptr;
        if (t != nullptr && offsetof(rocshmemApiFuncTable, barrier_all_on_stream_fn) + sizeof(void*) * (I + 1) <= t->size)
            f = t->*std::get<I>(d::rocshmem_slots);
    } else {
        void* p = ::dlsym(RTLD_DEFAULT, D::template op_at<I>::c_name());
        std::memcpy(&f, &p, sizeof f);
    }
    return f;
}

/// What the interposer returns for a function the library lacks.
template <class R>
R missing_result() {
    if constexpr (std::is_same_v<R, rocDecStatus>)
        return ROCDEC_NOT_IMPLEMENTED;
    else if constexpr (std::is_same_v<R, RocJpegStatus>)
        return ROCJPEG_STATUS_NOT_IMPLEMENTED;
    else if constexpr (std::is_same_v<R, hipFileError_t>)
        return hipFileError_t{hipFileDriverNotInitialized, hipSuccess};
    else if constexpr (std::is_same_v<R, ssize_t> || std::is_same_v<R, std::int64_t>)
        return static_cast<R>(-1);
    else
        return R{};
}

template <class D>
void call_every_op(bool traced, bool missing, std::size_t present_slots) {
    static unsigned char memory[16][256];
    std::memset(memory, 0, sizeof memory);
    encore_test_fake_reset_fn();
    std::string expected_log;
    encore::api::for_each_op<D>([&](auto I) {
        using op = typename D::template op_at<I>;
        using R = typename op::return_type;
        const std::string name = op::c_name();
        auto* f = callable<D, I>();
        if (I >= present_slots || (missing && std::is_same_v<D, d::rocshmem>)) {
            expect(f == nullptr, name + ": not in the table");
            return;
        }
        expect(f != nullptr, name + ": reachable");
        if (f == nullptr) return;
        auto arg = [&]<std::size_t J>(std::integral_constant<std::size_t, J>) {
            using T = typename op::template arg<J>;
            if constexpr (std::is_pointer_v<T>)
                return reinterpret_cast<T>(memory[J]);
            else if constexpr (std::is_same_v<T, bool>)
                return J % 2 == 1;
            else if constexpr (std::is_enum_v<T>)
                return static_cast<T>(J % 3);
            else
                return static_cast<T>(J + 1);
        };
        const std::size_t before = size_of_records();
        [&]<std::size_t... J>(std::index_sequence<J...>) {
            if (!missing)
                expected_log += fake_log::call(op::c_name(), arg(std::integral_constant<std::size_t, J>{})...);
            if constexpr (std::is_void_v<R>) {
                f(arg(std::integral_constant<std::size_t, J>{})...);
            } else {
                errno = 0;
                const R r = f(arg(std::integral_constant<std::size_t, J>{})...);
                if (missing) {
                    if constexpr (std::is_same_v<R, const char*>)
                        expect(r != nullptr && std::strstr(r, "missing") != nullptr, name + ": encore's text");
                    else
                        expect(fake_results::same(r, missing_result<R>()), name + ": the library's 'not there' status");
                    if constexpr (std::is_same_v<R, ssize_t> || std::is_same_v<R, std::int64_t>)
                        expect(errno == ENOSYS, name + ": errno ENOSYS");
                } else {
                    expect(fake_results::same(r, fake_results::result<D, I>()), name + ": the library's result");
                }
            }
        }
        (std::make_index_sequence<op::arity>{});
        if (!traced) return;
        std::vector<rec> mine;
        {
            std::lock_guard lk(g_mutex);
            mine.assign(g_records.begin() + static_cast<std::ptrdiff_t>(before), g_records.end());
        }
        expect(mine.size() == 2 && mine[0].op == static_cast<int>(I) && mine[1].op == static_cast<int>(I) &&
                   mine[0].phase == ROCPROFILER_CALLBACK_PHASE_ENTER && mine[1].phase == ROCPROFILER_CALLBACK_PHASE_EXIT &&
                   mine[0].internal == mine[1].internal && mine[0].internal != 0 && mine[0].ancestor == 0,
               name + ": traced once (ENTER, EXIT, one correlation id), " + std::to_string(mine.size()) + " records");
        if (mine.size() != 2) return;
        std::string names, got;
        for (const char* pn : op::param_c_names) names += std::string(pn) + "=";
        const std::string& a = mine[1].args;
        for (std::size_t k = 0; k < a.size();) {
            const std::size_t eq = a.find('=', k), semi = a.find(';', k);
            if (eq == std::string::npos || semi == std::string::npos) break;
            got += a.substr(k, eq - k + 1);
            k = semi + 1;
        }
        expect(got == names, name + ": arguments by name " + a);
        if constexpr (!std::is_void_v<R>) {
            if (!missing) {
                R in_record;
                std::memcpy(&in_record, mine[1].retval, sizeof(R));
                expect(fake_results::same(in_record, fake_results::result<D, I>()),
                       name + ": the EXIT record's return value");
            }
        }
    });
    if (missing) return;
    std::string log = fake_log_now();
    if constexpr (std::is_same_v<D, d::hipfile>) {
        // encore asks the library its version for the RUNTIME_INITIALIZATION record, once, untraced
        // (only because a context traces that record).
        if (traced) {
            const bool asked = log.rfind("hipFileGetVersion(", 0) == 0;
            expect(asked, "encore asked hipFileGetVersion once for the RUNTIME_INITIALIZATION record");
            if (asked) log.erase(0, log.find(';') + 1);
        }
    }
    expect(log == expected_log,
           "the library got exactly the program's calls:\n  " + log + "\nexpected\n  " + expected_log);
}

template <class D>
void check_names(const std::vector<std::pair<int, const char*>>& named, int last) {
    for (const auto& [op, name] : named) {
        const char* n = nullptr;
        expect(rocprofiler_query_callback_tracing_kind_operation_name(g_kind, op, &n, nullptr) ==
                       ROCPROFILER_STATUS_SUCCESS &&
                   n != nullptr && std::string(n) == name,
               std::string("operation ") + std::to_string(op) + " is " + name);
    }
    expect(static_cast<int>(D::size) == last, "the reference's operation count " + std::to_string(last));
    const char* n = nullptr;
    expect(rocprofiler_query_callback_tracing_kind_operation_name(g_kind, last, &n, nullptr) ==
               ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND,
           "an id past the last: OPERATION_NOT_FOUND");
}

template <class D>
void run(std::uint64_t version) {
    const bool traced = g_scenario != "untraced";
    const bool missing = g_scenario == "missing";
    const std::size_t present = g_scenario == "short" ? 4 : D::size;
    call_every_op<D>(traced && !missing, missing, present);
    if (traced && !missing) {
        std::lock_guard lk(g_mutex);
        expect(g_init_versions.size() == 1 && g_init_versions[0] == version,
               "one RUNTIME_INITIALIZATION record with the library's version (" + std::to_string(version) + ")");
    }
    if (!traced) expect(size_of_records() == 0, "no context: no records");
    if (g_buffered.kind != ROCPROFILER_BUFFER_TRACING_NONE) {
        if (traced && !missing) {
            expect(g_buffered.flush(), "flush the " + std::string(D::name) + " buffer");
            std::vector<int> exits;
            std::lock_guard lk(g_mutex);
            for (const auto& r : g_records)
                if (r.phase == ROCPROFILER_CALLBACK_PHASE_EXIT) exits.push_back(r.op);
            std::lock_guard lb(g_buffered.mutex);
            expect(g_buffered.ok && g_buffered.ops == exits,
                   "one " + std::string(D::name) + " buffer record per call, in order");
        }
    }
    if (g_scenario == "short") {
        auto* get = reinterpret_cast<const rocshmemApiFuncTable* (*)()>(::dlsym(RTLD_DEFAULT, "RocshmemGetFunctionTable"));
        const rocshmemApiFuncTable* t = get();
        expect(t != nullptr && t->size == offsetof(rocshmemApiFuncTable, barrier_all_on_stream_fn) + 4 * sizeof(void*),
               "the table keeps the library's size");
        expect(t != nullptr && t->putmem_on_stream_fn == nullptr, "a slot past the library's size is not filled in");
    }
}

/// What test_lib checks of library D beyond its domain: the RUNTIME_INITIALIZATION operation, the
/// version the fake reports, a few operation ids with the reference's names and the reference's
/// operation count. One per library of encore/domains/libs.hpp (or `elsewhere`: its own test).
template <class D>
struct lib_test {};
template <class D>
concept tested_here = requires {
    lib_test<D>::init_op;
    lib_test<D>::version;
    lib_test<D>::named;
    lib_test<D>::count;
};
template <class D>
concept tested_elsewhere = requires {
    lib_test<D>::elsewhere;
};

template <>
struct lib_test<d::rccl> {
    static constexpr const char* elsewhere = "test_rccl";
};
template <>
struct lib_test<d::rocdecode> {
    static constexpr auto init_op = ROCPROFILER_RUNTIME_INITIALIZATION_ROCDECODE;
    static constexpr std::uint64_t version = 0;
    static inline const std::vector<std::pair<int, const char*>> named = {
        {ROCPROFILER_ROCDECODE_API_ID_rocDecCreateVideoParser, "rocDecCreateVideoParser"},
        {ROCPROFILER_ROCDECODE_API_ID_rocDecGetErrorName, "rocDecGetErrorName"},
        {10, "rocDecGetErrorName"},
        {ROCPROFILER_ROCDECODE_API_ID_rocDecDestroyBitstreamReader, "rocDecDestroyBitstreamReader"}};
    static constexpr int count = 16;
};
template <>
struct lib_test<d::rocjpeg> {
    static constexpr auto init_op = ROCPROFILER_RUNTIME_INITIALIZATION_ROCJPEG;
    static constexpr std::uint64_t version = 0;
    static inline const std::vector<std::pair<int, const char*>> named = {
        {ROCPROFILER_ROCJPEG_API_ID_rocJpegStreamCreate, "rocJpegStreamCreate"},
        {ROCPROFILER_ROCJPEG_API_ID_rocJpegDecodeBatched, "rocJpegDecodeBatched"},
        {8, "rocJpegGetErrorName"}};
    static constexpr int count = 9;
};
template <>
struct lib_test<d::rocshmem> {
    static constexpr auto init_op = ROCPROFILER_RUNTIME_INITIALIZATION_ROCSHMEM;
    static constexpr std::uint64_t version = 0;
    static inline const std::vector<std::pair<int, const char*>> named = {
        {ROCPROFILER_ROCSHMEM_API_ID_barrier_all_on_stream, "barrier_all_on_stream"},
        {ROCPROFILER_ROCSHMEM_API_ID_putmem_signal_on_stream, "putmem_signal_on_stream"},
        {8, "signal_wait_until_on_stream"}};
    static constexpr int count = 9;
};
template <>
struct lib_test<d::hipfile> {
    static constexpr auto init_op = ROCPROFILER_RUNTIME_INITIALIZATION_HIPFILE;
    static constexpr std::uint64_t version = 301;  // the fake's 0.3.1 (fake_prelude.hpp)
    static inline const std::vector<std::pair<int, const char*>> named = {
        {ROCPROFILER_HIPFILE_API_ID_hipFileGetOpErrorString, "hipFileGetOpErrorString"},
        {ROCPROFILER_HIPFILE_API_ID_hipFileRead, "hipFileRead"},
        {30, "hipFileSetParameterString"},
        {33, "hipFileGetStatsL3"}};
    static constexpr int count = 34;
};

/// What encore's finalization (tools finalized, unproduced kinds warned) writes to stderr.
std::string finalize_stderr() {
    std::fflush(stderr);
    std::FILE* tmp = std::tmpfile();
    if (tmp == nullptr) return "<no temporary file>";
    const int saved = ::dup(2);
    ::dup2(::fileno(tmp), 2);
    encore::core::finalize();
    std::fflush(stderr);
    ::dup2(saved, 2);
    ::close(saved);
    std::string out;
    std::rewind(tmp);
    for (int c; (c = std::fgetc(tmp)) != EOF;) out += static_cast<char>(c);
    std::fclose(tmp);
    return out;
}

/// libs_declared: the interposers test/libs/meson.build was given are libs.hpp's libraries.
int check_declared(int argc, char** argv) {
    std::set<std::string> built(argv + 2, argv + argc), declared;
    encore::domains::for_each_library([&]<class D>() {
        declared.insert(std::string(encore::domains::library_name<D>.view()));
    });
    for (const auto& n : declared)
        expect(built.count(n) == 1,
               n + " is in encore/domains/libs.hpp's libraries: add its entry to src/libs/meson.build");
    for (const auto& n : built)
        expect(declared.count(n) == 1,
               n + " is built by src/libs/meson.build: add its domain to encore/domains/libs.hpp");
    return test_support::finish();
}

}  // namespace

ENCORE_TEST_TOOL("test-lib", &tool_init, nullptr)

int main(int argc, char** argv) {
    g_lib = argc > 1 ? argv[1] : "";
    g_scenario = argc > 2 ? argv[2] : "traced";
    if (g_lib == "declared") return check_declared(argc, argv);
    int status = -1;
    encore::domains::for_each_library([&]<class D>() {
        static_assert(tested_here<D> || tested_elsewhere<D>,
                      "test_lib.cpp: give the new library its lib_test<D> (its RUNTIME_INITIALIZATION operation, "
                      "version, named operations and count)");
        if (g_lib != encore::domains::library_name<D>.view()) return;
        if constexpr (tested_elsewhere<D>) {
            std::fprintf(stderr, "test_lib: %s is tested by %s\n", g_lib.c_str(), lib_test<D>::elsewhere);
            status = 2;
        } else if constexpr (tested_here<D>) {
            g_kind = static_cast<rocprofiler_callback_tracing_kind_t>(D::id);
            g_init_op = lib_test<D>::init_op;
            g_record_cb = record_cb<D>();
            for (int b = 1; b < static_cast<int>(encore::tracing::buffer_kind_count); ++b)
                if (encore::tracing::buffer_source_of(b) == D::id &&
                    encore::tracing::buffered_as_of(b) == encore::tracing::buffered_as::api)
                    g_buffered.kind = static_cast<rocprofiler_buffer_tracing_kind_t>(b);
            run<D>(lib_test<D>::version);
            if (g_scenario == "traced") check_names<D>(lib_test<D>::named, lib_test<D>::count);
            if (g_scenario == "traced" || g_scenario == "missing") {
                // The interposer declared its kind produced when it loaded (src/libs/library.hpp):
                // finalization says nothing of the kinds this tool configured.
                const std::string err = finalize_stderr();
                expect(err.find("was configured but produced nothing") == std::string::npos,
                       "the interposer declared " + std::string(D::name) + " produced: " + err);
            }
            status = test_support::finish();
        }
    });
    if (status < 0) {
        std::fprintf(stderr, "usage: test_lib LIBRARY SCENARIO (a library of encore/domains/libs.hpp), or "
                             "test_lib declared NAME...\n");
        return 2;
    }
    return status;
}
