// test/trace/rank_workers.cpp — one "rank" of an MPI-style job that forks data-loader-style
// workers (fork, no exec), for check_stats_merge.py: every process makes HSA calls and
// dispatches in numbers that depend on its rank and worker index, so that each database can be
// checked for exactly what its process did.
//   rank_workers <vector_add code object> [workers]
// The rank R comes from SLURM_PROCID, else OMPI_COMM_WORLD_RANK, else 0. The rank forks
// `workers` (default 2) children first: a child forked after hsa_init cannot use the GPU (ROCr's
// queues and its async-signal thread stay in the parent; the software runtime is the same), so
// GPU workers are forked before the runtime starts, as launchers and spawn-style pools do. Each
// process then runs hsa_init on its own. Worker W (0-based) makes 10 * (R + 1) + W + 1 calls of
// hsa_system_get_info and one dispatch inside a roctx range "rank R worker W", shuts the runtime
// down and ends with _exit(0), as Python's multiprocessing workers do. The rank makes R + 1
// dispatches inside a roctx range "rank R", waits for its workers, and exits 1 unless every
// worker exited 0.
#include "hsa_example.hpp"

#include <roctracer/roctx.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

int rank_of_environment() {
    for (const char* var : {"SLURM_PROCID", "OMPI_COMM_WORLD_RANK"})
        if (const char* v = std::getenv(var); v != nullptr && *v != '\0') return std::atoi(v);
    return 0;
}

struct device {
    hsa_agent_t cpu{}, gpu{};
    uint64_t kernel = 0;
    example::VectorAddArgs* args = nullptr;
};

// `count` dispatches of vector_add on a queue created (and destroyed) here.
void dispatches(const device& d, int count) {
    hsa_queue_t* queue = nullptr;
    HSA_CHECK(hsa_queue_create(d.gpu, 64, HSA_QUEUE_TYPE_SINGLE, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &queue));
    hsa_signal_t done{};
    HSA_CHECK(hsa_signal_create(1, 0, nullptr, &done));
    for (int i = 0; i < count; ++i) {
        hsa_signal_store_screlease(done, 1);
        example::dispatch_1d(queue, d.kernel, d.args, d.args->n, 64, done);
        example::wait_done(done);
    }
    HSA_CHECK(hsa_signal_destroy(done));
    HSA_CHECK(hsa_queue_destroy(queue));
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s <vector_add code object> [workers]\n", argv[0]);
        return 2;
    }
    const int workers = argc > 2 ? std::atoi(argv[2]) : 2;
    const int rank = rank_of_environment();
    const std::string rank_range = "rank " + std::to_string(rank);
    std::vector<pid_t> children;
    int worker = -1;  // this process's worker index; -1: the rank itself
    for (int w = 0; w < workers; ++w) {
        const pid_t child = ::fork();
        if (child < 0) {
            std::perror("fork");
            return 1;
        }
        if (child == 0) {
            worker = w;
            children.clear();
            break;
        }
        children.push_back(child);
    }

    HSA_CHECK(hsa_init());
    {
        device d;
        d.cpu = example::agents(HSA_DEVICE_TYPE_CPU).at(0);
        d.gpu = example::agents(HSA_DEVICE_TYPE_GPU).at(0);
        example::CodeObject co(argv[1], d.gpu);
        d.kernel = co.kernel("vector_add", d.gpu);
        d.args = example::alloc_vector_add_args(d.cpu, d.gpu, 1024);
        if (worker >= 0) {
            const std::string range = rank_range + " worker " + std::to_string(worker);
            roctxRangePushA(range.c_str());
            for (int i = 0; i < 10 * (rank + 1) + worker + 1; ++i) {
                uint16_t major = 0;
                hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MAJOR, &major);
            }
            dispatches(d, 1);
            roctxRangePop();
        } else {
            roctxRangePushA(rank_range.c_str());
            dispatches(d, rank + 1);
            roctxRangePop();
        }
    }
    HSA_CHECK(hsa_shut_down());
    if (worker >= 0) {
        std::fflush(stdout);
        ::_exit(0);
    }
    int failed = 0;
    for (const pid_t child : children) {
        int status = 0;
        if (::waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) failed = 1;
    }
    std::printf("rank %d: %d dispatches, %zu workers%s\n", rank, rank + 1, children.size(),
                failed != 0 ? ", a worker failed" : "");
    return failed;
}
