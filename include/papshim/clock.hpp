// The job-global clock (DESIGN §5): a monotonic local clock plus a per-rank offset to
// world rank 0, estimated at init by ping-pong (the exchange with the smallest round trip
// wins, since its midpoint is the least skewed by queueing).
#pragma once

#include <mpi.h>

#include <chrono>
#include <cstdint>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include "papshim/algorithms.hpp"

namespace papshim::clock {

inline double local_now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Hot-path timestamps: the CPU's time-stamp counter where the kernel reports it invariant
// (x86 `constant_tsc` and `nonstop_tsc`), a few ns to read; elsewhere steady_clock
// nanoseconds. Ticks become seconds through a TickFit measured over the run.
inline bool use_tsc = false;  // set once by select_tick_source(), before any call is timed

inline std::uint64_t ticks() {
#if defined(__x86_64__) || defined(__i386__)
    if (use_tsc) return __rdtsc();
#endif
    return std::uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                             std::chrono::steady_clock::now().time_since_epoch()).count());
}

// Reads the CPU flags and sets use_tsc. Returns the name of the source ("tsc" or "steady_clock").
const char* select_tick_source();

// A moment on both clocks at once, for fitting ticks to seconds.
struct ClockPoint {
    std::uint64_t tick = 0;
    double local = 0.0;  // local_now()
};
ClockPoint point_now();

// Linear map from ticks to global seconds. Exact for an invariant counter; the fit between
// two points far apart (init and finalize) keeps the error to the clock-read jitter.
struct TickFit {
    std::uint64_t tick0 = 0;
    double seconds0 = 0.0;           // global seconds at tick0
    double seconds_per_tick = 1e-9;
    double seconds(std::uint64_t t) const {
        return seconds0 + (t >= tick0 ? double(t - tick0) : -double(tick0 - t)) * seconds_per_tick;
    }
};
TickFit fit_ticks(const ClockPoint& start, const ClockPoint& end, double clock_offset);

struct Synchronisation {
    double offset = 0.0;   // add to local_now() to get global time (0 = rank 0's sync)
    double max_rtt = 0.0;  // largest minimum round trip over the ranks (accuracy bound ×½)
    LinkModel link;        // α, β measured between world rank 0 and the last rank
};

// Collective over `comm` (a private duplicate of MPI_COMM_WORLD). Every rank returns the
// same `link` and `max_rtt` (broadcast from rank 0), so decisions based on them agree.
Synchronisation synchronise(MPI_Comm comm);

// α and β between `comm`'s rank 0 and its last rank (with block mapping the farthest pair):
// the minimum one-way time of 8 bytes, and a 1 MiB back-to-back stream after a warm-up round.
// Collective over `comm` (a private duplicate: tags 1-2 must be free); every rank returns
// rank 0's result. `rounds`: timed rounds of each (at MPI_Init 20 ping-pongs, 5 streams).
struct LinkRounds {
    int ping_pongs = 20;
    int streams = 5;
};
LinkModel measure_link(MPI_Comm comm, LinkRounds rounds = {});

}  // namespace papshim::clock
