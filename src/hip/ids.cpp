// src/hip/ids.cpp — the small ids HIP_STREAM / HIP_EVENT / HIP_GRAPH records carry for HIP's
// handles. Only the derived-kinds layer calls these (some context configured those kinds).
#include "interposer.hpp"

#include <mutex>
#include <unordered_map>

namespace encore::hip {
namespace {

struct table {
    std::mutex mutex;
    std::unordered_map<const void*, std::uint64_t> ids;
    std::uint64_t next = 1;

    std::uint64_t id(const void* h) {
        if (h == nullptr) return 0;
        std::lock_guard lk(mutex);
        auto [it, added] = ids.try_emplace(h, next);
        if (added) ++next;
        return it->second;
    }
    void forget(const void* h) {
        std::lock_guard lk(mutex);
        ids.erase(h);
    }
};

// Never destroyed: HIP calls may run during static destruction.
table& streams() {
    static auto* t = new table;
    return *t;
}
table& events() {
    static auto* t = new table;
    return *t;
}
table& execs() {
    static auto* t = new table;
    return *t;
}

std::mutex g_recorded_mutex;
std::unordered_map<const void*, std::uint64_t>& recorded_on() {
    static auto* m = new std::unordered_map<const void*, std::uint64_t>;
    return *m;
}

}  // namespace

std::uint64_t stream_id(const void* s) noexcept { return streams().id(s); }
void forget_stream(const void* s) noexcept { streams().forget(s); }
std::uint64_t event_id(const void* e) noexcept { return events().id(e); }
std::uint64_t graph_exec_id(const void* e) noexcept { return execs().id(e); }
void forget_graph_exec(const void* e) noexcept { execs().forget(e); }

void set_event_stream(const void* e, std::uint64_t s) noexcept {
    if (e == nullptr) return;
    std::lock_guard lk(g_recorded_mutex);
    recorded_on()[e] = s;
}

std::uint64_t event_stream(const void* e) noexcept {
    std::lock_guard lk(g_recorded_mutex);
    auto it = recorded_on().find(e);
    return it == recorded_on().end() ? 0 : it->second;
}

}  // namespace encore::hip
