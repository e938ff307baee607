// test/cuda/ctx_create.hpp — cuCtxCreate(&ctx, flags, dev) for a test compiled against any cuda.h.
// CUDA 11.8 and 12.x declare cuCtxCreate as cuCtxCreate_v2 (flags, device); CUDA 13's cuda.h maps
// it to cuCtxCreate_v4 (a CUctxCreateParams* first) and declares _v2 only inside NVIDIA's own
// build, so a call written for one header does not compile against the other. Every driver (the
// fake one, libencore-cuda's forwarding exports, NVIDIA's) exports cuCtxCreate_v2 by that name.
#pragma once

#include <cuda.h>
#include <dlfcn.h>

inline CUresult ctx_create_v2(CUcontext* ctx, unsigned int flags, CUdevice dev) {
    using fn = CUresult (*)(CUcontext*, unsigned int, CUdevice);
    auto* create = reinterpret_cast<fn>(::dlsym(RTLD_DEFAULT, "cuCtxCreate_v2"));
    return create != nullptr ? create(ctx, flags, dev) : CUDA_ERROR_NOT_FOUND;
}
