// src/cuda/replay.cpp — KERNEL_REPLAY on CUDA: the backend under core::replay's flow.
//
// While a replay service exists (cuda::replay::enabled):
//   - cuMemAlloc_v2 / cuMemFree_v2 feed an allocation tracker (device memory of each context);
//   - every cuLaunchKernel(_ptsz) holds its context's reader/writer gate shared while it is
//     submitted; a replayed launch holds it exclusively, drains the context (cuCtxSynchronize:
//     every stream), snapshots the context's tracked memory, runs each pass and waits for it
//     (cuStreamSynchronize), restores between passes, and releases. Other contexts (GPUs) are
//     never blocked.
// Snapshot: full_copy into a device-side shadow when the GPU has room for it (free memory above
// the footprint plus 1 GiB), else into pinned host memory (the seed's design); either is kept
// for the context's next replayed launch.
// ENCORE_CUDA_REPLAY_SHADOW=host|device forces one. changed_chunks (device-side hashing) is not
// implemented on CUDA: it runs as full_copy, warned once. All internal driver calls go to the
// real driver (find_original), never through encore's exports.
#include "driver.hpp"

#include "../core/replay.hpp"

#include <encore/tracing/tool.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <vector>

namespace encore::cuda::replay {
namespace {

template <class F>
F real_fn(const char* name) noexcept {
    void* p = find_original(name);
    F f = nullptr;
    std::memcpy(&f, &p, sizeof(f));
    return f;
}

struct driver_fns {
    CUresult (*ctx_get_current)(CUcontext*) = real_fn<decltype(ctx_get_current)>("cuCtxGetCurrent");
    CUresult (*ctx_get_device)(CUdevice*) = real_fn<decltype(ctx_get_device)>("cuCtxGetDevice");
    CUresult (*ctx_synchronize)() = real_fn<decltype(ctx_synchronize)>("cuCtxSynchronize");
    CUresult (*stream_synchronize)(CUstream) = real_fn<decltype(stream_synchronize)>("cuStreamSynchronize");
    CUresult (*mem_alloc)(CUdeviceptr*, size_t) = real_fn<decltype(mem_alloc)>("cuMemAlloc_v2");
    CUresult (*mem_free)(CUdeviceptr) = real_fn<decltype(mem_free)>("cuMemFree_v2");
    CUresult (*mem_alloc_host)(void**, size_t) = real_fn<decltype(mem_alloc_host)>("cuMemAllocHost_v2");
    CUresult (*mem_free_host)(void*) = real_fn<decltype(mem_free_host)>("cuMemFreeHost");
    CUresult (*mem_get_info)(size_t*, size_t*) = real_fn<decltype(mem_get_info)>("cuMemGetInfo_v2");
    CUresult (*dtod)(CUdeviceptr, CUdeviceptr, size_t) = real_fn<decltype(dtod)>("cuMemcpyDtoD_v2");
    CUresult (*dtoh)(void*, CUdeviceptr, size_t) = real_fn<decltype(dtoh)>("cuMemcpyDtoH_v2");
    CUresult (*htod)(CUdeviceptr, const void*, size_t) = real_fn<decltype(htod)>("cuMemcpyHtoD_v2");
};
const driver_fns& drv() {
    static const driver_fns d;
    return d;
}

CUcontext current_context() noexcept {
    CUcontext c = nullptr;
    if (drv().ctx_get_current == nullptr || drv().ctx_get_current(&c) != CUDA_SUCCESS) return nullptr;
    return c;
}

// ---- tracker and gates --------------------------------------------------------------------------
struct allocation {
    std::size_t size;
    CUcontext ctx;
};
std::mutex g_tracker_mutex;
auto* g_tracker = new std::map<CUdeviceptr, allocation>;  // guarded; never destroyed (frees at exit)

struct gate {
    std::shared_mutex lock;
};
std::mutex g_gates_mutex;
auto* g_gates = new std::map<CUcontext, std::unique_ptr<gate>>;  // never destroyed
thread_local CUcontext t_exclusive = nullptr;  // the context this thread replays on

gate& gate_of(CUcontext c) {
    std::lock_guard lk(g_gates_mutex);
    auto& g = (*g_gates)[c];
    if (!g) g = std::make_unique<gate>();
    return *g;
}

struct shared_hold {
    gate* g = nullptr;
    explicit shared_hold(CUcontext c) {
        if (c == nullptr || c == t_exclusive) return;
        g = &gate_of(c);
        g->lock.lock_shared();
    }
    ~shared_hold() {
        if (g != nullptr) g->lock.unlock_shared();
    }
    shared_hold(const shared_hold&) = delete;
    shared_hold& operator=(const shared_hold&) = delete;
};

std::atomic<std::uint64_t> g_dispatch_id{0};

// The snapshot's memory is kept per context between replayed launches (allocating and freeing
// gigabytes per launch cost ~0.5 ms on the device and seconds pinned on the host); it grows when
// a footprint needs more. Used only under the context's exclusive gate.
struct snapshot_cache {
    CUdeviceptr shadow = 0;
    std::size_t shadow_size = 0;
    void* host = nullptr;
    std::size_t host_size = 0;
};
std::mutex g_cache_mutex;
auto* g_cache = new std::map<CUcontext, snapshot_cache>;  // never destroyed: the driver frees at exit

snapshot_cache& cache_of(CUcontext c) {
    std::lock_guard lk(g_cache_mutex);
    return (*g_cache)[c];
}

// ---- one replayed launch ------------------------------------------------------------------------
struct region {
    CUdeviceptr base;
    std::size_t size;
    std::size_t offset;  // in the shadow
};

class launch_replay final : public core::replay::dispatch_backend {
public:
    launch_replay(launch_fn real, CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                  unsigned bz, unsigned shm, CUstream s, void** params, void** extra, CUcontext ctx)
        : real_(real), f_(f), g_{gx, gy, gz}, b_{bx, by, bz}, shm_(shm), stream_(s), params_(params), extra_(extra),
          ctx_(ctx) {}

