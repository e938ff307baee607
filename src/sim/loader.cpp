// Code objects (host shared libraries exporting encore_sim_code_object), executables,
// symbols and the hsa_ven_amd_loader extension.
#include "sim_internal.hpp"

#include <dlfcn.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

namespace encore::sim {
namespace {

// ---- objects ------------------------------------------------------------------------------
struct Reader {
    std::vector<char> bytes;
    bool from_file = false;
    int fd = -1;
    const void* mem_base = nullptr;
    std::string uri;
};

struct DlLib {
    void* handle = nullptr;
    int memfd = -1;
    ~DlLib() {
        if (handle) dlclose(handle);
        if (memfd >= 0) close(memfd);
    }
};

// Starts like an AMD kernel descriptor (group/private/kernarg sizes at offsets 0/4/8),
// so tools that peek at kernel_object find plausible values.
struct alignas(64) KernelObj {
    uint32_t group_segment_fixed_size = 0;
    uint32_t private_segment_fixed_size = 0;
    uint32_t kernarg_size = 0;
    uint8_t reserved[52] = {};
    encore_sim_kernel_fn fn = nullptr;
    uint32_t kernarg_alignment = 16;
    uint32_t gpu_index = 0;
    std::shared_ptr<DlLib> lib;
};

// ---- _amdgpu_r_debug ----------------------------------------------------------------------
// ROCr exports an r_debug whose link_map chain lists the loaded GPU code objects (l_addr =
// load base, l_name = URI) for debuggers. The simulator keeps the same chain (g_mu held).
struct RDebugEntry {
    link_map map{};
    std::string uri;
};

struct LoadedCO;

struct Symbol {
    uint64_t exe = 0;
    LoadedCO* co = nullptr;
    Agent* agent = nullptr;
    bool is_kernel = false;
    std::string name;  // without ".kd"
    KernelObj* kernel = nullptr;
    void* address = nullptr;
    uint64_t size = 0;
    uint32_t alignment = 1;
    bool is_const = false;
};

struct LoadedCO {
    RDebugEntry* rdebug = nullptr;
    uint64_t exe = 0;
    Agent* agent = nullptr;
    std::shared_ptr<DlLib> lib;
    bool from_file = false;
    int fd = -1;
    const void* mem_base = nullptr;
    uint64_t mem_size = 0;
    std::string uri;
    uint64_t load_base = 0;
    uint64_t load_size = 0;
    int64_t load_delta = 0;
    std::vector<std::unique_ptr<Symbol>> symbols;
    std::vector<std::unique_ptr<KernelObj>> kernels;
};

struct Executable {
    bool frozen = false;
    hsa_profile_t profile = HSA_PROFILE_FULL;
    hsa_default_float_rounding_mode_t rounding = HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR;
    std::vector<std::unique_ptr<LoadedCO>> cos;
};

// One lock for the loader's registries; kernel lookups (per dispatch) take it shared.
auto& g_mu = leaky<std::shared_mutex>();
auto& g_readers = leaky<std::unordered_map<uint64_t, std::unique_ptr<Reader>>>();
auto& g_exes = leaky<std::map<uint64_t, std::unique_ptr<Executable>>>();  // ordered
auto& g_symbols = leaky<std::unordered_map<uint64_t, Symbol*>>();
auto& g_kernels = leaky<std::unordered_map<uint64_t, KernelObj*>>();
auto& g_cos = leaky<std::unordered_map<uint64_t, LoadedCO*>>();

auto& g_rdebug_entries = leaky<std::vector<std::unique_ptr<RDebugEntry>>>();

void rdebug_relink();

template <typename T>
uint64_t handle_of(const T* p) {
    return reinterpret_cast<uint64_t>(p);
}

std::string memory_uri(const void* base, size_t size) {
    char buf[128];
    snprintf(buf, sizeof buf, "memory://%d#offset=0x%llx&size=%zu", static_cast<int>(getpid()),
             static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(base)), size);
    return buf;
}

std::string file_uri(int fd, size_t offset, size_t size) {
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    char path[4096];
    ssize_t n = readlink(link, path, sizeof path - 1);
    std::string p = n > 0 ? std::string(path, static_cast<size_t>(n)) : std::string(link);
    return "file://" + p + "#offset=" + std::to_string(offset) + "&size=" + std::to_string(size);
}

// ---- readers --------------------------------------------------------------------------------
hsa_status_t read_file(int fd, size_t offset, size_t size, bool whole, std::vector<char>* out) {
    struct stat st {};
    if (fd < 0 || fstat(fd, &st) != 0) return HSA_STATUS_ERROR_INVALID_FILE;
    if (whole) {
        if (st.st_size <= 0) return HSA_STATUS_ERROR_INVALID_FILE;
        offset = 0;
        size = static_cast<size_t>(st.st_size);
    }
    out->resize(size);
    size_t done = 0;
    while (done < size) {
        ssize_t r = pread(fd, out->data() + done, size - done, static_cast<off_t>(offset + done));
        if (r <= 0) return HSA_STATUS_ERROR_INVALID_FILE;
        done += static_cast<size_t>(r);
    }
    return HSA_STATUS_SUCCESS;
}

hsa_status_t add_reader(std::unique_ptr<Reader> r, hsa_code_object_reader_t* out) {
    out->handle = next_handle();
    std::unique_lock<std::shared_mutex> lk(g_mu);
    g_readers.emplace(out->handle, std::move(r));
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_reader_from_file_offset(hsa_file_t file, size_t offset, size_t size, hsa_code_object_reader_t* reader) {
    SIM_REQUIRE_INIT();
    if (!reader) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    auto r = std::make_unique<Reader>();
    if (size == 0) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    if (hsa_status_t s = read_file(file, offset, size, false, &r->bytes); s != HSA_STATUS_SUCCESS) return s;
    r->from_file = true;
    r->fd = file;
    r->uri = file_uri(file, offset, size);
    return add_reader(std::move(r), reader);
}

hsa_status_t impl_reader_from_file(hsa_file_t file, hsa_code_object_reader_t* reader) {
    SIM_REQUIRE_INIT();
    if (!reader) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    auto r = std::make_unique<Reader>();
    if (hsa_status_t s = read_file(file, 0, 0, true, &r->bytes); s != HSA_STATUS_SUCCESS) return s;
    r->from_file = true;
    r->fd = file;
    r->uri = file_uri(file, 0, r->bytes.size());
    return add_reader(std::move(r), reader);
}

hsa_status_t impl_reader_from_memory(const void* code_object, size_t size, hsa_code_object_reader_t* reader) {
    SIM_REQUIRE_INIT();
    if (!code_object || size == 0 || !reader) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    auto r = std::make_unique<Reader>();
    r->bytes.assign(static_cast<const char*>(code_object), static_cast<const char*>(code_object) + size);
    r->mem_base = code_object;
    r->uri = memory_uri(code_object, size);
    return add_reader(std::move(r), reader);
}

hsa_status_t impl_reader_destroy(hsa_code_object_reader_t reader) {
    SIM_REQUIRE_INIT();
    std::unique_lock<std::shared_mutex> lk(g_mu);
    if (g_readers.erase(reader.handle) == 0) return HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER;
    return HSA_STATUS_SUCCESS;
}

// ---- executables -----------------------------------------------------------------------------
hsa_status_t impl_executable_create_alt(hsa_profile_t profile, hsa_default_float_rounding_mode_t rounding,
                                        const char* options, hsa_executable_t* exe) {
    SIM_REQUIRE_INIT();
    (void)options;
    if (!exe || (profile != HSA_PROFILE_BASE && profile != HSA_PROFILE_FULL) ||
        rounding > HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR)
        return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    auto e = std::make_unique<Executable>();
    e->profile = profile;
    e->rounding = rounding;
    exe->handle = next_handle();
    std::unique_lock<std::shared_mutex> lk(g_mu);
    g_exes.emplace(exe->handle, std::move(e));
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_executable_create(hsa_profile_t profile, hsa_executable_state_t state, const char* options,
                                    hsa_executable_t* exe) {
    if (state != HSA_EXECUTABLE_STATE_UNFROZEN && state != HSA_EXECUTABLE_STATE_FROZEN)
        return initialized() ? HSA_STATUS_ERROR_INVALID_ARGUMENT : HSA_STATUS_ERROR_NOT_INITIALIZED;
    hsa_status_t s = impl_executable_create_alt(profile, HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR, options, exe);
    if (s == HSA_STATUS_SUCCESS && state == HSA_EXECUTABLE_STATE_FROZEN) {
        std::unique_lock<std::shared_mutex> lk(g_mu);
        g_exes[exe->handle]->frozen = true;
    }
    return s;
}

struct PhdrQuery {
    uintptr_t addr;
    const char* name;
    uint64_t lo = UINT64_MAX;
    uint64_t hi = 0;
};

int phdr_cb(dl_phdr_info* info, size_t, void* data) {
    auto* q = static_cast<PhdrQuery*>(data);
    if (info->dlpi_addr != q->addr || !info->dlpi_name || strcmp(info->dlpi_name, q->name) != 0) return 0;
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const auto& ph = info->dlpi_phdr[i];
        if (ph.p_type != PT_LOAD) continue;
        q->lo = std::min<uint64_t>(q->lo, ph.p_vaddr);
        q->hi = std::max<uint64_t>(q->hi, ph.p_vaddr + ph.p_memsz);
    }
    return 1;
}

hsa_status_t impl_load_agent_code_object(hsa_executable_t exe_h, hsa_agent_t agent, hsa_code_object_reader_t reader_h,
                                         const char* options, hsa_loaded_code_object_t* loaded) {
    SIM_REQUIRE_INIT();
    (void)options;
    Agent* agent_p = agent_from_handle(agent);
    std::vector<char> bytes;
    auto co = std::make_unique<LoadedCO>();
    {
        std::shared_lock<std::shared_mutex> lk(g_mu);
        auto e = g_exes.find(exe_h.handle);
        if (e == g_exes.end()) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
        if (e->second->frozen) return HSA_STATUS_ERROR_FROZEN_EXECUTABLE;
        auto r = g_readers.find(reader_h.handle);
        if (r == g_readers.end()) return HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER;
        if (!agent_p) return HSA_STATUS_ERROR_INVALID_AGENT;
        if (agent_p->type != HSA_DEVICE_TYPE_GPU) return HSA_STATUS_ERROR_INVALID_AGENT;
        bytes = r->second->bytes;
        co->from_file = r->second->from_file;
        co->fd = r->second->fd;
        co->mem_base = r->second->mem_base;
        co->mem_size = r->second->bytes.size();
        co->uri = r->second->uri;
    }
    co->exe = exe_h.handle;
    co->agent = agent_p;
    // Each load gets its own copy of the library (own module-scope variable storage).
    auto lib = std::make_shared<DlLib>();
    lib->memfd = memfd_create("encore-sim-code-object", MFD_CLOEXEC);
    if (lib->memfd < 0) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    for (size_t done = 0; done < bytes.size();) {
        ssize_t w = write(lib->memfd, bytes.data() + done, bytes.size() - done);
        if (w <= 0) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
        done += static_cast<size_t>(w);
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", lib->memfd);
    lib->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib->handle) {
        const char* err = dlerror();
        report("code object rejected (dlopen failed: %s)", err ? err : "?");
        return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
    }
    const auto* desc = static_cast<const encore_sim_code_object_t*>(dlsym(lib->handle, ENCORE_SIM_CODE_OBJECT_SYMBOL));
    if (!desc || desc->abi_version != ENCORE_SIM_ABI_VERSION || (desc->kernel_count && !desc->kernels) ||
        (desc->variable_count && !desc->variables)) {
        report("code object rejected: no valid %s descriptor", ENCORE_SIM_CODE_OBJECT_SYMBOL);
        return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
    }
    link_map* lm = nullptr;
    if (dlinfo(lib->handle, RTLD_DI_LINKMAP, &lm) == 0 && lm) {
        PhdrQuery q{static_cast<uintptr_t>(lm->l_addr), lm->l_name};
        dl_iterate_phdr(phdr_cb, &q);
        co->load_delta = static_cast<int64_t>(lm->l_addr);
        if (q.hi > q.lo) {
            co->load_base = lm->l_addr + q.lo;
            co->load_size = q.hi - q.lo;
        }
    }
    co->lib = lib;
    for (uint32_t i = 0; i < desc->kernel_count; ++i) {
        const encore_sim_kernel_desc_t& kd = desc->kernels[i];
        if (!kd.name || !kd.fn) return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
        auto k = std::make_unique<KernelObj>();
        k->group_segment_fixed_size = kd.group_segment_size;
        k->private_segment_fixed_size = kd.private_segment_size;
        k->kernarg_size = kd.kernarg_size;
        k->kernarg_alignment = std::max<uint32_t>(kd.kernarg_alignment, 16);
        k->fn = kd.fn;
        k->gpu_index = agent_p->gpu_index;
        k->lib = lib;
        auto s = std::make_unique<Symbol>();
        s->exe = exe_h.handle;
        s->co = co.get();
        s->agent = agent_p;
        s->is_kernel = true;
        s->name = kd.name;
        if (s->name.size() > 3 && s->name.compare(s->name.size() - 3, 3, ".kd") == 0)
            s->name.resize(s->name.size() - 3);
        s->kernel = k.get();
        co->kernels.push_back(std::move(k));
        co->symbols.push_back(std::move(s));
    }
    for (uint32_t i = 0; i < desc->variable_count; ++i) {
        const encore_sim_variable_desc_t& vd = desc->variables[i];
        if (!vd.name || !vd.address) return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
        auto s = std::make_unique<Symbol>();
        s->exe = exe_h.handle;
        s->co = co.get();
        s->agent = agent_p;
        s->name = vd.name;
        s->address = vd.address;
        s->size = vd.size;
        s->alignment = vd.alignment ? vd.alignment : 1;
        s->is_const = vd.is_const != 0;
        co->symbols.push_back(std::move(s));
    }
    std::unique_lock<std::shared_mutex> lk(g_mu);
    auto e = g_exes.find(exe_h.handle);
    if (e == g_exes.end()) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;  // destroyed meanwhile
    if (e->second->frozen) return HSA_STATUS_ERROR_FROZEN_EXECUTABLE;
    for (auto& s : co->symbols) {
        g_symbols.emplace(handle_of(s.get()), s.get());
        if (s->kernel) g_kernels.emplace(handle_of(s->kernel), s->kernel);
    }
    if (loaded) loaded->handle = handle_of(co.get());
    g_cos.emplace(handle_of(co.get()), co.get());
    {
        auto entry = std::make_unique<RDebugEntry>();
        entry->uri = co->uri;
        entry->map.l_addr = static_cast<ElfW(Addr)>(co->load_base);
        co->rdebug = entry.get();
        g_rdebug_entries.push_back(std::move(entry));
        rdebug_relink();
    }
    e->second->cos.push_back(std::move(co));
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_executable_freeze(hsa_executable_t exe, const char*) {
    SIM_REQUIRE_INIT();
    std::unique_lock<std::shared_mutex> lk(g_mu);
    auto e = g_exes.find(exe.handle);
    if (e == g_exes.end()) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
    if (e->second->frozen) return HSA_STATUS_ERROR_FROZEN_EXECUTABLE;
    e->second->frozen = true;
    return HSA_STATUS_SUCCESS;
}

void unregister_exe(Executable& e) {  // g_mu held exclusively
    for (auto& co : e.cos) {
        for (auto& s : co->symbols) {
            g_symbols.erase(handle_of(s.get()));
            if (s->kernel) g_kernels.erase(handle_of(s->kernel));
        }
        g_cos.erase(handle_of(co.get()));
        std::erase_if(g_rdebug_entries, [&](const auto& e) { return e.get() == co->rdebug; });
    }
    rdebug_relink();
}

hsa_status_t impl_executable_destroy(hsa_executable_t exe) {
    SIM_REQUIRE_INIT();
    std::unique_ptr<Executable> victim;
    {
        std::unique_lock<std::shared_mutex> lk(g_mu);
        auto e = g_exes.find(exe.handle);
        if (e == g_exes.end()) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
        victim = std::move(e->second);
        g_exes.erase(e);
        unregister_exe(*victim);
    }
    return HSA_STATUS_SUCCESS;  // libraries close when running dispatches release them
}

hsa_status_t impl_executable_get_info(hsa_executable_t exe, hsa_executable_info_t attribute, void* value) {
    SIM_REQUIRE_INIT();
    std::shared_lock<std::shared_mutex> lk(g_mu);
    auto e = g_exes.find(exe.handle);
    if (e == g_exes.end()) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
    if (!value) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    switch (attribute) {
        case HSA_EXECUTABLE_INFO_PROFILE: *static_cast<hsa_profile_t*>(value) = e->second->profile; break;
        case HSA_EXECUTABLE_INFO_STATE:
            *static_cast<hsa_executable_state_t*>(value) = e->second->frozen ? HSA_EXECUTABLE_STATE_FROZEN
                                                                             : HSA_EXECUTABLE_STATE_UNFROZEN;
            break;
        case HSA_EXECUTABLE_INFO_DEFAULT_FLOAT_ROUNDING_MODE:
            *static_cast<hsa_default_float_rounding_mode_t*>(value) = e->second->rounding;
            break;
        default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    }
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_executable_validate(hsa_executable_t exe, uint32_t* result) {
    SIM_REQUIRE_INIT();
    if (!result) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    std::shared_lock<std::shared_mutex> lk(g_mu);
    if (!g_exes.count(exe.handle)) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
    *result = 0;
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_executable_validate_alt(hsa_executable_t exe, const char*, uint32_t* result) {
    return impl_executable_validate(exe, result);
}

bool name_matches(const Symbol& s, const char* name) {
    if (s.name == name) return true;
    if (!s.is_kernel) return false;
    const size_t n = strlen(name);
    return n == s.name.size() + 3 && strncmp(name, s.name.c_str(), s.name.size()) == 0 &&
           strcmp(name + s.name.size(), ".kd") == 0;
}

hsa_status_t impl_get_symbol_by_name(hsa_executable_t exe, const char* name, const hsa_agent_t* agent,
                                     hsa_executable_symbol_t* sym) {
    SIM_REQUIRE_INIT();
    if (!name || !sym) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    std::shared_lock<std::shared_mutex> lk(g_mu);
    auto e = g_exes.find(exe.handle);
    if (e == g_exes.end()) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
    if (agent && !agent_from_handle(*agent)) return HSA_STATUS_ERROR_INVALID_AGENT;
    for (auto& co : e->second->cos) {
        if (agent && co->agent->handle().handle != agent->handle) continue;
        for (auto& s : co->symbols)
            if (name_matches(*s, name)) {
                sym->handle = handle_of(s.get());
                return HSA_STATUS_SUCCESS;
            }
    }
    return HSA_STATUS_ERROR_INVALID_SYMBOL_NAME;
}

hsa_status_t impl_get_symbol(hsa_executable_t exe, const char* module_name, const char* name, hsa_agent_t agent,
                             int32_t call_convention, hsa_executable_symbol_t* sym) {
    (void)module_name;
    (void)call_convention;
    return impl_get_symbol_by_name(exe, name, &agent, sym);
}

// Copies the symbol handles of an executable (optionally of one agent) under the lock.
hsa_status_t collect_symbols(hsa_executable_t exe, const Agent* agent, std::vector<hsa_executable_symbol_t>* out) {
    std::shared_lock<std::shared_mutex> lk(g_mu);
    auto e = g_exes.find(exe.handle);
    if (e == g_exes.end()) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
    for (auto& co : e->second->cos)
        if (!agent || co->agent == agent)
            for (auto& s : co->symbols) out->push_back(hsa_executable_symbol_t{handle_of(s.get())});
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_iterate_symbols(hsa_executable_t exe,
                                  hsa_status_t (*cb)(hsa_executable_t, hsa_executable_symbol_t, void*), void* data) {
    SIM_REQUIRE_INIT();
    if (!cb) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    std::vector<hsa_executable_symbol_t> syms;
    if (hsa_status_t s = collect_symbols(exe, nullptr, &syms); s != HSA_STATUS_SUCCESS) return s;
    for (auto sym : syms)
        if (hsa_status_t s = cb(exe, sym, data); s != HSA_STATUS_SUCCESS) return s;
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_iterate_agent_symbols(hsa_executable_t exe, hsa_agent_t agent,
                                        hsa_status_t (*cb)(hsa_executable_t, hsa_agent_t, hsa_executable_symbol_t, void*),
                                        void* data) {
    SIM_REQUIRE_INIT();
    if (!cb) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    Agent* a = agent_from_handle(agent);
    if (!a) return HSA_STATUS_ERROR_INVALID_AGENT;
    std::vector<hsa_executable_symbol_t> syms;
    if (hsa_status_t s = collect_symbols(exe, a, &syms); s != HSA_STATUS_SUCCESS) return s;
    for (auto sym : syms)
        if (hsa_status_t s = cb(exe, agent, sym, data); s != HSA_STATUS_SUCCESS) return s;
    return HSA_STATUS_SUCCESS;
}

hsa_status_t impl_iterate_program_symbols(hsa_executable_t exe,
                                          hsa_status_t (*cb)(hsa_executable_t, hsa_executable_symbol_t, void*),
                                          void* data) {
    SIM_REQUIRE_INIT();
    (void)data;
    if (!cb) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    std::shared_lock<std::shared_mutex> lk(g_mu);
    if (!g_exes.count(exe.handle)) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
    return HSA_STATUS_SUCCESS;  // all symbols of simulator code objects are agent symbols
}

hsa_status_t impl_symbol_get_info(hsa_executable_symbol_t sym_h, hsa_executable_symbol_info_t attribute, void* value) {
    SIM_REQUIRE_INIT();
    std::shared_lock<std::shared_mutex> lk(g_mu);
    auto it = g_symbols.find(sym_h.handle);
    if (it == g_symbols.end()) return HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL;
    if (!value) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    const Symbol& s = *it->second;
    const std::string full = s.is_kernel ? s.name + ".kd" : s.name;
    auto kernel_only = [&] { return s.is_kernel; };
    switch (attribute) {
        case HSA_EXECUTABLE_SYMBOL_INFO_TYPE:
            *static_cast<hsa_symbol_kind_t*>(value) = s.is_kernel ? HSA_SYMBOL_KIND_KERNEL : HSA_SYMBOL_KIND_VARIABLE;
            break;
        case HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH:
            *static_cast<uint32_t*>(value) = static_cast<uint32_t>(full.size());
            break;
        case HSA_EXECUTABLE_SYMBOL_INFO_NAME: memcpy(value, full.data(), full.size()); break;
        case HSA_EXECUTABLE_SYMBOL_INFO_MODULE_NAME_LENGTH: *static_cast<uint32_t*>(value) = 0; break;
        case HSA_EXECUTABLE_SYMBOL_INFO_MODULE_NAME: break;
        case HSA_EXECUTABLE_SYMBOL_INFO_AGENT: *static_cast<hsa_agent_t*>(value) = s.agent->handle(); break;
        case HSA_EXECUTABLE_SYMBOL_INFO_LINKAGE:
            *static_cast<hsa_symbol_linkage_t*>(value) = HSA_SYMBOL_LINKAGE_PROGRAM;
            break;
        case HSA_EXECUTABLE_SYMBOL_INFO_IS_DEFINITION: *static_cast<bool*>(value) = true; break;
        case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS:
            if (kernel_only()) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
            *static_cast<uint64_t*>(value) = reinterpret_cast<uint64_t>(s.address);
            break;
        case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ALLOCATION:
            if (kernel_only()) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
            *static_cast<hsa_variable_allocation_t*>(value) = HSA_VARIABLE_ALLOCATION_AGENT;
            break;
        case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SEGMENT:
            if (kernel_only()) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
            *static_cast<hsa_variable_segment_t*>(value) = s.is_const ? HSA_VARIABLE_SEGMENT_READONLY
                                                                      : HSA_VARIABLE_SEGMENT_GLOBAL;
            break;
        case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ALIGNMENT:
            if (kernel_only()) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
            *static_cast<uint32_t*>(value) = s.alignment;
            break;
        case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SIZE:
            if (kernel_only()) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
            *static_cast<uint32_t*>(value) = static_cast<uint32_t>(s.size);
            break;
        case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_IS_CONST:
            if (kernel_only()) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
            *static_cast<bool*>(value) = s.is_const;
            break;
        case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT:
            if (!kernel_only()) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
            *static_cast<uint64_t*>(value) = handle_of(s.kernel);
            break;
        case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE:
            if (!kernel_only()) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
            *static_cast<uint32_t*>(value) = s.kernel->kernarg_size;
            break;
        case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_ALIGNMENT:
            if (!kernel_only()) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
            *static_cast<uint32_t*>(value) = s.kernel->kernarg_alignment;
            break;
        case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE:
            if (!kernel_only()) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
            *static_cast<uint32_t*>(value) = s.kernel->group_segment_fixed_size;
            break;
        case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE:
            if (!kernel_only()) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
            *static_cast<uint32_t*>(value) = s.kernel->private_segment_fixed_size;
            break;
        case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_DYNAMIC_CALLSTACK:
            if (!kernel_only()) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
            *static_cast<bool*>(value) = false;
            break;
        case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_CALL_CONVENTION:
            if (!kernel_only()) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
            *static_cast<uint32_t*>(value) = 0;
            break;
        default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    }
    return HSA_STATUS_SUCCESS;
}

// ---- hsa_ven_amd_loader ---------------------------------------------------------------------
// The loaded code object whose library image, or one of whose kernel objects, contains
// addr (g_mu held). Kernel objects count as device addresses of their code object, so tools
// can read a "kernel descriptor" through query_host_address(kernel_object) as on ROCr.
const LoadedCO* co_containing(const void* addr) {
    const uint64_t a = reinterpret_cast<uint64_t>(addr);
    for (auto& [h, co] : g_cos) {
        if (a >= co->load_base && a < co->load_base + co->load_size) return co;
        for (auto& k : co->kernels) {
            const uint64_t kb = handle_of(k.get());
            if (a >= kb && a < kb + sizeof(KernelObj)) return co;
        }
    }
    return nullptr;
}

hsa_status_t ld_query_host_address(const void* device_address, const void** host_address) {
    SIM_REQUIRE_INIT();
    if (!device_address || !host_address) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    std::shared_lock<std::shared_mutex> lk(g_mu);
    if (!co_containing(device_address)) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    *host_address = device_address;  // host and agents share one address space
    return HSA_STATUS_SUCCESS;
}

hsa_status_t ld_query_segment_descriptors(hsa_ven_amd_loader_segment_descriptor_t* descs, size_t* num) {
    SIM_REQUIRE_INIT();
    if (!num) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    std::shared_lock<std::shared_mutex> lk(g_mu);
    size_t total = 0;
    for (auto& [h, e] : g_exes) total += e->cos.size();
    if (!descs) {
        *num = total;
        return HSA_STATUS_SUCCESS;
    }
    if (*num < total) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    size_t i = 0;
    for (auto& [h, e] : g_exes)
        for (auto& co : e->cos) {
            auto& d = descs[i++];
            d.agent = co->agent->handle();
            d.executable = hsa_executable_t{h};
            d.code_object_storage_type = co->from_file ? HSA_VEN_AMD_LOADER_CODE_OBJECT_STORAGE_TYPE_FILE
                                                       : HSA_VEN_AMD_LOADER_CODE_OBJECT_STORAGE_TYPE_MEMORY;
            d.code_object_storage_base = co->mem_base;
            d.code_object_storage_size = co->mem_size;
            d.code_object_storage_offset = 0;
            d.segment_base = reinterpret_cast<const void*>(co->load_base);
            d.segment_size = co->load_size;
        }
    *num = total;
    return HSA_STATUS_SUCCESS;
}

hsa_status_t ld_query_executable(const void* device_address, hsa_executable_t* exe) {
    SIM_REQUIRE_INIT();
    if (!device_address || !exe) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    std::shared_lock<std::shared_mutex> lk(g_mu);
    const LoadedCO* co = co_containing(device_address);
    if (!co) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    exe->handle = co->exe;
    return HSA_STATUS_SUCCESS;
}

hsa_status_t ld_iterate_loaded_code_objects(hsa_executable_t exe,
                                            hsa_status_t (*cb)(hsa_executable_t, hsa_loaded_code_object_t, void*),
                                            void* data) {
    SIM_REQUIRE_INIT();
    if (!cb) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    std::vector<hsa_loaded_code_object_t> cos;
    {
        std::shared_lock<std::shared_mutex> lk(g_mu);
        auto e = g_exes.find(exe.handle);
        if (e == g_exes.end()) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
        for (auto& co : e->second->cos) cos.push_back(hsa_loaded_code_object_t{handle_of(co.get())});
    }
    for (auto co : cos)
        if (hsa_status_t s = cb(exe, co, data); s != HSA_STATUS_SUCCESS) return s;
    return HSA_STATUS_SUCCESS;
}

hsa_status_t ld_loaded_code_object_get_info(hsa_loaded_code_object_t lco,
                                            hsa_ven_amd_loader_loaded_code_object_info_t attribute, void* value) {
    SIM_REQUIRE_INIT();
    if (!value) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    std::shared_lock<std::shared_mutex> lk(g_mu);
    auto it = g_cos.find(lco.handle);
    if (it == g_cos.end()) return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
    const LoadedCO& co = *it->second;
    switch (attribute) {
        case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_EXECUTABLE:
            *static_cast<hsa_executable_t*>(value) = hsa_executable_t{co.exe};
            break;
        case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_KIND:
            *static_cast<uint32_t*>(value) = HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_KIND_AGENT;
            break;
        case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_AGENT:
            *static_cast<hsa_agent_t*>(value) = co.agent->handle();
            break;
        case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_TYPE:
            *static_cast<uint32_t*>(value) = co.from_file ? HSA_VEN_AMD_LOADER_CODE_OBJECT_STORAGE_TYPE_FILE
                                                          : HSA_VEN_AMD_LOADER_CODE_OBJECT_STORAGE_TYPE_MEMORY;
            break;
        case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_MEMORY_BASE:
            if (co.from_file) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
            *static_cast<uint64_t*>(value) = reinterpret_cast<uint64_t>(co.mem_base);
            break;
        case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_MEMORY_SIZE:
            if (co.from_file) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
            *static_cast<uint64_t*>(value) = co.mem_size;
            break;
        case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_FILE:
            if (!co.from_file) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
            *static_cast<int*>(value) = co.fd;
            break;
        case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_DELTA:
            *static_cast<int64_t*>(value) = co.load_delta;
            break;
        case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_BASE: *static_cast<uint64_t*>(value) = co.load_base; break;
        case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_SIZE: *static_cast<uint64_t*>(value) = co.load_size; break;
        case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_URI_LENGTH:
            *static_cast<uint32_t*>(value) = static_cast<uint32_t>(co.uri.size());
            break;
        case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_URI: memcpy(value, co.uri.data(), co.uri.size()); break;
        default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    }
    return HSA_STATUS_SUCCESS;
}

hsa_status_t ld_iterate_executables(hsa_status_t (*cb)(hsa_executable_t, void*), void* data) {
    SIM_REQUIRE_INIT();
    if (!cb) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    std::vector<hsa_executable_t> exes;
    {
        std::shared_lock<std::shared_mutex> lk(g_mu);
        for (auto& [h, e] : g_exes) exes.push_back(hsa_executable_t{h});
    }
    for (auto e : exes)
        if (hsa_status_t s = cb(e, data); s != HSA_STATUS_SUCCESS) return s;
    return HSA_STATUS_SUCCESS;
}

}  // namespace
}  // namespace encore::sim

extern "C" {
ENCORE_SIM_EXPORT r_debug _amdgpu_r_debug = {1, nullptr, 0, r_debug::RT_CONSISTENT, 0};
}

namespace encore::sim {
namespace {

void rdebug_relink() {  // g_mu held
    link_map* prev = nullptr;
    for (auto& e : g_rdebug_entries) {
        e->map.l_name = e->uri.data();
        e->map.l_prev = prev;
        e->map.l_next = nullptr;
        if (prev) prev->l_next = &e->map;
        prev = &e->map;
    }
    _amdgpu_r_debug.r_map = g_rdebug_entries.empty() ? nullptr : &g_rdebug_entries.front()->map;
}

const hsa_ven_amd_loader_1_03_pfn_t g_loader_table = {
    ld_query_host_address,          ld_query_segment_descriptors,   ld_query_executable,
    ld_iterate_loaded_code_objects, ld_loaded_code_object_get_info, impl_reader_from_file_offset,
    ld_iterate_executables,
};

}  // namespace

const hsa_ven_amd_loader_1_03_pfn_t& loader_extension_table() { return g_loader_table; }

bool kernel_lookup(uint64_t kernel_object, KernelRef* out) {
    std::shared_lock<std::shared_mutex> lk(g_mu);
    auto it = g_kernels.find(kernel_object);
    if (it == g_kernels.end()) return false;
    const KernelObj& k = *it->second;
    out->fn = k.fn;
    out->group_segment_size = k.group_segment_fixed_size;
    out->private_segment_size = k.private_segment_fixed_size;
    out->gpu_index = k.gpu_index;
    out->keep_alive = k.lib;
    return true;
}

void loader_shutdown() {
    std::map<uint64_t, std::unique_ptr<Executable>> exes;
    std::unordered_map<uint64_t, std::unique_ptr<Reader>> readers;
    {
        std::unique_lock<std::shared_mutex> lk(g_mu);
        exes.swap(g_exes);
        readers.swap(g_readers);
        g_symbols.clear();
        g_kernels.clear();
        g_cos.clear();
        g_rdebug_entries.clear();
        rdebug_relink();
    }
}

void install_loader(HsaApiTable& t) {
    CoreApiTable& c = *t.core_;
    c.hsa_code_object_reader_create_from_file_fn = impl_reader_from_file;
    c.hsa_code_object_reader_create_from_memory_fn = impl_reader_from_memory;
    c.hsa_code_object_reader_destroy_fn = impl_reader_destroy;
    c.hsa_executable_create_fn = impl_executable_create;
    c.hsa_executable_create_alt_fn = impl_executable_create_alt;
    c.hsa_executable_load_agent_code_object_fn = impl_load_agent_code_object;
    c.hsa_executable_freeze_fn = impl_executable_freeze;
    c.hsa_executable_destroy_fn = impl_executable_destroy;
    c.hsa_executable_get_info_fn = impl_executable_get_info;
    c.hsa_executable_validate_fn = impl_executable_validate;
    c.hsa_executable_validate_alt_fn = impl_executable_validate_alt;
    c.hsa_executable_get_symbol_by_name_fn = impl_get_symbol_by_name;
    c.hsa_executable_get_symbol_fn = impl_get_symbol;
    c.hsa_executable_iterate_symbols_fn = impl_iterate_symbols;
    c.hsa_executable_iterate_agent_symbols_fn = impl_iterate_agent_symbols;
    c.hsa_executable_iterate_program_symbols_fn = impl_iterate_program_symbols;
    c.hsa_executable_symbol_get_info_fn = impl_symbol_get_info;
}

}  // namespace encore::sim

// The loader extension functions are also exported directly, as ROCr does.
extern "C" {
ENCORE_SIM_EXPORT hsa_status_t hsa_ven_amd_loader_query_host_address(const void* d, const void** h) {
    return encore::sim::loader_extension_table().hsa_ven_amd_loader_query_host_address(d, h);
}
ENCORE_SIM_EXPORT hsa_status_t hsa_ven_amd_loader_query_segment_descriptors(hsa_ven_amd_loader_segment_descriptor_t* d,
                                                                            size_t* n) {
    return encore::sim::loader_extension_table().hsa_ven_amd_loader_query_segment_descriptors(d, n);
}
ENCORE_SIM_EXPORT hsa_status_t hsa_ven_amd_loader_query_executable(const void* d, hsa_executable_t* e) {
    return encore::sim::loader_extension_table().hsa_ven_amd_loader_query_executable(d, e);
}
ENCORE_SIM_EXPORT hsa_status_t hsa_ven_amd_loader_executable_iterate_loaded_code_objects(
    hsa_executable_t e, hsa_status_t (*cb)(hsa_executable_t, hsa_loaded_code_object_t, void*), void* data) {
    return encore::sim::loader_extension_table().hsa_ven_amd_loader_executable_iterate_loaded_code_objects(e, cb, data);
}
ENCORE_SIM_EXPORT hsa_status_t hsa_ven_amd_loader_loaded_code_object_get_info(
    hsa_loaded_code_object_t c, hsa_ven_amd_loader_loaded_code_object_info_t a, void* v) {
    return encore::sim::loader_extension_table().hsa_ven_amd_loader_loaded_code_object_get_info(c, a, v);
}
ENCORE_SIM_EXPORT hsa_status_t hsa_ven_amd_loader_code_object_reader_create_from_file_with_offset_size(
    hsa_file_t f, size_t o, size_t s, hsa_code_object_reader_t* r) {
    return encore::sim::loader_extension_table().hsa_ven_amd_loader_code_object_reader_create_from_file_with_offset_size(
        f, o, s, r);
}
ENCORE_SIM_EXPORT hsa_status_t hsa_ven_amd_loader_iterate_executables(hsa_status_t (*cb)(hsa_executable_t, void*),
                                                                      void* data) {
    return encore::sim::loader_extension_table().hsa_ven_amd_loader_iterate_executables(cb, data);
}
}
