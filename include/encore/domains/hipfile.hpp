// encore/domains/hipfile.hpp — the HIPFILE_API domain: the hipFile C API (GPU direct storage),
// one operation per function, numbered and with parameters named as the reference SDK does
// (rocprofiler-sdk/hipfile/api_id.h, hipfile/api_args.h; the three statistics functions are the
// reference's HIPFILE_RUNTIME_API_TABLE_STEP_VERSION 1 additions).
//
//   static_assert(encore::domains::hipfile::id_of<"hipFileRead">() == ROCPROFILER_HIPFILE_API_ID_hipFileRead);
//
// libencore-hipfile exports each function in front of the real libhipfile (docs/libraries.md).
#pragma once

#include <encore/api/arg_fields.hpp>
#include <encore/api/domain.hpp>
#include <encore/api/enum_names.hpp>
#include <rocprofiler-sdk/hipfile/details/hipfile.h>

#include <tuple>
#include <utility>

namespace encore::domains {

// clang-format off
struct hipfile : api::domain<"HIPFILE_API", kind::hipfile_api, api::no_table,
    api::fn<"hipFileGetOpErrorString", const char*(hipFileOpError_t), "status">,
    api::fn<"hipFileHandleRegister", hipFileError_t(hipFileHandle_t*, hipFileDescr_t*), "fh", "descr">,
    api::fn<"hipFileHandleDeregister", void(hipFileHandle_t), "fh">,
    api::fn<"hipFileBufRegister", hipFileError_t(const void*, size_t, int), "buffer_base", "length", "flags">,
    api::fn<"hipFileBufDeregister", hipFileError_t(const void*), "buffer_base">,
    api::fn<"hipFileRead", ssize_t(hipFileHandle_t, void*, size_t, hoff_t, hoff_t),
            "fh", "buffer_base", "size", "file_offset", "buffer_offset">,
    api::fn<"hipFileWrite", ssize_t(hipFileHandle_t, const void*, size_t, hoff_t, hoff_t),
            "fh", "buffer_base", "size", "file_offset", "buffer_offset">,
    api::fn<"hipFileDriverOpen", hipFileError_t()>,
    api::fn<"hipFileDriverClose", hipFileError_t()>,
    api::fn<"hipFileUseCount", int64_t()>,
    api::fn<"hipFileDriverGetProperties", hipFileError_t(hipFileDriverProps_t*), "props">,
    api::fn<"hipFileDriverSetPollMode", hipFileError_t(bool, size_t), "poll", "poll_threshold_size">,
    api::fn<"hipFileDriverSetMaxDirectIOSize", hipFileError_t(size_t), "max_direct_io_size">,
    api::fn<"hipFileDriverSetMaxCacheSize", hipFileError_t(size_t), "max_cache_size">,
    api::fn<"hipFileDriverSetMaxPinnedMemSize", hipFileError_t(size_t), "max_pinned_size">,
    api::fn<"hipFileBatchIOSetUp", hipFileError_t(hipFileBatchHandle_t*, unsigned), "batch_idp", "max_nr">,
    api::fn<"hipFileBatchIOSubmit", hipFileError_t(hipFileBatchHandle_t, unsigned, hipFileIOParams_t*, unsigned),
            "batch_idp", "nr", "iocbp", "flags">,
    api::fn<"hipFileBatchIOGetStatus", hipFileError_t(hipFileBatchHandle_t, unsigned, unsigned*, hipFileIOEvents_t*,
                                                      struct timespec*),
            "batch_idp", "min_nr", "nr", "iocbp", "timeout">,
    api::fn<"hipFileBatchIOCancel", hipFileError_t(hipFileBatchHandle_t), "batch_idp">,
    api::fn<"hipFileBatchIODestroy", void(hipFileBatchHandle_t), "batch_idp">,
    api::fn<"hipFileReadAsync", hipFileError_t(hipFileHandle_t, void*, size_t*, hoff_t*, hoff_t*, ssize_t*, hipStream_t),
            "fh", "buffer_base", "size_p", "file_offset_p", "buffer_offset_p", "bytes_read_p", "stream">,
    api::fn<"hipFileWriteAsync", hipFileError_t(hipFileHandle_t, void*, size_t*, hoff_t*, hoff_t*, ssize_t*, hipStream_t),
            "fh", "buffer_base", "size_p", "file_offset_p", "buffer_offset_p", "bytes_written_p", "stream">,
    api::fn<"hipFileStreamRegister", hipFileError_t(hipStream_t, unsigned), "stream", "flags">,
    api::fn<"hipFileStreamDeregister", hipFileError_t(hipStream_t), "stream">,
    api::fn<"hipFileGetVersion", hipFileError_t(unsigned*, unsigned*, unsigned*), "major", "minor", "patch">,
    api::fn<"hipFileGetParameterSizeT", hipFileError_t(hipFileSizeTConfigParameter_t, size_t*), "param", "value">,
    api::fn<"hipFileGetParameterBool", hipFileError_t(hipFileBoolConfigParameter_t, bool*), "param", "value">,
    api::fn<"hipFileGetParameterString", hipFileError_t(hipFileStringConfigParameter_t, char*, int),
            "param", "desc_str", "len">,
    api::fn<"hipFileSetParameterSizeT", hipFileError_t(hipFileSizeTConfigParameter_t, size_t), "param", "value">,
    api::fn<"hipFileSetParameterBool", hipFileError_t(hipFileBoolConfigParameter_t, bool), "param", "value">,
    api::fn<"hipFileSetParameterString", hipFileError_t(hipFileStringConfigParameter_t, const char*), "param", "desc_str">,
    api::fn<"hipFileGetStatsL1", hipFileError_t(hipFileStatsLevel1_t*), "stats">,
    api::fn<"hipFileGetStatsL2", hipFileError_t(hipFileStatsLevel2_t*), "stats">,
    api::fn<"hipFileGetStatsL3", hipFileError_t(hipFileStatsLevel3_t*), "stats">> {};
// clang-format on

}  // namespace encore::domains

