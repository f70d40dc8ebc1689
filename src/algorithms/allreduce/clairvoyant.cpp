// Clairvoyant Allreduce, in no paper (issue 9; docs/algorithms/clairvoyant.md §6), in two forms:
// - `clairvoyant` (the reduce-scatter form, named `clairvoyant_rs` until 2026-11-30): the
//   vector in K = min(p, 64) pieces, piece k reduced by its own one-segment Clairvoyant plan
//   to rank floor(k*p/K) (a reduce-scatter whose trees all follow the predicted arrivals),
//   then K binomial broadcasts, piece k from its root (an allgather in log p steps in which
//   every rank sends about one vector's worth);
// - `clairvoyant_bcast` (named `clairvoyant` until 2026-11-30): a Clairvoyant Reduce of the N
//   segments to the rank predicted to arrive last (its own data needs no hop, and the early
//   ranks pre-reduce while it is away), then a binomial broadcast of the whole vector from it.
//   It lost to the reduce-scatter form in every measurement, and in papshim-sim wins only
//   two 8-byte cells by 3-7% (docs/algorithms/clairvoyant.md §6).
// Both run through execute_reduction; commutative ops only.

#include <algorithm>
#include <bit>
#include <tuple>
#include <vector>

#include "../reduce/clairvoyant.hpp"
#include "../reduction_steps.hpp"
#include "builders.hpp"

namespace papshim::allreduce {

namespace {

int piece_root(int piece, int ranks, int pieces) { return int(std::int64_t(piece) * ranks / pieces); }
int tree_steps(int ranks) { return ranks > 1 ? std::bit_width(unsigned(ranks - 1)) : 0; }

// One block moving in one step; the schedules are made from a sorted list of these.
struct Edge {
    int step;
    int from;
    int to;
    int block;
    bool combine;
    auto key() const { return std::tie(step, from, to, block); }
};

// Every rank's schedule from `edges`: per step, the edges of one (sender, receiver) pair with
// consecutive blocks become one message, listed in the same order on both sides (the
// simulator's pairing rule).
std::vector<schedule::Schedule> schedules_from(std::vector<Edge>& edges, int ranks, int blocks) {
    std::sort(edges.begin(), edges.end(), [](const Edge& x, const Edge& y) { return x.key() < y.key(); });
    std::vector<schedule::Schedule> out;
    for (int r = 0; r < ranks; ++r) out.push_back({.ranks = ranks, .rank = r, .blocks = blocks, .steps = {}});
    for (std::size_t i = 0; i < edges.size();) {
        const Edge& first = edges[i];
        std::size_t end = i + 1;
        while (end < edges.size() && edges[end].step == first.step && edges[end].from == first.from &&
               edges[end].to == first.to && edges[end].combine == first.combine &&
               edges[end].block == edges[end - 1].block + 1)
            ++end;
        const auto blocks_moved = reduction::block_range(first.block, int(end - i));
        for (int r : {first.from, first.to}) {
            auto& steps = out[std::size_t(r)].steps;
            if (steps.size() <= std::size_t(first.step)) steps.resize(std::size_t(first.step) + 1);
            if (r == first.from)
                reduction::add_send(steps[std::size_t(first.step)], first.to, blocks_moved);
            else
                reduction::add_receive(steps[std::size_t(first.step)], first.from, blocks_moved,
                                       first.combine ? schedule::Combine::received_first : schedule::Combine::none);
        }
        i = end;
    }
    return out;
}

// Binomial broadcasts of `block` from `root`, as edges from step `first_step` on.
void add_bcast_edges(std::vector<Edge>& edges, int ranks, int root, int block, int first_step) {
    int top = 1;
    while (top < ranks) top <<= 1;
    int step = first_step;
    for (int mask = top >> 1; mask >= 1; mask >>= 1, ++step)
        for (int relative = 0; relative + mask < ranks; relative += 2 * mask)
            edges.push_back({step, (relative + root) % ranks, (relative + mask + root) % ranks, block, false});
}

// The last schedule set built, per thread: every rank's builder call of one plan (the
// simulator, tests) then costs one set of plans, not p.
struct Memo {
    int ranks = 0;
    std::int64_t step_ns = 0;
    std::vector<std::int64_t> arrival_ns;
    std::vector<schedule::Schedule> schedules;
};

std::vector<schedule::Schedule> build_reduce_scatter_form(const schedule::BuildInput& input) {
    const int p = input.ranks, pieces = clairvoyant::reduce_scatter_pieces(p);
    std::vector<Edge> edges;
    std::vector<std::int64_t> rounds;  // every round in which some piece moves
    std::vector<clairvoyant::Plan> plans;
    for (int k = 0; k < pieces; ++k) {
        plans.push_back(clairvoyant::plan_for(input, piece_root(k, p, pieces), 1));
        for (const auto& move : plans.back().moves) rounds.push_back(move.round);
    }
    std::sort(rounds.begin(), rounds.end());
    rounds.erase(std::unique(rounds.begin(), rounds.end()), rounds.end());
    for (int k = 0; k < pieces; ++k)
        for (const auto& move : plans[std::size_t(k)].moves) {
            const int step = int(std::lower_bound(rounds.begin(), rounds.end(), move.round) - rounds.begin());
            edges.push_back({step, move.from, move.to, k, move.combine});
        }
    for (int k = 0; k < pieces; ++k) add_bcast_edges(edges, p, piece_root(k, p, pieces), k, int(rounds.size()));
    auto out = schedules_from(edges, p, pieces);
    const std::size_t steps = rounds.size() + std::size_t(tree_steps(p));
    for (auto& plan : out) plan.steps.resize(steps);
    return out;
}

}  // namespace

schedule::Schedule build_clairvoyant_bcast(const schedule::BuildInput& input) {
    const int p = input.ranks, segments = clairvoyant::segments_for(p);
    schedule::BuildInput to_last = input;
    to_last.root = clairvoyant::last_arrival(input);
    int reduce_steps = 0;
    schedule::Schedule plan = clairvoyant::reduce_schedule(clairvoyant::plan_for(input, to_last.root, segments), p,
                                                           input.rank, segments, &reduce_steps);
    plan.steps.resize(std::size_t(reduce_steps));
    for (auto& step : reduction::build_binomial_bcast(to_last).steps) {
        for (auto* transfers : {&step.sends, &step.recvs})
            for (auto& t : *transfers) t.blocks = reduction::block_range(0, segments);
        plan.steps.push_back(std::move(step));
    }
    return plan;
}

schedule::Schedule build_clairvoyant_scatter(const schedule::BuildInput& input) {
    thread_local Memo memo;
    const bool same = memo.ranks == input.ranks && memo.step_ns == input.step_ns &&
                      std::ranges::equal(memo.arrival_ns, input.arrival_ns);
    if (!same) {
        memo.schedules = build_reduce_scatter_form(input);
        memo.ranks = input.ranks;
        memo.step_ns = input.step_ns;
        memo.arrival_ns.assign(input.arrival_ns.begin(), input.arrival_ns.end());
    }
    return memo.schedules[std::size_t(input.rank)];
}

}  // namespace papshim::allreduce

namespace papshim::clairvoyant {
// At most 64 pieces: K trees cost K plans per call, and past 64 the pieces get small.
int reduce_scatter_pieces(int ranks) { return std::min(ranks, 64); }
}  // namespace papshim::clairvoyant
