#include "papshim/progress.hpp"

#include <ctime>

namespace papshim::plan {

Progress& Progress::instance() {
    static Progress progress;
    return progress;
}

bool Progress::start(bool thread_multiple) {
    if (!thread_multiple) return false;
    if (running()) return true;
    {
        std::lock_guard guard(lock_);
        stopping_ = false;
    }
    thread_ = std::thread([this] { loop(); });
    running_.store(true, std::memory_order_release);
    return true;
}

void Progress::stop() {
    if (!running()) return;
    {
        std::lock_guard guard(lock_);
        stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
    running_.store(false, std::memory_order_release);
}

void Progress::watch(std::vector<MPI_Request> requests, std::function<void()> then, std::atomic<bool>* done,
                     std::atomic<bool>* cancel) {
    {
        std::lock_guard guard(lock_);
        incoming_.push_back({std::move(requests), std::move(then), done, cancel});
    }
    wake_.notify_one();
}

// Tests every active watch once; finished ones run their continuation and leave the list.
bool Progress::poll(std::vector<Watch>& active) {
    bool completed = false;
    for (std::size_t i = 0; i < active.size();) {
        Watch& w = active[i];
        if (w.cancel && !w.cancelled && w.cancel->load(std::memory_order_acquire)) {
            for (MPI_Request& r : w.requests)
                if (r != MPI_REQUEST_NULL) PMPI_Cancel(&r);
            w.cancelled = true;
        }
        int flag = 0;
        PMPI_Testall(int(w.requests.size()), w.requests.data(), &flag, MPI_STATUSES_IGNORE);
        if (!flag) {
            ++i;
            continue;
        }
        if (w.then) w.then();
        w.done->store(true, std::memory_order_release);
        active.erase(active.begin() + std::ptrdiff_t(i));
        completed = true;
    }
    return completed;
}

void Progress::loop() {
    std::vector<Watch> active;
    long nap_ns = 1000;
    for (;;) {
        {
            std::unique_lock guard(lock_);
            if (active.empty() && incoming_.empty() && !stopping_) wake_.wait(guard);
            for (Watch& w : incoming_) active.push_back(std::move(w));
            incoming_.clear();
            // Stop only once nothing is left: every watched exchange completes, since every
            // rank posted it.
            if (stopping_ && active.empty()) return;
        }
        if (poll(active)) {
            nap_ns = 1000;
            continue;
        }
        // Back off: a few microseconds after recent progress, up to 50 us when waiting long.
        const timespec nap{0, nap_ns};
        nanosleep(&nap, nullptr);
        nap_ns = std::min(nap_ns * 2, 50'000L);
    }
}

}  // namespace papshim::plan
