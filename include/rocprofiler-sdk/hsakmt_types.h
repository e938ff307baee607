/* rocprofiler-sdk/hsakmt_types.h — the KFD thunk's topology types that rocprofiler_agent_v0_t names.
 *
 *   #include <rocprofiler-sdk/agent.h>   // pulls this in: HSA_CAPABILITY, HsaCacheType, ...
 *   if (agent->capability.ui32.HotPluggable) ...
 *
 * The reference's agent.h includes the thunk's <hsakmt/hsakmttypes.h> for the types of a few
 * fields (cache, IO link and memory bank properties, firmware ids, capability bits). encore
 * does the same where the compiler finds that header (libhsakmt-dev, a ROCm install), so a tool
 * sees exactly the thunk's types. Where none is found (Debian's ROCm 5.2 ships the thunk
 * library without its headers), the block below declares those eight types and nothing else,
 * with the thunk's names, member names, bit widths and enumerator values. Every one is 32 bits
 * wide either way, so the agent struct has the same layout with both.
 *
 * Define ENCORE_HSAKMT_OWN_DECLARATIONS to use the block below even where the thunk's header
 * exists.
 */
#pragma once

#if defined(__has_include) && !defined(ENCORE_HSAKMT_OWN_DECLARATIONS)
#    if __has_include(<hsakmt/hsakmttypes.h>)
#        include <hsakmt/hsakmttypes.h>
#        define ENCORE_HSAKMT_SYSTEM_HEADER 1
#    endif
#endif

/* _HSAKMTTYPES_H_: the thunk's header was included before this one, under another path. */
#if !defined(ENCORE_HSAKMT_SYSTEM_HEADER) && !defined(_HSAKMTTYPES_H_)
#    define ENCORE_HSAKMT_SYSTEM_HEADER 0

#    include <stdint.h>

