// The pure Allgather/Allgatherv schedule builders and their Hockney α-β cost models
// (spec allgather-sparbit-and-baselines.md §2.7, §3). Block ids are ranks: block b is rank
// b's contribution. Every builder accepts any communicator size, including p = 1.
#pragma once

#include <bit>
#include <cstdint>
#include <vector>

#include "papshim/algorithms.hpp"
#include "papshim/schedule.hpp"

namespace papshim::allgather {

schedule::Schedule build_sparbit(const schedule::BuildInput& input);
schedule::Schedule build_ring(const schedule::BuildInput& input);
schedule::Schedule build_neighbor_exchange(const schedule::BuildInput& input);
schedule::Schedule build_recursive_doubling(const schedule::BuildInput& input);
schedule::Schedule build_bruck(const schedule::BuildInput& input);
schedule::Schedule build_gather_bcast(const schedule::BuildInput& input);
schedule::Schedule build_bdr(const schedule::BuildInput& input);  // PAP-aware: arrival_ns, step_ns
// BDR exactly as spec §2 builds it (the ring after the pre-steps whatever they leave): the
// reference model's schedules, for the tests that compare with it.
schedule::Schedule build_bdr_spec(const schedule::BuildInput& input);
schedule::Schedule build_bslb(const schedule::BuildInput& input);  // PAP-aware: the order of arrival_ns

// Predicted time of one call with every rank contributing `bytes_per_rank` bytes (one block)
// and all ranks arriving together.
double sparbit_cost(int ranks, double bytes_per_rank, const LinkModel& link);
double ring_cost(int ranks, double bytes_per_rank, const LinkModel& link);
double neighbor_exchange_cost(int ranks, double bytes_per_rank, const LinkModel& link);
double recursive_doubling_cost(int ranks, double bytes_per_rank, const LinkModel& link);
double bruck_cost(int ranks, double bytes_per_rank, const LinkModel& link);
double gather_bcast_cost(int ranks, double bytes_per_rank, const LinkModel& link);
double bslb_cost(int ranks, double bytes_per_rank, const LinkModel& link);

// --- small helpers shared by the builders ------------------------------------------------

// Smallest k with 2^k >= ranks, in integers (spec §2.4: the float form is off by one at 2^29).
inline int ceil_log2(int ranks) {
    return ranks <= 1 ? 0 : std::bit_width(static_cast<std::uint32_t>(ranks - 1));
}

inline bool is_power_of_two(int ranks) {
    return ranks > 0 && std::has_single_bit(static_cast<std::uint32_t>(ranks));
}

// `value` mod `ranks`, never negative.
inline int wrap_rank(long long value, int ranks) {
    const long long r = value % ranks;
    return static_cast<int>(r < 0 ? r + ranks : r);
}

// A schedule with no steps yet, for the caller's rank.
inline schedule::Schedule empty_schedule(const schedule::BuildInput& input) {
    return schedule::Schedule{.ranks = input.ranks, .rank = input.rank, .blocks = input.ranks, .steps = {}};
}

// Appends a step that sends `sent` to `to` and receives `received` from `from`: the shape of
// every step of the ring, Bruck, Sparbit, neighbour exchange and recursive doubling.
inline void add_exchange_step(schedule::Schedule& plan, int to, std::vector<int> sent, int from,
                              std::vector<int> received) {
    schedule::Step step;
    step.sends.push_back(schedule::Transfer{.peer = to, .blocks = std::move(sent)});
    step.recvs.push_back(schedule::Transfer{.peer = from, .blocks = std::move(received)});
    plan.steps.push_back(std::move(step));
}

// The blocks first, first+1, ..., first+count-1 (mod ranks): consecutive in the receive
// buffer apart from at most one wrap past the last rank.
inline std::vector<int> block_run(long long first, int count, int ranks) {
    std::vector<int> blocks(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) blocks[static_cast<std::size_t>(i)] = wrap_rank(first + i, ranks);
    return blocks;
}

}  // namespace papshim::allgather
