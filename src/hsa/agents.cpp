// src/hsa/agents.cpp — the agent provider of libencore-hsa: the runtime's agents, described with
// the runtime's own functions (never the exported hsa_* symbols, which may be wrapped). Which
// field comes from which query is listed in rocprofiler-sdk/agent.h.
#include "agents.hpp"

#include "runtime.hpp"

#include "core/agents.hpp"
#include "core/warn.hpp"

#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace encore::hsa {
namespace {

// Agent attributes of ROCr >= 6 (hsa_ext_amd.h; Debian's ROCm 5.2 headers lack them). A runtime
// that does not know one answers HSA_STATUS_ERROR_INVALID_ARGUMENT and the field stays 0. Each
// is a uint32_t.
constexpr int agent_info_asic_family_id = 0xA107;
constexpr int agent_info_ucode_version = 0xA108;
constexpr int agent_info_sdma_ucode_version = 0xA109;
constexpr int agent_info_num_sdma_eng = 0xA10A;
constexpr int agent_info_num_sdma_xgmi_eng = 0xA10B;
constexpr int agent_info_num_xcc = 0xA111;
constexpr int agent_info_driver_uid = 0xA112;

struct found_agent {
    rocprofiler_agent_v0_t info{};
    std::string name, vendor, product, uuid;
    std::vector<rocprofiler_agent_cache_t> caches;
    std::vector<rocprofiler_agent_io_link_t> io_links;
};

template <class T>
bool get(hsa_agent_t agent, int attribute, T& out) {
    return runtime().core.hsa_agent_get_info_fn(agent, static_cast<hsa_agent_info_t>(attribute), &out) ==
           HSA_STATUS_SUCCESS;
}

std::string get_string(hsa_agent_t agent, int attribute) {
    char buf[128] = {};  // HSA names are at most 64 bytes
    if (!get(agent, attribute, buf)) return {};
    buf[sizeof(buf) - 1] = '\0';
    return buf;
}

// "gfx90a" -> 9*10000 + 0*100 + 10; "gfx1030" -> 10*10000 + 3*100 + 0; anything else: 0.
std::uint32_t gfx_target_version(const std::string& name) {
    if (name.rfind("gfx", 0) != 0 || name.size() < 6) return 0;
    const std::string digits = name.substr(3);
    auto hex = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        return -1;
    };
    const std::size_t n = digits.size();
    std::uint32_t major = 0;
    for (std::size_t i = 0; i + 2 < n; ++i) {
        if (digits[i] < '0' || digits[i] > '9') return 0;
        major = major * 10 + static_cast<std::uint32_t>(digits[i] - '0');
    }
    const int minor = hex(digits[n - 2]), step = hex(digits[n - 1]);
    if (minor < 0 || step < 0 || major == 0) return 0;
    return major * 10000 + static_cast<std::uint32_t>(minor) * 100 + static_cast<std::uint32_t>(step);
}

// "<hex>" (1..16 digits, either case) as a number; false for anything else ("XX" of an agent
// without a UUID included).
bool parse_hex64(std::string_view s, std::uint64_t& out) {
    if (s.empty() || s.size() > 16) return false;
    std::uint64_t v = 0;
    for (char c : s) {
        int d = -1;
        if (c >= '0' && c <= '9') d = c - '0';
        if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
        if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
        if (d < 0) return false;
        v = (v << 4) | static_cast<std::uint64_t>(d);
    }
    out = v;
    return true;
}

// HSA_AMD_AGENT_INFO_UUID "GPU-<hex>" into the 16 bytes: the value in the first 8, in host order
// (where the reference puts the KFD unique id the string is printed from), the rest zero.
rocprofiler_uuid_t uuid_of(std::string_view text) {
    rocprofiler_uuid_t u{};
    std::uint64_t v = 0;
    if (text.rfind("GPU-", 0) == 0 && parse_hex64(text.substr(4), v)) std::memcpy(u.bytes, &v, sizeof(v));
    return u;
}

