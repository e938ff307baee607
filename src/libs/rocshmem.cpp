// src/libs/rocshmem.cpp — libencore-rocshmem: rocSHMEM's host stream functions through its
// function table.
//
// Path taken: rocSHMEM's host functions are C++ (namespace rocshmem) and its C interface for
// tools is rocshmemApiFuncTable, handed out by the exported RocshmemGetFunctionTable(). This
// library exports that accessor in front of librocshmem's: it asks the real one for its table
// once and returns a copy whose slots are the ROCSHMEM_API wrappers (encore/domains/rocshmem.hpp
// says which slot each operation is), each forwarding to the real slot. Code that dispatches
// through the table it got from the accessor is traced; calls rocSHMEM makes to its own C++
// functions directly are not seen (documented in docs/libraries.md). Slots at or past the real
// table's `size` (an older library) are left as they are and never read.
#include "backend/exports.hpp"
#include "library.hpp"

#include <encore/domains/rocshmem.hpp>
#include <encore/tracing/wrapper.hpp>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <tuple>

namespace encore::libs {

struct rocshmem_library : library<rocshmem_library> {
    static constexpr const char* library = "libencore-rocshmem";
    static constexpr const char* runtime = "the rocSHMEM library";
    static constexpr const char* env = "ENCORE_ROCSHMEM_LIBRARY";
    static constexpr const char* sonames[] = {"librocshmem.so.3", "librocshmem.so.2", "librocshmem.so"};
    static constexpr auto initialization = ROCPROFILER_RUNTIME_INITIALIZATION_ROCSHMEM;
    /// rocSHMEM's table carries no library version: the record's version is 0 (unknown).
    static std::uint64_t version() noexcept { return 0; }
    // missing_result: every traced function returns void (the base's void case).
};

namespace {

using domains::rocshmem;

/// The real library's table, asked for once (null when there is no library or no accessor).
const rocshmemApiFuncTable* real_table() noexcept {
    static const rocshmemApiFuncTable* const table = []() -> const rocshmemApiFuncTable* {
        void* p = rocshmem_library::real().find("RocshmemGetFunctionTable");
        if (p == nullptr) return nullptr;
        const rocshmemApiFuncTable* (*get)() = nullptr;
        std::memcpy(&get, &p, sizeof(get));
        return get();
    }();
    return table;
}

/// Whether slot I lies inside the table the library built (its `size` counts the bytes).
template <std::size_t I>
bool slot_present(const rocshmemApiFuncTable& t) noexcept {
    alignas(rocshmemApiFuncTable) static const std::byte probe[sizeof(rocshmemApiFuncTable)]{};
    const auto* base = reinterpret_cast<const rocshmemApiFuncTable*>(probe);
    const auto offset = static_cast<std::size_t>(
        reinterpret_cast<const std::byte*>(&(base->*std::get<I>(domains::rocshmem_slots))) - probe);
    return offset + sizeof(void*) <= t.size;
}

}  // namespace

/// forwarding_policy, with each operation's original read from the real table's slot.
struct rocshmem_policy : backend::forwarding_policy<rocshmem_library> {
    template <class D, std::size_t I, class R, class... A>
    static R (*original())(A...) {
        const rocshmemApiFuncTable* t = real_table();
        if (t == nullptr || !slot_present<I>(*t)) return nullptr;
        return t->*std::get<I>(domains::rocshmem_slots);
    }
};

template <>
struct policy_of<domains::rocshmem> {
    using type = rocshmem_policy;
};

}  // namespace encore::libs

/// The table a program (or rocSHMEM's own dispatch) gets: the library's, with every slot it has
/// replaced by its traced wrapper. Null when no librocshmem is found (as the caller would get
/// without encore: nothing to dispatch to); a library table longer than this declaration's is
/// cut to the slots encore knows (`size` says so).
extern "C" ENCORE_EXPORT const rocshmemApiFuncTable* RocshmemGetFunctionTable() {
    static const rocshmemApiFuncTable* const traced = []() -> const rocshmemApiFuncTable* {
        const rocshmemApiFuncTable* real = encore::libs::real_table();
        if (real == nullptr) {
            // Said once; the caller gets what it would get without encore: no table.
            encore::backend::backend_init<encore::libs::rocshmem_policy>::report_missing("RocshmemGetFunctionTable");
            return nullptr;
        }
        static rocshmemApiFuncTable copy{};
        const std::size_t n = std::min<std::size_t>(sizeof copy, real->size);
        std::memcpy(&copy, real, n);
        copy.size = n;
        encore::api::for_each_op<encore::domains::rocshmem>([&](auto I) {
            if (encore::libs::slot_present<I>(copy))
                copy.*std::get<I>(encore::domains::rocshmem_slots) =
                    &encore::tracing::wrapper<encore::domains::rocshmem, I>::call;
        });
        return &copy;
    }();
    return traced;
}
