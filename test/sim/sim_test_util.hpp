// Helpers shared by the encore-sim tests: plain HSA calls only.
#pragma once

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <hsa/hsa_ven_amd_loader.h>
#pragma GCC diagnostic pop

#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace simtest {

inline std::vector<hsa_agent_t> agents_of(hsa_device_type_t type) {
    std::vector<hsa_agent_t> out;
    struct Ctx {
        hsa_device_type_t t;
        std::vector<hsa_agent_t>* v;
    } ctx{type, &out};
    hsa_iterate_agents(
        [](hsa_agent_t a, void* d) {
            auto* c = static_cast<Ctx*>(d);
            hsa_device_type_t t;
            hsa_agent_get_info(a, HSA_AGENT_INFO_DEVICE, &t);
            if (t == c->t) c->v->push_back(a);
            return HSA_STATUS_SUCCESS;
        },
        &ctx);
    return out;
}

inline hsa_agent_t gpu(size_t i = 0) { return agents_of(HSA_DEVICE_TYPE_GPU).at(i); }
inline hsa_agent_t cpu() { return agents_of(HSA_DEVICE_TYPE_CPU).at(0); }

inline std::vector<hsa_amd_memory_pool_t> pools_of(hsa_agent_t a) {
    std::vector<hsa_amd_memory_pool_t> out;
    hsa_amd_agent_iterate_memory_pools(
        a,
        [](hsa_amd_memory_pool_t p, void* d) {
            static_cast<std::vector<hsa_amd_memory_pool_t>*>(d)->push_back(p);
            return HSA_STATUS_SUCCESS;
        },
        &out);
    return out;
}

inline uint32_t pool_flags(hsa_amd_memory_pool_t p) {
    uint32_t f = 0;
    hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &f);
    return f;
}

inline hsa_amd_memory_pool_t pool_with(hsa_agent_t a, uint32_t flag) {
    for (auto p : pools_of(a))
        if (pool_flags(p) & flag) return p;
    throw std::runtime_error("no pool with requested flag");
}

inline void* alloc_kernarg(hsa_agent_t a, size_t size) {
    void* p = nullptr;
    if (hsa_amd_memory_pool_allocate(pool_with(a, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT), size ? size : 16, 0,
                                     &p) != HSA_STATUS_SUCCESS)
        throw std::runtime_error("kernarg allocation failed");
    return p;
}

inline const char* code_object_path() {
    const char* p = getenv("ENCORE_SIM_TEST_CO");
    if (!p) throw std::runtime_error("ENCORE_SIM_TEST_CO not set");
    return p;
}

struct Program {
    hsa_executable_t exe{};
    hsa_code_object_reader_t reader{};
    int fd = -1;
    hsa_status_t status = HSA_STATUS_ERROR;

    explicit Program(hsa_agent_t agent, const char* path = nullptr) {
        fd = open(path ? path : code_object_path(), O_RDONLY);
        if (fd < 0) return;
        if ((status = hsa_code_object_reader_create_from_file(fd, &reader)) != HSA_STATUS_SUCCESS) return;
        if ((status = hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, nullptr,
                                                &exe)) != HSA_STATUS_SUCCESS)
            return;
        if ((status = hsa_executable_load_agent_code_object(exe, agent, reader, nullptr, nullptr)) != HSA_STATUS_SUCCESS)
            return;
        status = hsa_executable_freeze(exe, nullptr);
    }
    ~Program() {
        if (exe.handle) hsa_executable_destroy(exe);
        if (reader.handle) hsa_code_object_reader_destroy(reader);
        if (fd >= 0) close(fd);
    }
    hsa_executable_symbol_t symbol(const char* name, hsa_agent_t agent) const {
        hsa_executable_symbol_t s{};
        if (hsa_executable_get_symbol_by_name(exe, name, &agent, &s) != HSA_STATUS_SUCCESS)
            throw std::runtime_error(std::string("no symbol ") + name);
        return s;
    }
    uint64_t kernel(const char* name, hsa_agent_t agent) const {
        uint64_t ko = 0;
        hsa_executable_symbol_get_info(symbol(name, agent), HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &ko);
        return ko;
    }
};

