// Recursive doubling (spec §3.3): for power-of-two p, log2 p pairwise steps; in the step with
// distance d rank r swaps its aligned group of d blocks with partner r XOR d. Other p run the
// Bruck schedule instead, as Open MPI does (spec §6 item 10).

#include "builders.hpp"

namespace papshim::allgather {

schedule::Schedule build_recursive_doubling(const schedule::BuildInput& input) {
    const int p = input.ranks;
    const int r = input.rank;
    if (!is_power_of_two(p)) return build_bruck(input);

    schedule::Schedule plan = empty_schedule(input);
    int group = r;  // first block of the aligned group of d blocks held, contiguous
    for (int d = 1; d < p; d <<= 1) {
        const int partner = r ^ d;
        const int partner_group = group ^ d;
        add_exchange_step(plan, partner, block_run(group, d, p), partner, block_run(partner_group, d, p));
        group = group < partner_group ? group : partner_group;
    }
    return plan;
}

double recursive_doubling_cost(int ranks, double bytes_per_rank, const LinkModel& link) {
    if (!is_power_of_two(ranks)) return bruck_cost(ranks, bytes_per_rank, link);
    return ceil_log2(ranks) * link.alpha + (ranks - 1) * bytes_per_rank * link.beta;
}

}  // namespace papshim::allgather
