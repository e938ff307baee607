// encore/tracing/hsa.hpp — compile-time selection of HSA domains over ROCr's HsaApiTable.
//
//   // in a tool's OnLoad (or encore's): trace only the core and AMD-extension tables
//   using my_tracer = encore::tracing::hsa_tracer<encore::domains::hsa_core, encore::domains::hsa_amd_ext>;
//   my_tracer::install(*table);   // wraps only the ops some context configured
//
// Domains not listed generate no code and their table slots are never touched.
#pragma once

#include <encore/domains/hsa.hpp>
#include <encore/tracing/format.hpp>
#include <encore/tracing/tool.hpp>
#include <encore/tracing/wrapper.hpp>

namespace encore::tracing {

/// The table of an HsaApiTable that holds Domain's slots.
template <class Domain>
typename Domain::table_type* table_of(::HsaApiTable& t) noexcept {
    using T = typename Domain::table_type;
    // The root table reports its own size too: a pointer field past it is absent.
    auto has = [&](auto member) {
        const auto off = reinterpret_cast<std::size_t>(&(static_cast<::HsaApiTable*>(nullptr)->*member));
        return off + sizeof(void*) <= t.version.minor_id;
    };
    if constexpr (std::is_same_v<T, ::CoreApiTable>)
        return has(&::HsaApiTable::core_) ? t.core_ : nullptr;
    else if constexpr (std::is_same_v<T, ::AmdExtTable>)
        return has(&::HsaApiTable::amd_ext_) ? t.amd_ext_ : nullptr;
    else if constexpr (std::is_same_v<T, ::ImageExtTable>)
        return has(&::HsaApiTable::image_ext_) ? t.image_ext_ : nullptr;
    else
        return has(&::HsaApiTable::finalizer_ext_) ? t.finalizer_ext_ : nullptr;
}

template <class... Domains>
struct hsa_tracer {
    /// Installs wrappers for the operations any context configured, in each selected domain.
    /// Returns the number of slots replaced.
    static std::size_t install(::HsaApiTable& t) {
        std::size_t n = 0;
        (
            [&] {
                auto* table = table_of<Domains>(t);
                if (table == nullptr) return;
                const auto ops = configured_operations(Domains::id);
                if (ops.none()) return;
                n += tracing::install<Domains>(*table, op_selection{&ops});
            }(),
            ...);
        return n;
    }
    static std::size_t uninstall(::HsaApiTable& t) {
        std::size_t n = 0;
        ((table_of<Domains>(t) != nullptr ? n += tracing::uninstall<Domains>(*table_of<Domains>(t)) : n), ...);
        return n;
    }
};

/// All four HSA domains.
using hsa_all = hsa_tracer<domains::hsa_core, domains::hsa_amd_ext, domains::hsa_image_ext, domains::hsa_finalize_ext>;

// Instantiated once, in libencore (src/core/domains_hsa.cpp).
extern template std::size_t install<domains::hsa_core, op_selection>(::CoreApiTable&, op_selection&&);
extern template std::size_t install<domains::hsa_amd_ext, op_selection>(::AmdExtTable&, op_selection&&);
extern template std::size_t install<domains::hsa_image_ext, op_selection>(::ImageExtTable&, op_selection&&);
extern template std::size_t install<domains::hsa_finalize_ext, op_selection>(::FinalizerExtTable&, op_selection&&);
extern template std::size_t uninstall<domains::hsa_core>(::CoreApiTable&);
extern template std::size_t uninstall<domains::hsa_amd_ext>(::AmdExtTable&);
extern template std::size_t uninstall<domains::hsa_image_ext>(::ImageExtTable&);
extern template std::size_t uninstall<domains::hsa_finalize_ext>(::FinalizerExtTable&);

}  // namespace encore::tracing
