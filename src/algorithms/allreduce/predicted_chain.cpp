// Predicted-chain Allreduce (issue 9; docs/algorithms/predicted-chain.md): Clairvoyant's
// principle — the rank predicted to arrive last finds everything else already reduced — with
// pipelined chains, for communicators whose ranks meet only over a network. The early ranks
// (all but the predicted-last rank L) reduce along a chain in their predicted arrival order
// while L is still away; then one pipelined chain carries the early partial to L, which
// reduces its data in, and the result from L through every early rank. After L arrives,
// every link carries the vector once in each direction (the least any Allreduce can do with
// L's data still outside), against twice for a reduce-scatter + allgather. Commutative ops.

#include "../reduction_steps.hpp"
#include "builders.hpp"

namespace papshim::allreduce {

schedule::Schedule build_predicted_chain(const schedule::BuildInput& input) {
    schedule::Schedule plan = reduction::empty_schedule(input, reduction::kChainBlocks);
    if (input.ranks <= 1) return plan;
    std::vector<int> early = predicted_order(input);
    const int last = early.back();
    early.pop_back();
    const int reduced = reduction::add_chain(plan, early, 0, int(early.size()));
    // The early partial to L (reducing), L's result around the early ranks (overwriting).
    std::vector<int> around{early.back(), last};
    around.insert(around.end(), early.begin(), early.end());
    reduction::add_chain(plan, around, reduced, 1);
    return plan;
}

}  // namespace papshim::allreduce