#    ifdef __cplusplus
extern "C" {
#    endif

/* The *_SIZE enumerators (0xFFFFFFFF, which keeps the enums 32 bits wide as the thunk's) are past
 * the range ISO C gives enumerators; GCC and clang accept them and make the type unsigned int. */
#    if !defined(__cplusplus)
#        pragma GCC diagnostic push
#        pragma GCC diagnostic ignored "-Wpedantic"
#    endif

/** Firmware (micro-engine) id of a GPU: rocprofiler_agent_v0_t.fw_version. */
typedef union {
    uint32_t Value;
    struct {
        unsigned int uCode : 10;
        unsigned int Major : 6;
        unsigned int Minor : 8;
        unsigned int Stepping : 8;
    } ui32;
} HSA_ENGINE_ID;

/** SDMA engine firmware version: rocprofiler_agent_v0_t.sdma_fw_version. */
typedef union {
    uint32_t Value;
    __extension__ struct {
        unsigned int uCodeSDMA : 10;
        unsigned int uCodeRes : 10;
        unsigned int Reserved : 12;
    };
} HSA_ENGINE_VERSION;

/** Capability bits of a node: rocprofiler_agent_v0_t.capability. */
typedef union {
    uint32_t Value;
    struct {
        unsigned int HotPluggable : 1;
        unsigned int HSAMMUPresent : 1;
        unsigned int SharedWithGraphics : 1;
        unsigned int QueueSizePowerOfTwo : 1;
        unsigned int QueueSize32bit : 1;
        unsigned int QueueIdleEvent : 1;
        unsigned int VALimit : 1;
        unsigned int WatchPointsSupported : 1;
        unsigned int WatchPointsTotalBits : 4;
        unsigned int DoorbellType : 2;
        unsigned int AQLQueueDoubleMap : 1;
        unsigned int DebugTrapSupported : 1;
        unsigned int WaveLaunchTrapOverrideSupported : 1;
        unsigned int WaveLaunchModeSupported : 1;
        unsigned int PreciseMemoryOperationsSupported : 1;
        unsigned int DEPRECATED_SRAM_EDCSupport : 1;
        unsigned int Mem_EDCSupport : 1;
        unsigned int RASEventNotify : 1;
        unsigned int ASICRevision : 4;
        unsigned int SRAM_EDCSupport : 1;
        unsigned int SVMAPISupported : 1;
        unsigned int CoherentHostAccess : 1;
        unsigned int DebugSupportedFirmware : 1;
        unsigned int PreciseALUOperationsSupported : 1;
        unsigned int PerQueueResetSupported : 1;
    } ui32;
} HSA_CAPABILITY;

/** Kind of a memory bank: rocprofiler_agent_mem_bank_t.heap_type. */
typedef enum  // NOLINT(performance-enum-size)
{ HSA_HEAPTYPE_SYSTEM = 0,
  HSA_HEAPTYPE_FRAME_BUFFER_PUBLIC = 1,
  HSA_HEAPTYPE_FRAME_BUFFER_PRIVATE = 2,
  HSA_HEAPTYPE_GPU_GDS = 3,
  HSA_HEAPTYPE_GPU_LDS = 4,
  HSA_HEAPTYPE_GPU_SCRATCH = 5,
  HSA_HEAPTYPE_DEVICE_SVM = 6,
  HSA_HEAPTYPE_MMIO_REMAP = 7,
  HSA_HEAPTYPE_NUMHEAPTYPES,
  HSA_HEAPTYPE_SIZE = 0xFFFFFFFF,
} HSA_HEAPTYPE;

/** Memory bank flags: rocprofiler_agent_mem_bank_t.flags. */
typedef union {
    uint32_t MemoryProperty;
    struct {
        unsigned int HotPluggable : 1;
        unsigned int NonVolatile : 1;
        unsigned int Reserved : 30;
    } ui32;
} HSA_MEMORYPROPERTY;

/** What a cache holds: rocprofiler_agent_cache_t.type. */
typedef union {
    uint32_t Value;
    struct {
        unsigned int Data : 1;
        unsigned int Instruction : 1;
        unsigned int CPU : 1;
        unsigned int HSACU : 1;
        unsigned int Reserved : 28;
    } ui32;
} HsaCacheType;

/** Bus of an IO link: rocprofiler_agent_io_link_t.type. */
typedef enum  // NOLINT(performance-enum-size)
{ HSA_IOLINKTYPE_UNDEFINED = 0,
  HSA_IOLINKTYPE_HYPERTRANSPORT = 1,
  HSA_IOLINKTYPE_PCIEXPRESS = 2,
  HSA_IOLINKTYPE_AMBA = 3,
  HSA_IOLINKTYPE_MIPI = 4,
  HSA_IOLINK_TYPE_QPI_1_1 = 5,
  HSA_IOLINK_TYPE_RESERVED1 = 6,
  HSA_IOLINK_TYPE_RESERVED2 = 7,
  HSA_IOLINK_TYPE_RAPID_IO = 8,
  HSA_IOLINK_TYPE_INFINIBAND = 9,
  HSA_IOLINK_TYPE_RESERVED3 = 10,
  HSA_IOLINK_TYPE_XGMI = 11,
  HSA_IOLINK_TYPE_XGOP = 12,
  HSA_IOLINK_TYPE_GZ = 13,
  HSA_IOLINK_TYPE_ETHERNET_RDMA = 14,
  HSA_IOLINK_TYPE_RDMA_OTHER = 15,
  HSA_IOLINK_TYPE_OTHER = 16,
  HSA_IOLINKTYPE_NUMIOLINKTYPES,
  HSA_IOLINKTYPE_SIZE = 0xFFFFFFFF,
} HSA_IOLINKTYPE;

/** IO link flags: rocprofiler_agent_io_link_t.flags. */
typedef union {
    uint32_t LinkProperty;
    struct {
        unsigned int Override : 1;
        unsigned int NonCoherent : 1;
        unsigned int NoAtomics32bit : 1;
        unsigned int NoAtomics64bit : 1;
        unsigned int NoPeerToPeerDMA : 1;
        unsigned int Reserved : 27;
    } ui32;
} HSA_LINKPROPERTY;

#    if !defined(__cplusplus)
#        pragma GCC diagnostic pop
#    endif

#    ifdef __cplusplus
}
#    endif

#elif !defined(ENCORE_HSAKMT_SYSTEM_HEADER)
#    define ENCORE_HSAKMT_SYSTEM_HEADER 1
#endif
