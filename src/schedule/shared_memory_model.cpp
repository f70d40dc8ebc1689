// The timing model of the shared-memory dynamic-leader Allreduce on one node (simulator.hpp,
// simulate_dynamic_leader), after src/algorithms/node_steps.cpp's leader_reduce and
// copy_partial: it moves no messages, so simulate_timing cannot run it.

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "papshim/simulator.hpp"

namespace papshim::sim {

void check_dynamic_leader_model(int ranks, const TimingModel& model) {
    if (ranks <= 0) throw std::invalid_argument("dynamic_leader: no ranks");
    if (model.ranks_per_node > 0 && model.ranks_per_node < ranks)
        throw std::invalid_argument("dynamic_leader is modelled on one node only (--ranks-per-node 0 or at least --ranks)");
}

TimingResult simulate_dynamic_leader(std::span<const double> arrival, double bytes, const TimingModel& model) {
    const int p = int(arrival.size());
    check_dynamic_leader_model(p, model);
    // A message through shared memory copies its bytes twice (into the shared buffer and out),
    // so one copy of the vector costs half a message's time per byte.
    const double copy = model.overhead + bytes * model.per_byte / 2;
    // One PMPI_Reduce_local of a slot into the partial.
    const double reduce = model.overhead + bytes * (model.per_byte / 2 + model.reduce_per_byte);
    const double seen = model.latency;  // a flag stored on one core, seen on another

    // Arrival order, ties to the lower rank: the first one claims the call and leads.
    std::vector<int> order(static_cast<std::size_t>(p));
    std::iota(order.begin(), order.end(), 0);
    std::ranges::stable_sort(order, [&](int x, int y) { return arrival[std::size_t(x)] < arrival[std::size_t(y)]; });
    const int leader = order.front();

    TimingResult result;
    result.exit.assign(std::size_t(p), 0.0);
    // The leader copies its own vector into its partial (not in place: with MPI_IN_PLACE
    // leader_reduce skips that copy), then reduces each deposit once its
    // flag is seen, in the order the deposits appear (every copy costs the same, so arrival
    // order), then publishes the partial.
    double leader_time = arrival[std::size_t(leader)] + copy;
    for (std::size_t k = 1; k < order.size(); ++k) {
        const double deposited = arrival[std::size_t(order[k])] + copy;
        leader_time = std::max(leader_time, deposited + seen) + reduce;
    }
    leader_time += copy;  // into the result slot
    result.exit[std::size_t(leader)] = leader_time;
    // The others deposit, then wait for the published result and copy it out.
    for (std::size_t k = 1; k < order.size(); ++k) {
        const auto rank = std::size_t(order[k]);
        result.exit[rank] = std::max(arrival[rank] + copy, leader_time + seen) + copy;
    }
    double elapsed = 0;
    for (int r = 0; r < p; ++r) elapsed += result.exit[std::size_t(r)] - arrival[std::size_t(r)];
    result.mean_elapsed = elapsed / p;
    result.run_time = *std::ranges::max_element(result.exit) - *std::ranges::min_element(arrival);
    return result;
}

}  // namespace papshim::sim
