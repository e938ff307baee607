/* rocprofiler-sdk/hipfile/details/hipfile.h — encore's declaration of the hipFile C API (hipFile
 * 0.3's hipfile.h): the error, handle and parameter types and the prototypes of every function
 * HIPFILE_API traces.
 *
 *   hipFileHandle_t fh;  hipFileDescr_t* d = ...;   // built with hipFile's own header
 *   hipFileError_t e = hipFileHandleRegister(&fh, d);
 *   ssize_t n = hipFileRead(fh, device_buffer, size, 0, 0);
 *
 * Written for encore (no third-party header is shipped). hipFileError_t (returned by value) and
 * the enums are complete; the structs the API takes by pointer only (hipFileDescr_t,
 * hipFileDriverProps_t, hipFileIOParams_t, hipFileIOEvents_t, the statistics) are declared by
 * their tags: encore forwards the pointers, and a tool that reads their fields includes
 * hipFile's <hipfile.h>, whose definitions complete these (same tags).
 */
#pragma once

/* hipFile's streams are HIP's; HIP's headers refuse to be read without a platform. */
#if !defined(__HIP_PLATFORM_AMD__) && !defined(__HIP_PLATFORM_HCC__) && !defined(__HIP_PLATFORM_NVIDIA__)
#    define __HIP_PLATFORM_AMD__ 1
#endif
#include <hip/hip_runtime_api.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HIPFILE_VERSION_MAJOR 0
#define HIPFILE_VERSION_MINOR 3
#define HIPFILE_VERSION_PATCH 0

typedef off_t hoff_t;

#define HIPFILE_BASE_ERR 5000
typedef enum hipFileOpError {
    hipFileSuccess = 0,
    hipFileDriverNotInitialized = HIPFILE_BASE_ERR + 1,
    hipFileDriverInvalidProps = HIPFILE_BASE_ERR + 2,
    hipFileDriverUnsupportedLimit = HIPFILE_BASE_ERR + 3,
    hipFileDriverVersionMismatch = HIPFILE_BASE_ERR + 4,
    hipFileDriverVersionReadError = HIPFILE_BASE_ERR + 5,
    hipFileDriverClosing = HIPFILE_BASE_ERR + 6,
    hipFilePlatformNotSupported = HIPFILE_BASE_ERR + 7,
    hipFileIONotSupported = HIPFILE_BASE_ERR + 8,
    hipFileDeviceNotSupported = HIPFILE_BASE_ERR + 9,
    hipFileDriverError = HIPFILE_BASE_ERR + 10,
    hipFileHipDriverError = HIPFILE_BASE_ERR + 11,
    hipFileHipPointerInvalid = HIPFILE_BASE_ERR + 12,
    hipFileHipMemoryTypeInvalid = HIPFILE_BASE_ERR + 13,
    hipFileHipPointerRangeError = HIPFILE_BASE_ERR + 14,
    hipFileHipContextMismatch = HIPFILE_BASE_ERR + 15,
    hipFileInvalidMappingSize = HIPFILE_BASE_ERR + 16,
    hipFileInvalidMappingRange = HIPFILE_BASE_ERR + 17,
    hipFileInvalidFileType = HIPFILE_BASE_ERR + 18,
    hipFileInvalidFileOpenFlag = HIPFILE_BASE_ERR + 19,
    hipFileDIONotSet = HIPFILE_BASE_ERR + 20,
    hipFileInvalidValue = HIPFILE_BASE_ERR + 22, /* 5021 is not used */
    hipFileMemoryAlreadyRegistered = HIPFILE_BASE_ERR + 23,
    hipFileMemoryNotRegistered = HIPFILE_BASE_ERR + 24,
    hipFilePermissionDenied = HIPFILE_BASE_ERR + 25,
    hipFileDriverAlreadyOpen = HIPFILE_BASE_ERR + 26,
    hipFileHandleNotRegistered = HIPFILE_BASE_ERR + 27,
    hipFileHandleAlreadyRegistered = HIPFILE_BASE_ERR + 28,
    hipFileDeviceNotFound = HIPFILE_BASE_ERR + 29,
    hipFileInternalError = HIPFILE_BASE_ERR + 30,
    hipFileGetNewFDFailed = HIPFILE_BASE_ERR + 31,
    hipFileDriverSetupError = HIPFILE_BASE_ERR + 33, /* 5032 is not used */
    hipFileIODisabled = HIPFILE_BASE_ERR + 34,
    hipFileBatchSubmitFailed = HIPFILE_BASE_ERR + 35,
    hipFileGPUMemoryPinningFailed = HIPFILE_BASE_ERR + 36,
    hipFileBatchFull = HIPFILE_BASE_ERR + 37,
    hipFileAsyncNotSupported = HIPFILE_BASE_ERR + 38,
    hipFileIOMaxError = HIPFILE_BASE_ERR + 39,
} hipFileOpError_t;

/** What most calls return: hipFile's own status and, for hipFileHipDriverError, HIP's. */
typedef struct hipFileError {
    hipFileOpError_t err;
    hipError_t hip_drv_err;
} hipFileError_t;

typedef void* hipFileHandle_t;
typedef void* hipFileBatchHandle_t;

typedef enum hipFileSizeTConfigParameter_t {
    hipFileParamProfileStats,
    hipFileParamExecutionMaxIOQueueDepth,
    hipFileParamExecutionMaxIOThreads,
    hipFileParamExecutionMinIOThresholdSizeKB,
    hipFileParamExecutionMaxRequestParallelism,
    hipFileParamPropertiesMaxDirectIOSizeKB,
    hipFileParamPropertiesMaxDeviceCacheSizeKB,
    hipFileParamPropertiesPerBufferCacheSizeKB,
    hipFileParamPropertiesMaxDevicePinnedMemSizeKB,
    hipFileParamPropertiesIOBatchsize,
    hipFileParamPollthresholdSizeKB,
    hipFileParamPropertiesBatchIOTimeoutMs,
} hipFileSizeTConfigParameter_t;

