// src/cuda/ops.hpp — the per-op layers: what a traced export with a role (roles.hpp) does beyond
// the generic wrapper (read its arguments, route to records, replay and the tracker), and
// route<I>, which puts op I's layer between its wrapper and the driver when a service needs it.
#pragma once

#include "calls.hpp"
#include "counters.hpp"
#include "graph_nodes.hpp"
#include "kernels.hpp"
#include "range_replay.hpp"
#include "records.hpp"
#include "replay.hpp"
#include "roles.hpp"
#include "tracker.hpp"

#include <encore/domains/cuda_driver.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <tuple>
#include <type_traits>
#include <vector>

namespace encore::cuda {

/// Whether an op of role `r` gets its layer, given the configured services (services_of).
bool layered(role r) noexcept;
/// Context destruction (cuCtxDestroy: `ctx`; a primary context's release or reset: `device`):
/// its pending COMPLETE/EXIT records go out first, and what encore kept of it is forgotten when
/// the context is gone (a later context may get the same handle).
CUresult teardown(CUcontext ctx, CUdevice device, bool reset, thunk call) noexcept;
/// cuGraphLaunch(exec, stream) (`call` forwards it): while kernel replay is active or launches are
/// counted, launched node by node (graph_nodes.hpp: each kernel node through replay::launch) when
/// its plan allows, else as a whole (range::graph_launch), said once per reason.
CUresult graph_launch(CUgraphExec exec, CUstream stream, bool per_thread, thunk call) noexcept;

namespace ops {

/// Role R's layer: call<I>(real, args...) is op I's call (an op of role R) to the real function.
template <role R>
struct role_layer;

template <class... A>
using real_fn_t = CUresult (*)(A...);

template <>
struct role_layer<role::launch> {
    template <std::size_t I, class... A>
    static CUresult call(real_fn_t<A...> f, std::type_identity_t<A>... a) {
        constexpr op_role op = roles[I];
        const std::tuple<A...> t(a...);
        const auto forward = [&] { return f(a...); };
        launch_call c{};
        c.per_thread = op.per_thread;
        c.submit = thunk::of(forward);
        if constexpr (op.launch == launch_args::config) {
            const CUlaunchConfig* cfg = std::get<0>(t);
            if (cfg == nullptr) return f(a...);  // the driver's error
            c.f = std::get<1>(t);
            c.grid[0] = cfg->gridDimX, c.grid[1] = cfg->gridDimY, c.grid[2] = cfg->gridDimZ;
            c.block[0] = cfg->blockDimX, c.block[1] = cfg->blockDimY, c.block[2] = cfg->blockDimZ;
            c.shared = cfg->sharedMemBytes;
            c.stream = cfg->hStream;
            c.config = cfg;
            c.params = std::get<2>(t);
            c.extra = std::get<3>(t);
        } else {
            c.f = std::get<0>(t);
            c.grid[0] = std::get<1>(t), c.grid[1] = std::get<2>(t), c.grid[2] = std::get<3>(t);
            c.block[0] = std::get<4>(t), c.block[1] = std::get<5>(t), c.block[2] = std::get<6>(t);
            c.shared = std::get<7>(t);
            c.stream = std::get<8>(t);
            c.params = std::get<9>(t);
            // cuLaunchCooperativeKernel is the one launch of this layout without `extra`.
            if constexpr (sizeof...(A) == 11)
                c.extra = std::get<10>(t);
            else
                c.cooperative = true;
        }
        kernels::announce(c.f);  // its name before its first dispatch record
        if (replay::enabled()) return replay::launch(c);
        // Counted launches (a counting service without replay) run alone, counted (counters.hpp).
        if (CUresult r; counters::configured() && counters::launch(c, 0, r)) return r;
        return records::launch(c);
    }
};

template <>
struct role_layer<role::alloc> {
    template <std::size_t I, class... A>
    static CUresult call(real_fn_t<A...> f, std::type_identity_t<A>... a) {
        constexpr op_role op = roles[I];
        const std::tuple<A...> t(a...);
        constexpr auto kind = op.alloc == alloc_form::managed    ? tracker::memory::managed
                              : op.alloc == alloc_form::imported ? tracker::memory::imported
                                                                 : tracker::memory::device;
        // The tracker learns of the allocation as soon as it exists (before the EXIT record).
        if constexpr (op.alloc == alloc_form::host) {
            static_assert(std::is_same_v<std::tuple_element_t<0, std::tuple<A...>>, void**>);
            void** out = std::get<0>(t);
            const auto tracked = [&] {
                const CUresult res = f(a...);
                if (res == CUDA_SUCCESS && out != nullptr) tracker::on_host_alloc(*out, std::get<1>(t));
                return res;
            };
            static_assert(sizeof(void*) == sizeof(CUdeviceptr));
            return records::allocate(ROCPROFILER_MEMORY_ALLOCATION_ALLOCATE, reinterpret_cast<CUdeviceptr*>(out),
                                     std::get<1>(t), thunk::of(tracked), nullptr, records::memory_of::host);
        } else if constexpr (op.alloc == alloc_form::pitched || op.alloc == alloc_form::imported) {
            CUdeviceptr* out = std::get<0>(t);
            // Known at EXIT only: pitch x height, or the imported allocation's size (the driver's).
            std::size_t at_exit = 0, at_enter = 0;
            if constexpr (op.alloc == alloc_form::pitched) at_enter = std::get<2>(t) * std::get<3>(t);
            const auto sized = [&] {
                const CUresult res = f(a...);
                if (res != CUDA_SUCCESS || out == nullptr) return res;
                if constexpr (op.alloc == alloc_form::pitched) {
                    if (std::get<1>(t) != nullptr) at_exit = *std::get<1>(t) * std::get<3>(t);
                } else {
                    at_exit = tracker::driver_size_of(*out);
                }
                tracker::on_alloc(*out, at_exit, kind);
                range::on_memory_change();
                return res;
            };
            return records::allocate(ROCPROFILER_MEMORY_ALLOCATION_ALLOCATE, out, at_enter, thunk::of(sized), &at_exit);
        } else {
            CUdeviceptr* out = std::get<0>(t);
            const auto tracked = [&] {
                const CUresult res = f(a...);
                if (res == CUDA_SUCCESS && out != nullptr) {
                    tracker::on_alloc(*out, std::get<1>(t), kind);
                    range::on_memory_change();
                }
                return res;
            };
            return records::allocate(ROCPROFILER_MEMORY_ALLOCATION_ALLOCATE, out, std::get<1>(t), thunk::of(tracked));
        }
    }
};

/// Held around what changes the memory a replay on the current context snapshots or restores
/// (frees, unmaps, access changes): such a call waits until the replay is done.
struct memory_change_hold {
    std::optional<tracker::work_hold> hold;
    memory_change_hold() noexcept {
        if (!replay::enabled()) return;
        range::on_memory_change();  // an open range's snapshot no longer covers what it should
        hold.emplace();
    }
};

template <>
struct role_layer<role::free> {
    template <std::size_t, class... A>
    static CUresult call(real_fn_t<A...> f, std::type_identity_t<A>... a) {
        const CUdeviceptr p = std::get<0>(std::tuple<A...>(a...));
        const memory_change_hold hold;
        // cuMemFreeAsync frees in stream order, later than this call: the tracker drops the
        // allocation now, which is right for replay (a replay drains the context before its
        // snapshot, so the free has happened by then); its FREE record comes at the call.
        const auto untracked = [&] {
            const CUresult res = f(a...);
            if (res == CUDA_SUCCESS) tracker::on_free(p);
            return res;
        };
        return records::deallocate(ROCPROFILER_MEMORY_ALLOCATION_FREE, p, thunk::of(untracked));
    }
};

template <>
struct role_layer<role::host_free> {
    template <std::size_t, class... A>
    static CUresult call(real_fn_t<A...> f, std::type_identity_t<A>... a) {
        void* p = std::get<0>(std::tuple<A...>(a...));
        const auto untracked = [&] {
            const CUresult res = f(a...);
            if (res == CUDA_SUCCESS) tracker::on_host_free(p);
            return res;
        };
        return records::deallocate(ROCPROFILER_MEMORY_ALLOCATION_FREE, reinterpret_cast<CUdeviceptr>(p),
                                   thunk::of(untracked), records::memory_of::host);
    }
};

template <>
struct role_layer<role::vmm_create> {
    template <std::size_t, class... A>
    static CUresult call(real_fn_t<A...> f, std::type_identity_t<A>... a) {
        const std::tuple<A...> t(a...);
        CUmemGenericAllocationHandle* out = std::get<0>(t);
        const auto tracked = [&] {
            const CUresult res = f(a...);
            if (res == CUDA_SUCCESS && out != nullptr) tracker::on_vmm_create(*out, std::get<1>(t));
            return res;
        };
        // The allocation is a handle until mapped: its record's address is the handle.
        static_assert(sizeof(*out) == sizeof(CUdeviceptr));
        return records::allocate(ROCPROFILER_MEMORY_ALLOCATION_VMEM_ALLOCATE, reinterpret_cast<CUdeviceptr*>(out),
                                 std::get<1>(t), thunk::of(tracked), nullptr, records::memory_of::vmm);
    }
};

template <>
struct role_layer<role::vmm_release> {
    template <std::size_t, class... A>
    static CUresult call(real_fn_t<A...> f, std::type_identity_t<A>... a) {
        const CUmemGenericAllocationHandle h = std::get<0>(std::tuple<A...>(a...));
        const auto untracked = [&] {
            const CUresult res = f(a...);
            if (res == CUDA_SUCCESS) tracker::on_vmm_release(h);
            return res;
        };
        return records::deallocate(ROCPROFILER_MEMORY_ALLOCATION_VMEM_FREE, static_cast<CUdeviceptr>(h),
                                   thunk::of(untracked), records::memory_of::vmm);
    }
};

template <>
struct role_layer<role::vmm_map> {
    template <std::size_t, class... A>
    static CUresult call(real_fn_t<A...> f, std::type_identity_t<A>... a) {
        const std::tuple<A...> t(a...);  // (ptr, size, offset, handle, flags)
        const memory_change_hold hold;
        const CUresult res = f(a...);
        if (res == CUDA_SUCCESS) tracker::on_vmm_map(std::get<0>(t), std::get<1>(t), std::get<2>(t), std::get<3>(t));
        return res;
    }
};

template <>
struct role_layer<role::vmm_access> {
    template <std::size_t, class... A>
    static CUresult call(real_fn_t<A...> f, std::type_identity_t<A>... a) {
        const std::tuple<A...> t(a...);  // (ptr, size, desc, count)
        const memory_change_hold hold;
        const CUresult res = f(a...);
        if (res == CUDA_SUCCESS) tracker::on_vmm_access(std::get<0>(t), std::get<1>(t), std::get<2>(t), std::get<3>(t));
        return res;
    }
};

template <>
struct role_layer<role::vmm_unmap> {
    template <std::size_t, class... A>
    static CUresult call(real_fn_t<A...> f, std::type_identity_t<A>... a) {
        const std::tuple<A...> t(a...);  // (ptr, size)
        const memory_change_hold hold;
        const CUresult res = f(a...);
        if (res == CUDA_SUCCESS) tracker::on_vmm_unmap(std::get<0>(t), std::get<1>(t));
        return res;
    }
};

template <>
struct role_layer<role::copy> {
    template <std::size_t I, class... A>
    static CUresult call(real_fn_t<A...> f, std::type_identity_t<A>... a) {
        const std::tuple<A...> t(a...);
        const auto forward = [&] { return f(a...); };
        copy_call c{};
        c.submit = thunk::of(forward);
        if (!read<I>(c, t)) {  // a null descriptor: the driver's error, untraced as a copy
            tracker::work_hold hold;
            return f(a...);
        }
        if (!replay::enabled()) return records::copy(c);
        if (range::any_open()) {
            if (const std::optional<CUresult> r = in_range<I>(f, t, c)) return *r;
        }
        range::on_copy(&c);
        tracker::work_hold hold;
        return records::copy(c);
    }

private:
    /// `c` as op I's arguments `t` say (the op's shape: roles.hpp); false for a null descriptor.
    template <std::size_t I, class... A>
    static bool read(copy_call& c, const std::tuple<A...>& t) {
        constexpr op_role op = roles[I];
        c.per_thread = op.per_thread;
        c.async = op.async;
        if constexpr (op.async) {
            static_assert(std::is_same_v<std::tuple_element_t<sizeof...(A) - 1, std::tuple<A...>>, CUstream>,
                          "roles.hpp: an async copy's last argument is its stream");
            c.stream = std::get<sizeof...(A) - 1>(t);
        }
        if constexpr (op.shape == copy_shape::desc_2d || op.shape == copy_shape::desc_3d) {
            const auto* d = std::get<0>(t);
            static_assert(std::is_same_v<std::remove_cvref_t<decltype(*d)>,
                                         std::conditional_t<op.shape == copy_shape::desc_2d, CUDA_MEMCPY2D, CUDA_MEMCPY3D>>,
                          "roles.hpp: the copy's shape does not match its descriptor");
            if (d == nullptr) return false;
            describe(c, *d);
        } else if constexpr (op.shape == copy_shape::peer) {
            c.direction = op.direction;
            c.dst = std::get<0>(t), c.src = std::get<2>(t), c.bytes = std::get<4>(t);
        } else {
            c.direction = op.direction;
            c.dst = address(std::get<0>(t));
            c.src = address(std::get<1>(t));
            c.bytes = std::get<2>(t);
        }
        return true;
    }

