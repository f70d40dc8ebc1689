// The table of papshim's own Allgather/Allgatherv algorithms. Adding one = a builder file
// plus one line here. Order matters: `auto` keeps the earliest of equally cheap entries, so
// Sparbit comes first (its α-β cost ties Bruck's, and recursive doubling's at powers of two).

#include <array>

#include "builders.hpp"
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
    {"bdr", allgather::build_bdr, allgather::ring_cost, true},  // balanced: the ring; after it, so `auto` keeps ring
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

const AllgatherAlgorithm& auto_allgather_algorithm(int ranks, double bytes_per_rank,
                                                   const LinkModel& link) {
    const AllgatherAlgorithm* best = &kAllgatherAlgorithms.front();
    double best_cost = best->cost(ranks, bytes_per_rank, link);
    for (const auto& algorithm : kAllgatherAlgorithms) {
        const double cost = algorithm.cost(ranks, bytes_per_rank, link);
        if (cost < best_cost) {
            best = &algorithm;
            best_cost = cost;
        }
    }
    return *best;
}

bool auto_allgather_may_plan(int ranks, std::uint64_t bytes, NodeLayout layout) {
    if (ranks <= 1 || layout == NodeLayout::one_node) return false;
    const std::uint64_t smallest =
        layout == NodeLayout::one_rank_per_node ? kAutoBdrMinBlockBytesOnePerNode : kAutoBdrMinBlockBytesMixed;
    return bytes / std::uint64_t(ranks) >= smallest;
}

bool auto_allgather_runs_bdr(const AutoBdrCall& call) {
    // On one node a block crosses shared memory in ~0.1 ms: BDR lost there at every size
    // (1.3-4.5x native). An Allgatherv whose largest block is far above the mean plans on the
    // largest (tau) and loses under a staircase (docs/algorithms/bdr.md, unequal blocks), so
    // only near-equal layouts qualify.
    if (!call.trusted || !call.imbalanced) return false;
    if (!auto_allgather_may_plan(call.ranks, call.bytes, call.layout)) return false;
    const std::uint64_t mean = call.bytes / std::uint64_t(call.ranks);
    return call.largest_block <= mean + mean / 4;
}

}  // namespace papshim
