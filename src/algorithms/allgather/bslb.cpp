// BSLB, Background Sorted Linear synchronised gather + Broadcast (spec
// allgather-bdr-bslb-and-clairvoyant.md §3, [AG] Listing 3; docs/algorithms/bslb.md).
//
// Gather (BSLS, §3.3): every rank but the root sends its block to the root, one rank at a
// time, in the order of the predicted arrivals (earliest first, ties by ascending rank). The
// turn passes as a signal, a message with no blocks: the k-th sender waits for the signal of
// the (k−1)-th, sends its block, and once that send is complete signals the (k+1)-th. Bodies
// therefore reach the root strictly one after another (the spec's "signal after the body";
// MPI's eager/rendezvous protocol is the head: a large send moves its data only once the
// root's receive is there). The spec's root sends the signals itself; here the root only
// receives, so its whole gather is leading receive-only steps, which papshim's helper thread
// posts in the background while the root still computes (post_prefetch), exactly as BDR's
// pre-steps. The non-roots send when they are in the call, the only time their data exists.
//
// Root: the latest predicted arrival (ties: the lowest of those ranks), not [AG]'s fixed
// rank 0. Its block never travels in the gather, its background receives take everyone
// else's while it computes, and the broadcast can start the moment it arrives. With equal
// arrivals that is rank 0 and the order is 1..p−1: the paper's form.
//
// Broadcast: the ring Allgather's steps (build_ring: in step i rank r passes block r − i to
// r + 1) with the transfers into the root left out, since it holds every block already.
// It moves (p − 1) blocks into each rank, the least any broadcast can (each rank lacks p − 1
// blocks), where a binomial tree of the whole vector moves ⌈log₂p⌉·(p − 1) along its longest
// path; it is the bandwidth-bound form of the MPI_Bcast the spec calls, which for large
// vectors pipelines too. Non-roots start passing their own blocks as soon as their gather
// send is done; at the root the two phases are strictly sequential (§3.5).
//
// Global steps (every rank numbers them alike, so a message's step is the same at both
// ends): for the k-th sender s_k (k = 0..p−2), step 2k carries s_k's block to the root and
// step 2k+1 the signal s_k → s_{k+1}; the broadcast's p − 1 steps follow from step 2p−3 on.
//
// Balanced form: with no usable prediction (empty or wrongly sized arrival_ns) the arrivals
// count as equal: root 0, senders in rank order. step_ns is not used (BSLB needs only the
// order, §1.4). Allgatherv: nothing depends on block sizes; zero-size blocks are skipped by
// the executor at both ends, the signals are not.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "../arrival_order.hpp"
#include "builders.hpp"

namespace papshim::allgather {

namespace {

// The root and the senders in their turn, from the predicted arrivals (or rank order).
struct GatherOrder {
    int root = 0;
    std::vector<int> senders;
};

GatherOrder gather_order(const schedule::BuildInput& input) {
    const int p = input.ranks;
    const auto arrival = input.arrival_ns;
    const bool predicted = arrival.size() == static_cast<std::size_t>(p);
    auto at = [&](int rank) { return predicted ? arrival[static_cast<std::size_t>(rank)] : std::int64_t{0}; };

    std::vector<int> ranks = predicted_order(input);
    // Latest arrival, lowest rank among equals: the first of the last run of equal arrivals.
    std::size_t root_at = ranks.size() - 1;
    while (root_at > 0 && at(ranks[root_at - 1]) == at(ranks.back())) --root_at;
    GatherOrder order;
    order.root = ranks[root_at];
    ranks.erase(ranks.begin() + static_cast<std::ptrdiff_t>(root_at));
    order.senders = std::move(ranks);
    return order;
}

}  // namespace

schedule::Schedule build_bslb(const schedule::BuildInput& input) {
    const int p = input.ranks;
    const int me = input.rank;
    schedule::Schedule plan = empty_schedule(input);
    if (p <= 1) return plan;

    const GatherOrder order = gather_order(input);
    const int root = order.root;
    const std::size_t gather_steps = 2 * static_cast<std::size_t>(p - 1) - 1;
    plan.steps.resize(gather_steps);

    // Gather.
    for (std::size_t k = 0; k < order.senders.size(); ++k) {
        const int sender = order.senders[k];
        const std::size_t body = 2 * k;
        if (me == root) plan.steps[body].recvs.push_back({.peer = sender, .blocks = {sender}});
        if (me != sender) continue;
        if (k > 0) plan.steps[body - 1].recvs.push_back({.peer = order.senders[k - 1], .blocks = {}});
        plan.steps[body].sends.push_back({.peer = root, .blocks = {me}});
        if (k + 1 < order.senders.size()) plan.steps[body + 1].sends.push_back({.peer = order.senders[k + 1], .blocks = {}});
    }

    // Broadcast: the ring Allgather's own steps, less every transfer into the root, which
    // holds every block already (so the rank before it sends nothing).
    schedule::Schedule ring = build_ring(input);
    for (schedule::Step& step : ring.steps) {
        std::erase_if(step.sends, [root](const schedule::Transfer& send) { return send.peer == root; });
        if (me == root) step.recvs.clear();
        plan.steps.push_back(std::move(step));
    }
    return plan;
}

// Balanced form: the root takes the p−1 blocks one after another, with a signal between
// consecutive senders, then the ring passes p−1 blocks into every rank.
double bslb_cost(int ranks, double bytes_per_rank, const LinkModel& link) {
    if (ranks <= 1) return 0.0;
    const double whole = (ranks - 1) * bytes_per_rank * link.beta;
    return (2 * ranks - 3) * link.alpha + whole + (ranks - 1) * link.alpha + whole;
}

}  // namespace papshim::allgather