inline uint16_t header(hsa_packet_type_t type, bool barrier) {
    uint16_t h = static_cast<uint16_t>(type << HSA_PACKET_HEADER_TYPE);
    if (barrier) h |= 1u << HSA_PACKET_HEADER_BARRIER;
    h |= HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE;
    h |= HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE;
    return h;
}

// Reserves a slot, waiting while the ring is full.
inline uint64_t reserve(hsa_queue_t* q) {
    const uint64_t idx = hsa_queue_add_write_index_screlease(q, 1);
    while (idx - hsa_queue_load_read_index_scacquire(q) >= q->size) std::this_thread::yield();
    return idx;
}

inline void publish(hsa_queue_t* q, uint64_t idx, void* pkt, uint16_t hdr) {
    __atomic_store_n(static_cast<uint16_t*>(pkt), hdr, __ATOMIC_RELEASE);
    hsa_signal_store_screlease(q->doorbell_signal, static_cast<hsa_signal_value_t>(idx));
}

struct Dispatch {
    uint64_t kernel_object = 0;
    void* kernarg = nullptr;
    uint32_t dims = 1;
    uint32_t grid[3] = {1, 1, 1};
    uint16_t wg[3] = {1, 1, 1};
    hsa_signal_t completion{};
    bool barrier = false;
    uint32_t group_segment_size = 0;
    uint8_t type = HSA_PACKET_TYPE_KERNEL_DISPATCH;  // to inject bad packets
};

inline uint64_t submit(hsa_queue_t* q, const Dispatch& d) {
    const uint64_t idx = reserve(q);
    auto* p = static_cast<hsa_kernel_dispatch_packet_t*>(q->base_address) + (idx & (q->size - 1));
    p->setup = static_cast<uint16_t>(d.dims << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS);
    p->workgroup_size_x = d.wg[0];
    p->workgroup_size_y = d.wg[1];
    p->workgroup_size_z = d.wg[2];
    p->reserved0 = 0;
    p->grid_size_x = d.grid[0];
    p->grid_size_y = d.grid[1];
    p->grid_size_z = d.grid[2];
    p->private_segment_size = 0;
    p->group_segment_size = d.group_segment_size;
    p->kernel_object = d.kernel_object;
    p->kernarg_address = d.kernarg;
    p->reserved2 = 0;
    p->completion_signal = d.completion;
    publish(q, idx, p, header(static_cast<hsa_packet_type_t>(d.type), d.barrier));
    return idx;
}

inline uint64_t submit_barrier(hsa_queue_t* q, bool is_and, std::vector<hsa_signal_t> deps, hsa_signal_t completion,
                               bool barrier_bit = false) {
    const uint64_t idx = reserve(q);
    auto* p = static_cast<hsa_barrier_and_packet_t*>(q->base_address) + (idx & (q->size - 1));
    p->reserved0 = 0;
    p->reserved1 = 0;
    for (int i = 0; i < 5; ++i) p->dep_signal[i] = i < static_cast<int>(deps.size()) ? deps[i] : hsa_signal_t{0};
    p->reserved2 = 0;
    p->completion_signal = completion;
    publish(q, idx, p, header(is_and ? HSA_PACKET_TYPE_BARRIER_AND : HSA_PACKET_TYPE_BARRIER_OR, barrier_bit));
    return idx;
}

inline hsa_signal_value_t wait_zero(hsa_signal_t s, uint64_t timeout_ns = 10'000'000'000ull) {
    return hsa_signal_wait_scacquire(s, HSA_SIGNAL_CONDITION_EQ, 0, timeout_ns, HSA_WAIT_STATE_BLOCKED);
}

}  // namespace simtest
