// src/backend/address_set.hpp — the memory a backend tracks for kernel replay: address ranges
// (allocations, module variables) grouped by device, each with an id that tells a range freed
// and reallocated at the same address from the one a snapshot copied. HSA's region table
// (hsa/replay_memory_state.hpp) and CUDA's allocation tracker (cuda/tracker.cpp) are both one.
//
//   struct region : backend::address_node {  // the set's part, then the user's own fields
//       int slot = -1;
//   };
//   backend::address_set<region> set;
//   {
//       auto lk = set.lock();  // exclusive: inserts and erases
//       set.insert(base, size, agent, [](region& r) { r.slot = 3; });
//   }
//   {
//       auto lk = set.lock_shared();  // shared: lookups and walks
//       for (const region& r : set.of_device(agent)) copy(r.base, r.size);
//       const region* r = set.find(base);  // still the one copied: r != nullptr && r->id == id
//   }
//
// - A Boost.Intrusive red-black set keyed by base: the nodes are the elements (one allocation
//   per range), a lookup allocates nothing. Not a splay tree: its lookups restructure the tree,
//   so readers could not share the lock. Not an AVL tree: its stricter balance saves at most a
//   comparison or two at the sizes tracked (hundreds of ranges) for more rotations per change.
// - The set owns its nodes: allocated nothrow at insert (out of memory: nothing changes, the
//   range is not tracked), deleted at erase after the caller's `gone` hook has seen them.
// - The set holds its lock, but its operations do not take it: each user runs several of them,
//   and its own state beside (CUDA's per-context marks, HSA's write-protection slots), under one
//   hold. lock() and lock_shared() take it; each operation says which hold it needs.
// - changes() counts inserts, replaces and erases: while it has not moved, the set holds the
//   same ranges (a snapshot taken then still describes them).
#pragma once

#include <boost/intrusive/set.hpp>
#include <range/v3/numeric/accumulate.hpp>
#include <range/v3/view/filter.hpp>
#include <range/v3/view/transform.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <new>
#include <shared_mutex>
#include <type_traits>
#include <utility>

// Hidden: each backend library instantiates its own; none of it is exported.
#pragma GCC visibility push(hidden)
namespace encore::backend {

/// A tracked range: what every set knows of it. A set's node type derives from it, adding its
/// own fields.
struct address_node : boost::intrusive::set_base_hook<boost::intrusive::optimize_size<true>> {
    using hook = boost::intrusive::set_base_hook<boost::intrusive::optimize_size<true>>;

    std::uint64_t base = 0;    // the key: never changed while the node is in a set
    std::size_t size = 0;      // [base, base + size)
    std::uint64_t device = 0;  // the group: an HSA agent's handle, a CUDA context
    std::uint64_t id = 0;      // unique in its set, given at insert
};

/// The total size of a range of nodes (a view of a set).
std::uint64_t bytes_of(auto&& nodes) {
    return ranges::accumulate(nodes | ranges::views::transform(&address_node::size), std::uint64_t{0});
}

namespace detail {
struct base_of {
    using type = std::uint64_t;
    const type& operator()(const address_node& n) const noexcept { return n.base; }
};
struct nothing {
    void operator()(const address_node&) const noexcept {}
};
}  // namespace detail

template <class Node>
class address_set {
    static_assert(std::is_base_of_v<address_node, Node> && std::is_convertible_v<Node*, address_node*>,
                  "address_set<Node>: derive Node publicly from encore::backend::address_node");
    static_assert(std::is_default_constructible_v<Node>,
                  "address_set<Node>: Node is made at insert with new (std::nothrow) Node{}: give every field a "
                  "default (one that cannot throw: inserts are noexcept)");

    using set_type =
        boost::intrusive::set<Node, boost::intrusive::base_hook<address_node::hook>,
                              boost::intrusive::key_of_value<detail::base_of>, boost::intrusive::constant_time_size<true>>;

public:
    /// What insert and replace did: `node` is the new node (added) or the one kept (insert's
    /// `added` false); null when out of memory (nothing changed).
    struct inserted {
        Node* node;
        bool added;
    };

    address_set() = default;
    address_set(const address_set&) = delete;
    address_set& operator=(const address_set&) = delete;
    ~address_set() {
        nodes_.clear_and_dispose([](Node* n) { delete n; });
    }

    [[nodiscard]] std::unique_lock<std::shared_mutex> lock() { return std::unique_lock(mutex_); }
    [[nodiscard]] std::shared_lock<std::shared_mutex> lock_shared() { return std::shared_lock(mutex_); }