// The first of HIP_VISIBLE_DEVICES, CUDA_VISIBLE_DEVICES, GPU_DEVICE_ORDINAL that is set and not
// empty (the order in which the reference lets them override each other), or nullptr.
const char* hip_visibility_list() {
    for (const char* name : {"HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL"}) {
        const char* v = std::getenv(name);
        if (v != nullptr && v[0] != '\0') return v;
    }
    return nullptr;
}

// Whether a visibility list ("0,2", "GPU-5e0c...", separated by commas or spaces) names the GPU
// with this index among the runtime's GPUs or this UUID. Other entries name no GPU.
bool list_names(std::string_view list, std::int32_t index, const rocprofiler_uuid_t& uuid) {
    std::uint64_t own = 0;
    std::memcpy(&own, uuid.bytes, sizeof(own));
    while (!list.empty()) {
        const std::size_t cut = list.find_first_of(", ");
        const std::string_view item = list.substr(0, cut);
        list = cut == std::string_view::npos ? std::string_view{} : list.substr(cut + 1);
        if (item.empty()) continue;
        if (item.find_first_not_of("0123456789") == std::string_view::npos) {
            if (item.size() <= 9 && std::atoi(std::string(item).c_str()) == index) return true;
        } else if (item.rfind("GPU-", 0) == 0) {
            std::uint64_t v = 0;
            if (own != 0 && parse_hex64(item.substr(4), v) && v == own) return true;
        }
    }
    return false;
}

void fill_visibility(rocprofiler_agent_v0_t& a, const char* hip_list) {
    auto& v = a.runtime_visibility;
    v.hsa = 1;  // hsa_iterate_agents listed it
    const bool hip = a.type != ROCPROFILER_AGENT_TYPE_GPU || hip_list == nullptr ||
                     list_names(hip_list, a.logical_node_type_id, a.uuid);
    v.hip = v.rccl = v.rocdecode = hip ? 1U : 0U;
}

template <class T>
bool pool_info(hsa_amd_memory_pool_t pool, hsa_amd_memory_pool_info_t attribute, T& out) {
    const auto fn = runtime().amd.hsa_amd_memory_pool_get_info_fn;
    return fn != nullptr && fn(pool, attribute, &out) == HSA_STATUS_SUCCESS;
}

std::vector<hsa_amd_memory_pool_t> pools_of(hsa_agent_t agent) {
    std::vector<hsa_amd_memory_pool_t> pools;
    const auto fn = runtime().amd.hsa_amd_agent_iterate_memory_pools_fn;
    if (fn == nullptr) return pools;
    (void)fn(
        agent,
        [](hsa_amd_memory_pool_t p, void* data) {
            static_cast<std::vector<hsa_amd_memory_pool_t>*>(data)->push_back(p);
            return HSA_STATUS_SUCCESS;
        },
        &pools);
    return pools;
}

// lds_size_in_kb and local_mem_size from the GPU's own pools: ROCr reports the LDS as the GROUP
// segment pool, the device memory as the coarse-grained GLOBAL one.
void fill_from_pools(hsa_agent_t agent, rocprofiler_agent_v0_t& a) {
    bool have_local = false;
    for (const auto pool : pools_of(agent)) {
        hsa_amd_segment_t segment{};
        std::size_t size = 0;
        if (!pool_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, segment) ||
            !pool_info(pool, HSA_AMD_MEMORY_POOL_INFO_SIZE, size))
            continue;
        std::uint32_t flags = 0;
        if (segment == HSA_AMD_SEGMENT_GROUP && a.lds_size_in_kb == 0) {
            a.lds_size_in_kb = static_cast<std::uint32_t>(size / 1024);
        } else if (segment == HSA_AMD_SEGMENT_GLOBAL && !have_local &&
                   pool_info(pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, flags) &&
                   (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED) != 0) {
            a.local_mem_size = size;
            have_local = true;
        }
    }
}

