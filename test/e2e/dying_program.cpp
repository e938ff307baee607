// test/e2e/dying_program.cpp — an HSA program that makes calls and kernel dispatches, then dies
// the way it is told, for the tests of what encore-trace -o and encore-replay -o keep then.
//   dying_program <vector_add code object> <how> [dispatches]
// It makes `dispatches` (default 3) vector_add dispatches (each waited for), prints
// "dispatched N" on stdout, then:
//   exit          returns from main (hsa_shut_down first)
//   _exit         _exit(3)
//   abort         abort()
//   segv          writes to a PROT_NONE page (a real fault: no sanitizer sees a null pointer)
//   segv-handled  the same, with the program's own SIGSEGV handler (installed before hsa_init)
//                 that prints "handled" and _exit(42)s
//   segv-recover  the same, with a handler that makes the page writable and returns: the program
//                 goes on, makes one more dispatch and exits normally
//   sigint, sigterm, sighup, sigquit, sigkill   raise()s that signal
//   sigint-handled  installs its own SIGINT handler (before hsa_init) that counts, raises
//                 SIGINT, then exits normally with status 0 after the handler ran
//   bench         after the dispatches, times 1000 x `dispatches` hsa_system_get_info calls
//                 (the per-record cost of a tool) and exits normally
//   bench-paced   the same with 400 iterations of a loop of the program's own between calls
//                 (about 80 ns here: a program that does more than make traced calls)
//   wait          prints "ready" and keeps making calls and dispatches (with ~1 ms pauses) until
//                 a signal from outside ends it; prints "looping" once the first dispatch and
//                 call are made
//   calls-sigkill makes 1000 x `dispatches` hsa_system_get_info calls, prints "calls N", then
//                 raise(SIGKILL)s
//   fork          forks a child that makes 1000 hsa_system_get_info calls and _exit(0)s (no
//                 exec); the parent waits for it, makes one more dispatch and exits normally
//   system        runs itself through system() ("<self> <code object> exit 1": a second traced
//                 process, by a shell), then exits normally
//   fork-exit     as fork, but the child ends through exit() after 10 calls (its tools finalize)
//   closefds      closes every descriptor above 2, opens the file DYING_OWN_FILE names and
//                 writes 13 lines into it, each followed by a call and a dispatch; exits normally
//   regions       roctx profiler control (libencore-roctx's, found with dlsym: preloaded by
//                 encore-trace; "no roctx" and exit 1 without it): 100 hsa_system_get_info calls,
//                 roctxProfilerResume(0), 10 calls and a dispatch, roctxProfilerPause(0), 100
//                 calls and a dispatch, Pause again, Resume from another thread, 20 calls,
//                 Resume again, 5 calls, Pause; 100 calls, then exits normally. Inside regions:
//                 35 calls and 1 dispatch
//   clock         two threads each make 300 hsa_system_get_info calls, each between two reads of
//                 CLOCK_BOOTTIME, with pauses of 0, 50 us or 3 ms between them; prints a line
//                 "clock TID BEFORE AFTER" per call, then raise(SIGKILL)s (no tool finalization:
//                 the last calls' times are extrapolated by the converter, tick_clock.hpp)
#include "hsa_example.hpp"

#include <dlfcn.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace {

std::uint64_t boottime_ns() {
    timespec t{};
    ::clock_gettime(CLOCK_BOOTTIME, &t);
    return static_cast<std::uint64_t>(t.tv_sec) * 1000000000ull + static_cast<std::uint64_t>(t.tv_nsec);
}

// "clock": 300 calls, each between two clock reads, with pauses that cross the tool's clock
// pairs (every 2^16..2^25 ticks) and a 3 ms sleep now and then; the readings, printed later.
std::vector<std::string> timed_calls() {
    std::vector<std::string> lines;
    const long tid = ::syscall(SYS_gettid);
    for (int i = 0; i < 300; ++i) {
        uint16_t major = 0;
        const std::uint64_t before = boottime_ns();
        hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MAJOR, &major);
        const std::uint64_t after = boottime_ns();
        lines.push_back("clock " + std::to_string(tid) + ' ' + std::to_string(before) + ' ' + std::to_string(after));
        if (i % 7 == 0) {
            ::usleep(3000);
        } else if (i % 3 == 0) {
            const std::uint64_t until = boottime_ns() + 50000;
            while (boottime_ns() < until) {
            }
        }
    }
    return lines;
}

void* g_page = nullptr;
volatile sig_atomic_t g_sigints = 0;

void handled_segv(int) {
    static const char msg[] = "handled\n";
    (void)!::write(1, msg, sizeof(msg) - 1);
    ::_exit(42);
}

