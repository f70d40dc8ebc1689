// The helper thread (DESIGN §5): it drives papshim's nonblocking background work — the plan
// exchanges, and receives a PAP-aware algorithm posts before its rank enters the call — to
// completion while the application computes, so no rank waits for another's progress. It
// polls with back-off (naps up to 1 ms while the application computes, 50 us while a call
// awaits the work) and sleeps on a condition variable when idle: it never spins on a core
// the application needs. Only with MPI_THREAD_MULTIPLE.
#pragma once

#include <mpi.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace papshim::plan {

// A nonblocking operation of papshim's own (an exchange, a background receive) failed on
// this rank: the other ranks would wait for it forever, so the job ends with one line that
// says why (MPI_Abort).
[[noreturn]] void abort_on_internal_error(const char* what, int error);

class Progress {
public:
    static Progress& instance();

    // Starts the thread (once); false when MPI does not allow it (no MPI_THREAD_MULTIPLE).
    bool start(bool thread_multiple);
    // Completes every watched request and stops the thread (MPI_Finalize, before PMPI_Finalize).
    void stop();
    bool running() const { return running_.load(std::memory_order_acquire); }

    // Hands `requests` over to the thread: it tests them until all are complete, then runs
    // `then` on the thread (may be empty) and stores true into `done` (release). The caller
    // does not touch the requests afterwards. Without the thread, callers do not watch: they
    // wait for their requests themselves.
    // With `cancel`: once it reads true, the thread cancels the requests still pending (the
    // messages will not come) and completes the watch.
    void watch(std::vector<MPI_Request> requests, std::function<void()> then, std::atomic<bool>* done,
               std::atomic<bool>* cancel = nullptr);

    // Returns once `done` (a watch's flag) is true; meanwhile the thread naps at most 50 us
    // between polls. Only while the thread runs, and never on the thread itself (from a
    // watch's continuation): nothing would complete the watch.
    void await(const std::atomic<bool>& done);

private:
    struct Watch {
        std::vector<MPI_Request> requests;
        std::function<void()> then;
        std::atomic<bool>* done;
        std::atomic<bool>* cancel;
        bool cancelled = false;
    };
    void loop();
    bool poll(std::vector<Watch>& active);

    std::mutex lock_;
    std::condition_variable wake_;
    std::vector<Watch> incoming_;  // guarded by lock_
    std::atomic<bool> running_{false};
    bool stopping_ = false;        // guarded by lock_
    bool hurry_ = false;           // guarded by lock_: a call began to await; poll now
    std::atomic<int> awaiting_{0};  // calls awaiting watched work
    std::thread thread_;
};

}  // namespace papshim::plan
