/* rocprofiler-sdk/rocjpeg/details/rocjpeg.h — encore's declaration of the rocJPEG C API (rocJPEG
 * 0.6's rocjpeg.h): its types and the prototypes of every function ROCJPEG_API traces.
 *
 *   RocJpegHandle h;  RocJpegStreamHandle s;
 *   rocJpegCreate(ROCJPEG_BACKEND_HARDWARE, 0, &h);  rocJpegStreamCreate(&s);
 *
 * Written for encore (no third-party header is shipped); it declares nothing when rocJPEG's own
 * header came first (both guard themselves with ROC_JPEG_H). The types are complete here (the
 * API's structs are small), with rocJPEG's layouts.
 */
#ifndef ROC_JPEG_H
#define ROC_JPEG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ROCJPEG_MAX_COMPONENT 4

typedef enum {
    ROCJPEG_STATUS_SUCCESS = 0,
    ROCJPEG_STATUS_NOT_INITIALIZED = -1,
    ROCJPEG_STATUS_INVALID_PARAMETER = -2,
    ROCJPEG_STATUS_BAD_JPEG = -3,
    ROCJPEG_STATUS_JPEG_NOT_SUPPORTED = -4,
    ROCJPEG_STATUS_OUTOF_MEMORY = -5,
    ROCJPEG_STATUS_EXECUTION_FAILED = -6,
    ROCJPEG_STATUS_ARCH_MISMATCH = -7,
    ROCJPEG_STATUS_INTERNAL_ERROR = -8,
    ROCJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED = -9,
    ROCJPEG_STATUS_HW_JPEG_DECODER_NOT_SUPPORTED = -10,
    ROCJPEG_STATUS_RUNTIME_ERROR = -11,
    ROCJPEG_STATUS_NOT_IMPLEMENTED = -12,
} RocJpegStatus;

typedef enum {
    ROCJPEG_CSS_444 = 0,
    ROCJPEG_CSS_440 = 1,
    ROCJPEG_CSS_422 = 2,
    ROCJPEG_CSS_420 = 3,
    ROCJPEG_CSS_411 = 4,
    ROCJPEG_CSS_400 = 5,
    ROCJPEG_CSS_UNKNOWN = -1
} RocJpegChromaSubsampling;

/** A decoded image: one device pointer and pitch per channel. */
typedef struct {
    uint8_t* channel[ROCJPEG_MAX_COMPONENT];
    uint32_t pitch[ROCJPEG_MAX_COMPONENT];
} RocJpegImage;

typedef enum {
    ROCJPEG_OUTPUT_NATIVE = 0,
    ROCJPEG_OUTPUT_YUV_PLANAR = 1,
    ROCJPEG_OUTPUT_Y = 2,
    ROCJPEG_OUTPUT_RGB = 3,
    ROCJPEG_OUTPUT_RGB_PLANAR = 4,
    ROCJPEG_OUTPUT_FORMAT_MAX = 5
} RocJpegOutputFormat;

typedef struct {
    RocJpegOutputFormat output_format;
    struct {
        int16_t left;
        int16_t top;
        int16_t right;
        int16_t bottom;
    } crop_rectangle;
    struct {
        uint32_t width;
        uint32_t height;
    } target_dimension;
} RocJpegDecodeParams;

typedef enum { ROCJPEG_BACKEND_HARDWARE = 0, ROCJPEG_BACKEND_HYBRID = 1 } RocJpegBackend;

typedef void* RocJpegStreamHandle;
typedef void* RocJpegHandle;

RocJpegStatus rocJpegStreamCreate(RocJpegStreamHandle* jpeg_stream_handle);
RocJpegStatus rocJpegStreamParse(const unsigned char* data, size_t length, RocJpegStreamHandle jpeg_stream_handle);
RocJpegStatus rocJpegStreamDestroy(RocJpegStreamHandle jpeg_stream_handle);
RocJpegStatus rocJpegCreate(RocJpegBackend backend, int device_id, RocJpegHandle* handle);
RocJpegStatus rocJpegDestroy(RocJpegHandle handle);
RocJpegStatus rocJpegGetImageInfo(RocJpegHandle handle, RocJpegStreamHandle jpeg_stream_handle, uint8_t* num_components,
                                  RocJpegChromaSubsampling* subsampling, uint32_t* widths, uint32_t* heights);
RocJpegStatus rocJpegDecode(RocJpegHandle handle, RocJpegStreamHandle jpeg_stream_handle,
                            const RocJpegDecodeParams* decode_params, RocJpegImage* destination);
RocJpegStatus rocJpegDecodeBatched(RocJpegHandle handle, RocJpegStreamHandle* jpeg_stream_handles, int batch_size,
                                   const RocJpegDecodeParams* decode_params, RocJpegImage* destinations);
const char* rocJpegGetErrorName(RocJpegStatus rocjpeg_status);

#ifdef __cplusplus
}
#endif

#endif /* ROC_JPEG_H */