void recover_segv(int) { ::mprotect(g_page, 4096, PROT_READ | PROT_WRITE); }

void count_sigint(int) { g_sigints = g_sigints + 1; }

void install(int sig, void (*fn)(int)) {
    struct sigaction sa {};
    sa.sa_handler = fn;
    sigemptyset(&sa.sa_mask);
    ::sigaction(sig, &sa, nullptr);
}

void fault() {
    // The write faults; with segv-recover the handler makes the page writable and it is retried.
    *static_cast<volatile int*>(g_page) = 1;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s <code object> <how> [dispatches]\n", argv[0]);
        return 2;
    }
    const std::string_view how = argv[2];
    const int dispatches = argc > 3 ? std::atoi(argv[3]) : 3;
    g_page = ::mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (how == "segv-handled") install(SIGSEGV, &handled_segv);
    if (how == "segv-recover") install(SIGSEGV, &recover_segv);
    if (how == "sigint-handled") install(SIGINT, &count_sigint);

    HSA_CHECK(hsa_init());
    {
        hsa_agent_t cpu = example::agents(HSA_DEVICE_TYPE_CPU).at(0);
        hsa_agent_t gpu = example::agents(HSA_DEVICE_TYPE_GPU).at(0);
        example::CodeObject co(argv[1], gpu);
        const uint64_t kernel = co.kernel("vector_add", gpu);
        const uint32_t n = 1024;
        auto* a = static_cast<float*>(example::alloc_shared(cpu, gpu, n * sizeof(float)));
        auto* b = static_cast<float*>(example::alloc_shared(cpu, gpu, n * sizeof(float)));
        auto* c = static_cast<float*>(example::alloc_shared(cpu, gpu, n * sizeof(float)));
        for (uint32_t i = 0; i < n; ++i) {
            a[i] = static_cast<float>(i);
            b[i] = 1.0f;
        }
        auto* args = static_cast<example::VectorAddArgs*>(example::alloc_kernarg(cpu, gpu,
                                                                                 sizeof(example::VectorAddArgs)));
        *args = {a, b, c, n};
        hsa_queue_t* queue = nullptr;
        HSA_CHECK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_SINGLE, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &queue));
        hsa_signal_t done{};
        HSA_CHECK(hsa_signal_create(1, 0, nullptr, &done));
        auto dispatch = [&] {
            hsa_signal_store_screlease(done, 1);
            example::dispatch_1d(queue, kernel, args, n, 64, done);
            example::wait_done(done);
        };
        for (int i = 0; i < dispatches; ++i) dispatch();
        std::printf("dispatched %d\n", dispatches);
        std::fflush(stdout);

        if (how == "_exit") ::_exit(3);
        if (how == "abort") std::abort();
        if (how == "segv" || how == "segv-handled") fault();
        if (how == "segv-recover") {
            fault();
            dispatch();
            std::printf("recovered, dispatched %d\n", dispatches + 1);
        }
        if (how == "sigint") std::raise(SIGINT);
        if (how == "sigterm") std::raise(SIGTERM);
        if (how == "sighup") std::raise(SIGHUP);
        if (how == "sigquit") std::raise(SIGQUIT);
        if (how == "sigkill") std::raise(SIGKILL);
        if (how == "sigint-handled") {
            std::raise(SIGINT);
            dispatch();
            std::printf("sigint handled %d times, dispatched %d\n", static_cast<int>(g_sigints), dispatches + 1);
        }
        if (how == "regions") {
            using control = int (*)(uint64_t);
            const auto pause = reinterpret_cast<control>(::dlsym(RTLD_DEFAULT, "roctxProfilerPause"));
            const auto resume = reinterpret_cast<control>(::dlsym(RTLD_DEFAULT, "roctxProfilerResume"));
            if (pause == nullptr || resume == nullptr) {
                std::fprintf(stderr, "no roctx\n");
                return 1;
            }
            const auto calls = [](int k) {
                for (int i = 0; i < k; ++i) {
                    uint16_t major = 0;
                    hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MAJOR, &major);
                }
            };
            calls(100);
            resume(0);
            calls(10);
            dispatch();
            pause(0);
            calls(100);
            dispatch();
            pause(0);
            std::thread([&] { resume(0); }).join();  // the whole process, whichever thread asks
            calls(20);
            resume(0);
            calls(5);
            pause(0);
            calls(100);
        }
        if (how == "bench" || how == "bench-paced") {
            // The cost of one traced call: `dispatches` calls of hsa_system_get_info, timed.
            const int work = how == "bench-paced" ? 400 : 0;
            volatile std::uint64_t sink = 0;
            timespec t0{}, t1{};
            clock_gettime(CLOCK_MONOTONIC, &t0);
            for (int i = 0; i < dispatches * 1000; ++i) {
                uint16_t major = 0;
                hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MAJOR, &major);
                for (int k = 0; k < work; ++k) sink = sink + static_cast<std::uint64_t>(k);
            }
            clock_gettime(CLOCK_MONOTONIC, &t1);
            const double ns = (t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec);
            std::printf("bench: %d calls, %.1f ns per call\n", dispatches * 1000, ns / (dispatches * 1000.0));
        }
        if (how == "clock") {
            std::vector<std::string> other;
            std::thread t([&] { other = timed_calls(); });
            std::vector<std::string> mine = timed_calls();
            t.join();
            for (const auto* v : {&mine, &other})
                for (const std::string& line : *v) std::printf("%s\n", line.c_str());
            std::fflush(stdout);
            std::raise(SIGKILL);
        }
        if (how == "calls-sigkill") {
            for (int i = 0; i < dispatches * 1000; ++i) {
                uint16_t major = 0;
                hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MAJOR, &major);
            }
            std::printf("calls %d\n", dispatches * 1000);
            std::fflush(stdout);
            std::raise(SIGKILL);
        }
        if (how == "fork") {
            const pid_t child = ::fork();
            if (child == 0) {
                for (int i = 0; i < 1000; ++i) {
                    uint16_t major = 0;
                    hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MAJOR, &major);
                }
                std::printf("child %d: 1000 calls\n", static_cast<int>(::getpid()));
                std::fflush(stdout);
                ::_exit(0);
            }
            int status = 0;
            ::waitpid(child, &status, 0);
            dispatch();
            std::printf("parent: child exited %d, dispatched %d\n", WEXITSTATUS(status), dispatches + 1);
        }
        if (how == "fork-exit") {
            // A fork child that ends through exit() (its tools' finalize runs in it) after calls
            // of its own, and no dispatch; the parent then goes on as for "fork".
            const pid_t child = ::fork();
            if (child == 0) {
                uint16_t major = 0;
                for (int i = 0; i < 10; ++i) hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MAJOR, &major);
                std::printf("child %d: exit\n", static_cast<int>(::getpid()));
                std::fflush(stdout);
                std::exit(0);
            }
            int status = 0;
            ::waitpid(child, &status, 0);
            dispatch();
            std::printf("parent: child exited %d, dispatched %d\n", WEXITSTATUS(status), dispatches + 1);
        }
        if (how == "system") {
            const std::string cmd = std::string("'") + argv[0] + "' '" + argv[1] + "' exit 1";
            const int status = std::system(cmd.c_str());
            std::printf("system: %d\n", status);
        }
        if (how == "closefds") {
            // A program that closes every descriptor above 2 and opens a file of its own, as
            // daemons and sandboxes do, while it goes on making traced calls: the file must hold
            // its 13 lines and nothing of encore's (issue 40 item 7). The path: DYING_OWN_FILE.
            const char* path = std::getenv("DYING_OWN_FILE");
            for (int fd = 3; fd < 1024; ++fd) ::close(fd);
            std::FILE* f = path != nullptr ? std::fopen(path, "w") : nullptr;
            for (int i = 0; i < 13 && f != nullptr; ++i) {
                std::fprintf(f, "line %d of the program's own file\n", i);
                std::fflush(f);
                uint16_t major = 0;
                hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MAJOR, &major);
                dispatch();
            }
            if (f != nullptr) std::fclose(f);
            std::printf("closefds: %s\n", f != nullptr ? "wrote 13 lines" : "no file");
        }
        if (how == "wait") {
            std::printf("ready\n");
            std::fflush(stdout);
            for (bool first = true;; first = false) {
                dispatch();
                uint16_t major = 0;
                hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MAJOR, &major);
                if (first) {
                    // A signal sent after this line finds a dispatch and a call made, however
                    // slowly the machine ran the program (a fixed sleep in the test did not).
                    std::printf("looping\n");
                    std::fflush(stdout);
                }
                ::usleep(1000);
            }
        }

        HSA_CHECK(hsa_signal_destroy(done));
        HSA_CHECK(hsa_queue_destroy(queue));
        for (void* p : {static_cast<void*>(a), static_cast<void*>(b), static_cast<void*>(c), static_cast<void*>(args)})
            HSA_CHECK(hsa_amd_memory_pool_free(p));
    }
    HSA_CHECK(hsa_shut_down());
    return 0;
}
