/* encore-sim code object for the stateful example (kernels with observable state, used as a
 * replay target):
 *   saxpy_accumulate: y[i] += a * x[i]
 *   counter_increment: the module-scope variable `counter` += 1 per work-item (atomic)
 *   atomic_append: out[atomicAdd(index, 1)] = value + global id, for gid < n */
#include <encore/sim/kernel.h>

uint32_t counter = 0; /* like a __device__ variable; read back through its symbol */

struct saxpy_args {
    const float* x;
    float* y;
    float a;
    uint32_t n;
};

static void saxpy_accumulate(const encore_sim_workgroup_t* wg) {
    const struct saxpy_args* k = (const struct saxpy_args*)wg->kernarg;
    ENCORE_SIM_FOR_EACH_WORKITEM(wg, lx, ly, lz) {
        (void)ly;
        (void)lz;
        uint32_t i = encore_sim_global_id(wg, 0, lx);
        if (i < k->n) k->y[i] += k->a * k->x[i];
    }
}

struct counter_args {
    uint32_t n;
};

static void counter_increment(const encore_sim_workgroup_t* wg) {
    const struct counter_args* k = (const struct counter_args*)wg->kernarg;
    ENCORE_SIM_FOR_EACH_WORKITEM(wg, lx, ly, lz) {
        (void)ly;
        (void)lz;
        if (encore_sim_global_id(wg, 0, lx) < k->n) __atomic_fetch_add(&counter, 1u, __ATOMIC_RELAXED);
    }
}

struct append_args {
    uint32_t* out;
    uint32_t* index;
    uint32_t value;
    uint32_t n;
};

static void atomic_append(const encore_sim_workgroup_t* wg) {
    const struct append_args* k = (const struct append_args*)wg->kernarg;
    ENCORE_SIM_FOR_EACH_WORKITEM(wg, lx, ly, lz) {
        (void)ly;
        (void)lz;
        uint32_t gid = encore_sim_global_id(wg, 0, lx);
        if (gid < k->n) {
            uint32_t slot = __atomic_fetch_add(k->index, 1u, __ATOMIC_RELAXED);
            k->out[slot] = k->value + gid;
        }
    }
}

static const encore_sim_kernel_desc_t kernels[] = {
    ENCORE_SIM_KERNEL("saxpy_accumulate", saxpy_accumulate, sizeof(struct saxpy_args), 8, 0, 0),
    ENCORE_SIM_KERNEL("counter_increment", counter_increment, sizeof(struct counter_args), 4, 0, 0),
    ENCORE_SIM_KERNEL("atomic_append", atomic_append, sizeof(struct append_args), 8, 0, 0),
};

static const encore_sim_variable_desc_t variables[] = {
    ENCORE_SIM_VARIABLE("counter", counter, 0),
};

ENCORE_SIM_DEFINE_CODE_OBJECT(kernels, 3, variables, 1);
