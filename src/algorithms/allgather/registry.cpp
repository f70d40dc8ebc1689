// The table of papshim's own Allgather/Allgatherv algorithms. Adding one = a builder file
// plus one line here; append it, as a planned call's tags carry the table index. What `auto`
// runs is in algorithms.hpp (kAutoOwnMinBlockBytes).

#include <algorithm>
#include <array>
#include <numeric>
#include <vector>

#include "builders.hpp"
#include "papshim/simulator.hpp"
#include "../../schedule/message_exchange.hpp"

namespace papshim {

namespace {

constexpr std::array<AllgatherAlgorithm, 8> kAllgatherAlgorithms{{
    {"sparbit", allgather::build_sparbit, allgather::sparbit_cost},
    {"bruck", allgather::build_bruck, allgather::bruck_cost},
    {"recursive_doubling", allgather::build_recursive_doubling, allgather::recursive_doubling_cost},
    {"neighbor_exchange", allgather::build_neighbor_exchange, allgather::neighbor_exchange_cost},
    {"ring", allgather::build_ring, allgather::ring_cost},
    {"gather_bcast", allgather::build_gather_bcast, allgather::gather_bcast_cost},
    {"bdr", allgather::build_bdr, allgather::ring_cost, true},  // balanced: the ring
    {"bslb", allgather::build_bslb, allgather::bslb_cost, true},  // balanced: never cheaper than the ring
}};
// A planned call's tags name its algorithm by this index (message_exchange.hpp).
static_assert(kAllgatherAlgorithms.size() <= schedule::kPlannedAlgorithmSlots);

}  // namespace

std::span<const AllgatherAlgorithm> allgather_algorithms() { return kAllgatherAlgorithms; }

const AllgatherAlgorithm* find_allgather_algorithm(std::string_view name) {
    for (const auto& algorithm : kAllgatherAlgorithms) {
        if (algorithm.name == name) return &algorithm;
    }
    return nullptr;
}

namespace {
// Blocks close enough to equal for the ring's and BDR's fixed steps: the largest at most
// 1.25 times the mean (an Allgather's are all equal).
bool near_equal_blocks(int ranks, std::uint64_t bytes, std::uint64_t largest) {
    const std::uint64_t mean = bytes / std::uint64_t(ranks);
    return largest <= mean + mean / 4;
}

// Blocks BDR still plans well: the largest at most 2.25 times the mean. Its pre-steps run on
// τ of the largest block, and its tail is timed by the blocks' sizes (docs/algorithms/bdr.md
// §6): at p = 8 it beat or tied every classic algorithm under a late rank or a staircase with
// decreasing and half-full blocks (twice the mean, a little over where counts round down),
// and lost to Sparbit with geometric and spike ones (2.47x and 4x the mean).
bool bdr_plannable_blocks(int ranks, std::uint64_t bytes, std::uint64_t largest) {
    const std::uint64_t mean = bytes / std::uint64_t(ranks);
    return largest <= 2 * mean + mean / 4;
}
}  // namespace

NodeShape node_shape(std::span<const int> node_of, int node_count) {
    const int ranks = int(node_of.size());
    if (node_count <= 1 || node_count >= ranks) return {};
    // Consecutive: node 0 holds ranks 0..k-1, node 1 the next k, ...
    const int first = int(std::count(node_of.begin(), node_of.end(), 0));
    if (first == 0) return {};  // nodes are numbered by their lowest rank: rank 0's is node 0
    auto every_rank = [&](auto&& node) {
        for (int r = 0; r < ranks; ++r)
            if (node_of[std::size_t(r)] != node(r)) return false;
        return true;
    };
    if ((ranks + first - 1) / first == node_count && every_rank([first](int r) { return r / first; }))
        return {first, false};
    // Cyclic, as papshim-sim's NodePorts numbers nodes: ceil(ranks / per_node) of them.
    const int per_node = (ranks + node_count - 1) / node_count;
    if ((ranks + per_node - 1) / per_node == node_count && every_rank([node_count](int r) { return r % node_count; }))
        return {per_node, true};
    return {};
}

const AllgatherAlgorithm& fastest_classic_allgatherv(std::span<const std::uint64_t> block_bytes, const LinkModel& link,
                                                     NodeShape nodes) {
    static const AllgatherAlgorithm& sparbit = *find_allgather_algorithm("sparbit");
    static const AllgatherAlgorithm& bruck = *find_allgather_algorithm("bruck");
    static const AllgatherAlgorithm& ring = *find_allgather_algorithm("ring");
    const int ranks = int(block_bytes.size());
    if (ranks < 3) return sparbit;  // one exchange step: the same messages either way
    const bool two_level = nodes.ranks_per_node > 1 && nodes.ranks_per_node < ranks;
    const std::uint64_t total = std::accumulate(block_bytes.begin(), block_bytes.end(), std::uint64_t{0});
    // Above kAutoMixedRingMaxRanks ranks only where the blocks' mean exceeds
    // kAutoMixedRingMinBlockBytes: at p = 16, two per node, the ring lost to Sparbit at 64 KiB,
    // tied at 128 KiB and won at 256 KiB and 1 MiB (decreasing blocks, whose mean is a few
    // bytes under the nominal size).
    const bool weighs_ring =
        two_level && (ranks <= kAutoMixedRingMaxRanks || total > kAutoMixedRingMinBlockBytes * std::uint64_t(ranks));
    const LinkModel& inside = two_level ? kSharedMemoryLink : link;
    sim::TimingModel model;
    model.latency = inside.alpha;
    model.per_byte = inside.beta;
    model.contention = true;
    model.rendezvous_bytes = double(kClassicModelRendezvousBytes);
    if (two_level) {
        model.ranks_per_node = nodes.ranks_per_node;
        model.cyclic_mapping = nodes.cyclic;
        model.inter_latency = link.alpha;
        model.inter_per_byte = link.beta;
    }
    const std::vector<double> arrival(std::size_t(ranks), 0.0);
    const std::vector<double> sizes(block_bytes.begin(), block_bytes.end());
    // Doubles, yet the same on every rank: the same code on the same inputs.
    auto modelled = [&](const AllgatherAlgorithm& algorithm) {
        return sim::simulate_timing(sim::ScheduleSet::build(algorithm.build, ranks), model, arrival, sizes).mean_elapsed;
    };
    // Sparbit unless another is kClassicModelMargin faster; of those, the fastest.
    const AllgatherAlgorithm* fastest = &sparbit;
    double best = modelled(sparbit) * (1.0 - kClassicModelMargin);
    auto weigh = [&](const AllgatherAlgorithm& other) {
        if (const double elapsed = modelled(other); elapsed < best) fastest = &other, best = elapsed;
    };
    weigh(bruck);
    if (weighs_ring) weigh(ring);
    return *fastest;
}

// choose_allgather does not ask the layout from kAutoOwnMinBlockBytes per rank: it must not
// change the answer there.
static_assert(kAutoMixedRingMinBlockBytes <= kAutoOwnMinBlockBytes);

const AllgatherAlgorithm& auto_allgather_classic(int ranks, std::uint64_t bytes, std::uint64_t largest, NodeLayout layout) {
    static const AllgatherAlgorithm& ring = *find_allgather_algorithm("ring");
    static const AllgatherAlgorithm& sparbit = *find_allgather_algorithm("sparbit");
    const bool mixed_ring = layout == NodeLayout::mixed && ranks <= kAutoMixedRingMaxRanks;
    const std::uint64_t ring_from = mixed_ring ? kAutoMixedRingMinBlockBytes : kAutoOwnMinBlockBytes;
    if (ranks <= 0 || bytes / std::uint64_t(ranks) < ring_from) return sparbit;
    return near_equal_blocks(ranks, bytes, largest) ? ring : sparbit;
}

bool auto_allgather_weighs_blocks(int ranks, std::uint64_t bytes, std::uint64_t largest) {
    return ranks > 0 && ranks <= kClassicModelMaxRanks && !near_equal_blocks(ranks, bytes, largest);
}

const AllgatherAlgorithm& auto_allgather_classic(int ranks, std::uint64_t bytes, std::uint64_t largest, NodeLayout layout,
                                                 std::span<const std::uint64_t> block_bytes, const LinkModel& link,
                                                 NodeShape nodes) {
    if (!auto_allgather_weighs_blocks(ranks, bytes, largest) || block_bytes.size() != std::size_t(ranks))
        return auto_allgather_classic(ranks, bytes, largest, layout);
    return fastest_classic_allgatherv(block_bytes, link, nodes);
}

bool auto_allgather_may_plan(int ranks, std::uint64_t bytes, NodeLayout layout) {
    return ranks > 1 && layout == NodeLayout::one_rank_per_node &&
           bytes / std::uint64_t(ranks) >= kAutoOwnMinBlockBytes;
}

bool auto_allgather_runs_classic(int ranks, std::uint64_t bytes, std::uint64_t largest, NodeLayout layout) {
    if (ranks <= 0 || layout == NodeLayout::one_node) return false;
    const std::uint64_t block = bytes / std::uint64_t(ranks);
    if (block < kAutoClassicMinBlockBytes || block >= kAutoOwnMinBlockBytes) return false;
    if (ranks >= kAutoClassicMinRanks) return true;
    // Fewer ranks, several per node: where auto_allgather_classic runs the ring for
    // near-equal blocks or weighs far-from-equal ones (the model's pick of Sparbit, Bruck or
    // the ring); near-equal blocks below kAutoMixedRingMinBlockBytes stay native, as Sparbit
    // lost to native there at p = 4.
    if (layout != NodeLayout::mixed || ranks < kAutoMixedClassicMinRanks) return false;
    return block >= kAutoMixedRingMinBlockBytes || auto_allgather_weighs_blocks(ranks, bytes, largest);
}

bool auto_allgather_runs_bdr(const AutoBdrCall& call) {
    // On one node a block crosses shared memory in ~0.1 ms: BDR lost there at every size
    // (1.3-4.5x native); with several ranks per node it lost to the ring (algorithms.hpp).
    // An Allgatherv whose largest block is far above the mean plans on the largest (tau)
    // and lost to Sparbit (bdr_plannable_blocks).
    if (!call.trusted || !call.imbalanced) return false;
    return auto_allgather_may_plan(call.ranks, call.bytes, call.layout) &&
           bdr_plannable_blocks(call.ranks, call.bytes, call.largest_block);
}

}  // namespace papshim
