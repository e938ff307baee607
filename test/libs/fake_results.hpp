// test/libs/fake_results.hpp — what the generated fake libraries (fake_prelude.hpp) return for
// op I of a domain, shared with the test that checks the values came back unchanged: a value of
// the return type that differs from op to op (a success for some, a failure for others).
#pragma once

#include <encore/domains/libs.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace fake_results {

template <class D, std::size_t I>
auto result() {
    using R = typename D::template op_at<I>::return_type;
    if constexpr (std::is_same_v<R, rocDecStatus>)
        return static_cast<rocDecStatus>(-static_cast<int>((I + 1) % 9));  // ROCDEC_SUCCESS .. ROCDEC_NOT_SUPPORTED
    else if constexpr (std::is_same_v<R, RocJpegStatus>)
        return static_cast<RocJpegStatus>(-static_cast<int>((I + 1) % 13));
    else if constexpr (std::is_same_v<R, hipFileError_t>)
        return hipFileError_t{I % 2 == 0 ? hipFileSuccess : static_cast<hipFileOpError_t>(HIPFILE_BASE_ERR + I),
                              I % 3 == 0 ? hipErrorInvalidValue : hipSuccess};
    else if constexpr (std::is_same_v<R, ssize_t> || std::is_same_v<R, std::int64_t>)
        return static_cast<R>(1000 + I);
    else if constexpr (std::is_same_v<R, const char*>)
        return D::c_names[I];  // the function's own name (compared as text: each library has its copy)
    else
        static_assert(std::is_void_v<R>, "fake_results: add this return type");
}

template <class R>
bool same(const R& a, const R& b) {
    if constexpr (std::is_same_v<R, hipFileError_t>)
        return a.err == b.err && a.hip_drv_err == b.hip_drv_err;
    else if constexpr (std::is_same_v<R, const char*>)
        return a != nullptr && b != nullptr && std::strcmp(a, b) == 0;
    else
        return a == b;
}

}  // namespace fake_results