    /// In an open range, copy `c` of op I as a range entry (issued again in each pass), by its
    /// shape; nullopt when it is none (a peer copy, a copy the range declines, staging that failed).
    template <std::size_t I, class... A>
    static std::optional<CUresult> in_range(real_fn_t<A...> f, const std::tuple<A...>& t, copy_call& c) {
        constexpr op_role op = roles[I];
        if constexpr (op.shape == copy_shape::linear)
            return linear_in_range(f, t, c);
        else if constexpr (op.shape == copy_shape::desc_2d || op.shape == copy_shape::desc_3d)
            return descriptor_in_range(f, t, c);
        else
            return std::nullopt;
    }

    /// A linear copy into device memory is an entry (docs/cuda.md, range replay): from device
    /// memory with the program's arguments (the snapshot restores the source), from host memory
    /// with the bytes it holds now.
    template <class... A>
    static std::optional<CUresult> linear_in_range(real_fn_t<A...> f, const std::tuple<A...>& t, copy_call& c) {
        const range::copy_kind k = range::classify(c);
        const auto own = [&] { return records::copy(c); };
        if (k == range::copy_kind::device_from_device)
            return range::copy_call_in_range(
                c.work_stream(), [f, t] { return std::apply(f, t); }, thunk::of(own));
        if (k != range::copy_kind::device_from_host) return std::nullopt;
        std::shared_ptr<std::vector<unsigned char>> staged;
        try {
            staged = std::make_shared<std::vector<unsigned char>>(c.bytes);
        } catch (...) {
        }
        if (!staged) return std::nullopt;
        std::memcpy(staged->data(), reinterpret_cast<const void*>(c.src), c.bytes);
        auto again = t;
        using src_t = std::tuple_element_t<1, std::tuple<A...>>;
        if constexpr (std::is_pointer_v<src_t>)
            std::get<1>(again) = static_cast<src_t>(static_cast<void*>(staged->data()));
        else
            std::get<1>(again) = static_cast<src_t>(reinterpret_cast<std::uintptr_t>(staged->data()));
        return range::copy_call_in_range(
            c.work_stream(), [f, again, staged] { return std::apply(f, again); }, thunk::of(own));
    }

