// encore/domains/rccl.hpp — the RCCL_API domain: the NCCL / RCCL C API, one operation per
// function, numbered and with parameters named as the reference SDK does
// (rocprofiler-sdk/rccl/api_id.h, rccl/api_args.h).
//
//   static_assert(encore::domains::rccl::id_of<"ncclAllReduce">() == ROCPROFILER_RCCL_API_ID_ncclAllReduce);
//
// libencore-rccl exports each function (tools/gen_exports.py) in front of the real librccl.so.1
// or libnccl.so.2 (docs/libraries.md). NVIDIA's NCCL has the same functions with cudaStream_t
// for hipStream_t (both a pointer to the runtime's stream struct, so one ABI); it has no MSCCL
// functions (their exports then warn once and return ncclSystemError).
#pragma once

#include <encore/api/arg_fields.hpp>
#include <encore/api/domain.hpp>
#include <encore/api/enum_names.hpp>
#include <rocprofiler-sdk/rccl/details/rccl.h>

#include <tuple>
#include <utility>

namespace encore::domains {

// clang-format off
struct rccl : api::domain<"RCCL_API", kind::rccl_api, api::no_table,
    api::fn<"ncclAllGather", ncclResult_t(const void*, void*, size_t, ncclDataType_t, ncclComm_t, hipStream_t),
            "sendbuff", "recvbuff", "sendcount", "datatype", "comm", "stream">,
    api::fn<"ncclAllReduce", ncclResult_t(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t, hipStream_t),
            "sendbuff", "recvbuff", "count", "datatype", "op", "comm", "stream">,
    api::fn<"ncclAllToAll", ncclResult_t(const void*, void*, size_t, ncclDataType_t, ncclComm_t, hipStream_t),
            "sendbuff", "recvbuff", "count", "datatype", "comm", "stream">,
    api::fn<"ncclAllToAllv", ncclResult_t(const void*, const size_t*, const size_t*, void*, const size_t*, const size_t*,
                                          ncclDataType_t, ncclComm_t, hipStream_t),
            "sendbuff", "sendcounts", "sdispls", "recvbuff", "recvcounts", "rdispls", "datatype", "comm", "stream">,
    api::fn<"ncclBroadcast", ncclResult_t(const void*, void*, size_t, ncclDataType_t, int, ncclComm_t, hipStream_t),
            "sendbuff", "recvbuff", "count", "datatype", "root", "comm", "stream">,
    api::fn<"ncclGather", ncclResult_t(const void*, void*, size_t, ncclDataType_t, int, ncclComm_t, hipStream_t),
            "sendbuff", "recvbuff", "sendcount", "datatype", "root", "comm", "stream">,
    api::fn<"ncclReduce", ncclResult_t(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, int, ncclComm_t, hipStream_t),
            "sendbuff", "recvbuff", "count", "datatype", "op", "root", "comm", "stream">,
    api::fn<"ncclReduceScatter", ncclResult_t(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t, hipStream_t),
            "sendbuff", "recvbuff", "recvcount", "datatype", "op", "comm", "stream">,
    api::fn<"ncclScatter", ncclResult_t(const void*, void*, size_t, ncclDataType_t, int, ncclComm_t, hipStream_t),
            "sendbuff", "recvbuff", "recvcount", "datatype", "root", "comm", "stream">,
    api::fn<"ncclSend", ncclResult_t(const void*, size_t, ncclDataType_t, int, ncclComm_t, hipStream_t),
            "sendbuff", "count", "datatype", "peer", "comm", "stream">,
    api::fn<"ncclRecv", ncclResult_t(void*, size_t, ncclDataType_t, int, ncclComm_t, hipStream_t),
            "recvbuff", "count", "datatype", "peer", "comm", "stream">,
    api::fn<"ncclRedOpCreatePreMulSum", ncclResult_t(ncclRedOp_t*, void*, ncclDataType_t, ncclScalarResidence_t, ncclComm_t),
            "op", "scalar", "datatype", "residence", "comm">,
    api::fn<"ncclRedOpDestroy", ncclResult_t(ncclRedOp_t, ncclComm_t), "op", "comm">,
    api::fn<"ncclGroupStart", ncclResult_t()>,
    api::fn<"ncclGroupEnd", ncclResult_t()>,
    api::fn<"ncclGetVersion", ncclResult_t(int*), "version">,
    api::fn<"ncclGetUniqueId", ncclResult_t(ncclUniqueId*), "out">,
    api::fn<"ncclCommInitRank", ncclResult_t(ncclComm_t*, int, ncclUniqueId, int), "newcomm", "nranks", "commId", "myrank">,
    api::fn<"ncclCommInitAll", ncclResult_t(ncclComm_t*, int, const int*), "comms", "ndev", "devlist">,
    api::fn<"ncclCommInitRankConfig", ncclResult_t(ncclComm_t*, int, ncclUniqueId, int, ncclConfig_t*),
            "comm", "nranks", "commId", "myrank", "config">,
    api::fn<"ncclCommFinalize", ncclResult_t(ncclComm_t), "comm">,
    api::fn<"ncclCommDestroy", ncclResult_t(ncclComm_t), "comm">,
    api::fn<"ncclCommAbort", ncclResult_t(ncclComm_t), "comm">,
    api::fn<"ncclCommSplit", ncclResult_t(ncclComm_t, int, int, ncclComm_t*, ncclConfig_t*),
            "comm", "color", "key", "newcomm", "config">,
    api::fn<"ncclGetErrorString", const char*(ncclResult_t), "code">,
    api::fn<"ncclGetLastError", const char*(ncclComm_t), "comm">,
    api::fn<"ncclCommGetAsyncError", ncclResult_t(ncclComm_t, ncclResult_t*), "comm", "asyncError">,
    api::fn<"ncclCommCount", ncclResult_t(ncclComm_t, int*), "comm", "count">,
    api::fn<"ncclCommCuDevice", ncclResult_t(ncclComm_t, int*), "comm", "devid">,
    api::fn<"ncclCommUserRank", ncclResult_t(ncclComm_t, int*), "comm", "rank">,
    api::fn<"ncclMemAlloc", ncclResult_t(void**, size_t), "ptr", "size">,
    api::fn<"ncclMemFree", ncclResult_t(void*), "ptr">,
    api::fn<"mscclLoadAlgo", ncclResult_t(const char*, mscclAlgoHandle_t*, int), "mscclAlgoFilePath", "mscclAlgoHandle", "rank">,
    api::fn<"mscclRunAlgo", ncclResult_t(const void*, const size_t*, const size_t*, void*, const size_t*, const size_t*, size_t,
                                         ncclDataType_t, int, int, ncclRedOp_t, mscclAlgoHandle_t, ncclComm_t, hipStream_t),
            "sendBuff", "sendCounts", "sDisPls", "recvBuff", "recvCounts", "rDisPls", "count", "dataType", "root", "peer",
            "op", "mscclAlgoHandle", "comm", "stream">,
    api::fn<"mscclUnloadAlgo", ncclResult_t(mscclAlgoHandle_t), "mscclAlgoHandle">,
    api::fn<"ncclCommRegister", ncclResult_t(ncclComm_t, void*, size_t, void**), "comm", "buff", "size", "handle">,
    api::fn<"ncclCommDeregister", ncclResult_t(ncclComm_t, void*), "comm", "handle">> {};
// clang-format on

}  // namespace encore::domains

