// test/hsa/test_code_object.cpp — CODE_OBJECT records and kernel ids end to end on the
// software HSA runtime.
//
// This program is its own tool (it exports rocprofiler_configure) and runs with
// HSA_TOOLS_LIB=libencore-hsa.so and two GPU agents. It loads a code object (argv[1], the
// vector-add example) from a file into one executable on both agents and from memory into a
// second executable on one agent. Checks:
//   - freeze: one LOAD record (phase LOAD) per code object with its agent, URI, load base/size,
//     storage (file descriptor or memory range) and a unique code_object_id; then one
//     DEVICE_KERNEL_SYMBOL_REGISTER record per kernel symbol that hsa_executable_iterate_agent_symbols
//     reports (name, kernel object, kernarg/segment sizes), with unique kernel ids;
//   - a dispatch's KERNEL_DISPATCH record carries the kernel id registered for its kernel object;
//   - destroy: UNLOAD records (for each code object: its symbols, then the code object) delivered
//     while the executable still exists, with the user_data each LOAD left and the same payloads;
//   - an executable still alive at hsa_shut_down gets its UNLOAD records then.
#include "../../examples/hsa/hsa_example.hpp"
#include "../support/check.hpp"
#include "../support/tool_stub.hpp"

#include <rocprofiler-sdk/rocprofiler.h>

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace {

using test_support::expect;

struct rec {
    int op;
    rocprofiler_callback_phase_t phase;
    std::uint64_t ud_seen;
    // LOAD
    std::uint64_t code_object_id = 0, agent = 0, hsa_agent = 0, load_base = 0, load_size = 0, memory_base = 0,
                  memory_size = 0;
    std::int64_t load_delta = 0;
    std::string uri;
    int storage_type = 0, storage_file = -1;
    // symbol
    std::uint64_t kernel_id = 0, kernel_object = 0;
    std::string kernel_name;
    std::uint32_t kernarg_size = 0, kernarg_align = 0, group = 0, priv = 0;
    bool exe_alive = false;  // the executable still existed when the record arrived
};

struct dispatch_rec {
    std::uint64_t kernel_id, agent;
};

std::mutex g_mutex;
std::vector<rec> g_recs;
std::vector<dispatch_rec> g_dispatches;
std::uint64_t g_next_ud = 1;
hsa_executable_t g_watched{0};  // the executable whose liveness UNLOAD records check


void on_code_object(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t* ud, void*) {
    rec x{};
    x.op = r.operation;
    x.phase = r.phase;
    std::lock_guard lk(g_mutex);
    if (r.phase == ROCPROFILER_CALLBACK_PHASE_LOAD) ud->value = g_next_ud++;
    x.ud_seen = ud->value;
    if (r.operation == ROCPROFILER_CODE_OBJECT_LOAD) {
        auto* p = static_cast<rocprofiler_callback_tracing_code_object_load_data_t*>(r.payload);
        x.code_object_id = p->code_object_id;
        x.agent = p->agent_id.handle;
        x.hsa_agent = p->hsa_agent.handle;
        x.uri = p->uri != nullptr ? p->uri : "";
        x.load_base = p->load_base;
        x.load_size = p->load_size;
        x.load_delta = p->load_delta;
        x.storage_type = p->storage_type;
        if (p->storage_type == ROCPROFILER_CODE_OBJECT_STORAGE_TYPE_FILE) x.storage_file = p->storage_file;
        if (p->storage_type == ROCPROFILER_CODE_OBJECT_STORAGE_TYPE_MEMORY) {
            x.memory_base = p->memory_base;
            x.memory_size = p->memory_size;
        }
    } else if (r.operation == ROCPROFILER_CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER) {
        auto* p = static_cast<rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t*>(r.payload);
        x.kernel_id = p->kernel_id;
        x.code_object_id = p->code_object_id;
        x.kernel_name = p->kernel_name != nullptr ? p->kernel_name : "";
        x.kernel_object = p->kernel_object;
        x.kernarg_size = p->kernarg_segment_size;
        x.kernarg_align = p->kernarg_segment_alignment;
        x.group = p->group_segment_size;
        x.priv = p->private_segment_size;
    }
    if (g_watched.handle != 0) {
        hsa_executable_state_t st{};
        x.exe_alive = hsa_executable_get_info(g_watched, HSA_EXECUTABLE_INFO_STATE, &st) == HSA_STATUS_SUCCESS;
    }
    g_recs.push_back(x);
}

void on_dispatch(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
    if (r.operation != ROCPROFILER_KERNEL_DISPATCH_ENQUEUE || r.phase != ROCPROFILER_CALLBACK_PHASE_ENTER) return;
    auto* p = static_cast<rocprofiler_callback_tracing_kernel_dispatch_data_t*>(r.payload);
    std::lock_guard lk(g_mutex);
    g_dispatches.push_back({p->dispatch_info.kernel_id, p->dispatch_info.agent_id.handle});
}

int tool_init(rocprofiler_client_finalize_t, void*) {
    rocprofiler_context_id_t ctx{};
    if (rocprofiler_create_context(&ctx) != ROCPROFILER_STATUS_SUCCESS) return 1;
    if (rocprofiler_configure_callback_tracing_service(ctx, ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT, nullptr, 0,
                                                       &on_code_object, nullptr) != ROCPROFILER_STATUS_SUCCESS ||
        rocprofiler_configure_callback_tracing_service(ctx, ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH, nullptr, 0,
                                                       &on_dispatch, nullptr) != ROCPROFILER_STATUS_SUCCESS) {
        std::fprintf(stderr, "test_code_object: cannot configure\n");
        return 1;
    }
    return rocprofiler_start_context(ctx) == ROCPROFILER_STATUS_SUCCESS ? 0 : 1;
}

std::vector<rec> take() {
    std::lock_guard lk(g_mutex);
    std::vector<rec> out;
    out.swap(g_recs);
    return out;
}

struct symbol_info {
    std::string name;
    std::uint64_t kernel_object;
    std::uint32_t kernarg_size;
};

std::vector<symbol_info> kernel_symbols(hsa_executable_t exe, hsa_agent_t agent) {
    std::vector<symbol_info> out;
    hsa_executable_iterate_agent_symbols(
        exe, agent,
        [](hsa_executable_t, hsa_agent_t, hsa_executable_symbol_t s, void* d) {
            hsa_symbol_kind_t kind{};
            hsa_executable_symbol_get_info(s, HSA_EXECUTABLE_SYMBOL_INFO_TYPE, &kind);
            if (kind != HSA_SYMBOL_KIND_KERNEL) return HSA_STATUS_SUCCESS;
            symbol_info si{};
            std::uint32_t len = 0;
            hsa_executable_symbol_get_info(s, HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH, &len);
            si.name.resize(len);
            hsa_executable_symbol_get_info(s, HSA_EXECUTABLE_SYMBOL_INFO_NAME, si.name.data());
            hsa_executable_symbol_get_info(s, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &si.kernel_object);
            hsa_executable_symbol_get_info(s, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE, &si.kernarg_size);
            static_cast<std::vector<symbol_info>*>(d)->push_back(si);
            return HSA_STATUS_SUCCESS;
        },
        &out);
    return out;
}

using Args = example::VectorAddArgs;

}  // namespace