    CUresult result() const noexcept { return result_; }

    void run_once() noexcept override {
        shared_hold hold(ctx_);
        result_ = launch();
    }

    const char* acquire() noexcept override {
        using namespace std::chrono;
        opt_ = core::replay::current_options(ENCORE_REPLAY_SNAPSHOT_FULL_COPY);
        gate& g = gate_of(ctx_);
        const auto deadline = steady_clock::now() + nanoseconds(opt_.wait_timeout_ns);
        while (!g.lock.try_lock()) {
            if (steady_clock::now() >= deadline) return "timed out waiting for exclusive use of the context: the launch runs once";
            std::this_thread::yield();
        }
        t_exclusive = ctx_;
        // Drain: every stream of the context (the submitting one and its siblings).
        if (drv().ctx_synchronize == nullptr || drv().ctx_synchronize() != CUDA_SUCCESS) {
            release();
            return "draining the context (cuCtxSynchronize) failed: the launch runs once";
        }
        return nullptr;
    }

    const char* snapshot(core::replay::memory_stats& out) noexcept override {
        if (opt_.policy == ENCORE_REPLAY_SNAPSHOT_CHANGED_CHUNKS)
            core::replay::warn_once("changed_chunks is not implemented on CUDA yet: full_copy is used");
        {
            std::lock_guard lk(g_tracker_mutex);
            for (const auto& [p, a] : *g_tracker)
                if (a.ctx == ctx_) {
                    regions_.push_back(region{p, a.size, total_});
                    total_ += a.size;
                }
        }
        if (total_ > opt_.memory_budget) {
            release();
            return "the snapshot would exceed the memory budget (ENCORE_REPLAY_MEMORY_BUDGET): the launch runs once";
        }
        const char* force = std::getenv("ENCORE_CUDA_REPLAY_SHADOW");
        snapshot_cache& cache = cache_of(ctx_);
        std::size_t free = 0, total = 0;
        bool device = force != nullptr ? std::string_view(force) == "device"
                      : cache.shadow_size >= total_ ||
                            (drv().mem_get_info(&free, &total) == CUDA_SUCCESS && free > total_ + (1ull << 30));
        if (device && total_ > 0) {
            if (cache.shadow_size < total_) {
                if (cache.shadow != 0) drv().mem_free(cache.shadow);
                cache.shadow = 0;
                cache.shadow_size = 0;
                if (drv().mem_alloc(&cache.shadow, total_) == CUDA_SUCCESS) cache.shadow_size = total_;
                else cache.shadow = 0;
            }
            shadow_ = cache.shadow;
            device = shadow_ != 0;
        }
        if (!device && total_ > 0) {
            if (cache.host_size < total_) {
                if (cache.host != nullptr) drv().mem_free_host(cache.host);
                cache.host = nullptr;
                cache.host_size = 0;
                if (drv().mem_alloc_host(&cache.host, total_) == CUDA_SUCCESS) cache.host_size = total_;
                else cache.host = nullptr;
            }
            host_ = cache.host;
            if (host_ == nullptr) {
                release();
                return "cannot allocate memory for the snapshot: the launch runs once";
            }
        }
        for (const auto& r : regions_) {
            const CUresult c = shadow_ != 0 ? drv().dtod(shadow_ + r.offset, r.base, r.size)
                                            : drv().dtoh(static_cast<char*>(host_) + r.offset, r.base, r.size);
            if (c != CUDA_SUCCESS) {
                release();
                return "copying device memory into the snapshot failed: the launch runs once";
            }
        }
        // Device-to-device copies are asynchronous to the host: the snapshot is complete only
        // when they are (and a pass on a non-blocking stream must not overlap them).
        if (drv().ctx_synchronize() != CUDA_SUCCESS) {
            release();
            return "copying device memory into the snapshot failed: the launch runs once";
        }
        out.bytes = total_;
        out.regions = regions_.size();
        return nullptr;
    }

