// Lookup over the Reduce and Allreduce tables (each in its collective's folder).

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "papshim/algorithms.hpp"

namespace papshim {
namespace reduce {
std::span<const ReductionAlgorithm> table();
}
namespace allreduce {
std::span<const ReductionAlgorithm> table();
}

std::span<const ReductionAlgorithm> reduction_algorithms(Collective collective) {
    if (collective == Collective::reduce) return reduce::table();
    if (collective == Collective::allreduce) return allreduce::table();
    return {};
}

const ReductionAlgorithm* find_reduction_algorithm(Collective collective, std::string_view name) {
    for (const auto& algorithm : reduction_algorithms(collective))
        if (algorithm.name == name) return &algorithm;
    return nullptr;
}

std::string_view auto_reduction_candidate(Collective collective, std::uint64_t bytes, std::uint64_t shm_slot,
                                          NodeLayout layout, bool cores_shared, int ranks) {
    // Measured on the emulated 1 Gbit/s network, p = 8, one rank per node (docs/benchmarks.md,
    // "predicted_scatter"; data/sweep-ar-scatter-4abea10-*): under one late rank or a
    // staircase, auto with the predicted scatter has 0.39-0.79x native's excess from 512 KiB
    // to 1 MiB (at 256 KiB native's excess is only 1.45 vector times, the bound being one,
    // and nothing of papshim's then beat it: Clairvoyant's since, below); the predicted chain
    // has the least from 2 MiB (0.46-0.69x), where the scatter's many parallel messages lose
    // to the chain's one stream per link. Planned only where the guard sees a predictable
    // imbalance; otherwise what auto runs without a plan (auto_reduction_classic: the ring
    // from 1 MiB, or native).
    // Since 2026-12-03 the scatter up to 8 MiB (docs/benchmarks.md, "The predicted chain
    // Reduce and the predicted scatter in pieces"): in chunks of at most 48 KiB, under TCP's
    // eager limit, it took 0.40-0.48x native's excess at 2-4 MiB, p = 8, where the chain took
    // 0.47-0.57x in the same run (the scatter in 4 chunks 0.53-0.61x): the chunks past the
    // eager limit, not the parallel streams, had lost it those sizes. The chain from 8 MiB,
    // where it was measured (0.45-0.49x) and the scatter in chunks not.
    // A Reduce with one rank per node: since 2026-12-03 the predicted chain, in 16 KiB pieces
    // (p = 4 and 8, root 0 or rotating, 256 KiB-4 MiB; same section): `auto` 0.33-0.75x
    // native's mean time in the call under one late rank or a staircase of 10 tau, where it
    // took 0.35-0.74x with Clairvoyant's plan (0.02-0.18 less in 17 of 18 cells, p = 8 one late
    // rank 0.44-0.58x against 0.49-0.68x); at 2 tau 0.30-0.89x (0.39-0.91x), with a rotating
    // root 0.01-0.06 more than before, near the unplanned tree's. Before:
    // A Reduce, same network (docs/benchmarks.md, "Clairvoyant Reduce under auto across
    // nodes"): Clairvoyant's plan cut native's mean time in the call to 0.51-0.58x under one
    // late rank and 0.50-0.93x under a staircase from 256 KiB to 4 MiB (root 0 or the late
    // rank). The predicted chain did a little better at 256 KiB but lost 1.5x under the
    // staircase from 1 MiB; at 64 KiB Clairvoyant's root ended later than native's. From
    // 256 KiB since 2026-12-02 ("Clairvoyant's Reduce plan from 256 KiB and 128 KiB"; seven
    // rounds at p = 4 and 8, two at p = 6, against the binomial tree auto runs unplanned
    // there): auto 0.35-0.58x native's mean time in the call under one late rank of 6-10 tau
    // and 0.42-0.51x under 10 tau staircases where the tree takes 0.59-0.76x; up to 0.2 worse
    // under 2 tau at p = 8 (staircase 0.48-0.62x against 0.36-0.61x). At 128 KiB the plan won
    // under one late rank (0.51-0.80x where auto runs native) but lost to native under small
    // staircases at p = 8 (up to 1.36x): not there.
    // An Allreduce from 128 KiB to below 384 KiB: since 2026-12-06 the predicted scatter, in as
    // few chunks as fit (docs/benchmarks.md, "The predicted scatter from 128 KiB"): under one
    // late rank or a staircase of 10 tau, p = 8, 128-256 KiB, auto 0.48-0.63x native's excess
    // (0.49-0.52x in the median call of 100-call loops) where Clairvoyant's reduce-scatter
    // form, auto's choice there on 2026-12-05, took 0.56-0.71x in the same runs; p = 4
    // 0.47-0.62x; in 4 chunks of 5-14 KiB the scatter had taken 0.87-2.19x. From 4 ranks: at
    // p = 2 Clairvoyant's tied native there (one early rank can reduce nothing ahead), at
    // p = 3 both lost at 128 KiB. From 384 KiB at any p (p = 3 0.48-0.50x, p = 2 1.04-1.05x;
    // at p = 2 0.55-0.61x since the scatter pushes its partials to the late rank where early
    // sends are buffered, 2026-12-06, and 1.02-1.16x where they were not, on MPICH before its
    // chunks went in thirds (0.56-0.62x since); where nothing is buffered auto declines it,
    // auto_takes_plan). MPICH at p = 3 and 4 0.05-0.86x since the thirds (1.7-5.2x before).
    // At 64 KiB Clairvoyant's took 0.62-1.15x: nothing there.
    // Both MPIs: the gain is the network's time after the last arrival; MPICH measured only
    // oversubscribed here.
    constexpr std::uint64_t network_scatter_min_bytes = 384 * 1024, network_chain_min_bytes = 8 << 20;
    // A Reduce below 256 KiB since 2026-12-06 the chain too, from 64 KiB, 4 ranks and 16 KiB a
    // rank, where the predicted spread is 6 vector times or more (auto_takes_plan); else the
    // pipelined tree. The exchange its plans need cost 64 KiB at p = 8 (8 KiB a rank) 1.24x
    // the tree's time balanced and 1.22-1.35x under 2 vector times (docs/benchmarks.md, "The
    // predicted chain Reduce below 256 KiB"), 64 KiB at p = 4 and 128 KiB at p = 4 and 8
    // 0.99-1.13x and 1.01-1.06x.
    constexpr std::uint64_t network_small_scatter_min_bytes = 128 * 1024;
    constexpr int network_small_scatter_min_ranks = 4;
    if (layout == NodeLayout::one_rank_per_node) {
        if (collective == Collective::reduce)
            return bytes >= kAutoReduceChainMinBytes ||
                           (bytes >= kAutoSmallChainMinBytes && ranks >= kAutoReductionClassicMinRanks &&
                            bytes >= kAutoSmallChainMinRankBytes * std::uint64_t(ranks))
                       ? "predicted_chain"
                       : "";
        if (collective != Collective::allreduce || bytes < network_small_scatter_min_bytes) return {};
        if (bytes < network_scatter_min_bytes && ranks < network_small_scatter_min_ranks) return {};
        return bytes >= network_chain_min_bytes ? "predicted_chain" : "predicted_scatter";
    }
    // Across nodes with 2 ranks on each (p = 8, 1 Gbit/s emulated; docs/benchmarks.md,
    // "Several ranks per node across nodes"): `auto` lost to native with either candidate,
    // paying for the exchange it needs to judge the arrivals over the network: the chain's
    // Reduce by 3-43% at 1-4 MiB (named, it only tied native: the leaders' binomial Reduce
    // dominates), the dynamic leader's 64 KiB Allreduce by 6-9% on balanced arrivals (named,
    // 0.61-1.03x native's time). So nothing that follows the arrivals there (a Reduce runs
    // the pipelined binomial tree: auto_reduction_classic).
    if (layout != NodeLayout::one_node) return {};
    // Measured on one node (p = 4, 10-20τ; docs/benchmarks.md): the dynamic leader's
    // Allreduce beats native wherever it fits a slot (0.71-0.79x its time at 64 KiB, and
    // 0.49-0.88x at 256 KiB-4 MiB with the automatic slot); the chain's Allreduce is native's
    // time within ±7% from 1 MiB, so native above the slot. A Reduce: since 2026-12-04 the
    // dynamic leader wherever it fits a slot (docs/benchmarks.md, "The dynamic leader's
    // Reduce"): 64 KiB-4 MiB, p = 4 and 8, one late rank or random delays of 10 tau, it took
    // 0.33-0.67x native's ē on Open MPI p = 4, root 0 or rotating (the root's end 0.71-0.91x),
    // where the chain auto ran from 256 KiB took 0.49-1.47x and the binomial tree 0.63-1.08x;
    // less still at p = 8 and on MPICH. Above the slot the chain from 256 KiB, as before (it
    // lost to native at 64 KiB, up to 1.35x, and won from 1 MiB under one late rank, 0.59-0.91x).
    // All of that with 4 and 8 ranks on 2 cores. With a core per rank (p = 2 here, both MPIs;
    // docs/benchmarks.md, "Issue 8 at one build", "A core per rank") the leader's
    // Allreduce took 0.72-0.98x native's ē under 10 tau from 64 to 512 KiB; from 1 MiB
    // 0.82-1.06x on Open MPI (launched without --oversubscribe, as with a CPU per rank; with it,
    // Open MPI's yield-when-idle mode, 1.10-1.35x) and 1.00-1.28x on MPICH; its Reduce
    // 0.88-1.10x on Open MPI and 0.08-0.80x on MPICH to 512 KiB; the chain's Reduce
    // 1.23-1.46x on Open MPI. So there the leader up to 512 KiB, where both MPIs gain, and
    // nothing above it, where following the calls gains nothing.
    constexpr std::uint64_t chain_min_bytes = 256 * 1024;
    if (!cores_shared) return bytes <= std::min(shm_slot, kAutoLeaderOwnCoresMaxBytes) ? "dynamic_leader" : "";
    if (bytes <= shm_slot) return "dynamic_leader";
    if (collective == Collective::reduce && bytes >= chain_min_bytes) return "arrival_chain";
    return {};
}

std::string_view auto_reduction_small(Collective collective, std::uint64_t bytes, NodeLayout layout,
                                      bool cores_shared) {
    // Measured (docs/benchmarks.md, "The symmetric Allreduce for small vectors" and "`auto`'s
    // small Allreduce on one node"): on a node whose ranks share cores it took 0.37-1.04x
    // native's mean time from 8 B to 1 KiB, balanced or not (Open MPI p = 4 and 8), 0.09-0.35x
    // on MPICH p = 4. With a core per rank (p = 2) it ties native at 8 B and loses up to 1.15x
    // at 64 B-1 KiB on Open MPI (each rank combines every deposit), and on MPICH loses 1.07-1.17x
    // under one late rank: not there. A Reduce has no such algorithm (the dynamic leader's
    // two handoffs lose at 8 B).
    if (collective != Collective::allreduce || layout != NodeLayout::one_node || !cores_shared) return {};
    return bytes <= kAutoSmallMaxBytes ? "symmetric_shm" : "";
}

std::string_view auto_reduction_classic(Collective collective, int ranks, std::uint64_t bytes, NodeLayout layout,
                                        NativeMpi native) {
    if (collective == Collective::reduce && auto_reduce_runs_tree(ranks, bytes, layout, native))
        return "pipelined_binomial";
    if (collective == Collective::allreduce && auto_allreduce_runs_ring(ranks, bytes, layout, native)) return "ring";
    return {};
}

std::int64_t clairvoyant_round_ns(const LinkModel& link, double piece_bytes) {
    return std::max<std::int64_t>(1, std::llround((link.alpha + (link.beta + link.gamma) * piece_bytes) * 1e9));
}

bool auto_takes_plan(Collective collective, std::uint64_t bytes, std::span<const std::int64_t> arrival_ns,
                     std::int64_t vector_ns, bool early_sends_buffered) {
    if (collective == Collective::allreduce && arrival_ns.size() == 2) return early_sends_buffered;
    if (collective != Collective::reduce || bytes >= kAutoReduceChainMinBytes || arrival_ns.empty()) return true;
    const auto [first, last] = std::ranges::minmax_element(arrival_ns);
    return *last - *first >= kAutoSmallChainMinSpread * vector_ns;
}

bool auto_runs_round_planner(std::span<const std::int64_t> arrival_ns, std::int64_t round_ns, int pieces) {
    std::vector<std::int64_t> sorted(arrival_ns.begin(), arrival_ns.end());
    std::ranges::sort(sorted);
    for (std::size_t i = 1; i < sorted.size(); ++i) {
        const std::int64_t gap = sorted[i] - sorted[i - 1];
        if (gap >= round_ns && gap < std::int64_t(pieces) * round_ns) return false;
    }
    return true;
}

}  // namespace papshim
