// test/c_api/api_args_record.hpp — what the payload-member tests keep of each record: a copy of
// the payload struct and, at EXIT, argument iteration's view of the same record (each argument's
// name, value string and where its value lies relative to the payload's `args`).
#pragma once

#include <rocprofiler-sdk/callback_tracing.h>

#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace api_args_test {

struct iterated_arg {
    std::string name, type, value;
    std::ptrdiff_t offset;  // arg_value_addr minus the address of the payload's args
};

template <class Data>
struct seen {
    rocprofiler_callback_tracing_kind_t kind;
    int op;
    rocprofiler_callback_phase_t phase;
    Data data;  // the payload, copied during the callback
    std::vector<iterated_arg> args;
    rocprofiler_status_t iterate_status = ROCPROFILER_STATUS_ERROR;
};

struct iteration {
    const void* args_base;
    std::vector<iterated_arg>* out;
};

inline int on_arg(rocprofiler_callback_tracing_kind_t, rocprofiler_tracing_operation_t, uint32_t, const void* const addr,
                  int32_t, const char* type, const char* name, const char* value, int32_t, void* data) {
    auto* it = static_cast<iteration*>(data);
    it->out->push_back({name, type, value, static_cast<const char*>(addr) - static_cast<const char*>(it->args_base)});
    return 0;
}

inline std::mutex g_mutex;

template <class Data>
void keep(std::vector<seen<Data>>& out, const rocprofiler_callback_tracing_record_t& r) {
    const auto* payload = static_cast<const Data*>(r.payload);
    seen<Data> s{r.kind, static_cast<int>(r.operation), r.phase, *payload, {}};
    if (r.phase == ROCPROFILER_CALLBACK_PHASE_EXIT) {
        iteration it{&payload->args, &s.args};
        s.iterate_status = rocprofiler_iterate_callback_tracing_kind_operation_args(r, &on_arg, 1, &it);
    }
    std::lock_guard lk(g_mutex);
    out.push_back(std::move(s));
}

/// A copy of the last record of `op` in `phase` (none if there is none): later calls may
/// append to `v` meanwhile.
template <class Data>
std::optional<seen<Data>> last(const std::vector<seen<Data>>& v, int op, rocprofiler_callback_phase_t phase) {
    std::lock_guard lk(g_mutex);
    for (auto it = v.rbegin(); it != v.rend(); ++it)
        if (it->op == op && it->phase == phase) return *it;
    return std::nullopt;
}

/// Iteration's entry for the argument called `name` (nullptr if none).
template <class Data>
const iterated_arg* arg(const seen<Data>& s, const std::string& name) {
    for (const auto& a : s.args)
        if (a.name == name) return &a;
    return nullptr;
}

/// Where a member of the copied payload's args lies relative to args, as iteration reports it.
template <class Data, class M>
std::ptrdiff_t offset_in_args(const seen<Data>& s, const M& member) {
    return reinterpret_cast<const char*>(&member) - reinterpret_cast<const char*>(&s.data.args);
}

}  // namespace api_args_test
