/* Code object for the encore-sim benchmarks:
 *   empty: does nothing (dispatch overhead);
 *   touch: work-item i fills `block` bytes at base + i * stride with `value`, for i < count
 *          (writes a chosen fraction of a buffer, contiguous or scattered: replay restore). */
#include <encore/sim/kernel.h>

#include <string.h>

static void empty(const encore_sim_workgroup_t* wg) { (void)wg; }

struct touch_args {
    unsigned char* base;
    uint64_t stride;
    uint64_t block;
    uint64_t count;
    uint32_t value;
};

static void touch(const encore_sim_workgroup_t* wg) {
    const struct touch_args* k = (const struct touch_args*)wg->kernarg;
    ENCORE_SIM_FOR_EACH_WORKITEM(wg, lx, ly, lz) {
        (void)ly;
        (void)lz;
        const uint64_t i = encore_sim_global_id(wg, 0, lx);
        if (i < k->count) memset(k->base + i * k->stride, (int)k->value, k->block);
    }
}

static const encore_sim_kernel_desc_t kernels[] = {
    ENCORE_SIM_KERNEL("empty", empty, 0, 16, 0, 0),
    ENCORE_SIM_KERNEL("touch", touch, sizeof(struct touch_args), 8, 0, 0),
};

ENCORE_SIM_DEFINE_CODE_OBJECT(kernels, 2, NULL, 0);
