// An HSA tool library for the encore-sim tests: loaded through HSA_TOOLS_LIB, it checks the
// table it is given and replaces hsa_agent_get_info with a counting wrapper.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#include <hsa/hsa_api_trace.h>
#pragma GCC diagnostic pop

#include <atomic>
#include <string>
#include <vector>

namespace {
decltype(hsa_agent_get_info)* g_next = nullptr;
std::atomic<int> g_calls{0};
std::atomic<int> g_unloaded{0};
std::atomic<int> g_loads{0};
uint64_t g_failed_count = 0;
std::vector<std::string> g_failed;
bool g_table_ok = false;

hsa_status_t counting_get_info(hsa_agent_t agent, hsa_agent_info_t attribute, void* value) {
    g_calls.fetch_add(1);
    return g_next(agent, attribute, value);
}

template <typename T>
bool all_slots_set(const T* t) {
    if (t->version.major_id != 1 || t->version.minor_id != sizeof(T)) return false;
    const char* begin = reinterpret_cast<const char*>(t) + sizeof(ApiTableVersion);
    const char* end = reinterpret_cast<const char*>(t) + sizeof(T);
    for (const char* p = begin; p + sizeof(void*) <= end; p += sizeof(void*)) {
        void* slot;
        __builtin_memcpy(&slot, p, sizeof slot);
        if (!slot) return false;
    }
    return true;
}
}  // namespace

extern "C" {
__attribute__((visibility("default"))) bool OnLoad(HsaApiTable* table, uint64_t runtime_version,
                                                   uint64_t failed_tool_count, const char* const* failed_tool_names) {
    g_loads.fetch_add(1);
    g_failed_count = failed_tool_count;
    for (uint64_t i = 0; i < failed_tool_count; ++i) g_failed.emplace_back(failed_tool_names[i]);
    // The root as ROCr >= 6.2 lays it out: the 5.2 members, then tools_ and pc_sampling_ext_
    // (minor_id 64), the tools table with its six scratch-event slots set.
    struct tools_table {
        ApiTableVersion version;
        void* slots[6];
    };
    struct root_v62 {
        HsaApiTable base;
        tools_table* tools_;
        void* pc_sampling_ext_;
    };
    const auto* root = reinterpret_cast<const root_v62*>(table);
    bool tools_ok = table->version.minor_id == sizeof(root_v62) && root->tools_ != nullptr &&
                    root->tools_->version.major_id == 1 && root->tools_->version.minor_id == sizeof(tools_table) &&
                    root->pc_sampling_ext_ == nullptr;
    for (int i = 0; tools_ok && i < 6; ++i) tools_ok = root->tools_->slots[i] != nullptr;
    g_table_ok = runtime_version >= 1 && table->version.major_id == HSA_API_TABLE_MAJOR_VERSION && tools_ok &&
                 all_slots_set(table->core_) && all_slots_set(table->amd_ext_) &&
                 all_slots_set(table->finalizer_ext_) && all_slots_set(table->image_ext_);
    g_next = table->core_->hsa_agent_get_info_fn;
    table->core_->hsa_agent_get_info_fn = counting_get_info;
    return true;
}

__attribute__((visibility("default"))) void OnUnload() { g_unloaded.fetch_add(1); }

__attribute__((visibility("default"))) int test_tool_calls() { return g_calls.load(); }
__attribute__((visibility("default"))) int test_tool_unloaded() { return g_unloaded.load(); }
__attribute__((visibility("default"))) int test_tool_loads() { return g_loads.load(); }
__attribute__((visibility("default"))) int test_tool_table_ok() { return g_table_ok ? 1 : 0; }
__attribute__((visibility("default"))) uint64_t test_tool_failed_count() { return g_failed_count; }
__attribute__((visibility("default"))) const char* test_tool_failed_name(uint64_t i) {
    return i < g_failed.size() ? g_failed[i].c_str() : nullptr;
}
}
