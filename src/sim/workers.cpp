// The per-agent worker threads (ENCORE_SIM_THREADS_PER_AGENT) that share a dispatch's work-groups.
#include "sim_internal.hpp"

namespace encore::sim {

WorkerPool::WorkerPool(uint32_t nthreads) {
    for (uint32_t i = 0; i < nthreads; ++i) threads_.emplace_back([this, i] { loop(i + 1); });
}

WorkerPool::~WorkerPool() {
    {
        std::lock_guard<std::mutex> lk(mu_);
        stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
}

void WorkerPool::run(Job& job) {
    {
        std::lock_guard<std::mutex> lk(mu_);
        jobs_.push_back(&job);
    }
    cv_.notify_all();
    for (uint64_t i; (i = job.next.fetch_add(1, std::memory_order_relaxed)) < job.total;) {
        job.fn(job.ctx, i, 0);
        job.done.fetch_add(1, std::memory_order_acq_rel);
    }
    std::unique_lock<std::mutex> lk(mu_);
    for (auto it = jobs_.begin(); it != jobs_.end(); ++it)
        if (*it == &job) {
            jobs_.erase(it);
            break;
        }
    done_cv_.wait(lk, [&] { return job.active == 0 && job.done.load(std::memory_order_acquire) == job.total; });
}

void WorkerPool::loop(uint32_t index) {
    std::unique_lock<std::mutex> lk(mu_);
    for (;;) {
        cv_.wait(lk, [&] { return stop_ || !jobs_.empty(); });
        if (stop_) return;
        Job* job = jobs_.front();
        if (job->next.load(std::memory_order_relaxed) >= job->total) {
            jobs_.pop_front();
            continue;
        }
        ++job->active;
        lk.unlock();
        for (uint64_t i; (i = job->next.fetch_add(1, std::memory_order_relaxed)) < job->total;) {
            job->fn(job->ctx, i, index);
            job->done.fetch_add(1, std::memory_order_acq_rel);
        }
        lk.lock();
        --job->active;
        if (job->active == 0) done_cv_.notify_all();
    }
}

}  // namespace encore::sim
