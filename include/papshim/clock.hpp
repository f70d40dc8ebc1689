// The job-global clock (DESIGN §5): a monotonic local clock plus a per-rank offset to
// world rank 0, estimated at init by ping-pong (the exchange with the smallest round trip
// wins, since its midpoint is the least skewed by queueing).
#pragma once

#include <mpi.h>

#include <chrono>

#include "papshim/algorithms.hpp"

namespace papshim::clock {

inline double local_now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Synchronisation {
    double offset = 0.0;   // add to local_now() to get global time (0 = rank 0's sync)
    double max_rtt = 0.0;  // largest minimum round trip over the ranks (accuracy bound ×½)
    LinkModel link;        // α, β measured between world rank 0 and the last rank
};

// Collective over `comm` (a private duplicate of MPI_COMM_WORLD). Every rank returns the
// same `link` and `max_rtt` (broadcast from rank 0), so decisions based on them agree.
Synchronisation synchronise(MPI_Comm comm);

}  // namespace papshim::clock
