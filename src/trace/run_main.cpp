// src/trace/run_main.cpp — encore-trace-run: what encore-trace execs into to run the program and
// then convert its records. It stays the process the caller started (the script execs it), so:
//
//  - a signal sent to encore-trace by pid (`kill $!`, a scheduler's SIGTERM, `timeout`'s) reaches
//    the program, once: a signal that came from another process (SI_USER, SI_QUEUE, SI_TKILL) is
//    forwarded; one the kernel sent to the whole foreground group (a terminal's ^C or ^\) already
//    reached the program too and is not sent again (a shell's trap cannot tell the two apart);
//  - the program keeps the dispositions the caller gave (a signal ignored under nohup stays
//    ignored), and only it gets the libraries to preload (not this process, not the converter);
//  - after the program ended, however it ended, the converter runs; then this process ends the way
//    the program did: its exit status, or death by the same signal, as if it had run alone;
//  - SIGKILL to this process (which no process can forward) kills the program too; its records
//    stay in the record folder, which encore-trace-convert converts.
//
//   encore-trace-run [--preload LIST] [--remove DIR] --convert N CMD_1 ... CMD_N PROGRAM [ARGS...]
//
// CMD is the converter's command line; `--launcher-pid PID` and `--child-status S` (its exit
// status) or `--child-signal N` (it died of signal N) are appended to it. --remove: the
// record folder, removed after the converter succeeded (kept, and named, when it failed). Exit status 127 when PROGRAM cannot be run.
#include <ftw.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace {

volatile sig_atomic_t g_child = 0;  // the process signals are forwarded to (the program, then the converter)

constexpr int forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGWINCH, SIGCONT};

void forward(int sig, siginfo_t* info, void*) {
    const int saved = errno;
    const bool from_process = info->si_code == SI_USER || info->si_code == SI_QUEUE || info->si_code == SI_TKILL;
    // SIGWINCH comes from the terminal to the foreground group: the program has it already.
    if (from_process && g_child > 0 && info->si_pid != g_child && sig != SIGWINCH) ::kill(g_child, sig);
    errno = saved;
}

// Runs argv with the signal mask `mask` restored in the child; its pid, or -1. `preload`: the
// child's LD_PRELOAD (null: as inherited).
pid_t spawn(char* const* argv, const sigset_t& mask, const char* preload) {
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid != 0) return pid;
    // SIGKILL to encore-trace, which nothing can forward, takes the program with it, as when the
    // script exec'd the program (its records stay in the record folder: docs/trace.md).
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // the parent died before the line above
    // The child: dispositions as the caller gave them (exec resets the handlers installed here to
    // the default; ignored signals stay ignored), the caller's mask.
    if (preload != nullptr) ::setenv("LD_PRELOAD", preload, 1);
    ::sigprocmask(SIG_SETMASK, &mask, nullptr);
    ::execvp(argv[0], argv);
    std::fprintf(stderr, "encore-trace: %s: %s\n", argv[0], std::strerror(errno));
    ::_exit(errno == ENOENT ? 127 : 126);
}

struct ended {
    int status = 0;  // the exit status
    int signal = 0;  // or the signal it died of
};
ended wait_for(pid_t pid) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return {127, 0};
    if (WIFSIGNALED(status)) return {0, WTERMSIG(status)};
    return {WIFEXITED(status) ? WEXITSTATUS(status) : 1, 0};
}

int remove_entry(const char* path, const struct stat*, int, struct FTW*) { return ::remove(path); }