// Arguments and return values print by name (encore/tracing/format.hpp). Where two names share a
// value (ncclInt8 and ncclChar), the first is the one printed.
template <>
struct encore::api::enum_names<ncclResult_t> {
    static constexpr std::pair<ncclResult_t, const char*> values[] = {{ncclSuccess, "ncclSuccess"},
                                                                      {ncclUnhandledCudaError, "ncclUnhandledCudaError"},
                                                                      {ncclSystemError, "ncclSystemError"},
                                                                      {ncclInternalError, "ncclInternalError"},
                                                                      {ncclInvalidArgument, "ncclInvalidArgument"},
                                                                      {ncclInvalidUsage, "ncclInvalidUsage"},
                                                                      {ncclRemoteError, "ncclRemoteError"},
                                                                      {ncclInProgress, "ncclInProgress"}};
};
template <>
struct encore::api::enum_names<ncclDataType_t> {
    static constexpr std::pair<ncclDataType_t, const char*> values[] = {
        {ncclInt8, "ncclInt8"},         {ncclUint8, "ncclUint8"},     {ncclInt32, "ncclInt32"},
        {ncclUint32, "ncclUint32"},     {ncclInt64, "ncclInt64"},     {ncclUint64, "ncclUint64"},
        {ncclFloat16, "ncclFloat16"},   {ncclFloat32, "ncclFloat32"}, {ncclFloat64, "ncclFloat64"},
        {ncclBfloat16, "ncclBfloat16"}, {ncclFp8E4M3, "ncclFp8E4M3"}, {ncclFp8E5M2, "ncclFp8E5M2"}};
};
// Operators made by ncclRedOpCreatePreMulSum (ncclNumOps and up) print as their number.
template <>
struct encore::api::enum_names<ncclRedOp_t> {
    static constexpr std::pair<ncclRedOp_t, const char*> values[] = {
        {ncclSum, "ncclSum"}, {ncclProd, "ncclProd"}, {ncclMax, "ncclMax"}, {ncclMin, "ncclMin"}, {ncclAvg, "ncclAvg"}};
};
template <>
struct encore::api::enum_names<ncclScalarResidence_t> {
    static constexpr std::pair<ncclScalarResidence_t, const char*> values[] = {
        {ncclScalarDevice, "ncclScalarDevice"}, {ncclScalarHostImmediate, "ncclScalarHostImmediate"}};
};
template <>
struct encore::arg_fields<ncclConfig_t> {
    static constexpr auto value = std::tuple{field{"size", &ncclConfig_t::size},
                                             field{"magic", &ncclConfig_t::magic},
                                             field{"version", &ncclConfig_t::version},
                                             field{"blocking", &ncclConfig_t::blocking},
                                             field{"cgaClusterSize", &ncclConfig_t::cgaClusterSize},
                                             field{"minCTAs", &ncclConfig_t::minCTAs},
                                             field{"maxCTAs", &ncclConfig_t::maxCTAs},
                                             field{"netName", &ncclConfig_t::netName},
                                             field{"splitShare", &ncclConfig_t::splitShare}};
};
