// Plain-HSA helpers shared by the examples (no encore headers: these programs run on ROCr
// too, given an AMDGPU code object that defines the same kernels).
#pragma once

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#pragma GCC diagnostic pop

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define HSA_CHECK(call)                                                                                   \
    do {                                                                                                  \
        hsa_status_t status_ = (call);                                                                    \
        if (status_ != HSA_STATUS_SUCCESS) {                                                              \
            const char* msg_ = nullptr;                                                                   \
            hsa_status_string(status_, &msg_);                                                            \
            std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, msg_ ? msg_ : "?"); \
            std::exit(2);                                                                                 \
        }                                                                                                 \
    } while (0)

namespace example {

// Kernel arguments of vector_add (examples/hsa/vector_add_kernels.c), as the host lays them out.
struct VectorAddArgs {
    const float* a;
    const float* b;
    float* c;
    uint32_t n;
};

// Arguments of the stateful kernels (stateful_kernels.c): saxpy_accumulate, counter_increment,
// atomic_append.
struct SaxpyArgs {
    const float* x;
    float* y;
    float a;
    uint32_t n;
};
struct CounterArgs {
    uint32_t n;
};
struct AppendArgs {
    uint32_t* out;
    uint32_t* index;
    uint32_t value;
    uint32_t n;
};

inline std::vector<hsa_agent_t> agents(hsa_device_type_t type) {
    std::vector<hsa_agent_t> out;
    struct Ctx {
        hsa_device_type_t type;
        std::vector<hsa_agent_t>* out;
    } ctx{type, &out};
    HSA_CHECK(hsa_iterate_agents(
        [](hsa_agent_t a, void* d) {
            auto* c = static_cast<Ctx*>(d);
            hsa_device_type_t t;
            hsa_agent_get_info(a, HSA_AGENT_INFO_DEVICE, &t);
            if (t == c->type) c->out->push_back(a);
            return HSA_STATUS_SUCCESS;
        },
        &ctx));
    return out;
}

// The first pool of `agent` whose global flags contain `flag`.
inline hsa_amd_memory_pool_t find_pool(hsa_agent_t agent, uint32_t flag) {
    struct Ctx {
        uint32_t flag;
        hsa_amd_memory_pool_t pool;
    } ctx{flag, {0}};
    hsa_amd_agent_iterate_memory_pools(
        agent,
        [](hsa_amd_memory_pool_t p, void* d) {
            auto* c = static_cast<Ctx*>(d);
            uint32_t flags = 0;
            hsa_amd_segment_t seg;
            hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &seg);
            hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags);
            if (seg == HSA_AMD_SEGMENT_GLOBAL && (flags & c->flag)) {
                c->pool = p;
                return HSA_STATUS_INFO_BREAK;
            }
            return HSA_STATUS_SUCCESS;
        },
        &ctx);
    if (!ctx.pool.handle) {
        std::fprintf(stderr, "no memory pool with flag %u\n", flag);
        std::exit(2);
    }
    return ctx.pool;
}

// Host-visible memory (system fine-grained pool) that `gpu` may access.
inline void* alloc_shared(hsa_agent_t cpu, hsa_agent_t gpu, size_t size) {
    void* p = nullptr;
    HSA_CHECK(hsa_amd_memory_pool_allocate(find_pool(cpu, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED), size, 0, &p));
    HSA_CHECK(hsa_amd_agents_allow_access(1, &gpu, nullptr, p));
    return p;
}

// Device memory: the GPU's coarse-grained pool (what a kernel replay snapshots). The host
// reaches it with hsa_memory_copy.
inline void* alloc_device(hsa_agent_t gpu, size_t size) {
    void* p = nullptr;
    HSA_CHECK(hsa_amd_memory_pool_allocate(find_pool(gpu, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED), size, 0, &p));
    return p;
}

inline void* alloc_kernarg(hsa_agent_t cpu, hsa_agent_t gpu, size_t size) {
    void* p = nullptr;
    HSA_CHECK(hsa_amd_memory_pool_allocate(find_pool(cpu, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT), size, 0, &p));
    HSA_CHECK(hsa_amd_agents_allow_access(1, &gpu, nullptr, p));
    return p;
}

// vector_add's kernel arguments for n elements: a, b and c in memory both agents reach, the
// arguments themselves in kernarg memory.
inline VectorAddArgs* alloc_vector_add_args(hsa_agent_t cpu, hsa_agent_t gpu, uint32_t n) {
    auto* a = static_cast<float*>(alloc_shared(cpu, gpu, n * sizeof(float)));
    auto* b = static_cast<float*>(alloc_shared(cpu, gpu, n * sizeof(float)));
    auto* c = static_cast<float*>(alloc_shared(cpu, gpu, n * sizeof(float)));
    auto* args = static_cast<VectorAddArgs*>(alloc_kernarg(cpu, gpu, sizeof(VectorAddArgs)));
    *args = {a, b, c, n};
    return args;
}