ENCORE_TEST_TOOL("test-code-object", &tool_init, nullptr)

int main(int argc, char** argv) {
    if (argc < 2) return 2;
    const char* path = argv[1];
    std::size_t loads3 = 0;
    HSA_CHECK(hsa_init());
    {
        const hsa_agent_t cpu = example::agents(HSA_DEVICE_TYPE_CPU).at(0);
        const auto gpus = example::agents(HSA_DEVICE_TYPE_GPU);
        expect(gpus.size() == 2, "two GPU agents (ENCORE_SIM_GPU_AGENTS=2)");

        // One executable, the file's code object on both agents.
        const int fd = open(path, O_RDONLY);
        expect(fd >= 0, "code object file opens");
        hsa_code_object_reader_t reader{};
        HSA_CHECK(hsa_code_object_reader_create_from_file(fd, &reader));
        hsa_executable_t exe{};
        HSA_CHECK(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, nullptr, &exe));
        for (auto gpu : gpus) HSA_CHECK(hsa_executable_load_agent_code_object(exe, gpu, reader, nullptr, nullptr));
        expect(take().empty(), "nothing reported before freeze");
        HSA_CHECK(hsa_executable_freeze(exe, nullptr));
        auto loads = take();

        std::vector<rec> cos, syms;
        for (auto& r : loads) {
            expect(r.phase == ROCPROFILER_CALLBACK_PHASE_LOAD, "freeze: phase LOAD");
            (r.op == ROCPROFILER_CODE_OBJECT_LOAD ? cos : syms).push_back(r);
        }
        expect(cos.size() == 2, "freeze: one LOAD record per code object (2 agents)");
        std::set<std::uint64_t> co_ids, co_agents;
        int co_ok = 0;
        for (auto& c : cos) {
            co_ids.insert(c.code_object_id);
            co_agents.insert(c.agent);
            co_ok += c.code_object_id != 0 && c.uri.rfind("file://", 0) == 0 && c.uri.find(path) != std::string::npos &&
                     c.load_base != 0 && c.load_size != 0 && c.hsa_agent == c.agent &&
                     c.storage_type == ROCPROFILER_CODE_OBJECT_STORAGE_TYPE_FILE && c.storage_file == fd;
        }
        expect(co_ids.size() == 2 && co_agents == std::set<std::uint64_t>{gpus[0].handle, gpus[1].handle},
               "code objects: unique ids, one per agent");
        expect(co_ok == 2, "code objects: URI, load base/size, the runtime's agent handle, file storage");
        // Each code object's LOAD comes before its symbols.
        std::map<std::uint64_t, std::size_t> first_index;
        for (std::size_t i = 0; i < loads.size(); ++i)
            if (!first_index.count(loads[i].code_object_id)) first_index[loads[i].code_object_id] = i;
        int order_ok = 0;
        for (auto& [id, i] : first_index) order_ok += loads[i].op == ROCPROFILER_CODE_OBJECT_LOAD;
        expect(order_ok == 2, "a code object's LOAD precedes its symbols");

        // Symbols: exactly what the runtime reports per agent.
        std::map<std::uint64_t, std::uint64_t> kernel_id_of_object;
        std::set<std::uint64_t> kernel_ids;
        int sym_ok = 0, sym_total = 0;
        for (auto& c : cos) {
            const auto want = kernel_symbols(exe, hsa_agent_t{c.agent});
            sym_total += static_cast<int>(want.size());
            for (auto& w : want)
                for (auto& s : syms)
                    if (s.code_object_id == c.code_object_id && s.kernel_object == w.kernel_object) {
                        sym_ok += s.kernel_name == w.name && s.kernarg_size == w.kernarg_size && s.kernarg_align >= 8 &&
                                  s.kernel_id != 0;
                        kernel_id_of_object[s.kernel_object] = s.kernel_id;
                    }
        }
        for (auto& s : syms) kernel_ids.insert(s.kernel_id);
        expect(sym_total >= 2 && sym_ok == sym_total && static_cast<int>(syms.size()) == sym_total,
               "symbols: one record per kernel symbol, names/kernel objects as the runtime reports");
        expect(kernel_ids.size() == syms.size(), "symbols: unique kernel ids");

        // A dispatch carries the registered kernel id.
        {
            const hsa_agent_t gpu = gpus[1];
            std::uint64_t kernel_object = 0;
            hsa_executable_symbol_t sym{};
            HSA_CHECK(hsa_executable_get_symbol_by_name(exe, "vector_add.kd", &gpu, &sym));
            HSA_CHECK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &kernel_object));
            hsa_queue_t* q = nullptr;
            HSA_CHECK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &q));
            constexpr uint32_t n = 256;
            auto* a = static_cast<float*>(example::alloc_shared(cpu, gpu, n * sizeof(float)));
            auto* b = static_cast<float*>(example::alloc_shared(cpu, gpu, n * sizeof(float)));
            auto* c = static_cast<float*>(example::alloc_shared(cpu, gpu, n * sizeof(float)));
            auto* args = static_cast<Args*>(example::alloc_kernarg(cpu, gpu, sizeof(Args)));
            for (uint32_t i = 0; i < n; ++i) a[i] = static_cast<float>(i), b[i] = 1.0f, c[i] = 0.0f;
            *args = {a, b, c, n};
            hsa_signal_t done{};
            HSA_CHECK(hsa_signal_create(1, 0, nullptr, &done));
            example::dispatch_1d(q, kernel_object, args, n, 64, done);
            example::wait_done(done);
            expect(c[n - 1] == static_cast<float>(n), "the dispatch ran");
            HSA_CHECK(hsa_signal_destroy(done));
            HSA_CHECK(hsa_queue_destroy(q));
            for (void* p :
                 {static_cast<void*>(a), static_cast<void*>(b), static_cast<void*>(c), static_cast<void*>(args)})
                HSA_CHECK(hsa_amd_memory_pool_free(p));
            std::lock_guard lk(g_mutex);
            expect(g_dispatches.size() == 1 && kernel_id_of_object.count(kernel_object) &&
                       g_dispatches[0].kernel_id == kernel_id_of_object[kernel_object] &&
                       g_dispatches[0].agent == gpu.handle,
                   "KERNEL_DISPATCH carries the registered kernel id");
        }

        // A second executable from memory, on one agent.
        struct stat st {};
        fstat(fd, &st);
        std::vector<char> bytes(static_cast<std::size_t>(st.st_size));
        expect(pread(fd, bytes.data(), bytes.size(), 0) == static_cast<ssize_t>(bytes.size()), "code object read");
        hsa_code_object_reader_t mreader{};
        HSA_CHECK(hsa_code_object_reader_create_from_memory(bytes.data(), bytes.size(), &mreader));
        hsa_executable_t exe2{};
        HSA_CHECK(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, nullptr, &exe2));
        HSA_CHECK(hsa_executable_load_agent_code_object(exe2, gpus[0], mreader, nullptr, nullptr));
        HSA_CHECK(hsa_executable_freeze(exe2, nullptr));
        auto loads2 = take();
        int mem_ok = 0, mem_syms = 0;
        for (auto& r : loads2) {
            if (r.op == ROCPROFILER_CODE_OBJECT_LOAD)
                mem_ok += r.storage_type == ROCPROFILER_CODE_OBJECT_STORAGE_TYPE_MEMORY &&
                          r.memory_base == reinterpret_cast<std::uint64_t>(bytes.data()) &&
                          r.memory_size == bytes.size() && r.uri.rfind("memory://", 0) == 0 &&
                          r.agent == gpus[0].handle && !co_ids.count(r.code_object_id);
            else
                mem_syms += !kernel_ids.count(r.kernel_id);
        }
        expect(mem_ok == 1 && mem_syms >= 1, "memory code object: storage MEMORY, new code object and kernel ids");

        // A second freeze fails; the runtime's status passes through and nothing is reported.
        expect(hsa_executable_freeze(exe2, nullptr) == HSA_STATUS_ERROR_FROZEN_EXECUTABLE && take().empty(),
               "second freeze: the runtime's status, no records");

        // Destroy: UNLOAD records, before the runtime destroys the executable.
        {
            std::lock_guard lk(g_mutex);
            g_watched = exe;
        }
        HSA_CHECK(hsa_executable_destroy(exe));
        auto unloads = take();
        {
            std::lock_guard lk(g_mutex);
            g_watched = hsa_executable_t{0};
        }
        int phase_ok = 0, alive = 0;
        for (auto& r : unloads) {
            phase_ok += r.phase == ROCPROFILER_CALLBACK_PHASE_UNLOAD;
            alive += r.exe_alive;
        }
        expect(unloads.size() == loads.size() && phase_ok == static_cast<int>(unloads.size()),
               "destroy: one UNLOAD record per LOAD record");
        expect(alive == static_cast<int>(unloads.size()),
               "destroy: UNLOAD records arrive before the runtime destroys it");
        // Order: for each code object, its symbols then the code object itself.
        int order = 0;
        std::set<std::uint64_t> closed;
        for (auto& r : unloads) {
            if (closed.count(r.code_object_id)) ++order;  // a record of an already unloaded code object
            if (r.op == ROCPROFILER_CODE_OBJECT_LOAD) closed.insert(r.code_object_id);
        }
        expect(order == 0 && closed.size() == 2, "destroy: symbols UNLOAD before their code object");
        // Same payloads, and each record's LOAD user_data.
        int same = 0;
        for (auto& u : unloads)
            for (auto& l : loads)
                same += u.op == l.op && u.code_object_id == l.code_object_id && u.kernel_id == l.kernel_id &&
                        u.ud_seen == l.ud_seen && u.uri == l.uri && u.kernel_name == l.kernel_name &&
                        u.kernel_object == l.kernel_object && u.agent == l.agent;
        expect(same == static_cast<int>(loads.size()), "destroy: same payloads, LOAD's user_data");

        HSA_CHECK(hsa_executable_destroy(exe2));
        expect(take().size() == loads2.size(), "second executable: UNLOAD records");
        expect(hsa_executable_destroy(exe2) == HSA_STATUS_ERROR_INVALID_EXECUTABLE && take().empty(),
               "destroying twice: the runtime's status, no records");
        // An executable still alive at shut-down is unloaded when the runtime unloads encore.
        hsa_executable_t exe3{};
        HSA_CHECK(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, nullptr, &exe3));
        HSA_CHECK(hsa_executable_load_agent_code_object(exe3, gpus[1], reader, nullptr, nullptr));
        HSA_CHECK(hsa_executable_freeze(exe3, nullptr));
        loads3 = take().size();
        expect(loads3 >= 2, "third executable: LOAD records");
        HSA_CHECK(hsa_code_object_reader_destroy(mreader));
        HSA_CHECK(hsa_code_object_reader_destroy(reader));
        close(fd);
    }
    HSA_CHECK(hsa_shut_down());
    {
        auto at_exit = take();
        int unload = 0;
        for (auto& r : at_exit) unload += r.phase == ROCPROFILER_CALLBACK_PHASE_UNLOAD;
        expect(at_exit.size() == loads3 && unload == static_cast<int>(loads3),
               "shut-down: UNLOAD records of the executable still alive");
    }
    return test_support::finish();
}
