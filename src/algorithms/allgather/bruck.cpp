// Bruck (spec §3.4, Bruck et al. 1997): ceil(log2 p) steps for any p; in the step with
// distance d rank r sends the blocks r, r+1, ... it holds to r-d and receives r+d, r+d+1, ...
// from r+d. Written in rank-indexed form, as Open MPI's Allgatherv Bruck: blocks land in
// their final slots, so there is no local shift and no final rotation.

#include <algorithm>

#include "builders.hpp"

namespace papshim::allgather {

schedule::Schedule build_bruck(const schedule::BuildInput& input) {
    const int p = input.ranks;
    const int r = input.rank;
    schedule::Schedule plan = empty_schedule(input);
    for (int d = 1; d < p; d <<= 1) {
        // The last step of a non-power-of-two p only needs the p - d blocks still missing.
        const int count = std::min(d, p - d);
        add_exchange_step(plan, wrap_rank(r - d, p), block_run(r, count, p), wrap_rank(r + d, p),
                          block_run(static_cast<long long>(r) + d, count, p));
    }
    return plan;
}

double bruck_cost(int ranks, double bytes_per_rank, const LinkModel& link) {
    if (ranks <= 1) return 0.0;
    return ceil_log2(ranks) * link.alpha + (ranks - 1) * bytes_per_rank * link.beta;
}

}  // namespace papshim::allgather