struct CodeObject {
    hsa_executable_t exe{};
    hsa_code_object_reader_t reader{};
    int fd = -1;

    CodeObject(const char* path, hsa_agent_t agent) {
        fd = open(path, O_RDONLY);
        if (fd < 0) {
            std::perror(path);
            std::exit(2);
        }
        HSA_CHECK(hsa_code_object_reader_create_from_file(fd, &reader));
        HSA_CHECK(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, nullptr, &exe));
        HSA_CHECK(hsa_executable_load_agent_code_object(exe, agent, reader, nullptr, nullptr));
        HSA_CHECK(hsa_executable_freeze(exe, nullptr));
    }
    ~CodeObject() {
        hsa_executable_destroy(exe);
        hsa_code_object_reader_destroy(reader);
        close(fd);
    }
    hsa_executable_symbol_t symbol(const std::string& name, hsa_agent_t agent) const {
        hsa_executable_symbol_t s{};
        HSA_CHECK(hsa_executable_get_symbol_by_name(exe, name.c_str(), &agent, &s));
        return s;
    }
    uint64_t kernel(const std::string& name, hsa_agent_t agent) const {
        uint64_t ko = 0;
        HSA_CHECK(hsa_executable_symbol_get_info(symbol(name + ".kd", agent), HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT,
                                                 &ko));
        return ko;
    }
    void* variable(const std::string& name, hsa_agent_t agent) const {
        uint64_t addr = 0;
        HSA_CHECK(hsa_executable_symbol_get_info(symbol(name, agent), HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS, &addr));
        return reinterpret_cast<void*>(addr);
    }
};

// Writes a 1D kernel dispatch packet (with `private_bytes` of private segment per work-item) and
// rings the doorbell.
inline void dispatch_1d(hsa_queue_t* q, uint64_t kernel_object, void* kernarg, uint32_t grid, uint16_t wg,
                        hsa_signal_t completion, uint32_t private_bytes = 0) {
    const uint64_t idx = hsa_queue_add_write_index_screlease(q, 1);
    while (idx - hsa_queue_load_read_index_scacquire(q) >= q->size) {
    }
    auto* p = static_cast<hsa_kernel_dispatch_packet_t*>(q->base_address) + (idx & (q->size - 1));
    std::memset(reinterpret_cast<char*>(p) + 4, 0, sizeof(*p) - 4);
    p->workgroup_size_x = wg;
    p->workgroup_size_y = 1;
    p->workgroup_size_z = 1;
    p->grid_size_x = grid;
    p->grid_size_y = 1;
    p->grid_size_z = 1;
    p->private_segment_size = private_bytes;
    p->kernel_object = kernel_object;
    p->kernarg_address = kernarg;
    p->completion_signal = completion;
    const uint16_t header = (HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
                            (1 << HSA_PACKET_HEADER_BARRIER) |
                            (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                            (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
    const uint16_t setup = 1 << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS;
    __atomic_store_n(reinterpret_cast<uint32_t*>(p), header | (static_cast<uint32_t>(setup) << 16), __ATOMIC_RELEASE);
    hsa_signal_store_screlease(q->doorbell_signal, static_cast<hsa_signal_value_t>(idx));
}

// Writes a barrier-AND packet with the barrier bit set (no dependencies: it completes once
// every packet before it has) and rings the doorbell.
inline void barrier_and(hsa_queue_t* q, hsa_signal_t completion) {
    const uint64_t idx = hsa_queue_add_write_index_screlease(q, 1);
    while (idx - hsa_queue_load_read_index_scacquire(q) >= q->size) {
    }
    auto* p = static_cast<hsa_barrier_and_packet_t*>(q->base_address) + (idx & (q->size - 1));
    std::memset(reinterpret_cast<char*>(p) + 4, 0, sizeof(*p) - 4);
    p->completion_signal = completion;
    const uint16_t header = (HSA_PACKET_TYPE_BARRIER_AND << HSA_PACKET_HEADER_TYPE) | (1 << HSA_PACKET_HEADER_BARRIER) |
                            (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                            (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
    __atomic_store_n(reinterpret_cast<uint32_t*>(p), static_cast<uint32_t>(header), __ATOMIC_RELEASE);
    hsa_signal_store_screlease(q->doorbell_signal, static_cast<hsa_signal_value_t>(idx));
}

inline void wait_done(hsa_signal_t s) {
    while (hsa_signal_wait_scacquire(s, HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) >= 1) {
    }
}

}  // namespace example
