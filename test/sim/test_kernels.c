/* Code object used by the encore-sim tests (loaded through hsa_executable_*). */
#define _POSIX_C_SOURCE 200809L
#include <encore/sim/kernel.h>

#include <stddef.h>
#include <time.h>

uint32_t counter = 0; /* module-scope variable */
const uint32_t magic_table[4] = {0xC0DE, 1, 2, 3};

static void noop(const encore_sim_workgroup_t* wg) { (void)wg; }

struct fill_args {
    uint32_t* out;
    uint32_t n;
};
/* out[global flat id] = global flat id + 1 (1-3D, x fastest). */
static void fill_ids(const encore_sim_workgroup_t* wg) {
    const struct fill_args* a = (const struct fill_args*)wg->kernarg;
    ENCORE_SIM_FOR_EACH_WORKITEM(wg, lx, ly, lz) {
        uint32_t x = encore_sim_global_id(wg, 0, lx);
        uint32_t y = encore_sim_global_id(wg, 1, ly);
        uint32_t z = encore_sim_global_id(wg, 2, lz);
        uint32_t flat = (z * wg->grid_size[1] + y) * wg->grid_size[0] + x;
        if (flat < a->n) a->out[flat] = flat + 1;
    }
}

struct order_args {
    uint32_t* log;
    uint32_t* next;
    uint32_t tag;
    uint32_t sleep_us;
};
/* Sleeps, then appends tag to log (one entry per dispatch, from group 0). */
static void record_order(const encore_sim_workgroup_t* wg) {
    const struct order_args* a = (const struct order_args*)wg->kernarg;
    if (wg->group_id[0] != 0) return;
    if (a->sleep_us) {
        struct timespec ts = {0, (long)a->sleep_us * 1000L};
        nanosleep(&ts, NULL);
    }
    uint32_t i = __atomic_fetch_add(a->next, 1, __ATOMIC_SEQ_CST);
    a->log[i] = a->tag;
}

struct meet_args {
    uint32_t* arrived;
    uint32_t* met;
    uint32_t parties;
    uint32_t timeout_ms;
};
/* Group 0 arrives, then waits (1 ms naps, timeout_ms at most) for `parties` arrivals in all;
   met += 1 if they came. Two dispatches both meet only if they ran at the same time, whatever
   the machine's load (a wall-clock bound on their total time cannot say that). */
static void meet(const encore_sim_workgroup_t* wg) {
    const struct meet_args* a = (const struct meet_args*)wg->kernarg;
    if (wg->group_id[0] != 0) return;
    __atomic_fetch_add(a->arrived, 1, __ATOMIC_SEQ_CST);
    for (uint32_t waited = 0; waited <= a->timeout_ms; ++waited) {
        if (__atomic_load_n(a->arrived, __ATOMIC_SEQ_CST) >= a->parties) {
            __atomic_fetch_add(a->met, 1, __ATOMIC_SEQ_CST);
            return;
        }
        struct timespec ts = {0, 1000000L};
        nanosleep(&ts, NULL);
    }
}

/* counter += number of work-items */
static void bump_counter(const encore_sim_workgroup_t* wg) {
    ENCORE_SIM_FOR_EACH_WORKITEM(wg, lx, ly, lz) {
        (void)lx;
        (void)ly;
        (void)lz;
        __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
    }
}

struct group_args {
    uint32_t* sums;
};
/* Uses the group segment: sums[group] = sum of local ids (two phases). */
static void group_sum(const encore_sim_workgroup_t* wg) {
    const struct group_args* a = (const struct group_args*)wg->kernarg;
    uint32_t* lds = (uint32_t*)wg->group_segment;
    ENCORE_SIM_FOR_EACH_WORKITEM(wg, lx, ly, lz) {
        (void)ly;
        (void)lz;
        lds[lx] = lx;
    }
    uint32_t s = 0;
    for (uint32_t i = 0; i < wg->local_size[0]; ++i) s += lds[i];
    a->sums[wg->group_id[0]] = s;
}

static const encore_sim_kernel_desc_t kernels[] = {
    ENCORE_SIM_KERNEL("noop", noop, 0, 16, 0, 0),
    ENCORE_SIM_KERNEL("fill_ids", fill_ids, sizeof(struct fill_args), 8, 0, 0),
    ENCORE_SIM_KERNEL("record_order", record_order, sizeof(struct order_args), 8, 0, 0),
    ENCORE_SIM_KERNEL("bump_counter", bump_counter, 0, 16, 0, 0),
    ENCORE_SIM_KERNEL("group_sum", group_sum, sizeof(struct group_args), 8, 1024 * 4, 16),
    ENCORE_SIM_KERNEL("meet", meet, sizeof(struct meet_args), 8, 0, 0),
};

static const encore_sim_variable_desc_t variables[] = {
    ENCORE_SIM_VARIABLE("counter", counter, 0),
    ENCORE_SIM_VARIABLE("magic_table", magic_table, 1),
};

ENCORE_SIM_DEFINE_CODE_OBJECT(kernels, 6, variables, 2);
