/* test/libs/libs_c11.c — the library kinds from C (C11, -Wpedantic): each payload struct and a
 * member of its args union by name, and every operation of each kind printed by name through the
 * C API (libencore knows the names without the interposers). Prints "KIND: N operations" per
 * kind; test/libs/meson.build checks the counts against the reference's. */
#include <rocprofiler-sdk/callback_tracing.h>
#include <rocprofiler-sdk/rocprofiler.h>

#include <stdio.h>
#include <string.h>

static int print_op(rocprofiler_callback_tracing_kind_t kind, rocprofiler_tracing_operation_t op, void* data) {
    const char* name = NULL;
    if (rocprofiler_query_callback_tracing_kind_operation_name(kind, op, &name, NULL) != ROCPROFILER_STATUS_SUCCESS)
        return 1;
    printf("  %d %s\n", (int)op, name);
    ++*(int*)data;
    return 0;
}

int main(void) {
    /* Every payload by its reference name, a member of each union by function and parameter. */
    rocprofiler_callback_tracing_rccl_api_data_t rccl;
    rocprofiler_callback_tracing_rocdecode_api_data_t rocdecode;
    rocprofiler_callback_tracing_rocjpeg_api_data_t rocjpeg;
    rocprofiler_callback_tracing_rocshmem_api_data_t rocshmem;
    rocprofiler_callback_tracing_hipfile_api_data_t hipfile;
    memset(&rccl, 0, sizeof rccl);
    memset(&rocdecode, 0, sizeof rocdecode);
    memset(&rocjpeg, 0, sizeof rocjpeg);
    memset(&rocshmem, 0, sizeof rocshmem);
    memset(&hipfile, 0, sizeof hipfile);
    rccl.args.ncclAllReduce.count = 1;
    rocdecode.args.rocDecGetDecodeStatus.pic_idx = 2;
    rocjpeg.args.rocJpegDecodeBatched.batch_size = 3;
    rocshmem.args.putmem_on_stream.nelems = 4;
    hipfile.args.hipFileRead.size = 5;
    hipfile.retval.hipFileError_t_retval.err = hipFileSuccess;
    rccl.retval.ncclResult_t_retval = ncclSuccess;
    if (rccl.args.ncclAllReduce.count + (size_t)rocdecode.args.rocDecGetDecodeStatus.pic_idx +
            (size_t)rocjpeg.args.rocJpegDecodeBatched.batch_size + rocshmem.args.putmem_on_stream.nelems +
            hipfile.args.hipFileRead.size !=
        15)
        return 1;

    const rocprofiler_callback_tracing_kind_t kinds[] = {
        ROCPROFILER_CALLBACK_TRACING_RCCL_API, ROCPROFILER_CALLBACK_TRACING_ROCDECODE_API,
        ROCPROFILER_CALLBACK_TRACING_ROCJPEG_API, ROCPROFILER_CALLBACK_TRACING_ROCSHMEM_API,
        ROCPROFILER_CALLBACK_TRACING_HIPFILE_API};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; ++i) {
        const char* kind = NULL;
        int count = 0;
        if (rocprofiler_query_callback_tracing_kind_name(kinds[i], &kind, NULL) != ROCPROFILER_STATUS_SUCCESS) return 1;
        printf("%s:\n", kind);
        if (rocprofiler_iterate_callback_tracing_kind_operations(kinds[i], print_op, &count) != ROCPROFILER_STATUS_SUCCESS)
            return 1;
        printf("%s: %d operations\n", kind, count);
    }
    return 0;
}
