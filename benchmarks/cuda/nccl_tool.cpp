// benchmarks/cuda/nccl_tool.cpp — the tool of the NCCL check (nccl_check.py): traces RCCL_API
// with the C API only and writes one JSON line per record to $ENCORE_NCCL_LOG, which the check
// reads: {"phase":"enter"|"exit","op":NAME,"corr":N,"ancestor":N,"args":{name:value,...},
// "ret":N} (ret at EXIT: the ncclResult_t, or -1 for the string functions). A last line
// {"phase":"init","version":N} per RUNTIME_INITIALIZATION (RCCL) record.
//
// Built against libencore (nccl_check.sh, or test/libs/meson.build for the suite's run on the
// fake NCCL) and loaded with ROCP_TOOL_LIBRARIES.
#include <rocprofiler-sdk/callback_tracing.h>
#include <rocprofiler-sdk/rccl.h>
#include <rocprofiler-sdk/registration.h>
#include <rocprofiler-sdk/rocprofiler.h>

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

namespace {

int g_fd = -1;
std::mutex g_mutex;
rocprofiler_context_id_t g_ctx{};

void json_string(std::string& out, const char* s) {
    out += '"';
    for (; s != nullptr && *s != '\0'; ++s) {
        const unsigned char c = static_cast<unsigned char>(*s);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c < 0x20) {
            char b[8];
            std::snprintf(b, sizeof b, "\\u%04x", c);
            out += b;
        } else {
            out += static_cast<char>(c);
        }
    }
    out += '"';
}

void write_line(const std::string& line) {
    std::lock_guard lk(g_mutex);
    if (g_fd < 0) return;
    std::size_t done = 0;
    while (done < line.size()) {
        const ssize_t n = ::write(g_fd, line.data() + done, line.size() - done);
        if (n <= 0) return;
        done += static_cast<std::size_t>(n);
    }
}

int add_arg(rocprofiler_callback_tracing_kind_t, rocprofiler_tracing_operation_t, uint32_t n, const void* const,
            int32_t, const char*, const char* name, const char* value, int32_t, void* data) {
    auto* s = static_cast<std::string*>(data);
    if (n != 0) *s += ',';
    json_string(*s, name);
    *s += ':';
    json_string(*s, value);
    return 0;
}

void on_rccl(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
    const char* name = nullptr;
    if (rocprofiler_query_callback_tracing_kind_operation_name(r.kind, r.operation, &name, nullptr) !=
        ROCPROFILER_STATUS_SUCCESS)
        name = "?";
    std::string line = "{\"phase\":";
    line += r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER ? "\"enter\"" : "\"exit\"";
    line += ",\"op\":";
    json_string(line, name);
    line += ",\"corr\":" + std::to_string(r.correlation_id.internal) +
            ",\"ancestor\":" + std::to_string(r.correlation_id.ancestor) + ",\"args\":{";
    if (rocprofiler_iterate_callback_tracing_kind_operation_args(r, &add_arg, 0, &line) != ROCPROFILER_STATUS_SUCCESS)
        line += "\"<iterate failed>\":\"\"";
    line += '}';
    if (r.phase == ROCPROFILER_CALLBACK_PHASE_EXIT) {
        const auto* p = static_cast<const rocprofiler_callback_tracing_rccl_api_data_t*>(r.payload);
        const bool string_result = r.operation == ROCPROFILER_RCCL_API_ID_ncclGetErrorString ||
                                   r.operation == ROCPROFILER_RCCL_API_ID_ncclGetLastError;
        line += ",\"ret\":" + std::to_string(string_result ? -1 : p->retval.ncclResult_t_retval);
    }
    line += "}\n";
    write_line(line);
}

void on_init(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
    const auto* p = static_cast<const rocprofiler_callback_tracing_runtime_initialization_data_t*>(r.payload);
    write_line("{\"phase\":\"init\",\"version\":" + std::to_string(p->version) + "}\n");
}

int tool_init(rocprofiler_client_finalize_t, void*) {
    const char* path = std::getenv("ENCORE_NCCL_LOG");
    if (path == nullptr || *path == '\0') {
        std::fprintf(stderr, "nccl_tool: set ENCORE_NCCL_LOG=FILE\n");
        return 1;
    }
    g_fd = ::open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (g_fd < 0) {
        std::fprintf(stderr, "nccl_tool: cannot open %s: %s\n", path, std::strerror(errno));
        return 1;
    }
    if (rocprofiler_create_context(&g_ctx) != ROCPROFILER_STATUS_SUCCESS) return 1;
    if (rocprofiler_configure_callback_tracing_service(g_ctx, ROCPROFILER_CALLBACK_TRACING_RCCL_API, nullptr, 0,
                                                       &on_rccl, nullptr) != ROCPROFILER_STATUS_SUCCESS)
        return 1;
    const rocprofiler_tracing_operation_t init_op[] = {ROCPROFILER_RUNTIME_INITIALIZATION_RCCL};
    if (rocprofiler_configure_callback_tracing_service(g_ctx, ROCPROFILER_CALLBACK_TRACING_RUNTIME_INITIALIZATION,
                                                       init_op, 1, &on_init, nullptr) != ROCPROFILER_STATUS_SUCCESS)
        return 1;
    return rocprofiler_start_context(g_ctx) == ROCPROFILER_STATUS_SUCCESS ? 0 : 1;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) rocprofiler_tool_configure_result_t* rocprofiler_configure(
    uint32_t, const char*, uint32_t, rocprofiler_client_id_t* id) {
    id->name = "nccl-check-tool";
    static rocprofiler_tool_configure_result_t r{sizeof(r), &tool_init, nullptr, nullptr};
    return &r;
}
