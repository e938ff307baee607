// test/libs/fake_rocshmem.cpp — a stand-in librocshmem (no package exists here): its
// RocshmemGetFunctionTable() hands out a table of functions that record their calls
// (fake_log.hpp). FAKE_ROCSHMEM_SLOTS=N makes the table's `size` cover only its first N slots (an
// older library): encore must leave the rest alone.
#include "fake_log.hpp"

#include <rocprofiler-sdk/rocshmem/details/api_trace.h>

#include <cstddef>
#include <cstdlib>
#include <mutex>
#include <string>

#define FAKE extern "C" __attribute__((visibility("default")))

namespace {
std::mutex g_mutex;
std::string g_log;
template <class... A>
void record(const char* name, const A&... a) {
    std::lock_guard lk(g_mutex);
    g_log += fake_log::call(name, a...);
}

void barrier_all(hipStream_t s) { record("barrier_all_on_stream", s); }
void quiet(hipStream_t s) { record("quiet_on_stream", s); }
void sync_all(hipStream_t s) { record("sync_all_on_stream", s); }
void alltoallmem(rocshmem_team_t t, void* d, const void* src, size_t n, hipStream_t s) {
    record("alltoallmem_on_stream", t, d, src, n, s);
}
void broadcastmem(rocshmem_team_t t, void* d, const void* src, size_t n, int root, hipStream_t s) {
    record("broadcastmem_on_stream", t, d, src, n, root, s);
}
void getmem(void* d, const void* src, size_t n, int pe, hipStream_t s) { record("getmem_on_stream", d, src, n, pe, s); }
void putmem(void* d, const void* src, size_t n, int pe, hipStream_t s) { record("putmem_on_stream", d, src, n, pe, s); }
void putmem_signal(void* d, const void* src, size_t n, uint64_t* sig, uint64_t v, int op, int pe, hipStream_t s) {
    record("putmem_signal_on_stream", d, src, n, sig, v, op, pe, s);
}
void wait_until(uint64_t* sig, int cmp, uint64_t v, hipStream_t s) {
    record("signal_wait_until_on_stream", sig, cmp, v, s);
}
}  // namespace

FAKE const char* encore_test_fake_log() {
    static thread_local std::string copy;
    std::lock_guard lk(g_mutex);
    copy = g_log;
    return copy.c_str();
}
FAKE void encore_test_fake_reset() {
    std::lock_guard lk(g_mutex);
    g_log.clear();
}

FAKE const rocshmemApiFuncTable* RocshmemGetFunctionTable(void) {
    static rocshmemApiFuncTable table = [] {
        rocshmemApiFuncTable t{sizeof(rocshmemApiFuncTable),
                               &barrier_all,
                               &quiet,
                               &sync_all,
                               &alltoallmem,
                               &broadcastmem,
                               &getmem,
                               &putmem,
                               &putmem_signal,
                               &wait_until};
        if (const char* n = std::getenv("FAKE_ROCSHMEM_SLOTS"))
            t.size = offsetof(rocshmemApiFuncTable, barrier_all_on_stream_fn) +
                     sizeof(void*) * std::strtoul(n, nullptr, 10);
        return t;
    }();
    return &table;
}
