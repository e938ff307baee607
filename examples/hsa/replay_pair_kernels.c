/* encore-sim code object for the replay_pair example: the two kernels of a kernel-replay
 * session as rocprofiler-sdk's kernel-replay samples drive it (tools tell them apart by their
 * workgroup size):
 *   bump:  busy work, then one atomic increment of *x per workgroup (launched with 67 work-items
 *          per group: the replayed one);
 *   nudge: one atomic increment of *x per workgroup (64 work-items per group: the one tools opt
 *          out of replaying). */
#include <encore/sim/kernel.h>

struct counter_args {
    uint32_t* x;
};

static void bump(const encore_sim_workgroup_t* wg) {
    const struct counter_args* k = (const struct counter_args*)wg->kernarg;
    volatile uint32_t acc = 0;
    ENCORE_SIM_FOR_EACH_WORKITEM(wg, lx, ly, lz) {
        (void)ly;
        (void)lz;
        /* Busy enough that the dispatch's time is well above the clock's resolution. */
        for (uint32_t i = 0; i < 1024; ++i) acc += i + lx;
    }
    if (acc != ~0u) __atomic_fetch_add(k->x, 1u, __ATOMIC_RELAXED);
}

static void nudge(const encore_sim_workgroup_t* wg) {
    const struct counter_args* k = (const struct counter_args*)wg->kernarg;
    __atomic_fetch_add(k->x, 1u, __ATOMIC_RELAXED);
}

static const encore_sim_kernel_desc_t kernels[] = {
    ENCORE_SIM_KERNEL("bump", bump, sizeof(struct counter_args), 8, 0, 0),
    ENCORE_SIM_KERNEL("nudge", nudge, sizeof(struct counter_args), 8, 0, 0),
};

ENCORE_SIM_DEFINE_CODE_OBJECT(kernels, 2, NULL, 0);
