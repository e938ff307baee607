// src/core/domains_libs.cpp — the one translation unit that instantiates the library API domains
// (encore/domains/libs.hpp: names and argument printers), kept apart from the HSA and HIP domains
// so they compile in parallel. Their names and arguments are libencore's, so a tool can query them
// in a process where the library's interposer (libencore-rccl, ...) is not loaded.
#include "kinds.hpp"

#include <encore/domains/libs.hpp>

namespace encore::core {
namespace {
template <class... D>
kind_registration<D...> registration_of(api::type_list<D...>);

const decltype(registration_of(domains::libraries{})) registered;
}  // namespace
}  // namespace encore::core