template <>
struct encore::api::enum_names<hipFileOpError_t> {
    static constexpr std::pair<hipFileOpError_t, const char*> values[] = {
        {hipFileSuccess, "hipFileSuccess"},
        {hipFileDriverNotInitialized, "hipFileDriverNotInitialized"},
        {hipFileDriverInvalidProps, "hipFileDriverInvalidProps"},
        {hipFileDriverUnsupportedLimit, "hipFileDriverUnsupportedLimit"},
        {hipFileDriverVersionMismatch, "hipFileDriverVersionMismatch"},
        {hipFileDriverVersionReadError, "hipFileDriverVersionReadError"},
        {hipFileDriverClosing, "hipFileDriverClosing"},
        {hipFilePlatformNotSupported, "hipFilePlatformNotSupported"},
        {hipFileIONotSupported, "hipFileIONotSupported"},
        {hipFileDeviceNotSupported, "hipFileDeviceNotSupported"},
        {hipFileDriverError, "hipFileDriverError"},
        {hipFileHipDriverError, "hipFileHipDriverError"},
        {hipFileHipPointerInvalid, "hipFileHipPointerInvalid"},
        {hipFileHipMemoryTypeInvalid, "hipFileHipMemoryTypeInvalid"},
        {hipFileHipPointerRangeError, "hipFileHipPointerRangeError"},
        {hipFileHipContextMismatch, "hipFileHipContextMismatch"},
        {hipFileInvalidMappingSize, "hipFileInvalidMappingSize"},
        {hipFileInvalidMappingRange, "hipFileInvalidMappingRange"},
        {hipFileInvalidFileType, "hipFileInvalidFileType"},
        {hipFileInvalidFileOpenFlag, "hipFileInvalidFileOpenFlag"},
        {hipFileDIONotSet, "hipFileDIONotSet"},
        {hipFileInvalidValue, "hipFileInvalidValue"},
        {hipFileMemoryAlreadyRegistered, "hipFileMemoryAlreadyRegistered"},
        {hipFileMemoryNotRegistered, "hipFileMemoryNotRegistered"},
        {hipFilePermissionDenied, "hipFilePermissionDenied"},
        {hipFileDriverAlreadyOpen, "hipFileDriverAlreadyOpen"},
        {hipFileHandleNotRegistered, "hipFileHandleNotRegistered"},
        {hipFileHandleAlreadyRegistered, "hipFileHandleAlreadyRegistered"},
        {hipFileDeviceNotFound, "hipFileDeviceNotFound"},
        {hipFileInternalError, "hipFileInternalError"},
        {hipFileGetNewFDFailed, "hipFileGetNewFDFailed"},
        {hipFileDriverSetupError, "hipFileDriverSetupError"},
        {hipFileIODisabled, "hipFileIODisabled"},
        {hipFileBatchSubmitFailed, "hipFileBatchSubmitFailed"},
        {hipFileGPUMemoryPinningFailed, "hipFileGPUMemoryPinningFailed"},
        {hipFileBatchFull, "hipFileBatchFull"},
        {hipFileAsyncNotSupported, "hipFileAsyncNotSupported"},
        {hipFileIOMaxError, "hipFileIOMaxError"}};
};
// A returned hipFileError_t prints as {err=..., hip_drv_err=...}.
template <>
struct encore::arg_fields<hipFileError_t> {
    static constexpr auto value = std::tuple{field{"err", &hipFileError_t::err},
                                             field{"hip_drv_err", &hipFileError_t::hip_drv_err}};
};
