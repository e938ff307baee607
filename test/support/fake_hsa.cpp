#include "fake_hsa.hpp"

#include <cstring>

namespace fake_hsa {
namespace {

hsa_queue_t g_queue{};

hsa_status_t init() {
    ++calls().init;
    return HSA_STATUS_SUCCESS;
}
hsa_status_t shut_down() {
    ++calls().shut_down;
    return HSA_STATUS_SUCCESS;
}
hsa_signal_value_t signal_load_relaxed(hsa_signal_t s) {
    ++calls().signal_load;
    return s.handle == 0 ? -1 : signal_value;
}
hsa_status_t queue_create(hsa_agent_t agent, uint32_t size, hsa_queue_type32_t type,
                          void (*)(hsa_status_t, hsa_queue_t*, void*), void*, uint32_t, uint32_t, hsa_queue_t** queue) {
    ++calls().queue_create;
    if (agent.handle == 0) return HSA_STATUS_ERROR_INVALID_AGENT;
    if (queue == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    g_queue.type = type;
    g_queue.size = size;
    g_queue.id = queue_handle_base + agent.handle;
    *queue = &g_queue;
    return HSA_STATUS_SUCCESS;
}
hsa_status_t agent_get_info(hsa_agent_t, hsa_agent_info_t attribute, void* value) {
    ++calls().agent_get_info;
    if (value == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    if (attribute == HSA_AGENT_INFO_NAME) std::strcpy(static_cast<char*>(value), "fake-gpu");
    return HSA_STATUS_SUCCESS;
}
hsa_status_t signal_create(hsa_signal_value_t, uint32_t, const hsa_agent_t*, hsa_signal_t* signal) {
    ++calls().signal_create;
    if (signal == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    signal->handle = 0xabc;
    return HSA_STATUS_SUCCESS;
}
hsa_status_t get_symbol_by_name(hsa_executable_t, const char* name, const hsa_agent_t*, hsa_executable_symbol_t* sym) {
    ++calls().get_symbol;
    if (name == nullptr || sym == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    sym->handle = std::strlen(name);
    return HSA_STATUS_SUCCESS;
}
hsa_status_t pool_allocate(hsa_amd_memory_pool_t, size_t size, uint32_t, void** ptr) {
    ++calls().pool_allocate;
    if (ptr == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    *ptr = reinterpret_cast<void*>(0x10000 + size);
    return HSA_STATUS_SUCCESS;
}

}  // namespace

counters& calls() {
    static counters c;
    return c;
}

tables::tables(std::uint32_t core_size) {
    root.version = {HSA_API_TABLE_MAJOR_VERSION, sizeof(::HsaApiTable), HSA_API_TABLE_STEP_VERSION, 0};
    core.version = {HSA_CORE_API_TABLE_MAJOR_VERSION, core_size, HSA_CORE_API_TABLE_STEP_VERSION, 0};
    amd.version = {HSA_AMD_EXT_API_TABLE_MAJOR_VERSION, sizeof(::AmdExtTable), HSA_AMD_EXT_API_TABLE_STEP_VERSION, 0};
    image.version = {HSA_IMAGE_API_TABLE_MAJOR_VERSION, sizeof(::ImageExtTable), HSA_IMAGE_API_TABLE_STEP_VERSION, 0};
    finalizer.version = {HSA_FINALIZER_API_TABLE_MAJOR_VERSION, sizeof(::FinalizerExtTable),
                         HSA_FINALIZER_API_TABLE_STEP_VERSION, 0};
    root.core_ = &core;
    root.amd_ext_ = &amd;
    root.image_ext_ = &image;
    root.finalizer_ext_ = &finalizer;
    core.hsa_init_fn = &init;
    core.hsa_shut_down_fn = &shut_down;
    core.hsa_signal_load_relaxed_fn = &signal_load_relaxed;
    core.hsa_queue_create_fn = &queue_create;
    core.hsa_agent_get_info_fn = &agent_get_info;
    core.hsa_signal_create_fn = &signal_create;
    core.hsa_executable_get_symbol_by_name_fn = &get_symbol_by_name;
    amd.hsa_amd_memory_pool_allocate_fn = &pool_allocate;
}

}  // namespace fake_hsa
