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

/* One agent hsa_init will present (encore_sim_topology). */
typedef struct encore_sim_topology_agent_s {
    hsa_agent_t agent;      /* the handle the agent has once hsa_init created it */
    hsa_device_type_t type; /* HSA_AGENT_INFO_DEVICE */
    uint32_t node;          /* HSA_AGENT_INFO_NODE */
    char name[64];          /* HSA_AGENT_INFO_NAME */
} encore_sim_topology_agent_t;

/* The agents hsa_init creates (or created), described without initializing the runtime: what
 * KFD's sysfs topology tells a profiler on ROCr before hsa_init. Fills out[0..capacity) and
 * returns how many agents there are. Callable at any time, from any thread. */
size_t encore_sim_topology(encore_sim_topology_agent_t* out, size_t capacity);

#ifdef __cplusplus
}
#endif

#endif /* ENCORE_SIM_SIM_H */
