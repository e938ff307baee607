/* test/cuda/fake_driver.h — the test-only conventions of the fake CUDA driver
 * (test/cuda/fake_driver.cpp), which libencore-cuda loads through ENCORE_CUDA_DRIVER=<path>.
 *
 * A "module" is a table of host functions: cuModuleLoadData(&mod, &table) with
 * `const fake_cuda_module table = {2, {{"saxpy", &saxpy}, {"count", &count}}};`, then
 * cuModuleGetFunction(&f, mod, "saxpy") gives a CUfunction, and cuLaunchKernel(f, ...) runs the
 * host function once, synchronously, with the launch's grid and block sizes and its kernelParams
 * array ("device" memory is host memory: a CUdeviceptr is the address). `extra` is read for a
 * kernel with param_sizes (CU_LAUNCH_PARAM_BUFFER_POINTER/SIZE, each parameter at the offset
 * cuFuncGetParamInfo reports); else CUDA_ERROR_NOT_SUPPORTED.
 *
 * An entry's `param_sizes` (a list of byte sizes ending with 0; null: not known) is what
 * cuFuncGetParamInfo reports (CUDA 12.4's, null: CUDA_ERROR_NOT_SUPPORTED, as from a driver that
 * cannot say) and what stream capture copies of a launch's parameters: a kernel without it cannot
 * be captured into a graph (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED).
 *
 * A kernel reads the launch attributes it runs with (cuLaunchKernelEx's; a graph kernel node's,
 * captured or set with cuGraphKernelNodeSetAttribute) through the fake's export
 * `int fake_cuda_launch_attribute(int id, void* value)`: the CUlaunchAttributeValue (64 bytes) of
 * attribute `id` into `value` and 1, or zeros and 0 when the launch has none. A program finds it
 * with dlsym on the library ENCORE_CUDA_DRIVER names.
 *
 * cuProfilerStart / cuProfilerStop set and clear a flag that the export `int fake_cuda_profiling()`
 * reads (found the same way): the program sees its calls reach the driver. */
#pragma once

typedef void (*fake_cuda_kernel)(const unsigned grid[3], const unsigned block[3], void** params);

typedef struct fake_cuda_kernel_entry {
    const char* name;
    fake_cuda_kernel fn;
    const unsigned* param_sizes;
} fake_cuda_kernel_entry;

typedef int (*fake_cuda_launch_attribute_fn)(int id, void* value);

typedef struct fake_cuda_module {
    unsigned count;
    fake_cuda_kernel_entry kernels[8];
} fake_cuda_module;
