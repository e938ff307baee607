// encore/domains/rocjpeg.hpp — the ROCJPEG_API domain: the rocJPEG C API, one operation per
// function, numbered and with parameters named as the reference SDK does
// (rocprofiler-sdk/rocjpeg/api_id.h, rocjpeg/api_args.h).
//
//   static_assert(encore::domains::rocjpeg::id_of<"rocJpegDecode">() == ROCPROFILER_ROCJPEG_API_ID_rocJpegDecode);
//
// libencore-rocjpeg exports each function in front of the real librocjpeg (docs/libraries.md).
#pragma once

#include <encore/api/arg_fields.hpp>
#include <encore/api/domain.hpp>
#include <encore/api/enum_names.hpp>
#include <rocprofiler-sdk/rocjpeg/details/rocjpeg.h>

#include <tuple>
#include <utility>

namespace encore::domains {

// clang-format off
struct rocjpeg : api::domain<"ROCJPEG_API", kind::rocjpeg_api, api::no_table,
    api::fn<"rocJpegStreamCreate", RocJpegStatus(RocJpegStreamHandle*), "jpeg_stream_handle">,
    api::fn<"rocJpegStreamParse", RocJpegStatus(const unsigned char*, size_t, RocJpegStreamHandle),
            "data", "length", "jpeg_stream_handle">,
    api::fn<"rocJpegStreamDestroy", RocJpegStatus(RocJpegStreamHandle), "jpeg_stream_handle">,
    api::fn<"rocJpegCreate", RocJpegStatus(RocJpegBackend, int, RocJpegHandle*), "backend", "device_id", "handle">,
    api::fn<"rocJpegDestroy", RocJpegStatus(RocJpegHandle), "handle">,
    api::fn<"rocJpegGetImageInfo", RocJpegStatus(RocJpegHandle, RocJpegStreamHandle, uint8_t*, RocJpegChromaSubsampling*,
                                                 uint32_t*, uint32_t*),
            "handle", "jpeg_stream_handle", "num_components", "subsampling", "widths", "heights">,
    api::fn<"rocJpegDecode", RocJpegStatus(RocJpegHandle, RocJpegStreamHandle, const RocJpegDecodeParams*, RocJpegImage*),
            "handle", "jpeg_stream_handle", "decode_params", "destination">,
    api::fn<"rocJpegDecodeBatched", RocJpegStatus(RocJpegHandle, RocJpegStreamHandle*, int, const RocJpegDecodeParams*,
                                                  RocJpegImage*),
            "handle", "jpeg_stream_handles", "batch_size", "decode_params", "destinations">,
    api::fn<"rocJpegGetErrorName", const char*(RocJpegStatus), "rocjpeg_status">> {};
// clang-format on

}  // namespace encore::domains

template <>
struct encore::api::enum_names<RocJpegStatus> {
    static constexpr std::pair<RocJpegStatus, const char*> values[] = {
        {ROCJPEG_STATUS_SUCCESS, "ROCJPEG_STATUS_SUCCESS"},
        {ROCJPEG_STATUS_NOT_INITIALIZED, "ROCJPEG_STATUS_NOT_INITIALIZED"},
        {ROCJPEG_STATUS_INVALID_PARAMETER, "ROCJPEG_STATUS_INVALID_PARAMETER"},
        {ROCJPEG_STATUS_BAD_JPEG, "ROCJPEG_STATUS_BAD_JPEG"},
        {ROCJPEG_STATUS_JPEG_NOT_SUPPORTED, "ROCJPEG_STATUS_JPEG_NOT_SUPPORTED"},
        {ROCJPEG_STATUS_OUTOF_MEMORY, "ROCJPEG_STATUS_OUTOF_MEMORY"},
        {ROCJPEG_STATUS_EXECUTION_FAILED, "ROCJPEG_STATUS_EXECUTION_FAILED"},
        {ROCJPEG_STATUS_ARCH_MISMATCH, "ROCJPEG_STATUS_ARCH_MISMATCH"},
        {ROCJPEG_STATUS_INTERNAL_ERROR, "ROCJPEG_STATUS_INTERNAL_ERROR"},
        {ROCJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED, "ROCJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED"},
        {ROCJPEG_STATUS_HW_JPEG_DECODER_NOT_SUPPORTED, "ROCJPEG_STATUS_HW_JPEG_DECODER_NOT_SUPPORTED"},
        {ROCJPEG_STATUS_RUNTIME_ERROR, "ROCJPEG_STATUS_RUNTIME_ERROR"},
        {ROCJPEG_STATUS_NOT_IMPLEMENTED, "ROCJPEG_STATUS_NOT_IMPLEMENTED"}};
};
template <>
struct encore::api::enum_names<RocJpegBackend> {
    static constexpr std::pair<RocJpegBackend, const char*> values[] = {
        {ROCJPEG_BACKEND_HARDWARE, "ROCJPEG_BACKEND_HARDWARE"}, {ROCJPEG_BACKEND_HYBRID, "ROCJPEG_BACKEND_HYBRID"}};
};
template <>
struct encore::api::enum_names<RocJpegChromaSubsampling> {
    static constexpr std::pair<RocJpegChromaSubsampling, const char*> values[] = {
        {ROCJPEG_CSS_444, "ROCJPEG_CSS_444"},        {ROCJPEG_CSS_440, "ROCJPEG_CSS_440"},
        {ROCJPEG_CSS_422, "ROCJPEG_CSS_422"},        {ROCJPEG_CSS_420, "ROCJPEG_CSS_420"},
        {ROCJPEG_CSS_411, "ROCJPEG_CSS_411"},        {ROCJPEG_CSS_400, "ROCJPEG_CSS_400"},
        {ROCJPEG_CSS_UNKNOWN, "ROCJPEG_CSS_UNKNOWN"}};
};
template <>
struct encore::api::enum_names<RocJpegOutputFormat> {
    static constexpr std::pair<RocJpegOutputFormat, const char*> values[] = {
        {ROCJPEG_OUTPUT_NATIVE, "ROCJPEG_OUTPUT_NATIVE"},
        {ROCJPEG_OUTPUT_YUV_PLANAR, "ROCJPEG_OUTPUT_YUV_PLANAR"},
        {ROCJPEG_OUTPUT_Y, "ROCJPEG_OUTPUT_Y"},
        {ROCJPEG_OUTPUT_RGB, "ROCJPEG_OUTPUT_RGB"},
        {ROCJPEG_OUTPUT_RGB_PLANAR, "ROCJPEG_OUTPUT_RGB_PLANAR"}};
};
template <>
struct encore::arg_fields<RocJpegDecodeParams> {
    static constexpr auto value = std::tuple{field{"output_format", &RocJpegDecodeParams::output_format}};
};
template <>
struct encore::arg_fields<RocJpegImage> {
    static constexpr auto value = std::tuple{field{"channel", &RocJpegImage::channel},
                                             field{"pitch", &RocJpegImage::pitch}};
};
