/* encore-sim kernel ABI (C). A "code object" for the software HSA runtime
 * (libhsa-runtime64.so.1 from src/sim) is a host shared library that exports one
 * descriptor, `encore_sim_code_object`, listing its kernels and module-scope variables.
 *
 * A kernel is a C function called ONCE PER WORK-GROUP. It loops over the work-items
 * of the group itself (ENCORE_SIM_FOR_EACH_WORKITEM), so an empty kernel costs one
 * indirect call per work-group. Work-groups of one dispatch may run concurrently on
 * several worker threads (ENCORE_SIM_THREADS_PER_AGENT); work-items of one group run
 * sequentially in the order z, y, x (x fastest). There is no intra-group barrier:
 * write multi-phase kernels as several loops over the work-items of the group.
 *
 * Example:
 *
 *   #include <encore/sim/kernel.h>
 *   struct args { const float* a; const float* b; float* c; uint32_t n; };
 *   static void vadd(const encore_sim_workgroup_t* wg) {
 *     const struct args* k = (const struct args*)wg->kernarg;
 *     ENCORE_SIM_FOR_EACH_WORKITEM(wg, lx, ly, lz) {
 *       uint32_t i = encore_sim_global_id(wg, 0, lx);
 *       if (i < k->n) k->c[i] = k->a[i] + k->b[i];
 *     }
 *   }
 *   static const encore_sim_kernel_desc_t kernels[] = {
 *     ENCORE_SIM_KERNEL("vadd", vadd, sizeof(struct args), 8, 0, 0),
 *   };
 *   ENCORE_SIM_DEFINE_CODE_OBJECT(kernels, 1, NULL, 0);
 */
#ifndef ENCORE_SIM_KERNEL_H
#define ENCORE_SIM_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ENCORE_SIM_ABI_VERSION 1u
#define ENCORE_SIM_CODE_OBJECT_SYMBOL "encore_sim_code_object"

/* Per-work-group launch context handed to a kernel. */
typedef struct encore_sim_workgroup_s {
    uint32_t abi_version;          /* ENCORE_SIM_ABI_VERSION */
    uint32_t dims;                 /* 1..3, from the packet setup field */
    uint32_t grid_size[3];         /* work-items per dimension (packet grid_size_*) */
    uint32_t workgroup_size[3];    /* nominal work-group size (packet workgroup_size_*) */
    uint32_t group_id[3];          /* id of this work-group */
    uint32_t local_size[3];        /* actual size of this group (smaller at grid edges) */
    uint32_t num_groups[3];        /* work-groups per dimension */
    uint32_t group_segment_size;   /* bytes at group_segment (packet group_segment_size) */
    uint32_t private_segment_size; /* bytes per work-item at private_segment */
    const void* kernarg;           /* packet kernarg_address */
    void* group_segment;           /* scratch shared by the work-items of this group */
    void* private_segment;         /* private_segment_size * items of this group, item-major */
    const void* packet;            /* the hsa_kernel_dispatch_packet_t being executed */
    uint64_t dispatch_id;          /* runtime-wide dispatch counter */
    uint32_t agent_index;          /* 0-based GPU agent index */
    uint32_t worker_index;         /* worker thread executing this group */
} encore_sim_workgroup_t;

typedef void (*encore_sim_kernel_fn)(const encore_sim_workgroup_t* wg);

typedef struct encore_sim_kernel_desc_s {
    const char* name; /* symbol name without ".kd" */
    encore_sim_kernel_fn fn;
    uint32_t kernarg_size;         /* KERNARG_SEGMENT_SIZE */
    uint32_t kernarg_alignment;    /* KERNARG_SEGMENT_ALIGNMENT (>= 16 is reported) */
    uint32_t group_segment_size;   /* static group segment bytes */
    uint32_t private_segment_size; /* static private bytes per work-item */
} encore_sim_kernel_desc_t;

typedef struct encore_sim_variable_desc_s {
    const char* name;
    void* address; /* the library's own storage */
    uint64_t size;
    uint32_t alignment;
    uint32_t is_const; /* 1: read-only variable */
} encore_sim_variable_desc_t;

typedef struct encore_sim_code_object_s {
    uint32_t abi_version; /* ENCORE_SIM_ABI_VERSION */
    uint32_t kernel_count;
    const encore_sim_kernel_desc_t* kernels;
    uint32_t variable_count;
    const encore_sim_variable_desc_t* variables;
} encore_sim_code_object_t;

#define ENCORE_SIM_KERNEL(name, fn, kernarg_size, kernarg_align, group_size, private_size)         \
    {                                                                                              \
        (name), (fn), (uint32_t)(kernarg_size), (uint32_t)(kernarg_align), (uint32_t)(group_size), \
            (uint32_t)(private_size)                                                               \
    }

#ifdef __cplusplus
#    define ENCORE_SIM_ALIGNOF(var) alignof(decltype(var))
#else
#    define ENCORE_SIM_ALIGNOF(var) _Alignof(__typeof__(var))
#endif

#define ENCORE_SIM_VARIABLE(name, var, is_const) \
    { (name), (void*)&(var), (uint64_t)sizeof(var), (uint32_t)ENCORE_SIM_ALIGNOF(var), (is_const) }

#ifdef __cplusplus
#    define ENCORE_SIM_EXTERN_C extern "C"
#else
#    define ENCORE_SIM_EXTERN_C
#endif

/* Defines the exported descriptor of this code object. */
#define ENCORE_SIM_DEFINE_CODE_OBJECT(kernels, kernel_count, variables, variable_count)                         \
    ENCORE_SIM_EXTERN_C __attribute__((visibility("default")))                                                  \
    const encore_sim_code_object_t encore_sim_code_object = {ENCORE_SIM_ABI_VERSION, (kernel_count), (kernels), \
                                                             (variable_count), (variables)}

/* Loop over the work-items of the current work-group (x fastest). */
#define ENCORE_SIM_FOR_EACH_WORKITEM(wg, lx, ly, lz)          \
    for (uint32_t lz = 0; lz < (wg)->local_size[2]; ++lz)     \
        for (uint32_t ly = 0; ly < (wg)->local_size[1]; ++ly) \
            for (uint32_t lx = 0; lx < (wg)->local_size[0]; ++lx)

/* Absolute work-item id in dimension `dim` of local id `local`. */
static inline uint32_t encore_sim_global_id(const encore_sim_workgroup_t* wg, uint32_t dim, uint32_t local) {
    return wg->group_id[dim] * wg->workgroup_size[dim] + local;
}

/* Flattened local id (x fastest) - index into private_segment. */
static inline uint32_t encore_sim_flat_local_id(const encore_sim_workgroup_t* wg, uint32_t lx, uint32_t ly, uint32_t lz) {
    return (lz * wg->local_size[1] + ly) * wg->local_size[0] + lx;
}

#ifdef __cplusplus
}
#endif

#endif /* ENCORE_SIM_KERNEL_H */
