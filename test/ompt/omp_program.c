/* test/ompt/omp_program.c — an OpenMP program in C for check_ompt.py: several parallel regions,
 * a worksharing loop with a reduction, a critical section, a lock, an explicit barrier, tasks
 * with a taskwait, and (where the host offload plugin exists: HAVE_TARGET) a target region.
 * It prints what it computed, which must not change under tracing. */
#include <omp.h>
#include <stdio.h>

int main(void) {
    long sum = 0, critical_hits = 0, locked = 0, tasks = 0;
    omp_lock_t lock;
    omp_init_lock(&lock);
    for (int region = 0; region < 4; ++region) {
#pragma omp parallel num_threads(4)
        {
#pragma omp for reduction(+ : sum)
            for (int i = 0; i < 1000; ++i) sum += i;
#pragma omp critical
            critical_hits += 1;
            omp_set_lock(&lock);
            locked += 1;
            omp_unset_lock(&lock);
#pragma omp barrier
#pragma omp single
            {
                for (int t = 0; t < 3; ++t) {
#pragma omp task shared(tasks)
                    {
#pragma omp atomic
                        tasks += 1;
                    }
                }
#pragma omp taskwait
            }
        }
    }
    omp_destroy_lock(&lock);
    int mapped = 0;
#ifdef HAVE_TARGET
    int data[64];
    for (int i = 0; i < 64; ++i) data[i] = i;
#    pragma omp target map(tofrom : data) map(from : mapped)
    {
        for (int i = 0; i < 64; ++i) data[i] *= 2;
        mapped = 1;
    }
    long data_sum = 0;
    for (int i = 0; i < 64; ++i) data_sum += data[i];
    printf("target: %d sum %ld\n", mapped, data_sum);
#endif
    printf("sum %ld critical %ld locked %ld tasks %ld\n", sum, critical_hits, locked, tasks);
    return sum == 4L * 499500 && critical_hits == 16 && locked == 16 && tasks == 12 ? 0 : 1;
}
