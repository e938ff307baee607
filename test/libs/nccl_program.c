/* test/libs/nccl_program.c — the calls of benchmarks/cuda/nccl_check.py's PyTorch workload, made
 * directly (C11) against whatever libnccl.so.2 the process has: the suite runs it on the fake
 * NCCL (test/libs/fake_nccl.cpp) through the same check as the GPU machine's PyTorch run. */
#include <rocprofiler-sdk/rccl/details/rccl.h>

#include <stdio.h>
#include <string.h>

int main(void) {
    int version = 0;
    ncclGetVersion(&version);
    printf("nccl version %d\n", version);
    ncclUniqueId id;
    memset(&id, 0, sizeof id);
    ncclGetUniqueId(&id);
    ncclComm_t comm = NULL;
    ncclCommInitRank(&comm, 1, id, 0);
    static float a[4096], b[4096];
    hipStream_t stream = NULL;
    for (size_t n = 1000; n <= 1002; ++n) ncclAllReduce(a, b, n, ncclFloat32, ncclSum, comm, stream);
    ncclBroadcast(a, b, 2000, ncclFloat32, 0, comm, stream);
    for (size_t n = 3001; n <= 3002; ++n) {
        ncclGroupStart();
        ncclAllReduce(a, b, n, ncclFloat32, ncclSum, comm, stream);
        ncclGroupEnd();
    }
    ncclCommDestroy(comm);
    printf("results ok\n");
    return 0;
}
