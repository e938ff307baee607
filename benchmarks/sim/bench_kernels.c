/* Code object for bench_sim_dispatch: an empty kernel. */
#include <encore/sim/kernel.h>

static void empty(const encore_sim_workgroup_t* wg) { (void)wg; }

static const encore_sim_kernel_desc_t kernels[] = {
  ENCORE_SIM_KERNEL("empty", empty, 0, 16, 0, 0),
};

ENCORE_SIM_DEFINE_CODE_OBJECT(kernels, 1, NULL, 0);
