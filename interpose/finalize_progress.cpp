// MPICH before 4.2 can hang in MPI_Finalize over UCX's TCP transport: each rank closes its
// endpoints (ucp_disconnect_nb), progresses UCX until its closes complete, then waits in a
// PMI barrier without progressing UCX; a peer that began closing later needs that rank's
// answer and never gets it. MPICH 4.2 put the barrier first (pmodels/mpich d6c7cd5b64).
// Here (4.0.2, UCX 1.13, TCP) most 4-rank jobs hung so, one rank in ucp_worker_progress and
// the others in the barrier's read() (docs/emulated-network.md).
//
// papshim keeps each rank answering: from its first endpoint close inside MPI_Finalize until
// MPICH releases the worker's address or destroys it, a thread of papshim's progresses the
// worker, and one lock orders that with every UCX call MPICH makes in the window (the closes,
// its own progress loop, the request checks and releases), so the worker is never used by two
// threads at once, whatever thread level MPI was started with. Built only against MPICH
// before 4.2; elsewhere the two hooks do nothing and no UCX symbol is interposed.
#include <mpi.h>

#include "entry_points.hpp"

#if defined(MPICH_NUMVERSION) && MPICH_NUMVERSION < 40200000

#include <dlfcn.h>

#include <array>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

namespace {

// UCX's types, opaque here: papshim does not need UCX's headers to forward its calls.
using Worker = void*;
using Status = int;  // ucs_status_t, an enum

// A UCX function after papshim's, looked up at its first call (constant-initialised, so a
// call from any constructor finds it ready to look up).
template <class Function>
class Next {
public:
    explicit constexpr Next(const char* name) : name_(name), function_(nullptr) {}
    Function operator*() {
        Function function = function_.load(std::memory_order_acquire);
        if (!function) function_.store(function = lookup(name_), std::memory_order_release);
        return function;
    }

private:
    static Function lookup(const char* name) { return reinterpret_cast<Function>(::dlsym(RTLD_NEXT, name)); }
    const char* name_;
    std::atomic<Function> function_;
};

constinit Next<Status (*)(void*, const void*, Worker*)> next_worker_create("ucp_worker_create");
constinit Next<void (*)(Worker)> next_worker_destroy("ucp_worker_destroy");
constinit Next<void (*)(Worker, void*)> next_worker_release_address("ucp_worker_release_address");
constinit Next<unsigned (*)(Worker)> next_worker_progress("ucp_worker_progress");
constinit Next<void* (*)(void*)> next_disconnect_nb("ucp_disconnect_nb");
constinit Next<int (*)(void*)> next_request_is_completed("ucp_request_is_completed");
constinit Next<void (*)(void*)> next_request_release("ucp_request_release");

// MPICH 4.0 makes one worker per VCI; it has one VCI unless configured for more.
constexpr std::size_t kMaxWorkers = 64;

struct FinalizeProgress {
    std::mutex ucx;                        // held around every UCX call in the window
    std::array<Worker, kMaxWorkers> workers{};
    std::size_t worker_count = 0;          // under ucx
    std::atomic<bool> finalizing{false};   // inside MPI_Finalize
    std::atomic<bool> window_open{false};  // the helper runs: every hooked call takes the lock
    std::atomic<bool> stop{false};
    std::thread helper;                    // started and joined by MPI_Finalize's thread
};
FinalizeProgress state;

void progress_until_stopped() {
    while (!state.stop.load(std::memory_order_acquire)) {
        {
            const std::lock_guard lock(state.ucx);
            for (std::size_t i = 0; i < state.worker_count; ++i) (*next_worker_progress)(state.workers[i]);
        }
        // A peer's close needs an answer within TCP's round trip, not at once; sleeping
        // leaves the cores to the ranks that still work.
        std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
}

void open_window() {
    if (state.window_open.load(std::memory_order_relaxed) || !*next_worker_progress) return;
    state.stop.store(false, std::memory_order_relaxed);
    state.window_open.store(true, std::memory_order_release);
    state.helper = std::thread(progress_until_stopped);
}

// Before MPICH lets the worker go; called on MPI_Finalize's thread, which opened the window.
void close_window() {
    if (!state.window_open.load(std::memory_order_relaxed)) return;
    state.stop.store(true, std::memory_order_release);
    if (state.helper.joinable()) state.helper.join();
    state.window_open.store(false, std::memory_order_release);
}

// Runs `call` under the lock while the helper runs, directly otherwise.
template <class Call>
decltype(auto) ordered(Call&& call) {
    if (!state.window_open.load(std::memory_order_acquire)) return call();
    const std::lock_guard lock(state.ucx);
    return call();
}

}  // namespace

namespace papshim::interpose {
void begin_finalize_progress() { state.finalizing.store(true, std::memory_order_release); }
void end_finalize_progress() {
    close_window();
    state.finalizing.store(false, std::memory_order_release);
}
}  // namespace papshim::interpose

extern "C" {

PAPSHIM_EXPORT Status ucp_worker_create(void* context, const void* params, Worker* worker) {
    const Status status = (*next_worker_create)(context, params, worker);
    if (status == 0 && worker) {
        const std::lock_guard lock(state.ucx);
        if (state.worker_count < kMaxWorkers) state.workers[state.worker_count++] = *worker;
    }
    return status;
}

PAPSHIM_EXPORT void ucp_worker_release_address(Worker worker, void* address) {
    close_window();
    (*next_worker_release_address)(worker, address);
}

PAPSHIM_EXPORT void ucp_worker_destroy(Worker worker) {
    close_window();
    {
        const std::lock_guard lock(state.ucx);
        for (std::size_t i = 0; i < state.worker_count; ++i) {
            if (state.workers[i] != worker) continue;
            state.workers[i] = state.workers[--state.worker_count];
            break;
        }
    }
    (*next_worker_destroy)(worker);
}

PAPSHIM_EXPORT void* ucp_disconnect_nb(void* endpoint) {
    if (state.finalizing.load(std::memory_order_acquire)) open_window();
    return ordered([&] { return (*next_disconnect_nb)(endpoint); });
}

PAPSHIM_EXPORT unsigned ucp_worker_progress(Worker worker) {
    return ordered([&] { return (*next_worker_progress)(worker); });
}

PAPSHIM_EXPORT int ucp_request_is_completed(void* request) {
    return ordered([&] { return (*next_request_is_completed)(request); });
}

PAPSHIM_EXPORT void ucp_request_release(void* request) {
    ordered([&] { (*next_request_release)(request); });
}

}  // extern "C"

#else

namespace papshim::interpose {
void begin_finalize_progress() {}
void end_finalize_progress() {}
}  // namespace papshim::interpose

#endif