typedef enum hipFileBoolConfigParameter_t {
    hipFileParamPropertiesUsePollMode,
    hipFileParamPropertiesAllowCompatMode,
    hipFileParamForceCompatMode,
    hipFileParamFsMiscApiCheckAggressive,
    hipFileParamExecutionParallelIO,
    hipFileParamProfileNvtx,
    hipFileParamPropertiesAllowSystemMemory,
    hipFileParamUsePcip2pdma,
    hipFileParamPreferIOUring,
    hipFileParamForceOdirectMode,
    hipFileParamSkipTopologyDetection,
    hipFileParamStreamMemopsBypass,
} hipFileBoolConfigParameter_t;

typedef enum hipFileStringConfigParameter_t {
    hipFileParamLoggingLevel,
    hipFileParamEnvLogfilePath,
    hipFileParamLogDir,
} hipFileStringConfigParameter_t;

/* By tag only (see the top of this file). */
typedef struct hipFileDescr hipFileDescr_t;
typedef struct hipFileDriverProps hipFileDriverProps_t;
typedef struct hipFileIOParams hipFileIOParams_t;
typedef struct hipFileIOEvents hipFileIOEvents_t;
typedef struct hipFileStatsLevel1 hipFileStatsLevel1_t;
typedef struct hipFileStatsLevel2 hipFileStatsLevel2_t;
typedef struct hipFileStatsLevel3 hipFileStatsLevel3_t;

const char* hipFileGetOpErrorString(hipFileOpError_t status);
hipFileError_t hipFileHandleRegister(hipFileHandle_t* fh, hipFileDescr_t* descr);
void hipFileHandleDeregister(hipFileHandle_t fh);
hipFileError_t hipFileBufRegister(const void* buffer_base, size_t length, int flags);
hipFileError_t hipFileBufDeregister(const void* buffer_base);
ssize_t hipFileRead(hipFileHandle_t fh, void* buffer_base, size_t size, hoff_t file_offset, hoff_t buffer_offset);
ssize_t hipFileWrite(hipFileHandle_t fh, const void* buffer_base, size_t size, hoff_t file_offset, hoff_t buffer_offset);
hipFileError_t hipFileDriverOpen(void);
hipFileError_t hipFileDriverClose(void);
int64_t hipFileUseCount(void);
hipFileError_t hipFileDriverGetProperties(hipFileDriverProps_t* props);
hipFileError_t hipFileDriverSetPollMode(bool poll, size_t poll_threshold_size);
hipFileError_t hipFileDriverSetMaxDirectIOSize(size_t max_direct_io_size);
hipFileError_t hipFileDriverSetMaxCacheSize(size_t max_cache_size);
hipFileError_t hipFileDriverSetMaxPinnedMemSize(size_t max_pinned_size);
hipFileError_t hipFileBatchIOSetUp(hipFileBatchHandle_t* batch_idp, unsigned max_nr);
hipFileError_t hipFileBatchIOSubmit(hipFileBatchHandle_t batch_idp, unsigned nr, hipFileIOParams_t* iocbp,
                                    unsigned flags);
hipFileError_t hipFileBatchIOGetStatus(hipFileBatchHandle_t batch_idp, unsigned min_nr, unsigned* nr,
                                       hipFileIOEvents_t* iocbp, struct timespec* timeout);
hipFileError_t hipFileBatchIOCancel(hipFileBatchHandle_t batch_idp);
void hipFileBatchIODestroy(hipFileBatchHandle_t batch_idp);
hipFileError_t hipFileReadAsync(hipFileHandle_t fh, void* buffer_base, size_t* size_p, hoff_t* file_offset_p,
                                hoff_t* buffer_offset_p, ssize_t* bytes_read_p, hipStream_t stream);
hipFileError_t hipFileWriteAsync(hipFileHandle_t fh, void* buffer_base, size_t* size_p, hoff_t* file_offset_p,
                                 hoff_t* buffer_offset_p, ssize_t* bytes_written_p, hipStream_t stream);
hipFileError_t hipFileStreamRegister(hipStream_t stream, unsigned flags);
hipFileError_t hipFileStreamDeregister(hipStream_t stream);
hipFileError_t hipFileGetVersion(unsigned* major, unsigned* minor, unsigned* patch);
hipFileError_t hipFileGetParameterSizeT(hipFileSizeTConfigParameter_t param, size_t* value);
hipFileError_t hipFileGetParameterBool(hipFileBoolConfigParameter_t param, bool* value);
hipFileError_t hipFileGetParameterString(hipFileStringConfigParameter_t param, char* desc_str, int len);
hipFileError_t hipFileSetParameterSizeT(hipFileSizeTConfigParameter_t param, size_t value);
hipFileError_t hipFileSetParameterBool(hipFileBoolConfigParameter_t param, bool value);
hipFileError_t hipFileSetParameterString(hipFileStringConfigParameter_t param, const char* desc_str);
hipFileError_t hipFileGetStatsL1(hipFileStatsLevel1_t* stats);
hipFileError_t hipFileGetStatsL2(hipFileStatsLevel2_t* stats);
hipFileError_t hipFileGetStatsL3(hipFileStatsLevel3_t* stats);

#ifdef __cplusplus
}
#endif
