/* encore-sim code object of a two-kernel phase whose kernels feed each other, so a replay that
 * does not put memory back between passes, or runs them out of order, gives other numbers:
 *   add_into:        y[i] += x[i]
 *   double_in_place: x[i] *= 2 */
#include <encore/sim/kernel.h>

struct pair_args {
    float* x;
    float* y;
    uint32_t n;
};

static void add_into(const encore_sim_workgroup_t* wg) {
    const struct pair_args* k = (const struct pair_args*)wg->kernarg;
    ENCORE_SIM_FOR_EACH_WORKITEM(wg, lx, ly, lz) {
        (void)ly;
        (void)lz;
        const uint32_t i = encore_sim_global_id(wg, 0, lx);
        if (i < k->n) k->y[i] += k->x[i];
    }
}

static void double_in_place(const encore_sim_workgroup_t* wg) {
    const struct pair_args* k = (const struct pair_args*)wg->kernarg;
    ENCORE_SIM_FOR_EACH_WORKITEM(wg, lx, ly, lz) {
        (void)ly;
        (void)lz;
        const uint32_t i = encore_sim_global_id(wg, 0, lx);
        if (i < k->n) k->x[i] *= 2.0f;
    }
}

static const encore_sim_kernel_desc_t kernels[] = {
    ENCORE_SIM_KERNEL("add_into", add_into, sizeof(struct pair_args), 8, 0, 0),
    ENCORE_SIM_KERNEL("double_in_place", double_in_place, sizeof(struct pair_args), 8, 0, 0),
};

ENCORE_SIM_DEFINE_CODE_OBJECT(kernels, 2, NULL, 0);
