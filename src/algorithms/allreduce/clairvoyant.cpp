// Clairvoyant Allreduce, in no paper (issue 9; docs/algorithms/clairvoyant.md §6), in two forms:
// - `clairvoyant` (the reduce-scatter form, named `clairvoyant_rs` until 2026-11-30): the
//   vector in K = min(p - 1, 64) pieces, one per rank but the predicted-last, each in S
//   segments; piece k reduced by its own S-segment Clairvoyant plan to its root (a
//   reduce-scatter whose trees all follow the predicted arrivals), and each segment sent on
//   from its root in the round after it is whole, to every other rank (down a binomial tree
//   beyond 65 ranks): an allgather pipelined behind the last arriver's segments. Until
//   2026-12-05 the last arriver owned a piece and K binomial broadcasts followed the whole
//   reduce-scatter;
// - `clairvoyant_bcast` (named `clairvoyant` until 2026-11-30): a Clairvoyant Reduce of the N
//   segments to the rank predicted to arrive last (its own data needs no hop, and the early
//   ranks pre-reduce while it is away), then a binomial broadcast of the whole vector from it.
//   It lost to the reduce-scatter form (as it was before 2026-12-05) in every measurement, and
//   in papshim-sim won only two 8-byte cells by 3-7% (docs/algorithms/clairvoyant.md §6).
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
// consecutive blocks become one message (`merge`; else one message a block), listed in the
// same order on both sides (the simulator's pairing rule).
std::vector<schedule::Schedule> schedules_from(std::vector<Edge>& edges, int ranks, int blocks, bool merge) {
    std::sort(edges.begin(), edges.end(), [](const Edge& x, const Edge& y) { return x.key() < y.key(); });
    std::vector<schedule::Schedule> out;
    for (int r = 0; r < ranks; ++r) out.push_back({.ranks = ranks, .rank = r, .blocks = blocks, .steps = {}});
    for (std::size_t i = 0; i < edges.size();) {
        const Edge& first = edges[i];
        std::size_t end = i + 1;
        while (merge && end < edges.size() && edges[end].step == first.step && edges[end].from == first.from &&
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

// The last schedule set built, per thread: every rank's builder call of one plan (the
// simulator, tests) then costs one set of plans, not p.
struct Memo {
    int ranks = 0;
    std::int64_t step_ns = 0;
    int segments = 0;
    std::uint64_t early_send_bytes = 0;
    std::vector<std::int64_t> arrival_ns;
    std::vector<schedule::Schedule> schedules;
};

std::vector<schedule::Schedule> build_reduce_scatter_form(const schedule::BuildInput& input) {
    const int p = input.ranks;
    const int pieces = clairvoyant::reduce_scatter_pieces(p);
    const int segments = clairvoyant::scatter_round_segments(p, input.segments);
    // Each segment (within kPushedChunkBytes) in messages the MPI sends eagerly, as the
    // predicted scatter's chunks: whole, on MPICH over UCX's TCP (16 KiB buffered) every
    // segment was a rendezvous handshake, and this form took 2.0-7.8x native's excess at p = 4,
    // 256 KiB-4 MiB, where in thirds 0.16-1.18x (docs/benchmarks.md, "Issue 9's first target at
    // one build").
    const int split = messages_per_chunk(input);
    if (p <= 1) return {schedule::Schedule{.ranks = p, .rank = 0, .blocks = segments * split, .steps = {}}};
    // The predicted-last rank L owns no piece: when it arrives well after the others, its link
    // then carries its vector out once and the result in once, each piece's segment meeting
    // the early ranks' partial, which Clairvoyant's plan gathered at the piece's root while L
    // was away.
    const int last = clairvoyant::last_arrival(input);
    std::vector<int> early;
    for (int r = 0; r < p; ++r)
        if (r != last) early.push_back(r);
    std::vector<int> roots;
    std::vector<clairvoyant::Plan> plans;
    std::vector<std::int64_t> rounds;  // every round in which something moves
    // finished[k * segments + s]: the round after which block (k, s) is whole at its root;
    // holder[...]: the rank that sent it back whole, which already has it (the plan may send
    // the root's partial to L to combine and take it back), or -1.
    std::vector<std::int64_t> finished(std::size_t(pieces * segments), 0);
    std::vector<int> holder(std::size_t(pieces * segments), -1);
    for (int k = 0; k < pieces; ++k) {
        roots.push_back(early[std::size_t(std::int64_t(k) * (p - 1) / pieces)]);
        plans.push_back(clairvoyant::plan_for(input, roots.back(), segments));
        for (const auto& move : plans.back().moves) {  // by round
            rounds.push_back(move.round);
            const std::size_t block = std::size_t(k * segments + move.segment);
            finished[block] = move.round + 1;
            holder[block] = move.combine ? -1 : move.from;
        }
    }
    // Each segment goes on from its root in the round after it is whole, so the allgather of
    // early segments overlaps L's sending of later ones: straight to every other rank where
    // every early rank roots a piece (each then sends about one vector), else (p > 65) down a
    // binomial tree over the ranks, so that the others relay and no root sends more.
    const bool direct = pieces == p - 1;
    const int levels = direct ? 1 : std::bit_width(unsigned(p - 1));
    for (const std::int64_t done : finished)
        for (int level = 0; level < levels; ++level) rounds.push_back(done + level);
    std::sort(rounds.begin(), rounds.end());
    rounds.erase(std::unique(rounds.begin(), rounds.end()), rounds.end());
    const auto step_of = [&rounds](std::int64_t round) {
        return int(std::lower_bound(rounds.begin(), rounds.end(), round) - rounds.begin());
    };
    std::vector<Edge> edges;
    const auto add = [&edges, split](int step, int from, int to, int segment, bool combine) {
        for (int part = 0; part < split; ++part) edges.push_back({step, from, to, segment * split + part, combine});
    };
    for (int k = 0; k < pieces; ++k) {
        for (const auto& move : plans[std::size_t(k)].moves)
            add(step_of(move.round), move.from, move.to, k * segments + move.segment, move.combine);
        for (int s = 0; s < segments; ++s) {
            const int block = k * segments + s, root = roots[std::size_t(k)];
            // The root first, then the ranks after it, without the one that holds the block.
            std::vector<int> members{root};
            for (int i = 1; i < p; ++i)
                if (const int r = (root + i) % p; r != holder[std::size_t(block)]) members.push_back(r);
            const std::int64_t done = finished[std::size_t(block)];
            if (direct) {
                for (std::size_t i = 1; i < members.size(); ++i)
                    add(step_of(done), root, members[i], block, false);
                continue;
            }
            const int n = int(members.size());
            int level = 0;
            for (int mask = int(std::bit_floor(unsigned(n - 1))); mask >= 1; mask >>= 1, ++level)
                for (int from = 0; from + mask < n; from += 2 * mask)
                    add(step_of(done + level), members[std::size_t(from)], members[std::size_t(from + mask)], block,
                        false);
        }
    }
    auto out = schedules_from(edges, p, pieces * segments * split, split == 1);
    for (auto& plan : out) plan.steps.resize(rounds.size());
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
    const bool same = memo.ranks == input.ranks && memo.step_ns == input.step_ns && memo.segments == input.segments &&
                      memo.early_send_bytes == input.early_send_bytes &&
                      std::ranges::equal(memo.arrival_ns, input.arrival_ns);
    if (!same) {
        memo.schedules = build_reduce_scatter_form(input);
        memo.ranks = input.ranks;
        memo.step_ns = input.step_ns;
        memo.segments = input.segments;
        memo.early_send_bytes = input.early_send_bytes;
        memo.arrival_ns.assign(input.arrival_ns.begin(), input.arrival_ns.end());
    }
    return memo.schedules[std::size_t(input.rank)];
}

}  // namespace papshim::allreduce

namespace papshim::clairvoyant {
// One piece per rank but the predicted-last, at most 64: K trees cost K plans per call, and
// past 64 the pieces get small.
int reduce_scatter_pieces(int ranks) { return std::clamp(ranks - 1, 1, 64); }
// The vector's segments (at most 48 KiB, predicted_scatter_segments) shared among the pieces,
// none larger, but for at most about 2^21 block moves over all ranks (the builder keeps every
// rank's schedule: at p = 1000, 32 segments a piece, that is 192 MiB vectors in 96 KiB parts).
int scatter_round_segments(int ranks, int segments) {
    const int pieces = reduce_scatter_pieces(ranks);
    const int most = std::max(1, int((std::int64_t(1) << 21) / (std::int64_t(pieces) * ranks)));
    return segments <= 0 ? 1 : std::min((segments + pieces - 1) / pieces, most);
}
}  // namespace papshim::clairvoyant