[[noreturn]] void usage() {
    std::fputs("usage: encore-trace-run [--preload LIST] [--remove DIR] --convert N CMD... PROGRAM [ARGS...]\n", stderr);
    std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
    const char* preload = nullptr;
    const char* remove = nullptr;
    std::vector<char*> convert;
    int i = 1;
    for (; i < argc; ++i) {
        const std::string_view a = argv[i];
        if (a == "--preload" && i + 1 < argc) {
            preload = argv[++i];
        } else if (a == "--remove" && i + 1 < argc) {
            remove = argv[++i];
        } else if (a == "--convert" && i + 1 < argc) {
            char* end = nullptr;
            const long n = std::strtol(argv[++i], &end, 10);
            if (*end != '\0' || n <= 0 || n > argc - i - 2) usage();
            convert.assign(argv + i + 1, argv + i + 1 + n);
            i += static_cast<int>(n) + 1;
            break;
        } else {
            usage();
        }
    }
    if (convert.empty() || i >= argc) usage();

    // Signals blocked from before the fork until the handlers are in place: none is lost, and
    // none meets the default action in this process.
    sigset_t all, caller;
    ::sigemptyset(&all);
    for (const int s : forwarded) ::sigaddset(&all, s);
    ::sigprocmask(SIG_BLOCK, &all, &caller);
    const pid_t program = spawn(argv + i, caller, preload);
    if (program < 0) {
        std::fprintf(stderr, "encore-trace: cannot start %s: %s\n", argv[i], std::strerror(errno));
        return 126;
    }
    g_child = program;
    for (const int s : forwarded) {
        struct sigaction old {};
        ::sigaction(s, nullptr, &old);
        if (old.sa_handler == SIG_IGN) continue;  // ignored by the caller: the program ignores it too
        struct sigaction sa {};
        sa.sa_sigaction = forward;
        // No SA_RESTART: waitpid returns EINTR (wait_for loops), so that a sanitizer which defers
        // a signal's handler to its next intercepted call (ThreadSanitizer does) runs it then,
        // rather than after a waitpid restarted until the program ends (which never came).
        sa.sa_flags = SA_SIGINFO;
        ::sigemptyset(&sa.sa_mask);
        ::sigaction(s, &sa, nullptr);
    }
    ::sigprocmask(SIG_SETMASK, &caller, nullptr);
    const ended how = wait_for(program);

    // The converter, also reached by forwarded signals (a second ^C from a terminal stops it).
    std::vector<std::string> extra = {"--launcher-pid", std::to_string(::getpid()),
                                      how.signal != 0 ? "--child-signal" : "--child-status",
                                      std::to_string(how.signal != 0 ? how.signal : how.status)};
    for (auto& e : extra) convert.push_back(e.data());
    convert.push_back(nullptr);
    ::sigprocmask(SIG_BLOCK, &all, nullptr);
    const pid_t converter = spawn(convert.data(), caller, nullptr);
    g_child = converter;
    ::sigprocmask(SIG_SETMASK, &caller, nullptr);
    const ended converted = converter < 0 ? ended{1, 0} : wait_for(converter);
    g_child = 0;
    // The records are the only copy of the run until the converter has written every output: a
    // converter that failed (a full disk, a signal) leaves them, and says how to convert them later.
    const bool converter_ok = converted.status == 0 && converted.signal == 0;
    if (remove != nullptr && converter_ok) ::nftw(remove, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    if (remove != nullptr && !converter_ok)
        std::fprintf(stderr,
                     "[encore-trace] the conversion failed: the records are kept in %s (convert them with "
                     "encore-trace-convert [-f FORMATS] [-d DIR] %s, then remove the folder)\n",
                     remove, remove);

    if (how.signal != 0) {
        // Ends as the program did: by its signal (no core file of this process).
        const int sig = how.signal;
        struct rlimit none {};
        ::setrlimit(RLIMIT_CORE, &none);
        ::signal(sig, SIG_DFL);
        sigset_t only;
        ::sigemptyset(&only);
        ::sigaddset(&only, sig);
        ::sigprocmask(SIG_UNBLOCK, &only, nullptr);
        ::raise(sig);
        return 128 + sig;  // a signal this process cannot die of (SIGCONT, ...): as a shell says it
    }
    return how.status != 0 ? how.status : (converted.status != 0 || converted.signal != 0 ? 1 : 0);
}
