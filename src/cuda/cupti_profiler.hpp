// src/cuda/cupti_profiler.hpp — CUPTI's profiler host API as libencore-cuda uses it: the bound
// profiling functions of a loaded libcupti (every call logged with ENCORE_CUPTI_PROFILER_DEBUG=1),
// metric sets with their config images and pass counts, and a chip's catalogue of metrics as a
// core::counting::catalogue (cupti_profiler.cpp). The range profiler's use (counting launches)
// is counters.cpp's. Host-side only: it needs no GPU, so test/cuda/test_cuda_cupti_host.cpp runs it
// against CUDA 13's real libcupti (and the fake) on a machine without one.
#pragma once

#include "cupti_profiler_api.hpp"

#include "core/counting.hpp"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace encore::cuda::cupti_profiler {

using namespace cupti_api;

struct library {
    profiler_functions f;
    functions::result_string_fn result_string = nullptr;
    std::string path;
    bool debug = false;  // ENCORE_CUPTI_PROFILER_DEBUG
};
/// Binds the profiling functions of libcupti `handle` (opened from `path`) and makes it the
/// library every call below uses; null (nothing bound) when it lacks the range profiler or the
/// host API (CUPTI before CUDA 12.6). Once per process; never freed.
library* bind(void* handle, const std::string& path) noexcept;
/// The bound library (null: none yet).
library* bound() noexcept;
/// CUPTI's text for a result ("" when it has none).
const char* text_of(CUptiResult r) noexcept;

/// One profiling call: logged when debugging; a missing function is NOT_SUPPORTED.
template <class P>
CUptiResult call(const char* name, CUptiResult (*f)(P*), P& p) noexcept {
    const library* l = bound();
    const bool debug = l != nullptr && l->debug;
    // The call's host time too: where a counted launch's time goes is what users ask first.
    const auto t0 = debug ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
    const CUptiResult r = f != nullptr ? f(&p) : CUPTI_ERROR_NOT_SUPPORTED;
    if (debug)
        std::fprintf(stderr, "[encore] cupti-profiler: %s%s -> %d %s (%.1f us)\n", name,
                     f == nullptr ? " (missing)" : "", static_cast<int>(r), text_of(r),
                     std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    return r;
}

/// A params struct with its structSize set (`ENCORE_PARAMS(CUpti_..._Params)`).
template <class P>
P params(std::size_t size) noexcept {
    P p{};
    p.structSize = size;
    return p;
}
#define ENCORE_PARAMS(T) ::encore::cuda::cupti_profiler::params<T>(T##_STRUCT_SIZE)

/// One metric set: its host object and config image when it fits one pass.
struct group {
    std::vector<const char*> names;  // the catalogue's strings
    std::size_t passes = 0;          // 0: CUPTI refused the set
    CUpti_Profiler_Host_Object* host = nullptr;
    std::vector<std::uint8_t> image;
};

/// A chip's metrics (see cupti_profiler.cpp for what is listed).
class chip_catalogue final : public core::counting::catalogue {
public:
    static constexpr std::size_t extra = 4096;  // names find() may add

    explicit chip_catalogue(std::string chip) : chip_(std::move(chip)) {}
    /// Lists the chip's metrics; false (nothing listed) when CUPTI cannot.
    bool list() noexcept;
    const std::string& chip() const noexcept { return chip_; }
    std::size_t size() const noexcept override { return size_.load(std::memory_order_acquire); }
    std::size_t capacity() const noexcept override { return capacity_; }
    core::counting::counter_desc describe(std::size_t index) const noexcept override;
    std::size_t passes(const std::uint32_t* index, std::size_t n) noexcept override;
    std::int64_t find(const char* name) noexcept override;
    /// The metric set of these indices (made once, kept), or null when out of memory.
    std::shared_ptr<group> group_of(const std::uint32_t* index, std::size_t n) noexcept;

private:
    struct entry {
        std::string name, description, block;
        bool described = false;
    };
    std::string chip_;
    std::unique_ptr<entry[]> entries_;
    std::size_t capacity_ = 0;
    std::atomic<std::size_t> size_{0};
    mutable std::mutex m_;  // entries' descriptions, by_name_
    std::mutex grow_;       // find()'s appends, one at a time
    std::unordered_map<std::string, std::size_t> by_name_;
    CUpti_Profiler_Host_Object* host_ = nullptr;  // listing and properties
    std::mutex groups_m_;
    std::map<std::string, std::shared_ptr<group>> groups_;
};

}  // namespace encore::cuda::cupti_profiler