    /// A 2-D/3-D copy into device memory is an entry too, from device memory or from host memory
    /// (its rows copied now, densely); arrays and unified-memory sources decline.
    template <class... A>
    static std::optional<CUresult> descriptor_in_range(real_fn_t<A...> f, const std::tuple<A...>& t, copy_call& c) {
        using desc_t = std::remove_cvref_t<decltype(*std::get<0>(t))>;
        const desc_t& d = *std::get<0>(t);
        const bool arrays = d.srcMemoryType == CU_MEMORYTYPE_ARRAY || d.dstMemoryType == CU_MEMORYTYPE_ARRAY;
        const range::copy_kind k = arrays ? range::copy_kind::other : range::classify(c);
        const bool from_host = k == range::copy_kind::device_from_host;
        if (k != range::copy_kind::device_from_device && !(from_host && d.srcMemoryType == CU_MEMORYTYPE_HOST))
            return std::nullopt;
        struct held {
            desc_t desc;
            std::vector<unsigned char> rows;
        };
        std::shared_ptr<held> h;
        try {
            h = std::make_shared<held>();
            h->desc = d;
            if (from_host) stage_rows(h->desc, h->rows);
        } catch (...) {
            h.reset();
        }
        if (!h) return std::nullopt;
        auto again = t;
        std::get<0>(again) = &h->desc;
        const auto own = [&] { return records::copy(c); };
        return range::copy_call_in_range(
            c.work_stream(), [f, again, h] { return std::apply(f, again); }, thunk::of(own));
    }
};

template <>
struct role_layer<role::other_work> {
    template <std::size_t I, class... A>
    static CUresult call(real_fn_t<A...> f, std::type_identity_t<A>... a) {
        constexpr op_role op = roles[I];
        if constexpr (op.memset) {
            // An open range re-issues it in its passes: the arguments are values, kept as they are.
            CUstream s = nullptr;
            if constexpr (std::is_same_v<std::tuple_element_t<sizeof...(A) - 1, std::tuple<A...>>, CUstream>)
                s = std::get<sizeof...(A) - 1>(std::tuple<A...>(a...));
            if (range::any_open())
                return range::memset_call(work_stream(s, op.per_thread),
                                          [f, t = std::tuple<A...>(a...)] { return std::apply(f, t); });
        } else {
            range::on_copy(nullptr);
        }
        tracker::work_hold hold;
        return f(a...);
    }
};

template <>
struct role_layer<role::graph_launch> {
    template <std::size_t I, class... A>
    static CUresult call(real_fn_t<A...> f, std::type_identity_t<A>... a) {
        const std::tuple<A...> t(a...);  // (exec, stream)
        const auto forward = [&] { return f(a...); };
        return graph_launch(std::get<0>(t), std::get<1>(t), roles[I].per_thread, thunk::of(forward));
    }
};

template <>
struct role_layer<role::graph_update> {
    template <std::size_t, class... A>
    static CUresult call(real_fn_t<A...> f, std::type_identity_t<A>... a) {
        // (exec, ...): whatever the result, the plan no longer stands for the exec
        graph_nodes::on_update(std::get<0>(std::tuple<A...>(a...)));
        return f(a...);
    }
};

template <>
struct role_layer<role::graph_destroy> {
    template <std::size_t, class... A>
    static CUresult call(real_fn_t<A...> f, std::type_identity_t<A>... a) {
        const CUgraphExec exec = std::get<0>(std::tuple<A...>(a...));
        const CUresult res = f(a...);
        if (res == CUDA_SUCCESS) graph_nodes::forget(exec);
        return res;
    }
};

template <>
struct role_layer<role::instantiate> {
    template <std::size_t, class... A>
    static CUresult call(real_fn_t<A...> f, std::type_identity_t<A>... a) {
        const std::tuple<A...> t(a...);  // (exec out, graph, ...)
        const CUresult res = f(a...);
        if (res == CUDA_SUCCESS && std::get<0>(t) != nullptr) range::on_instantiate(*std::get<0>(t), std::get<1>(t));
        return res;
    }
};

template <>
struct role_layer<role::global> {
    template <std::size_t I, class... A>
    static CUresult call(real_fn_t<A...> f, std::type_identity_t<A>... a) {
        constexpr op_role op = roles[I];
        const std::tuple<A...> t(a...);
        // (dptr, bytes, module or library, name); managed variables mark their context. The
        // CUDA runtime asks for the address only (bytes null): the size is asked for here.
        std::size_t bytes = 0;
        std::size_t* size_out = std::get<1>(t) != nullptr ? std::get<1>(t) : &bytes;
        const CUresult res = f(std::get<0>(t), size_out, std::get<2>(t), std::get<3>(t));
        if (res == CUDA_SUCCESS && std::get<0>(t) != nullptr && *size_out != 0) {
            if constexpr (op.alloc == alloc_form::managed)
                tracker::on_alloc(*std::get<0>(t), *size_out, tracker::memory::managed);
            else
                tracker::on_global(*std::get<0>(t), *size_out, std::get<2>(t));
        }
        return res;
    }
};

template <>
struct role_layer<role::unload> {
    template <std::size_t, class... A>
    static CUresult call(real_fn_t<A...> f, std::type_identity_t<A>... a) {
        tracker::work_hold hold;
        const CUresult res = f(a...);
        if (res == CUDA_SUCCESS) {
            tracker::on_unload(std::get<0>(std::tuple<A...>(a...)));
            kernels::on_unload();
        }
        return res;
    }
};

template <>
struct role_layer<role::teardown> {
    template <std::size_t I, class... A>
    static CUresult call(real_fn_t<A...> f, std::type_identity_t<A>... a) {
        constexpr op_role op = roles[I];
        const auto forward = [&] { return f(a...); };
        const auto target = std::get<0>(std::tuple<A...>(a...));
        if constexpr (op.destroys == teardown_of::context)
            return teardown(target, 0, false, thunk::of(forward));
        else
            return teardown(nullptr, target, op.destroys == teardown_of::primary_reset, thunk::of(forward));
    }
};

template <>
struct role_layer<role::stream_destroy> {
    template <std::size_t, class... A>
    static CUresult call(real_fn_t<A...> f, std::type_identity_t<A>... a) {
        const auto forward = [&] { return f(a...); };
        return records::destroy_stream(thunk::of(forward));
    }
};

template <>
struct role_layer<role::vmm_reserve> {
    template <std::size_t, class... A>
    static CUresult call(real_fn_t<A...> f, std::type_identity_t<A>... a) {
        const std::tuple<A...> t(a...);  // (ptr out, size, alignment, addr, flags)
        const CUresult res = f(a...);
        if (res == CUDA_SUCCESS && std::get<0>(t) != nullptr) tracker::on_vmm_reserve(*std::get<0>(t), std::get<1>(t));
        return res;
    }
};

template <>
struct role_layer<role::vmm_address_free> {
    template <std::size_t, class... A>
    static CUresult call(real_fn_t<A...> f, std::type_identity_t<A>... a) {
        const CUdeviceptr p = std::get<0>(std::tuple<A...>(a...));  // (ptr, size)
        const memory_change_hold hold;
        const CUresult res = f(a...);
        if (res == CUDA_SUCCESS) tracker::on_vmm_address_free(p);
        return res;
    }
};

/// Op I's layer over the real function: its role's.
template <std::size_t I, class F = typename domains::cuda_driver::op_at<I>::function_type>
struct layer;
template <std::size_t I, class R, class... A>
struct layer<I, R(A...)> {
    static_assert(std::is_same_v<R, CUresult>, "roles.hpp: an op with a role returns CUresult");
    static inline std::atomic<R (*)(A...)> real{nullptr};
    static R call(A... a) {
        return role_layer<roles[I].role>::template call<I, A...>(real.load(std::memory_order_acquire), a...);
    }
};

}  // namespace ops

/// What op I's wrapper forwards to: the driver's function, or its layer over it.
template <std::size_t I, class R, class... A>
R (*route(R (*real)(A...)))
(A...) {
    if constexpr (roles[I].role != role::none) {
        if (layered(roles[I].role)) {
            ops::layer<I>::real.store(real, std::memory_order_release);
            return &ops::layer<I>::call;
        }
    }
    return real;
}

}  // namespace encore::cuda
