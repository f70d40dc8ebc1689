// Ring (spec §3.1): p-1 steps; in step i rank r passes block r-i to r+1 and takes block
// r-i-1 from r-1. Any p.

#include "builders.hpp"

namespace papshim::allgather {

schedule::Schedule build_ring(const schedule::BuildInput& input) {
    const int p = input.ranks;
    const int r = input.rank;
    schedule::Schedule plan = empty_schedule(input);
    for (int i = 0; i + 1 < p; ++i) {
        add_exchange_step(plan, wrap_rank(r + 1, p), {wrap_rank(r - i, p)}, wrap_rank(r - 1, p),
                          {wrap_rank(r - i - 1, p)});
    }
    return plan;
}

double ring_cost(int ranks, double bytes_per_rank, const LinkModel& link) {
    return (ranks - 1) * (link.alpha + bytes_per_rank * link.beta);
}

}  // namespace papshim::allgather
