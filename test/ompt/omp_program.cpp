// test/ompt/omp_program.cpp — an OpenMP program in C++ for check_ompt.py: parallel regions with
// sections, masked, a nested lock, a reduction clause on the region, a taskgroup of tasks with
// dependences, an explicit barrier, and (HAVE_TARGET) target enter/exit data and a target region.
// It prints what it computed, which must not change under tracing.
#include <omp.h>

#include <cstdio>
#include <numeric>
#include <vector>

int main() {
    long total = 0;
    int sections = 0, masked = 0, nested = 0;
    omp_nest_lock_t nest;
    omp_init_nest_lock(&nest);
    std::vector<int> values(256);
    std::iota(values.begin(), values.end(), 1);
    for (int region = 0; region < 3; ++region) {
#pragma omp parallel num_threads(3) reduction(+ : total)
        {
#pragma omp for schedule(dynamic, 16)
            for (int i = 0; i < 256; ++i) total += values[static_cast<std::size_t>(i)];
#pragma omp sections
            {
#pragma omp section
                {
#pragma omp atomic
                    sections += 1;
                }
#pragma omp section
                {
#pragma omp atomic
                    sections += 1;
                }
            }
#pragma omp masked
            masked += 1;
            omp_set_nest_lock(&nest);
            omp_set_nest_lock(&nest);
            nested += 1;
            omp_unset_nest_lock(&nest);
            omp_unset_nest_lock(&nest);
#pragma omp barrier
#pragma omp single
            {
                int a = 0, b = 0;
#pragma omp taskgroup
                {
#pragma omp task depend(out : a) shared(a)
                    a = 20;
#pragma omp task depend(in : a) depend(out : b) shared(a, b)
                    b = a + 1;
                }
#pragma omp atomic
                nested += b - 21;
            }
        }
    }
    omp_destroy_nest_lock(&nest);
#ifdef HAVE_TARGET
    std::vector<double> x(128, 1.5);
    double* px = x.data();
    double dot = 0;
#    pragma omp target enter data map(to : px [0:128])
#    pragma omp target map(tofrom : dot)
    for (int i = 0; i < 128; ++i) dot += px[i] * 2;
#    pragma omp target exit data map(release : px [0:128])
    std::printf("target dot %.1f\n", dot);
#endif
    std::printf("total %ld sections %d masked %d nested %d\n", total, sections, masked, nested);
    return total == 3L * 32896 && sections == 6 && masked == 3 && nested == 9 ? 0 : 1;
}
