/* rocprofiler-sdk/rocdecode/details/rocdecode.h — encore's declaration of the rocDecode C API
 * (rocDecode 0.10: rocdecode.h, rocparser.h, roc_bitstream_reader.h): the handles, the status and
 * codec enums, and the prototypes of every function ROCDECODE_API traces.
 *
 *   rocDecDecoderHandle decoder;
 *   RocDecoderCreateInfo* info = ...;   // built with rocDecode's own header
 *   rocDecCreateDecoder(&decoder, info);
 *
 * Written for encore (no third-party header is shipped). The parameter structs
 * (RocDecoderCreateInfo, RocdecPicParams, ...) are declared here by their tags only: the API takes
 * each by pointer, encore forwards the pointer, and a tool that reads their fields includes
 * rocDecode's <rocdecode/rocdecode.h>, whose definitions complete these declarations (same tags).
 */
#pragma once

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef void* rocDecDecoderHandle;
typedef void* RocdecVideoParser;
typedef void* RocdecBitstreamReader;

typedef enum rocDecStatus_enum {
    ROCDEC_DEVICE_INVALID = -1,
    ROCDEC_CONTEXT_INVALID = -2,
    ROCDEC_RUNTIME_ERROR = -3,
    ROCDEC_OUTOF_MEMORY = -4,
    ROCDEC_INVALID_PARAMETER = -5,
    ROCDEC_NOT_IMPLEMENTED = -6,
    ROCDEC_NOT_INITIALIZED = -7,
    ROCDEC_NOT_SUPPORTED = -8,
    ROCDEC_SUCCESS = 0,
} rocDecStatus;

typedef enum rocDecVideoCodec_enum {
    rocDecVideoCodec_MPEG1 = 0,
    rocDecVideoCodec_MPEG2,
    rocDecVideoCodec_MPEG4,
    rocDecVideoCodec_AVC,
    rocDecVideoCodec_HEVC,
    rocDecVideoCodec_AV1,
    rocDecVideoCodec_VP8,
    rocDecVideoCodec_VP9,
    rocDecVideoCodec_JPEG,
    rocDecVideoCodec_NumCodecs,
    /* uncompressed streams, as FOURCCs */
    rocDecVideoCodec_YUV420 = (('I' << 24) | ('Y' << 16) | ('U' << 8) | ('V')),
    rocDecVideoCodec_YV12 = (('Y' << 24) | ('V' << 16) | ('1' << 8) | ('2')),
    rocDecVideoCodec_NV12 = (('N' << 24) | ('V' << 16) | ('1' << 8) | ('2')),
    rocDecVideoCodec_YUYV = (('Y' << 24) | ('U' << 16) | ('Y' << 8) | ('V')),
    rocDecVideoCodec_UYVY = (('U' << 24) | ('Y' << 16) | ('V' << 8) | ('Y'))
} rocDecVideoCodec;

/* By tag only (see the top of this file). */
typedef struct _RocdecParserParams RocdecParserParams;
typedef struct _RocdecSourceDataPacket RocdecSourceDataPacket;
typedef struct _RocDecoderCreateInfo RocDecoderCreateInfo;
typedef struct _RocdecDecodeCaps RocdecDecodeCaps;
typedef struct _RocdecPicParams RocdecPicParams;
typedef struct _RocdecDecodeStatus RocdecDecodeStatus;
typedef struct _RocdecReconfigureDecoderInfo RocdecReconfigureDecoderInfo;
typedef struct _RocdecProcParams RocdecProcParams;

/* Parser */
rocDecStatus rocDecCreateVideoParser(RocdecVideoParser* parser_handle, RocdecParserParams* params);
rocDecStatus rocDecParseVideoData(RocdecVideoParser parser_handle, RocdecSourceDataPacket* packet);
rocDecStatus rocDecDestroyVideoParser(RocdecVideoParser parser_handle);

/* Decoder */
rocDecStatus rocDecCreateDecoder(rocDecDecoderHandle* decoder_handle, RocDecoderCreateInfo* decoder_create_info);
rocDecStatus rocDecDestroyDecoder(rocDecDecoderHandle decoder_handle);
rocDecStatus rocDecGetDecoderCaps(RocdecDecodeCaps* decode_caps);
rocDecStatus rocDecDecodeFrame(rocDecDecoderHandle decoder_handle, RocdecPicParams* pic_params);
rocDecStatus rocDecGetDecodeStatus(rocDecDecoderHandle decoder_handle, int pic_idx, RocdecDecodeStatus* decode_status);
rocDecStatus rocDecReconfigureDecoder(rocDecDecoderHandle decoder_handle, RocdecReconfigureDecoderInfo* reconfig_params);
rocDecStatus rocDecGetVideoFrame(rocDecDecoderHandle decoder_handle, int pic_idx, void* dev_mem_ptr[3],
                                 uint32_t* horizontal_pitch, RocdecProcParams* vid_postproc_params);
const char* rocDecGetErrorName(rocDecStatus rocdec_status);

/* Bitstream reader */
rocDecStatus rocDecCreateBitstreamReader(RocdecBitstreamReader* bs_reader_handle, const char* input_file_path);
rocDecStatus rocDecGetBitstreamCodecType(RocdecBitstreamReader bs_reader_handle, rocDecVideoCodec* codec_type);
rocDecStatus rocDecGetBitstreamBitDepth(RocdecBitstreamReader bs_reader_handle, int* bit_depth);
rocDecStatus rocDecGetBitstreamPicData(RocdecBitstreamReader bs_reader_handle, uint8_t** pic_data, int* pic_size,
                                       int64_t* pts);
rocDecStatus rocDecDestroyBitstreamReader(RocdecBitstreamReader bs_reader_handle);

#ifdef __cplusplus
}
#endif
