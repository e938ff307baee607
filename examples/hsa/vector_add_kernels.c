/* encore-sim code object for the vector-add and multi-queue examples.
 * AMDGPU equivalent: __global__ void vector_add(const float* a, const float* b, float* c,
 *                                                uint32_t n) { c[i] = a[i] + b[i]; } */
#include <encore/sim/kernel.h>

struct vector_add_args {
    const float* a;
    const float* b;
    float* c;
    uint32_t n;
};

static void vector_add(const encore_sim_workgroup_t* wg) {
    const struct vector_add_args* k = (const struct vector_add_args*)wg->kernarg;
    ENCORE_SIM_FOR_EACH_WORKITEM(wg, lx, ly, lz) {
        (void)ly;
        (void)lz;
        uint32_t i = encore_sim_global_id(wg, 0, lx);
        if (i < k->n) k->c[i] = k->a[i] + k->b[i];
    }
}

static const encore_sim_kernel_desc_t kernels[] = {
    ENCORE_SIM_KERNEL("vector_add", vector_add, sizeof(struct vector_add_args), 8, 0, 0),
};

ENCORE_SIM_DEFINE_CODE_OBJECT(kernels, 1, NULL, 0);
