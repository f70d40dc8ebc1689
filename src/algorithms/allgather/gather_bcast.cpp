// Gather + broadcast (spec §3.5, Open MPI's "linear"): step 0 gathers every block at rank 0;
// then a binomial tree from rank 0 sends each rank all blocks but its own, in ceil(log2 p)
// steps (step 1+t: ranks below 2^t send to rank + 2^t). Any p.

#include "builders.hpp"

namespace papshim::allgather {

namespace {

constexpr int kRoot = 0;

// Every block except `rank`'s: two runs, both in ascending order.
std::vector<int> all_blocks_but(int rank, int ranks) {
    std::vector<int> blocks;
    blocks.reserve(static_cast<std::size_t>(ranks - 1));
    for (int b = 0; b < ranks; ++b) {
        if (b != rank) blocks.push_back(b);
    }
    return blocks;
}

}  // namespace

schedule::Schedule build_gather_bcast(const schedule::BuildInput& input) {
    const int p = input.ranks;
    const int r = input.rank;
    schedule::Schedule plan = empty_schedule(input);
    if (p <= 1) return plan;

    const int tree_steps = ceil_log2(p);
    plan.steps.resize(static_cast<std::size_t>(1 + tree_steps));
    auto& gather = plan.steps[0];
    if (r == kRoot) {
        for (int q = 0; q < p; ++q) {
            if (q != kRoot) gather.recvs.push_back({.peer = q, .blocks = {q}});
        }
    } else {
        gather.sends.push_back({.peer = kRoot, .blocks = {r}});
    }
    for (int t = 0; t < tree_steps; ++t) {
        const int span = 1 << t;  // ranks [0, span) hold everything before this step
        auto& step = plan.steps[static_cast<std::size_t>(1 + t)];
        if (r < span && r + span < p) {
            step.sends.push_back({.peer = r + span, .blocks = all_blocks_but(r + span, p)});
        } else if (r >= span && r < 2 * span) {
            step.recvs.push_back({.peer = r - span, .blocks = all_blocks_but(r, p)});
        }
    }
    return plan;
}

// Single-port: the root takes the p-1 gathered blocks one after another, then each tree
// level moves p-1 blocks.
double gather_bcast_cost(int ranks, double bytes_per_rank, const LinkModel& link) {
    if (ranks <= 1) return 0.0;
    const double whole = (ranks - 1) * bytes_per_rank * link.beta;
    return (ranks - 1) * link.alpha + whole + ceil_log2(ranks) * (link.alpha + whole);
}

}  // namespace papshim::allgather