    const char* run_pass(std::uint64_t, std::uint64_t) noexcept override {
        result_ = launch();
        if (result_ != CUDA_SUCCESS) return "a pass's launch failed: no further passes";
        if (drv().stream_synchronize(stream_) != CUDA_SUCCESS) return "a pass did not complete: no further passes";
        return nullptr;
    }

    bool restore(core::replay::memory_stats& out) noexcept override {
        bool ok = true;
        for (const auto& r : regions_) {
            const CUresult c = shadow_ != 0 ? drv().dtod(r.base, shadow_ + r.offset, r.size)
                                            : drv().htod(r.base, static_cast<char*>(host_) + r.offset, r.size);
            ok = ok && c == CUDA_SUCCESS;
            out.bytes += r.size;
            ++out.regions;
        }
        // Complete before the next pass is launched, on whatever stream it runs.
        return drv().ctx_synchronize() == CUDA_SUCCESS && ok;
    }

    void finish() noexcept override { release(); }

    bool checksum(std::uint64_t& out) noexcept override {
        std::vector<unsigned char> buf;
        core::replay::checksum64 h;
        for (const auto& r : regions_) {
            try {
                buf.resize(r.size);
            } catch (...) {
                return false;
            }
            if (drv().dtoh(buf.data(), r.base, r.size) != CUDA_SUCCESS) return false;
            h.add(buf.data(), buf.size());
        }
        out = h.h;
        return true;
    }

private:
    CUresult launch() noexcept {
        return real_(f_, g_[0], g_[1], g_[2], b_[0], b_[1], b_[2], shm_, stream_, params_, extra_);
    }
    void release() noexcept {
        shadow_ = 0;  // the memory stays in the context's cache
        host_ = nullptr;
        if (t_exclusive == ctx_ && ctx_ != nullptr) {
            t_exclusive = nullptr;
            gate_of(ctx_).lock.unlock();
        }
    }

    launch_fn real_;
    CUfunction f_;
    unsigned g_[3], b_[3], shm_;
    CUstream stream_;
    void** params_;
    void** extra_;
    CUcontext ctx_;
    core::replay::options opt_{};
    std::vector<region> regions_;
    std::size_t total_ = 0;
    CUdeviceptr shadow_ = 0;
    void* host_ = nullptr;
    CUresult result_ = CUDA_SUCCESS;
};

}  // namespace

bool enabled() noexcept {
    // Asked when an op's target is chosen (once per op, after tools are initialized).
    return core::replay::service_configured();
}

void on_alloc(CUdeviceptr p, std::size_t size) noexcept {
    const CUcontext c = current_context();
    std::lock_guard lk(g_tracker_mutex);
    try {
        (*g_tracker)[p] = allocation{size, c};
    } catch (...) {
    }
}

void on_free(CUdeviceptr p) noexcept {
    // Not while a replay on its context may snapshot or restore it.
    shared_hold hold(current_context());
    std::lock_guard lk(g_tracker_mutex);
    g_tracker->erase(p);
}

CUresult launch(launch_fn real, CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                unsigned bz, unsigned shm, CUstream stream, void** params, void** extra) {
    const CUcontext ctx = current_context();
    launch_replay b(real, f, gx, gy, gz, bx, by, bz, shm, stream, params, extra, ctx);
    if (!core::replay::service_active() || ctx == nullptr) {
        b.run_once();
        return b.result();
    }
    rocprofiler_kernel_dispatch_info_t info{};
    info.size = sizeof(info);
    CUdevice dev = 0;
    if (drv().ctx_get_device != nullptr) drv().ctx_get_device(&dev);
    info.agent_id.handle = static_cast<std::uint64_t>(dev);
    info.queue_id.handle = reinterpret_cast<std::uint64_t>(stream);
    info.kernel_id = reinterpret_cast<std::uint64_t>(f);
    info.dispatch_id = g_dispatch_id.fetch_add(1, std::memory_order_relaxed) + 1;
    info.private_segment_size = 0;
    info.group_segment_size = shm;
    info.workgroup_size = {bx, by, bz};
    info.grid_size = {gx * bx, gy * by, gz * bz};
    // The whole sequence shares the launch call's correlation id (t->current is the wrapper's).
    core::replay::replay_dispatch(info, b);
    return b.result();
}

}  // namespace encore::cuda::replay