    // ---- changes (hold lock()) ---------------------------------------------------------------
    /// Adds [base, base + size) on `device`, `fill` setting the node's own fields (it must not
    /// throw). A range already starting at `base` is kept (`added` false, `node` it).
    template <class Fill = detail::nothing>
    inserted insert(std::uint64_t base, std::size_t size, std::uint64_t device, Fill&& fill = {}) noexcept {
        typename set_type::insert_commit_data at;
        const auto [it, fresh] = nodes_.insert_check(base, at);
        if (!fresh) return {&*it, false};
        Node* n = make(base, size, device, fill);
        if (n == nullptr) return {nullptr, false};
        nodes_.insert_commit(*n, at);
        changed(1);
        return {n, true};
    }
    /// As insert, but a range already starting at `base` is replaced (`added` false): an address
    /// handed out again before its free was seen. `gone` sees the old node before it is deleted;
    /// the new one has a new id.
    template <class Fill = detail::nothing, class Gone = detail::nothing>
    inserted replace(std::uint64_t base, std::size_t size, std::uint64_t device, Fill&& fill = {},
                     Gone&& gone = {}) noexcept {
        Node* n = make(base, size, device, fill);
        if (n == nullptr) return {nullptr, false};
        typename set_type::insert_commit_data at;
        const auto [it, fresh] = nodes_.insert_check(base, at);
        changed(1);
        if (fresh) {
            nodes_.insert_commit(*n, at);
            return {n, true};
        }
        Node& old = *it;
        nodes_.replace_node(it, *n);  // same key: no rebalancing
        dispose(old, gone);
        return {n, false};
    }
    /// Erases the range starting at `base`; false when none does.
    template <class Gone = detail::nothing>
    bool erase(std::uint64_t base, Gone&& gone = {}) noexcept {
        const auto it = nodes_.find(base);
        if (it == nodes_.end()) return false;
        erase(*it, gone);
        return true;
    }
    /// Erases `n`, a node of this set.
    template <class Gone = detail::nothing>
    void erase(Node& n, Gone&& gone = {}) noexcept {
        nodes_.erase(nodes_.iterator_to(n));
        changed(1);
        dispose(n, gone);
    }
    /// Erases every node `pred` holds for; returns how many.
    template <class Pred, class Gone = detail::nothing>
    std::size_t erase_if(Pred&& pred, Gone&& gone = {}) noexcept {
        std::size_t n = 0;
        for (auto it = nodes_.begin(); it != nodes_.end();) {
            if (!pred(std::as_const(*it))) {
                ++it;
                continue;
            }
            Node& x = *it;
            it = nodes_.erase(it);
            dispose(x, gone);
            ++n;
        }
        if (n != 0) changed(n);
        return n;
    }

    // ---- lookups and walks (hold lock_shared() or lock()) ------------------------------------
    /// The range starting exactly at `base`, or null.
    Node* find(std::uint64_t base) noexcept {
        const auto it = nodes_.find(base);
        return it == nodes_.end() ? nullptr : &*it;
    }
    const Node* find(std::uint64_t base) const noexcept {
        const auto it = nodes_.find(base);
        return it == nodes_.end() ? nullptr : &*it;
    }
    /// The range containing `addr` (ranges are disjoint, as allocations are), or null.
    Node* containing(std::uint64_t addr) noexcept { return containing_in(nodes_, addr); }
    const Node* containing(std::uint64_t addr) const noexcept { return containing_in(nodes_, addr); }

    /// The nodes `pred` holds for, in address order (a range-v3 view over the set).
    template <class Pred>
    auto where(Pred pred) noexcept {
        return nodes_ | ranges::views::filter(std::move(pred));
    }
    template <class Pred>
    auto where(Pred pred) const noexcept {
        return nodes_ | ranges::views::filter(std::move(pred));
    }
    /// The nodes of one device, in address order.
    auto of_device(std::uint64_t device) noexcept { return where(on_device{device}); }
    auto of_device(std::uint64_t device) const noexcept { return where(on_device{device}); }

    auto begin() noexcept { return nodes_.begin(); }
    auto end() noexcept { return nodes_.end(); }
    auto begin() const noexcept { return nodes_.begin(); }
    auto end() const noexcept { return nodes_.end(); }
    std::size_t size() const noexcept { return nodes_.size(); }
    bool empty() const noexcept { return nodes_.empty(); }

    /// How many inserts, replaces and erases this set has seen (no lock needed): equal counts
    /// mean the same ranges, with the same ids.
    std::uint64_t changes() const noexcept { return changes_.load(std::memory_order_acquire); }

private:
    struct on_device {
        std::uint64_t device;
        bool operator()(const address_node& n) const noexcept { return n.device == device; }
    };

    template <class Fill>
    Node* make(std::uint64_t base, std::size_t size, std::uint64_t device, Fill& fill) noexcept {
        Node* n = new (std::nothrow) Node{};
        if (n == nullptr) return nullptr;
        n->base = base;
        n->size = size;
        n->device = device;
        n->id = next_id_++;
        fill(*n);
        return n;
    }
    template <class Gone>
    static void dispose(Node& n, Gone& gone) noexcept {
        gone(n);
        delete &n;
    }
    template <class Set>
    static auto containing_in(Set& s, std::uint64_t addr) noexcept -> decltype(&*s.begin()) {
        auto it = s.upper_bound(addr);  // the first range starting after addr
        if (it == s.begin()) return nullptr;
        --it;
        return addr - it->base < it->size ? &*it : nullptr;
    }
    // Release: pairs with changes()'s acquire, for a reader that compares counts without the lock.
    void changed(std::size_t n) noexcept { changes_.fetch_add(n, std::memory_order_release); }

    std::shared_mutex mutex_;
    set_type nodes_;             // guarded by mutex_
    std::uint64_t next_id_ = 1;  // guarded by mutex_ (exclusive)
    std::atomic<std::uint64_t> changes_{0};
};

}  // namespace encore::backend
#pragma GCC visibility pop
