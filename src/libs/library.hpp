// src/libs/library.hpp — what the library interposers' descriptions (rccl.hpp, rocdecode.hpp,
// rocjpeg.hpp, hipfile.hpp, rocshmem.cpp) share: the real library's lookup from the
// description's env var and sonames, the result of a call the real library cannot serve, and
// the declaration, at load, of the kind it produces (derived: nothing per library spells it).
// One description is the whole producer of a library kind (rocjpeg.hpp is the model); the list
// of libraries is encore/domains/libs.hpp.
//
//   struct rocjpeg_library : library<rocjpeg_library> {
//       static constexpr const char* library = "libencore-rocjpeg";      // for messages
//       static constexpr const char* runtime = "the rocJPEG library";
//       static constexpr const char* env = "ENCORE_ROCJPEG_LIBRARY";
//       static constexpr const char* sonames[] = {"librocjpeg.so.0", "librocjpeg.so"};
//       static constexpr auto initialization = ROCPROFILER_RUNTIME_INITIALIZATION_ROCJPEG;
//       static constexpr auto missing_status = ROCJPEG_STATUS_NOT_IMPLEMENTED;
//       static std::uint64_t version() noexcept { return 0; }            // the library's own
//   };
//   template <> struct policy_of<domains::rocjpeg> {           // its wrappers resolve lazily
//       using type = backend::forwarding_policy<rocjpeg_library>;
//   };
#pragma once

#include "backend/forwarding.hpp"
#include "core/registry.hpp"

#include <encore/tracing/kinds.hpp>

#include <cstddef>
#include <type_traits>

namespace encore::libs {

template <class L>
struct library {
    /// Where L's real functions are (backend/forwarding.hpp), set up at the first lookup.
    static backend::real_library& real() noexcept {
        static backend::real_library lib{L::library, L::env, L::sonames, std::size(L::sonames)};
        return lib;
    }
    /// A function the real library lacks: L's "not there" status, or for a string function a
    /// text that says so (the call is still traced, with this result).
    template <class R>
    static R missing_result() noexcept {
        if constexpr (std::is_same_v<R, const char*>)
            return "<encore: this function is missing from the library encore forwards to>";
        else if constexpr (!std::is_void_v<R>)
            return L::missing_status;
    }
};

/// The lazy-resolution policy (backend/interposer.hpp) of the library that interposes domain D:
/// specialized beside each description, it makes D's wrappers start at their resolver.
template <class D>
struct policy_of;
template <class D>
concept interposed = requires {
    typename policy_of<D>::type;
};

/// Declares, when the interposer is loaded (before any tool configures), that domain D's kind is
/// produced in this process. The bit is the one D's kind_list line names (encore/domains/libs.hpp
/// checks it is a library's own). Nothing spells it: D's wrappers name `produced<D>` (below), so
/// the library that interposes D declares it, and none can forget to.
template <class D>
struct producer {
    producer() noexcept { core::add_producer(tracing::producers_of(D::id)); }
};
template <class D>
inline const producer<D> produced{};

}  // namespace encore::libs

template <encore::libs::interposed D, std::size_t I>
struct encore::tracing::initial_next<D, I> {
    // Naming produced<D> instantiates it in the interposer: its kind is declared produced at load.
    static constexpr auto value = (static_cast<void>(&encore::libs::produced<D>),
                                   &encore::backend::lazy<D, I, typename encore::libs::policy_of<D>::type>::first_call);
};
