// src/hsa/agents.cpp — the agent provider of libencore-hsa: the runtime's agents, described with
// the runtime's own functions (never the exported hsa_* symbols, which may be wrapped).
#include "agents.hpp"

#include "runtime.hpp"

#include "core/agents.hpp"
#include "core/warn.hpp"

#include <cstring>
#include <string>
#include <vector>

namespace encore::hsa {
namespace {

struct found_agent {
    rocprofiler_agent_v0_t info{};
    std::string name, vendor, product, uuid;
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
        a.gfx_target_version = gfx_target_version(f.name);
        if (f.vendor == "AMD") a.vendor_id = 0x1002;
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
    // The strings live here until libencore has copied them (before this call returns to it).
    static std::vector<found_agent> found;
    found.clear();
    int per_type[ROCPROFILER_AGENT_TYPE_LAST] = {};
    for (std::size_t i = 0; i < handles.size(); ++i) {
        found.push_back(describe(handles[i]));
        auto& a = found.back().info;
        a.logical_node_id = static_cast<std::int32_t>(i);
        a.logical_node_type_id = per_type[a.type]++;
    }
    for (std::size_t i = 0; i < found.size(); ++i) {
        out[i] = found[i].info;
        out[i].name = found[i].name.c_str();
        out[i].vendor_name = found[i].vendor.c_str();
        out[i].product_name = found[i].product.c_str();
        out[i].model_name = "";
        out[i].uuid_string = found[i].uuid.c_str();
    }
    return found.size();
}

}  // namespace

void register_agents() noexcept { core::register_agent_provider(&provide); }

}  // namespace encore::hsa
