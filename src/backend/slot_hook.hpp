// src/backend/slot_hook.hpp — replacing one slot of a runtime's dispatch table with a backend's
// function, and putting the original back, the way encore's generated wrappers do it.
//
//   if (backend::hook<&CoreApiTable::hsa_queue_create_fn>(table.core_, &queue_create)) ...;
//   backend::unhook<&CoreApiTable::hsa_queue_create_fn>(table.core_, &queue_create, original);
//
// Both honour the table's reported size (`version.minor_id`, bytes): a slot past it is absent in
// that runtime and is never read or written. unhook restores a slot only while it still holds
// the backend's function: another tool may have wrapped it since, and that tool's chain stays.
#pragma once

#include <cstddef>

namespace encore::backend {

/// Whether `t` (a table that reports its size in version.minor_id) has the slot `Member`.
template <auto Member, class Table>
[[nodiscard]] bool has_slot(const Table* t) noexcept {
    if (t == nullptr) return false;
    const auto offset = static_cast<std::size_t>(reinterpret_cast<const char*>(&(t->*Member)) -
                                                 reinterpret_cast<const char*>(t));
    return offset + sizeof(void*) <= static_cast<std::size_t>(t->version.minor_id);
}

/// Puts `mine` in slot `Member` of `t`; false (nothing written) when the table lacks the slot.
template <auto Member, class Table, class F>
bool hook(Table* t, F mine) noexcept {
    if (!has_slot<Member>(t)) return false;
    t->*Member = mine;
    return true;
}

/// Puts `original` back in slot `Member` of `t` if the slot still holds `mine`.
template <auto Member, class Table, class Mine, class Original>
void unhook(Table* t, Mine mine, Original original) noexcept {
    if (has_slot<Member>(t) && t->*Member == mine) t->*Member = original;
}

}  // namespace encore::backend
