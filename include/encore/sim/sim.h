/* encore-sim specific extensions of the software HSA runtime (libhsa-runtime64.so.1
 * built from src/sim). They are exported by the simulator only; look them up with
 * dlsym(RTLD_DEFAULT, ...) if the program may also run on ROCr. */
#ifndef ENCORE_SIM_SIM_H
#define ENCORE_SIM_SIM_H

#include <stdint.h>
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Returns 1 when the process runs on the encore software runtime. */
int encore_sim_is_simulator(void);

/* The memory pool an address (anywhere inside an allocation) was allocated from.
 * HSA_STATUS_ERROR_INVALID_ARGUMENT when it is not inside a pool allocation. */
hsa_status_t encore_sim_pointer_pool(const void* ptr, hsa_amd_memory_pool_t* pool, void** base, size_t* size);

/* Number and names of the API table slots that are not implemented (they return an
 * error status; see docs/sim.md). */
uint32_t encore_sim_unimplemented_count(void);
const char* encore_sim_unimplemented_name(uint32_t index);

#ifdef __cplusplus
}
#endif

#endif /* ENCORE_SIM_SIM_H */
