// src/core/domains_ompt.cpp — the one translation unit that instantiates the OMPT domain (names
// and argument printers), so a tool can query OMPT's operations in any process; and the three
// functions of rocprofiler-sdk/ompt.h, which answer for libencore-ompt (src/ompt/).
#include "kinds.hpp"
#include "ompt.hpp"

#include <encore/domains/ompt.hpp>
#include <rocprofiler-sdk/ompt.h>

#include <dlfcn.h>

#include <atomic>
#include <cstddef>
#include <iterator>
#include <utility>
#include <cstring>
#include <string>

namespace encore::core {
namespace {
const kind_registration<domains::ompt> registered;

// What libencore-ompt reports (set_ompt_state); read by any thread. Release/acquire: a reader
// that sees "initialized" sees the tool's registrations made before it.
std::atomic<int> g_initialized{0};
std::atomic<int> g_finalized{0};
std::atomic<ompt_start_fn> g_start{nullptr};

static_assert(ROCPROFILER_OMPT_ID_LAST == domains::ompt::size,
              "rocprofiler-sdk/ompt/api_id.h and encore/domains/ompt.hpp list the same operations");

// The payload union's member for each operation (rocprofiler-sdk/ompt/api_args.h, api_id.h
// order) is the size of the captured arguments: the C struct of the same parameters. The field
// offsets are checked on records (test_ompt_tool, ompt_program_*).
using U = rocprofiler_ompt_args_t;
constexpr std::size_t c_member_sizes[] = {sizeof(U::thread_begin),
                                          sizeof(U::thread_end),
                                          sizeof(U::parallel_begin),
                                          sizeof(U::parallel_end),
                                          sizeof(U::task_create),
                                          sizeof(U::task_schedule),
                                          sizeof(U::implicit_task),
                                          sizeof(U::device_initialize),
                                          sizeof(U::device_finalize),
                                          sizeof(U::device_load),
                                          sizeof(U::sync_region_wait),
                                          sizeof(U::mutex_released),
                                          sizeof(U::dependences),
                                          sizeof(U::task_dependence),
                                          sizeof(U::work),
                                          sizeof(U::masked),
                                          sizeof(U::sync_region),
                                          sizeof(U::lock_init),
                                          sizeof(U::lock_destroy),
                                          sizeof(U::mutex_acquire),
                                          sizeof(U::mutex_acquired),
                                          sizeof(U::nest_lock),
                                          sizeof(U::flush),
                                          sizeof(U::cancel),
                                          sizeof(U::reduction),
                                          sizeof(U::dispatch),
                                          sizeof(U::target_emi),
                                          sizeof(U::target_data_op_emi),
                                          sizeof(U::target_submit_emi),
                                          sizeof(U::error),
                                          sizeof(U::callback_functions)};
static_assert(std::size(c_member_sizes) == domains::ompt::size, "one union member per OMPT operation");
static_assert(
    []<std::size_t... I>(std::index_sequence<I...>) {
        return ((sizeof(api::captured_args<domains::ompt::op_at<I>>) == c_member_sizes[I]) && ...);
    }(std::make_index_sequence<domains::ompt::size>{}),
    "an OMPT operation's parameters and its rocprofiler_ompt_args_t member differ in size");
}  // namespace

void set_ompt_start(ompt_start_fn start) noexcept { g_start.store(start, std::memory_order_release); }
void set_ompt_initialized() noexcept { g_initialized.store(1, std::memory_order_release); }
void set_ompt_finalized() noexcept { g_finalized.store(1, std::memory_order_release); }

namespace {
// libencore-ompt is installed beside libencore: found through this library's own path, so a
// tool that links libencore only (and defers to it from its own ompt_start_tool) needs no
// search path for it.
ompt_start_fn load_ompt_library() noexcept {
    Dl_info self{};
    if (::dladdr(reinterpret_cast<void*>(&load_ompt_library), &self) == 0 || self.dli_fname == nullptr) return nullptr;
    try {
        std::string path = self.dli_fname;
        const auto slash = path.rfind('/');
        path = (slash == std::string::npos ? std::string() : path.substr(0, slash + 1)) + "libencore-ompt.so";
        // Its constructor calls set_ompt_start; RTLD_GLOBAL keeps its ompt_start_tool where a
        // later lookup in the process finds it.
        // Else by name, through the library search path (a build tree keeps the two apart).
        if (::dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL) == nullptr &&
            ::dlopen("libencore-ompt.so", RTLD_NOW | RTLD_GLOBAL) == nullptr)
            return nullptr;
    } catch (...) {
        return nullptr;
    }
    return g_start.load(std::memory_order_acquire);
}
}  // namespace

}  // namespace encore::core

using namespace encore;

extern "C" {

ROCPROFILER_API rocprofiler_status_t rocprofiler_ompt_is_initialized(int* status) {
    if (status == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    *status = core::g_initialized.load(std::memory_order_acquire);
    return ROCPROFILER_STATUS_SUCCESS;
}

ROCPROFILER_API rocprofiler_status_t rocprofiler_ompt_is_finalized(int* status) {
    if (status == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    *status = core::g_finalized.load(std::memory_order_acquire);
    return ROCPROFILER_STATUS_SUCCESS;
}

ROCPROFILER_API ompt_start_tool_result_t* rocprofiler_ompt_start_tool(unsigned int omp_version,
                                                                      const char* runtime_version) {
    core::ompt_start_fn start = core::g_start.load(std::memory_order_acquire);
    if (start == nullptr) start = core::load_ompt_library();
    return start != nullptr ? start(omp_version, runtime_version, /*chain=*/false) : nullptr;
}

}  // extern "C"