std::vector<rocprofiler_agent_cache_t> caches_of(hsa_agent_t agent) {
    std::vector<hsa_cache_t> handles;
    const auto& core = runtime().core;
    if (core.hsa_agent_iterate_caches_fn == nullptr || core.hsa_cache_get_info_fn == nullptr) return {};
    (void)core.hsa_agent_iterate_caches_fn(
        agent,
        [](hsa_cache_t c, void* data) {
            static_cast<std::vector<hsa_cache_t>*>(data)->push_back(c);
            return HSA_STATUS_SUCCESS;
        },
        &handles);
    std::vector<rocprofiler_agent_cache_t> out;
    for (const hsa_cache_t c : handles) {
        std::uint8_t level = 0;
        std::uint32_t size = 0;
        if (core.hsa_cache_get_info_fn(c, HSA_CACHE_INFO_LEVEL, &level) != HSA_STATUS_SUCCESS ||
            core.hsa_cache_get_info_fn(c, HSA_CACHE_INFO_SIZE, &size) != HSA_STATUS_SUCCESS)
            continue;
        rocprofiler_agent_cache_t cache{};
        cache.level = level;
        cache.size = size;
        out.push_back(cache);
    }
    return out;
}

HSA_IOLINKTYPE io_link_type(hsa_amd_link_info_type_t t) {
    switch (t) {
        case HSA_AMD_LINK_INFO_TYPE_HYPERTRANSPORT: return HSA_IOLINKTYPE_HYPERTRANSPORT;
        case HSA_AMD_LINK_INFO_TYPE_QPI: return HSA_IOLINK_TYPE_QPI_1_1;
        case HSA_AMD_LINK_INFO_TYPE_PCIE: return HSA_IOLINKTYPE_PCIEXPRESS;
        case HSA_AMD_LINK_INFO_TYPE_INFINBAND: return HSA_IOLINK_TYPE_INFINIBAND;
        case HSA_AMD_LINK_INFO_TYPE_XGMI: return HSA_IOLINK_TYPE_XGMI;
    }
    return HSA_IOLINKTYPE_UNDEFINED;
}

// The direct link (one hop) from `from` to `to`, as the runtime describes reaching `to`'s first
// GLOBAL pool; false when there is none (no such pool, no access, or more than one hop).
bool direct_link(hsa_agent_t from, hsa_agent_t to, rocprofiler_agent_io_link_t& link) {
    const auto fn = runtime().amd.hsa_amd_agent_memory_pool_get_info_fn;
    if (fn == nullptr) return false;
    for (const auto pool : pools_of(to)) {
        hsa_amd_segment_t segment{};
        if (!pool_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, segment) || segment != HSA_AMD_SEGMENT_GLOBAL) continue;
        std::uint32_t hops = 0;
        if (fn(from, pool, HSA_AMD_AGENT_MEMORY_POOL_INFO_NUM_LINK_HOPS, &hops) != HSA_STATUS_SUCCESS || hops != 1)
            return false;
        hsa_amd_memory_pool_link_info_t info{};
        if (fn(from, pool, HSA_AMD_AGENT_MEMORY_POOL_INFO_LINK_INFO, &info) != HSA_STATUS_SUCCESS) return false;
        link.type = io_link_type(info.link_type);
        link.weight = info.numa_distance;
        link.min_latency = info.min_latency;
        link.max_latency = info.max_latency;
        link.min_bandwidth = info.min_bandwidth;
        link.max_bandwidth = info.max_bandwidth;
        link.flags.ui32.NonCoherent = info.coherent_support ? 0U : 1U;
        link.flags.ui32.NoAtomics32bit = info.atomic_support_32bit ? 0U : 1U;
        link.flags.ui32.NoAtomics64bit = info.atomic_support_64bit ? 0U : 1U;
        return true;
    }
    return false;
}

