// encore/domains/hip_compiler.hpp — the HIP compiler API domain (HIP_COMPILER_API).
//
// The functions a HIP compiler emits calls to (module constructors register fat binaries,
// kernels and variables; `<<<...>>>` pushes and pops a launch configuration). Numbered as the
// reference SDK numbers them (its HipCompilerDispatchTable order); ids are append-only.
//
// No ROCm header declares the registration functions: the prototypes below are those of HIP
// 5.2's hip_platform.cpp written with C types (its std::vector<hipModule_t>* module list is
// `void**` here, uint3* is `void*`: the same ABI). __hipPushCallConfiguration and
// __hipPopCallConfiguration are also in hip_runtime_api.h (and so in the HIP_RUNTIME_API op
// list, ids 238/239); libencore-hip exports them from this domain, as the reference traces them
// under HIP_COMPILER_API, so their HIP_RUNTIME_API ids never produce records.
#pragma once

#include <encore/api/domain.hpp>
#include <encore/domains/detail/hip_api.hpp>

namespace encore::domains {

struct hip_compiler
    : api::domain<"HIP_COMPILER_API", kind::hip_compiler_api, api::no_table,
                  api::fn<"__hipPopCallConfiguration", hipError_t(dim3*, dim3*, size_t*, hipStream_t*), "gridDim",
                          "blockDim", "sharedMem", "stream">,
                  api::fn<"__hipPushCallConfiguration", hipError_t(dim3, dim3, size_t, hipStream_t), "gridDim",
                          "blockDim", "sharedMem", "stream">,
                  api::fn<"__hipRegisterFatBinary", void**(const void*), "data">,
                  api::fn<"__hipRegisterFunction",
                          void(void**, const void*, char*, const char*, unsigned int, void*, void*, dim3*, dim3*, int*),
                          "modules", "hostFunction", "deviceFunction", "deviceName", "threadLimit", "tid", "bid",
                          "blockDim", "gridDim", "wSize">,
                  api::fn<"__hipRegisterManagedVar", void(void*, void**, void*, const char*, size_t, unsigned int),
                          "hipModule", "pointer", "init_value", "name", "size", "align">,
                  api::fn<"__hipRegisterSurface", void(void**, void*, char*, char*, int, int), "modules", "var",
                          "hostVar", "deviceVar", "type", "ext">,
                  api::fn<"__hipRegisterTexture", void(void**, void*, char*, char*, int, int, int), "modules", "var",
                          "hostVar", "deviceVar", "type", "norm", "ext">,
                  api::fn<"__hipRegisterVar", void(void**, void*, char*, char*, int, size_t, int, int), "modules",
                          "var", "hostVar", "deviceVar", "ext", "size", "constant", "global">,
                  api::fn<"__hipUnregisterFatBinary", void(void**), "modules">> {};

}  // namespace encore::domains
