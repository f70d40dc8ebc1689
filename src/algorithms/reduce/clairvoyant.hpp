// Clairvoyant (spec allgather-bdr-bslb-and-clairvoyant.md §4, docs/algorithms/clairvoyant.md):
// a reduction tree per segment planned from every rank's predicted arrival, so that the ranks
// that arrive first reduce among themselves and the last arrivals' data travels the shortest
// way. Three schedulers give the same plan: the linear reference (§4.5), kept as the tests'
// oracle, the segment-tree version (§4.6 with its corrections) that the builders use, and
// the per-segment queues of the original's "pairing heap" version (§4.4 item 6), kept for the
// scheduler-only benchmark (§5.3). All are pure integer functions of their input, so every
// rank computes the same plan.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "papshim/schedule.hpp"

namespace papshim::clairvoyant {

struct Problem {
    int ranks = 1;                              // P
    std::span<const std::int64_t> arrival_ns;  // a, one per rank (any origin); empty: all at once
    std::int64_t round_ns = 1;                  // d > 0
    int root = 0;
    int segments = 1;  // N >= 1
};

// One message of a plan: in `round`, `from` sends its partial of `segment` to `to`, which
// reduces it into its own (`combine`) or, when it gave that segment away in an earlier round
// (only the sink takes one back), keeps it as it is.
struct Move {
    std::int64_t round = 0;
    int from = 0;
    int to = 0;
    int segment = 0;
    bool combine = true;
    bool operator==(const Move&) const = default;
};

struct Plan {
    std::vector<Move> moves;  // by round; within a round in the order receivers were served
    std::int64_t rounds = 0;  // rounds scheduled, idle ones included
    bool operator==(const Plan&) const = default;
};

// Throw std::invalid_argument on an input outside the Problem's ranges. Times must stay
// below 2^62 ns including the rounds a rank is active (far beyond any real prediction).
Plan schedule_reference(const Problem& problem);
Plan schedule_segment_tree(const Problem& problem);

// [CLV]'s pairing-heap scheme (seed §4.2, Lemma 1): one ordered queue of candidate senders
// per segment — the window's ranks that hold it, have not sent this round and did not receive
// it this round — in window order, the root first; a rank leaves every queue it is in when it
// sends and joins them again at the next round. std::set stands in for boost's pairing heap
// (papshim does not depend on boost): the same operations, each O(log P). `operations`, if
// given, gets how many inserts and erases the plan took (Lemma 1 bounds them by O(P N^2)).
struct QueueOperations {
    std::int64_t inserts = 0;
    std::int64_t erases = 0;
};
Plan schedule_segment_queues(const Problem& problem, QueueOperations* operations = nullptr);

// The segment count papshim's builders use for p ranks: ceil(log2 p) (1 for p <= 2). Builders
// see no message size, so N is a function of p alone: a balanced plan then takes
// 2*ceil(log2 p) - 1 rounds of 1/N of the vector — never more than twice a binomial tree's
// latency, and about ceil(log2 p)/2 times less data per rank on the critical path — and
// every rank's segment states fit one 64-bit word up to p = 2^64.
int segments_for(int ranks);
// segments_for as the registry's round_pieces (the Reduce and `clairvoyant_bcast` cut nothing
// by size).
int round_segments(int ranks, int segments);

// The plan a builder runs: from input.arrival_ns when it has one time per rank and
// input.step_ns > 0, else the balanced form (every rank arriving at once).
Plan plan_for(const schedule::BuildInput& input, int root, int segments);

// The pieces of the Allreduce's reduce-scatter form (`clairvoyant` for Allreduce): one per rank
// but the predicted-last, at most 64 (1 for p = 1).
int reduce_scatter_pieces(int ranks);
// Its segments per piece for a call cut into `segments` (0: one): the parts of the vector a
// round moves, one segment of every piece at each rank (the registry's round_pieces).
int scatter_round_segments(int ranks, int segments);

// The rank predicted to arrive last (ties: the lowest rank), by the rule of plan_for: rank 0
// in the balanced form.
int last_arrival(const schedule::BuildInput& input);

// Rank `rank`'s Reduce schedule (blocks = the plan's segments) from a plan: one step per
// round in which anything moves, so idle rounds cost nothing; `rounds_as_steps` gets the
// number of such steps (the same on every rank) for builders that append more steps.
schedule::Schedule reduce_schedule(const Plan& plan, int ranks, int rank, int segments,
                                   int* rounds_as_steps = nullptr);
// Every rank's schedule from one plan (the simulator's way at large p).
std::vector<schedule::Schedule> reduce_schedules(const Plan& plan, int ranks, int segments);

}  // namespace papshim::clairvoyant
