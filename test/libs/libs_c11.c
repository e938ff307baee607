/* test/libs/libs_c11.c — the library kinds from C (C11, -Wpedantic): each payload struct and a
 * member of its args union by name, and every operation of each kind named on the command line
 * (test/libs/meson.build: one per interposer it builds) printed by name through the C API
 * (libencore knows the names without the interposers). Prints "KIND: N operations" per kind;
 * test/libs/meson.build checks the counts against the reference's. argv: KIND_NAME... */
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

int main(int argc, char** argv) {
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

    for (int i = 1; i < argc; ++i) {
        rocprofiler_callback_tracing_kind_t kind = ROCPROFILER_CALLBACK_TRACING_NONE;
        int count = 0;
        for (int k = ROCPROFILER_CALLBACK_TRACING_NONE + 1; k < ROCPROFILER_CALLBACK_TRACING_LAST; ++k) {
            const char* name = NULL;
            if (rocprofiler_query_callback_tracing_kind_name((rocprofiler_callback_tracing_kind_t)k, &name, NULL) ==
                    ROCPROFILER_STATUS_SUCCESS &&
                strcmp(name, argv[i]) == 0)
                kind = (rocprofiler_callback_tracing_kind_t)k;
        }
        if (kind == ROCPROFILER_CALLBACK_TRACING_NONE) {
            printf("%s: no such kind\n", argv[i]);
            return 1;
        }
        printf("%s:\n", argv[i]);
        if (rocprofiler_iterate_callback_tracing_kind_operations(kind, print_op, &count) != ROCPROFILER_STATUS_SUCCESS)
            return 1;
        printf("%s: %d operations\n", argv[i], count);
    }
    return 0;
}
