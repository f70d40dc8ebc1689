// A collective algorithm as data (DESIGN §4): ordered steps of sends and receives of
// block lists between ranks. Builders are pure functions; one executor runs any schedule
// over PMPI point-to-point, and the simulator runs the same schedule without MPI.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace papshim::schedule {

// One message to or from `peer`. `blocks` are block ids (for Allgather: the rank whose
// contribution it is), packed into the message in the listed order.
struct Transfer {
    int peer = -1;
    std::vector<int> blocks;
};

// All sends and receives of a step are posted together and completed together before the
// next step starts. `combine` (for reductions, later issues): received blocks are reduced
// into the local copy instead of overwriting it.
struct Step {
    std::vector<Transfer> sends;
    std::vector<Transfer> recvs;
    bool combine = false;
};

struct Schedule {
    int ranks = 0;   // p
    int rank = 0;    // the rank this schedule is for
    int blocks = 0;  // number of blocks (p for Allgather)
    std::vector<Step> steps;
};

// What a builder may look at: data that is identical on every rank (DESIGN §3).
struct BuildInput {
    int ranks = 1;
    int rank = 0;
    std::span<const double> predicted_arrival;  // empty when unknown
};

using Builder = Schedule (*)(const BuildInput&);

}  // namespace papshim::schedule
