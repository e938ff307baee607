// encore/domains/rocdecode.hpp — the ROCDECODE_API domain: the rocDecode C API (parser, decoder,
// bitstream reader), one operation per function, numbered and with parameters named as the
// reference SDK does (rocprofiler-sdk/rocdecode/api_id.h, rocdecode/api_args.h; the bitstream
// reader's five are the reference's ROCDECODE_RUNTIME_API_TABLE_STEP_VERSION 1 additions).
//
//   static_assert(encore::domains::rocdecode::id_of<"rocDecDecodeFrame">() == ROCPROFILER_ROCDECODE_API_ID_rocDecDecodeFrame);
//
// libencore-rocdecode exports each function in front of the real librocdecode (docs/libraries.md).
#pragma once

#include <encore/api/domain.hpp>
#include <encore/api/enum_names.hpp>
#include <rocprofiler-sdk/rocdecode/details/rocdecode.h>

#include <utility>

namespace encore::domains {

// clang-format off
struct rocdecode : api::domain<"ROCDECODE_API", kind::rocdecode_api, api::no_table,
    api::fn<"rocDecCreateVideoParser", rocDecStatus(RocdecVideoParser*, RocdecParserParams*), "parser_handle", "params">,
    api::fn<"rocDecParseVideoData", rocDecStatus(RocdecVideoParser, RocdecSourceDataPacket*), "parser_handle", "packet">,
    api::fn<"rocDecDestroyVideoParser", rocDecStatus(RocdecVideoParser), "parser_handle">,
    api::fn<"rocDecCreateDecoder", rocDecStatus(rocDecDecoderHandle*, RocDecoderCreateInfo*),
            "decoder_handle", "decoder_create_info">,
    api::fn<"rocDecDestroyDecoder", rocDecStatus(rocDecDecoderHandle), "decoder_handle">,
    api::fn<"rocDecGetDecoderCaps", rocDecStatus(RocdecDecodeCaps*), "decode_caps">,
    api::fn<"rocDecDecodeFrame", rocDecStatus(rocDecDecoderHandle, RocdecPicParams*), "decoder_handle", "pic_params">,
    api::fn<"rocDecGetDecodeStatus", rocDecStatus(rocDecDecoderHandle, int, RocdecDecodeStatus*),
            "decoder_handle", "pic_idx", "decode_status">,
    api::fn<"rocDecReconfigureDecoder", rocDecStatus(rocDecDecoderHandle, RocdecReconfigureDecoderInfo*),
            "decoder_handle", "reconfig_params">,
    api::fn<"rocDecGetVideoFrame", rocDecStatus(rocDecDecoderHandle, int, void**, uint32_t*, RocdecProcParams*),
            "decoder_handle", "pic_idx", "dev_mem_ptr", "horizontal_pitch", "vid_postproc_params">,
    api::fn<"rocDecGetErrorName", const char*(rocDecStatus), "rocdec_status">,
    api::fn<"rocDecCreateBitstreamReader", rocDecStatus(RocdecBitstreamReader*, const char*),
            "bs_reader_handle", "input_file_path">,
    api::fn<"rocDecGetBitstreamCodecType", rocDecStatus(RocdecBitstreamReader, rocDecVideoCodec*),
            "bs_reader_handle", "codec_type">,
    api::fn<"rocDecGetBitstreamBitDepth", rocDecStatus(RocdecBitstreamReader, int*), "bs_reader_handle", "bit_depth">,
    api::fn<"rocDecGetBitstreamPicData", rocDecStatus(RocdecBitstreamReader, uint8_t**, int*, int64_t*),
            "bs_reader_handle", "pic_data", "pic_size", "pts">,
    api::fn<"rocDecDestroyBitstreamReader", rocDecStatus(RocdecBitstreamReader), "bs_reader_handle">> {};
// clang-format on

}  // namespace encore::domains

template <>
struct encore::api::enum_names<rocDecStatus> {
    static constexpr std::pair<rocDecStatus, const char*> values[] = {
        {ROCDEC_SUCCESS, "ROCDEC_SUCCESS"},
        {ROCDEC_DEVICE_INVALID, "ROCDEC_DEVICE_INVALID"},
        {ROCDEC_CONTEXT_INVALID, "ROCDEC_CONTEXT_INVALID"},
        {ROCDEC_RUNTIME_ERROR, "ROCDEC_RUNTIME_ERROR"},
        {ROCDEC_OUTOF_MEMORY, "ROCDEC_OUTOF_MEMORY"},
        {ROCDEC_INVALID_PARAMETER, "ROCDEC_INVALID_PARAMETER"},
        {ROCDEC_NOT_IMPLEMENTED, "ROCDEC_NOT_IMPLEMENTED"},
        {ROCDEC_NOT_INITIALIZED, "ROCDEC_NOT_INITIALIZED"},
        {ROCDEC_NOT_SUPPORTED, "ROCDEC_NOT_SUPPORTED"}};
};
template <>
struct encore::api::enum_names<rocDecVideoCodec> {
    static constexpr std::pair<rocDecVideoCodec, const char*> values[] = {
        {rocDecVideoCodec_MPEG1, "rocDecVideoCodec_MPEG1"}, {rocDecVideoCodec_MPEG2, "rocDecVideoCodec_MPEG2"},
        {rocDecVideoCodec_MPEG4, "rocDecVideoCodec_MPEG4"}, {rocDecVideoCodec_AVC, "rocDecVideoCodec_AVC"},
        {rocDecVideoCodec_HEVC, "rocDecVideoCodec_HEVC"},   {rocDecVideoCodec_AV1, "rocDecVideoCodec_AV1"},
        {rocDecVideoCodec_VP8, "rocDecVideoCodec_VP8"},     {rocDecVideoCodec_VP9, "rocDecVideoCodec_VP9"},
        {rocDecVideoCodec_JPEG, "rocDecVideoCodec_JPEG"},   {rocDecVideoCodec_YUV420, "rocDecVideoCodec_YUV420"},
        {rocDecVideoCodec_YV12, "rocDecVideoCodec_YV12"},   {rocDecVideoCodec_NV12, "rocDecVideoCodec_NV12"},
        {rocDecVideoCodec_YUYV, "rocDecVideoCodec_YUYV"},   {rocDecVideoCodec_UYVY, "rocDecVideoCodec_UYVY"}};
};