found_agent describe(hsa_agent_t agent) {
    found_agent f;
    auto& a = f.info;
    a.id.handle = agent.handle;
    hsa_device_type_t device{};
    if (get(agent, HSA_AGENT_INFO_DEVICE, device))
        a.type = device == HSA_DEVICE_TYPE_GPU   ? ROCPROFILER_AGENT_TYPE_GPU
                 : device == HSA_DEVICE_TYPE_CPU ? ROCPROFILER_AGENT_TYPE_CPU
                                                 : ROCPROFILER_AGENT_TYPE_NONE;
    const bool gpu = a.type == ROCPROFILER_AGENT_TYPE_GPU;
    f.name = get_string(agent, HSA_AGENT_INFO_NAME);
    f.vendor = get_string(agent, HSA_AGENT_INFO_VENDOR_NAME);
    f.product = get_string(agent, HSA_AMD_AGENT_INFO_PRODUCT_NAME);
    {
        char uuid[64] = {};  // 21 bytes in ROCr
        if (get(agent, HSA_AMD_AGENT_INFO_UUID, uuid)) {
            uuid[sizeof(uuid) - 1] = '\0';
            f.uuid = uuid;
        }
    }
    if (gpu) a.uuid = uuid_of(f.uuid);
    std::uint32_t u = 0;
    if (get(agent, HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT, u)) (gpu ? a.cu_count : a.cpu_cores_count) = u;
    if (get(agent, HSA_AGENT_INFO_WAVEFRONT_SIZE, u)) a.wave_front_size = u;
    if (get(agent, HSA_AMD_AGENT_INFO_NUM_SHADER_ENGINES, u)) a.num_shader_banks = u;
    if (get(agent, HSA_AMD_AGENT_INFO_NUM_SHADER_ARRAYS_PER_SE, u)) a.simd_arrays_per_engine = u;
    if (get(agent, HSA_AMD_AGENT_INFO_NUM_SIMDS_PER_CU, u)) a.simd_per_cu = u;
    if (get(agent, HSA_AMD_AGENT_INFO_MAX_WAVES_PER_CU, u)) a.max_waves_per_cu = u;
    if (gpu) {
        a.simd_count = a.cu_count * a.simd_per_cu;
        a.max_waves_per_simd = a.simd_per_cu != 0 ? a.max_waves_per_cu / a.simd_per_cu : 0;
        a.array_count = a.num_shader_banks * a.simd_arrays_per_engine;
        a.cu_per_engine = a.num_shader_banks != 0 ? a.cu_count / a.num_shader_banks : 0;
        a.gfx_target_version = gfx_target_version(f.name);
        if (f.vendor == "AMD") a.vendor_id = 0x1002;
        fill_from_pools(agent, a);
        if (get(agent, agent_info_num_xcc, u)) a.num_xcc = u;
        if (get(agent, agent_info_num_sdma_eng, u)) a.num_sdma_engines = u;
        if (get(agent, agent_info_num_sdma_xgmi_eng, u)) a.num_sdma_xgmi_engines = u;
        if (get(agent, agent_info_asic_family_id, u)) a.family_id = u;
        if (get(agent, agent_info_driver_uid, u)) a.gpu_id = u;
        if (get(agent, agent_info_ucode_version, u)) a.fw_version.Value = u;
        if (get(agent, agent_info_sdma_ucode_version, u)) a.sdma_fw_version.Value = u;
    }
    if (get(agent, HSA_AMD_AGENT_INFO_CHIP_ID, u)) a.device_id = static_cast<std::uint16_t>(u);
    if (get(agent, HSA_AMD_AGENT_INFO_BDFID, u)) a.location_id = u;
    if (get(agent, HSA_AMD_AGENT_INFO_DOMAIN, u)) a.domain = u;
    if (get(agent, HSA_AMD_AGENT_INFO_MAX_CLOCK_FREQUENCY, u))
        (gpu ? a.max_engine_clk_fcompute : a.max_engine_clk_ccompute) = u;
    if (get(agent, HSA_AGENT_INFO_WORKGROUP_MAX_SIZE, u)) a.workgroup_max_size = u;
    if (get(agent, HSA_AGENT_INFO_GRID_MAX_SIZE, u)) a.grid_max_size = u;
    std::uint16_t wg[3] = {};
    if (get(agent, HSA_AGENT_INFO_WORKGROUP_MAX_DIM, wg)) a.workgroup_max_dim = {wg[0], wg[1], wg[2]};
    hsa_dim3_t grid{};
    if (get(agent, HSA_AGENT_INFO_GRID_MAX_DIM, grid)) a.grid_max_dim = {grid.x, grid.y, grid.z};
    if (get(agent, HSA_AMD_AGENT_INFO_DRIVER_NODE_ID, u) || get(agent, HSA_AGENT_INFO_NODE, u)) a.node_id = u;
    if (get(agent, HSA_AGENT_INFO_QUEUE_MIN_SIZE, u)) a.queue_min_size = u;
    if (get(agent, HSA_AGENT_INFO_QUEUE_MAX_SIZE, u)) a.queue_max_size = u;
    if (get(agent, HSA_AGENT_INFO_QUEUES_MAX, u)) a.queues_max = u;
    f.caches = caches_of(agent);
    return f;
}

