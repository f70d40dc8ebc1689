#include "papshim/progress.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "papshim/node_shared.hpp"

namespace papshim::plan {
namespace {

// The helper thread's nap between polls of pending work doubles from kFirstNap. While a
// rank's call waits for that work (await()), up to kNapAwaited: the call needs it now. While
// nobody waits, the application computes and the work only has to be done by its next call:
// up to kNapInBackground. Polling MPI every 50 us for a whole imbalance froze this machine's
// VM for 10-65 s at a time (8 ranks on 2 cores, Reduce with 2 ranks per emulated node;
// docs/benchmarks.md, "The helper thread's polling froze the machine").
constexpr std::chrono::nanoseconds kFirstNap{1'000}, kNapAwaited{50'000}, kNapInBackground{1'000'000};

}  // namespace

void abort_on_internal_error(const char* what, int error) {
    char text[MPI_MAX_ERROR_STRING] = {};
    int length = 0;
    if (PMPI_Error_string(error, text, &length) != MPI_SUCCESS) std::snprintf(text, sizeof text, "error %d", error);
    std::fprintf(stderr, "papshim: %s failed on this rank (%s); ending the job, as the other ranks would wait for it\n",
                 what, text);
    std::fflush(stderr);
    PMPI_Abort(MPI_COMM_WORLD, 1);
    std::abort();  // PMPI_Abort does not return
}

Progress& Progress::instance() {
    // Never destroyed: a program may exit() without MPI_Finalize while the thread runs, and
    // destroying a joinable std::thread at exit would call std::terminate (SIGABRT, and the
    // program's exit status lost).
    static Progress* const progress = new Progress;
    return *progress;
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

void Progress::await(const std::atomic<bool>& done) {
    if (done.load(std::memory_order_acquire)) return;
    awaiting_.fetch_add(1, std::memory_order_acq_rel);
    {
        std::lock_guard guard(lock_);
        hurry_ = true;
    }
    wake_.notify_one();
    node::wait_until([&] { return done.load(std::memory_order_acquire); });
    awaiting_.fetch_sub(1, std::memory_order_acq_rel);
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
        if (const int error = PMPI_Testall(int(w.requests.size()), w.requests.data(), &flag, MPI_STATUSES_IGNORE);
            error != MPI_SUCCESS && !w.cancelled)
            abort_on_internal_error("a background exchange or receive", error);
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
    std::chrono::nanoseconds nap = kFirstNap;
    for (;;) {
        {
            std::unique_lock guard(lock_);
            if (active.empty() && incoming_.empty() && !stopping_) wake_.wait(guard);
            if (hurry_ || !incoming_.empty()) nap = kFirstNap;
            hurry_ = false;
            for (Watch& w : incoming_) active.push_back(std::move(w));
            incoming_.clear();
            // Stop only once nothing is left: every watched exchange completes, since every
            // rank posted it.
            if (stopping_ && active.empty()) return;
        }
        if (poll(active)) {
            nap = kFirstNap;
            continue;
        }
        // Back off; new work or a waiting call cuts the nap short (stop() does not: the watches
        // left still need polling, not faster). Other ranks' helpers may be napping up to
        // 1 ms too, so a multi-round exchange can lag a little while everyone computes; the
        // rounds still complete before the calls that need them (measured: no loss, docs).
        std::unique_lock guard(lock_);
        wake_.wait_for(guard, nap, [this] { return hurry_ || !incoming_.empty(); });
        const auto cap = awaiting_.load(std::memory_order_acquire) > 0 ? kNapAwaited : kNapInBackground;
        nap = std::min(nap * 2, cap);
    }
}

}  // namespace papshim::plan
