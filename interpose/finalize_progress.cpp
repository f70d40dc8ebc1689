// MPICH before 4.2 can hang in MPI_Finalize over UCX's TCP transport: each rank closes its
// endpoints (ucp_disconnect_nb), progresses UCX until its closes complete, then waits in a
// PMI barrier without progressing UCX; a peer that began closing later needs that rank's
// answer and never gets it. MPICH 4.2 put the barrier first (pmodels/mpich d6c7cd5b64).
// Here (4.0.2, UCX 1.13, TCP) most 4-rank jobs hung so, one rank in ucp_worker_progress and
// the others in the barrier's read() (docs/emulated-network.md).
//
// papshim keeps each rank answering: from its first endpoint close inside MPI_Finalize (or
// MPI_Session_finalize) until MPICH destroys the worker (4.0.2 never releases its address),
// a thread of papshim's progresses the workers MPICH made, and one lock orders
// that with every UCX call MPICH makes in the window (the closes, its own progress loop, the
// request checks and releases, and the releases its own callbacks make from inside progress),
// so a worker is never used by two threads at once, whatever thread level MPI was started
// with. Built only against MPICH before 4.2; elsewhere the hooks do nothing and no UCX symbol
// is interposed.
#include <mpi.h>

#include "entry_points.hpp"

#if defined(MPICH_NUMVERSION) && MPICH_NUMVERSION < 40200000

#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <utility>

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
    std::size_t worker_count = 0;          // under ucx: the workers MPICH made
    std::atomic<bool> finalizing{false};   // inside MPI_Finalize/MPI_Session_finalize
    std::atomic<bool> stop{false};
    std::thread helper;                    // started and joined by the thread that opened the window
    std::thread::id opener;
};

// The helper runs: every hooked call takes the lock. Apart from the state below, so that
// MPICH's every ucp_worker_progress reads one constant-initialised flag.
constinit std::atomic<bool> window_open{false};

// Never destroyed: MPICH may end the process (a fatal error in its finalize) with the helper
// running, and a joinable std::thread's destructor would abort it.
FinalizeProgress& state() {
    static FinalizeProgress* const progress = new FinalizeProgress;
    return *progress;
}

// How deep this thread is in calls made under the lock: MPICH's callbacks, run inside
// ucp_worker_progress, call ucp_request_release themselves; those go straight through.
thread_local int lock_depth = 0;

class Locked {
public:
    explicit Locked(std::mutex& mutex) : lock_(mutex) { ++lock_depth; }
    ~Locked() { --lock_depth; }
    Locked(const Locked&) = delete;
    Locked& operator=(const Locked&) = delete;

private:
    std::lock_guard<std::mutex> lock_;
};

void progress_until_stopped() {
    FinalizeProgress& s = state();
    while (!s.stop.load(std::memory_order_acquire)) {
        {
            const Locked locked(s.ucx);
            for (std::size_t i = 0; i < s.worker_count; ++i) (*next_worker_progress)(s.workers[i]);
        }
        // A peer's close needs an answer within TCP's round trip, not at once; sleeping
        // leaves the cores to the ranks that still work.
        std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
}

void open_window() {
    FinalizeProgress& s = state();
    if (window_open.load(std::memory_order_relaxed) || !*next_worker_progress) return;
    // A process that exits with the window open (MPICH's fatal errors) stops the helper.
    static const bool stops_at_exit = std::atexit([] { state().stop.store(true, std::memory_order_release); }) == 0;
    (void)stops_at_exit;
    s.stop.store(false, std::memory_order_relaxed);
    s.opener = std::this_thread::get_id();
    window_open.store(true, std::memory_order_release);
    s.helper = std::thread(progress_until_stopped);
}

// Before MPICH lets its worker go: only on the thread that opened the window (the only one
// that joins the helper), and never under the lock, which the helper may be waiting for.
void close_window() {
    FinalizeProgress& s = state();
    if (!window_open.load(std::memory_order_acquire) || s.opener != std::this_thread::get_id() || lock_depth > 0)
        return;
    s.stop.store(true, std::memory_order_release);
    if (s.helper.joinable()) s.helper.join();
    window_open.store(false, std::memory_order_release);
}

// Runs `call` under the lock, or directly on a thread that holds it already.
template <class Call>
decltype(auto) under_lock(Call&& call) {
    if (lock_depth > 0) return call();
    const Locked locked(state().ucx);
    return call();
}

// Runs `call` under the lock while the helper runs, directly otherwise.
template <class Call>
decltype(auto) ordered(Call&& call) {
    if (!window_open.load(std::memory_order_acquire)) return call();
    return under_lock(std::forward<Call>(call));
}

// Whether `address` lies in the MPI library (the object that defines PMPI_Init): MPICH's
// workers are progressed, those of another UCX user in the process never.
bool called_from_mpi(const void* address) {
    static const void* const mpi_library = [] {
        Dl_info info{};
        return ::dladdr(reinterpret_cast<const void*>(&PMPI_Init), &info) ? info.dli_fbase : nullptr;
    }();
    Dl_info info{};
    return mpi_library && ::dladdr(address, &info) && info.dli_fbase == mpi_library;
}

// Where `worker` is among the workers MPICH made, or null (another UCX user's); under the lock.
Worker* recorded(FinalizeProgress& s, Worker worker) {
    Worker* const end = s.workers.data() + s.worker_count;
    Worker* const found = std::find(s.workers.data(), end, worker);
    return found == end ? nullptr : found;
}

bool mpis_worker(Worker worker) {
    return under_lock([&] { return recorded(state(), worker) != nullptr; });
}

}  // namespace

namespace papshim::interpose {
void begin_finalize_progress() { state().finalizing.store(true, std::memory_order_release); }
void end_finalize_progress() {
    close_window();
    state().finalizing.store(false, std::memory_order_release);
}
}  // namespace papshim::interpose

extern "C" {

PAPSHIM_EXPORT Status ucp_worker_create(void* context, const void* params, Worker* worker) {
    const Status status = (*next_worker_create)(context, params, worker);
    FinalizeProgress& s = state();
    if (status == 0 && worker && called_from_mpi(__builtin_return_address(0))) {
        under_lock([&] {
            if (s.worker_count < kMaxWorkers) s.workers[s.worker_count++] = *worker;
        });
    }
    return status;
}

PAPSHIM_EXPORT void ucp_worker_release_address(Worker worker, void* address) {
    if (mpis_worker(worker)) close_window();
    (*next_worker_release_address)(worker, address);
}

PAPSHIM_EXPORT void ucp_worker_destroy(Worker worker) {
    if (mpis_worker(worker)) {
        close_window();
        FinalizeProgress& s = state();
        under_lock([&] {
            if (Worker* const found = recorded(s, worker)) *found = s.workers[--s.worker_count];
        });
    }
    (*next_worker_destroy)(worker);
}

PAPSHIM_EXPORT void* ucp_disconnect_nb(void* endpoint) {
    if (state().finalizing.load(std::memory_order_acquire)) open_window();
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
