// test/hostile/watchdog.hpp — a case that would hang fails in seconds: the watchdog ends the
// process (status 3, saying which case) unless it is destroyed within its time.
//
//   const test_hostile::watchdog w(20, "two callback threads flushing each other");
#pragma once

#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

namespace test_hostile {

class watchdog {
public:
    watchdog(int seconds, const char* what)
        : thread_([this, seconds, what] {
              std::unique_lock lk(m_);
              if (cv_.wait_for(lk, std::chrono::seconds(seconds), [&] { return done_; })) return;
              std::fprintf(stderr, "WATCHDOG: \"%s\" did not finish within %d s (a hang)\n", what, seconds);
              std::fflush(stderr);
              ::_exit(3);
          }) {}
    ~watchdog() {
        {
            std::lock_guard lk(m_);
            done_ = true;
        }
        cv_.notify_all();
        thread_.join();
    }
    watchdog(const watchdog&) = delete;
    watchdog& operator=(const watchdog&) = delete;

private:
    std::mutex m_;
    std::condition_variable cv_;
    bool done_ = false;
    std::thread thread_;  // last: started once the members it uses exist
};

}  // namespace test_hostile
