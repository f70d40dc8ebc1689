// Sparbit: stripe-parallel binomial trees (spec §2, [T] Ch. 4). Bruck's exchange pattern
// (send right by d, receive from the left) with the distances reversed: d starts at the
// largest power of two below p and halves down to 1, so the heaviest steps are the
// shortest-distance ones. Any p; ceil(log2 p) steps; p-1 blocks received per rank.

#include <cstdint>

#include "builders.hpp"

namespace papshim::allgather {

namespace {

// Bit i of the mask is set when the step with distance 2^i drops one block: at the lowest
// set bit of p, and above it wherever p's bit is 0 ([T] Alg. 1; spec §2.2).
std::uint32_t ignore_mask(int ranks) {
    const auto p = static_cast<std::uint32_t>(ranks);
    const int low_bit = std::countr_zero(p);
    return ((~(p >> low_bit)) | 1U) << low_bit;
}

}  // namespace

schedule::Schedule build_sparbit(const schedule::BuildInput& input) {
    const int p = input.ranks;
    const int r = input.rank;
    schedule::Schedule plan = empty_schedule(input);
    if (p <= 1) return plan;

    const std::uint32_t mask = ignore_mask(p);
    int held = 1;  // blocks r, r-d, r-2d, ... after the previous step (spec §2.2 invariant)
    for (int d = 1 << (ceil_log2(p) - 1); d >= 1; d >>= 1) {
        const int dropped = (static_cast<std::uint32_t>(d) & mask) != 0 ? 1 : 0;
        const int count = held - dropped;
        // The j-th block sent is the receiver's j-th block: r - 2jd leaves r and arrives at
        // r + d as (r + d) - (2j + 1)d. Own block first, as [T] issues them.
        std::vector<int> sent(static_cast<std::size_t>(count));
        std::vector<int> received(static_cast<std::size_t>(count));
        for (int j = 0; j < count; ++j) {
            sent[static_cast<std::size_t>(j)] = wrap_rank(r - 2LL * j * d, p);
            received[static_cast<std::size_t>(j)] = wrap_rank(r - (2LL * j + 1) * d, p);
        }
        add_exchange_step(plan, wrap_rank(r + d, p), std::move(sent), wrap_rank(r - d, p),
                          std::move(received));
        held = 2 * held - dropped;
    }
    return plan;
}

// [T]'s cost is ceil(log2 p)·α + (p-1)·b·β plus τ per extra pipelined send. The executor
// sends a step's blocks as one message (one datatype), so τ is 0 here: the model ties
// Bruck's, and the registry lists Sparbit first so it wins the tie.
double sparbit_cost(int ranks, double bytes_per_rank, const LinkModel& link) {
    if (ranks <= 1) return 0.0;
    return ceil_log2(ranks) * link.alpha + (ranks - 1) * bytes_per_rank * link.beta;
}

}  // namespace papshim::allgather
