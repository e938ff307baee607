// test/cuda/check_call.hpp — what the driver-API test programs (frontend_program, replay_program,
// driver_api) share: CHECK(call), a driver call that must succeed, else the program prints
// "<name>: <call> failed: <code>" and main returns 1 (each program defines `check_program`, its
// name as the checks that read its output expect it); and their common start, open_device0.
#pragma once

#include <cuda.h>

#include <cstdio>

#define CHECK(x)                                                                         \
    do {                                                                                 \
        CUresult r_ = (x);                                                               \
        if (r_ != CUDA_SUCCESS) {                                                        \
            std::printf("%s: %s failed: %d\n", check_program, #x, static_cast<int>(r_)); \
            return 1;                                                                    \
        }                                                                                \
    } while (0)

/// What each program starts with: cuInit, device 0, its primary context retained and current.
inline CUresult open_device0(CUdevice& dev, CUcontext& ctx) {
    CUresult r = cuInit(0);
    if (r == CUDA_SUCCESS) r = cuDeviceGet(&dev, 0);
    if (r == CUDA_SUCCESS) r = cuDevicePrimaryCtxRetain(&ctx, dev);
    if (r == CUDA_SUCCESS) r = cuCtxSetCurrent(ctx);
    return r;
}