hsa_status_t collect(hsa_agent_t agent, void* data) {
    static_cast<std::vector<hsa_agent_t>*>(data)->push_back(agent);
    return HSA_STATUS_SUCCESS;
}

// agent_provider: called by libencore at registration (during OnLoad), with nothing then with
// room for all. The agents are enumerated again each time; the runtime's list does not change
// while it is loading its tools.
std::size_t provide(rocprofiler_agent_v0_t* out, std::size_t capacity) {
    const auto& rt = runtime();
    if (rt.core.hsa_iterate_agents_fn == nullptr || rt.core.hsa_agent_get_info_fn == nullptr) return 0;
    std::vector<hsa_agent_t> handles;
    if (rt.core.hsa_iterate_agents_fn(&collect, &handles) != HSA_STATUS_SUCCESS) {
        core::warn("hsa_iterate_agents failed; no agents are reported");
        return 0;
    }
    if (out == nullptr || capacity < handles.size()) return handles.size();
    // The strings and arrays live here until libencore has copied them (before this call returns
    // to it).
    static std::vector<found_agent> found;
    found.clear();
    int per_type[ROCPROFILER_AGENT_TYPE_LAST] = {};
    const char* hip_list = hip_visibility_list();
    for (std::size_t i = 0; i < handles.size(); ++i) {
        found.push_back(describe(handles[i]));
        auto& a = found.back().info;
        a.logical_node_id = static_cast<std::int32_t>(i);
        a.logical_node_type_id = per_type[a.type]++;
        fill_visibility(a, hip_list);
    }
    // Links need every agent's node id.
    for (std::size_t i = 0; i < found.size(); ++i)
        for (std::size_t j = 0; j < found.size(); ++j) {
            rocprofiler_agent_io_link_t link{};
            if (i == j || !direct_link(handles[i], handles[j], link)) continue;
            link.node_from = found[i].info.node_id;
            link.node_to = found[j].info.node_id;
            found[i].io_links.push_back(link);
        }
    for (std::size_t i = 0; i < found.size(); ++i) {
        auto& f = found[i];
        out[i] = f.info;
        out[i].name = f.name.c_str();
        out[i].vendor_name = f.vendor.c_str();
        out[i].product_name = f.product.c_str();
        out[i].model_name = "";
        out[i].uuid_string = f.uuid.c_str();
        out[i].caches_count = static_cast<std::uint32_t>(f.caches.size());
        out[i].caches = f.caches.empty() ? nullptr : f.caches.data();
        out[i].io_links_count = static_cast<std::uint32_t>(f.io_links.size());
        out[i].io_links = f.io_links.empty() ? nullptr : f.io_links.data();
        out[i].mem_banks_count = 0;
        out[i].mem_banks = nullptr;
    }
    return found.size();
}

}  // namespace

void register_agents() noexcept { core::register_agent_provider(&provide); }

}  // namespace encore::hsa
