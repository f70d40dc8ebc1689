// Predicted-scatter Allreduce (issue 9; docs/algorithms/predicted-scatter.md): Clairvoyant's
// reduce-scatter form with the rank predicted to arrive last (L) owning no piece. While L is
// away the p - 1 early ranks reduce-scatter their data among themselves, one piece each (a
// direct exchange: one step). When L arrives, L and every early rank swap that rank's piece
// in K chunks (L sends its data, the early rank its partial, and both reduce), so L has the
// result after K steps; each early rank passes every finished chunk of its piece to the
// other early ranks one step later. After L's arrival its link carries the vector once in
// each direction, each early rank's about once, in K + 1 steps: the least data any Allreduce
// can move with L's data still outside, in few steps, where a pipelined chain needs N + p.
// Commutative ops.

#include <algorithm>

#include "../reduction_steps.hpp"
#include "builders.hpp"

namespace papshim::allreduce {

namespace {

constexpr std::uint64_t kChunkBytes = 48 << 10;
constexpr std::uint64_t kLeastChunkBytes = 32 << 10;

// Chunks of each piece: L's swap with a piece's owner is pipelined with the owner's pass to
// the others over K steps, so the early ranks finish (K + 1)/K vectors' time after L
// arrives. Few, because every step costs a round of message start-ups: 4 measured best at
// 1 MiB on the emulated 1 Gbit/s network (0.51-0.64x native's excess against 0.66-0.96 with
// 2, in single runs whose JSON was not kept); more where a chunk would pass kChunkBytes
// (the segments of predicted_scatter_segments); fewer where a chunk would be smaller than
// kLeastChunkBytes (since 2026-12-06: at 128-384 KiB, p = 8, 4 chunks of 5-14 KiB took
// 0.87-2.19x native's excess, chunks of at least 32 KiB 0.33-0.85x, one run 1.75x;
// docs/benchmarks.md, "The predicted scatter from 128 KiB"). One piece has no pass to overlap.
int chunks_for(int pieces, int segments) {
    if (pieces <= 1) return 1;
    const int fit = (segments + pieces - 1) / pieces;  // no chunk larger than a segment
    const auto piece_bytes = std::uint64_t(segments) * kChunkBytes / std::uint64_t(pieces);  // at most
    return std::max(fit, int(std::clamp<std::uint64_t>(piece_bytes / kLeastChunkBytes, 1, 4)));
}

// Step 0: the early ranks (`early`, piece i owned by early[i], `chunks` blocks a piece)
// reduce-scatter their data in one direct exchange, so early[i] holds the early ranks'
// partial of piece i. Appends the step, empty for the other ranks.
void add_early_reduce_scatter(schedule::Schedule& plan, std::span<const int> early, int chunks) {
    schedule::Step step;
    const int pieces = int(early.size());
    for (int mine = 0; mine < pieces; ++mine) {
        if (early[std::size_t(mine)] != plan.rank) continue;
        for (int other = 0; other < pieces; ++other) {
            if (other == mine) continue;
            reduction::add_send(step, early[std::size_t(other)], reduction::block_range(other * chunks, chunks));
            reduction::add_receive(step, early[std::size_t(other)], reduction::block_range(mine * chunks, chunks),
                                   schedule::Combine::received_first);
        }
    }
    plan.steps.push_back(std::move(step));
}

}  // namespace

// Segments of at most kChunkBytes, below Open MPI TCP's 64 KiB eager limit (docs/benchmarks.md,
// "The predicted chain Reduce and the predicted scatter in pieces"), up to 192 MiB; larger
// vectors take larger chunks (4096 segments at most).
int predicted_scatter_segments(std::uint64_t bytes) {
    return int(std::clamp<std::uint64_t>(bytes / kChunkBytes + (bytes % kChunkBytes != 0 ? 1 : 0), 1, 4096));
}

schedule::Schedule build_predicted_scatter(const schedule::BuildInput& input) {
    const int p = input.ranks;
    const int early_count = p - 1;
    const int chunks = chunks_for(early_count, input.segments);
    schedule::Schedule plan = reduction::empty_schedule(input, p > 1 ? early_count * chunks : 1);
    if (p <= 1) return plan;
    std::vector<int> early = predicted_order(input);
    const int last = early.back();
    early.pop_back();
    add_early_reduce_scatter(plan, early, chunks);  // step 0

    plan.steps.resize(std::size_t(chunks) + 2);
    const auto combine = schedule::Combine::received_first;
    for (int piece = 0; piece < early_count; ++piece) {
        const int owner = early[std::size_t(piece)];
        for (int chunk = 0; chunk < chunks; ++chunk) {
            const std::vector<int> block{piece * chunks + chunk};
            // Step 1 + chunk: the owner's partial and L's data cross, each side reduces.
            schedule::Step& swap = plan.steps[std::size_t(1 + chunk)];
            if (input.rank == last) {
                reduction::add_send(swap, owner, block);
                reduction::add_receive(swap, owner, block, combine);
            } else if (input.rank == owner) {
                reduction::add_send(swap, last, block);
                reduction::add_receive(swap, last, block, combine);
            }
            // One step later the owner passes the finished chunk to the other early ranks.
            schedule::Step& pass = plan.steps[std::size_t(2 + chunk)];
            for (int other : early) {
                if (other == owner) continue;
                if (input.rank == owner) reduction::add_send(pass, other, block);
                if (input.rank == other) reduction::add_receive(pass, owner, block, schedule::Combine::none);
            }
        }
    }
    return plan;
}

}  // namespace papshim::allreduce
