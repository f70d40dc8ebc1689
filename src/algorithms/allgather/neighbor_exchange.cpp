// Neighbour exchange (spec §3.2, Chen et al. 2005): p/2 pairwise steps for even p. Step 0
// swaps own blocks with one neighbour; every later step forwards the aligned pair
// (2q, 2q+1) received last to the other neighbour, alternating sides. Odd p has no pairing,
// so it runs the ring schedule instead, as Open MPI does.

#include "builders.hpp"

namespace papshim::allgather {

schedule::Schedule build_neighbor_exchange(const schedule::BuildInput& input) {
    const int p = input.ranks;
    const int r = input.rank;
    if (p % 2 != 0) return build_ring(input);

    schedule::Schedule plan = empty_schedule(input);
    const bool even = r % 2 == 0;
    // neighbour[s % 2] is the partner of step s; even ranks start rightwards, odd leftwards.
    const int neighbour[2] = {wrap_rank(even ? r + 1 : r - 1, p), wrap_rank(even ? r - 1 : r + 1, p)};
    // First block of the pair arriving from each side; it moves 2 further each time.
    int pair_from[2] = {even ? r : r - 1, even ? r : r - 1};
    const int pair_stride[2] = {even ? 2 : -2, even ? -2 : 2};

    add_exchange_step(plan, neighbour[0], {r}, neighbour[0], {neighbour[0]});
    int forward = even ? r : r - 1;  // the pair this rank holds after step 0
    for (int step = 1; step < p / 2; ++step) {
        const int side = step % 2;
        pair_from[side] = wrap_rank(pair_from[side] + pair_stride[side], p);
        add_exchange_step(plan, neighbour[side], {forward, forward + 1}, neighbour[side],
                          {pair_from[side], pair_from[side] + 1});
        forward = pair_from[side];
    }
    return plan;
}

double neighbor_exchange_cost(int ranks, double bytes_per_rank, const LinkModel& link) {
    if (ranks % 2 != 0) return ring_cost(ranks, bytes_per_rank, link);
    return (ranks / 2) * link.alpha + (ranks - 1) * bytes_per_rank * link.beta;
}

}  // namespace papshim::allgather
