// Predicted-scatter Allreduce (issue 9; docs/algorithms/predicted-scatter.md): Clairvoyant's
// reduce-scatter form with the rank predicted to arrive last (L) owning no piece. While L is
// away the p - 1 early ranks reduce-scatter their data among themselves, one piece each (a
// direct exchange: one step). When L arrives, L and every early rank swap that rank's piece
// in K chunks (L sends its data, the early rank its partial, and both reduce), so L has the
// result after K steps; each early rank passes every finished chunk of its piece to the
// other early ranks one step later. After L's arrival its link carries the vector once in
// each direction, each early rank's about once, in K + 1 steps: the least data any Allreduce
// can move with L's data still outside, in few steps, where a pipelined chain needs N + p.
// Up to 1 MiB (4 MiB at 3 and 4 ranks, any size at 2), where the MPI buffers early sends, the
// early ranks push their partials to L before it arrives instead, and L sends the finished
// chunks back (pushes_partials). Each chunk moves in messages the MPI sends eagerly
// (messages_per_chunk).
// Commutative ops.

#include <algorithm>

#include "../reduction_steps.hpp"
#include "builders.hpp"

namespace papshim::allreduce {

namespace {

constexpr std::uint64_t kChunkBytes = kPushedChunkBytes;
// The largest vector whose partials are pushed to L (pushes_partials), and at 3 to
// kPushedLargeMaxRanks ranks (at 2, any).
constexpr std::uint64_t kPushedMaxBytes = 1 << 20, kPushedLargeMaxBytes = 4 << 20;
constexpr int kPushedLargeMaxRanks = 4;

// Chunks of each piece: L's swap with a piece's owner is pipelined with the owner's pass to
// the others over K steps, so the early ranks finish (K + 1)/K vectors' time after L
// arrives; but every step costs a round of message start-ups. So as few as keep a chunk
// within kChunkBytes (the segments of predicted_scatter_segments, under TCP's eager limit):
// at 1 MiB and p = 8 that is 4, measured best there (0.51-0.64x native's excess against
// 0.66-0.96 with 2, in single runs whose JSON was not kept). Until 2026-12-06 at least 4
// whatever their size: at 128-384 KiB, p = 8, chunks of 5-14 KiB took 0.87-2.19x native's
// excess, one chunk a piece (two at 384 KiB) 0.33-0.85x, one run 1.75x; at p = 4, 256 and
// 384 KiB, 2 and 3 chunks took less than 3 and 4 in the median call in 12 pairs of 12
// (0.49-0.79x against 0.53-0.81x; docs/benchmarks.md, "The predicted scatter from 128 KiB").
// One piece has no pass to overlap: one swap; but pushed (p = 2), the early rank's chunks
// must stay under the eager limit to reach L before it arrives, so as many as segments.
int chunks_for(int pieces, int segments, bool push) {
    if (pieces <= 1) return push ? std::max(1, segments) : 1;
    return std::max(1, (segments + pieces - 1) / pieces);
}

// Up to 1 MiB the owners push all their partial chunks to L in step 1, while L is away:
// they sit in L's socket buffers when it arrives, and L, which then reduces every chunk
// itself and sends the finished ones back, leaves about when its sends are buffered instead
// of a vector time after it arrived. Measured (docs/benchmarks.md, "The predicted scatter
// pushes its partials to the last arriver", median calls): 0.39-0.52x native's excess at
// 512 KiB-1 MiB, p = 3-6, where the swap took 0.42-0.57x; a tie at p = 8; at p = 2 (a core
// per rank) 0.55-0.61x where the one swap took 1.01-1.04x. From 2 MiB the swap from p = 5:
// the owners' chunks 1.. wait for L to take in and reduce the whole vector, which cost more
// than L saved there (p = 8, 2 MiB: 0.50-0.53x against 0.46-0.47x); at p = 3 and 4 the push up
// to 4 MiB (Open MPI p = 4: 0.44-0.47x against 0.48-0.50x, p = 3 a tie; MPICH p = 4, in thirds:
// 0.62-0.83x against 0.92-1.23x; docs/benchmarks.md, "The predicted scatter's chunks under the
// MPI's eager limit"); at p = 2 at any size, each pushed chunk a step of its own (2-4 MiB:
// Open MPI 0.55-0.57x, MPICH in thirds 0.56-0.59x, where the swap took 1.01-1.02x;
// docs/benchmarks.md, "Two ranks pushed up to 4 MiB"; 6-7 MiB 0.75-0.84x and 0.73-0.82x
// against 1.01-1.02x, where more of the vector than L's socket buffers hold waits for it:
// "Issue 9's first target at one build"). One early rank has nothing to overlap with a swap.
// Only where the MPI completes those sends before L arrives (BuildInput::early_send_bytes,
// measured with the link: Open MPI's TCP 48 KiB, MPICH over UCX's TCP 16 KiB).
bool pushes_partials(const schedule::BuildInput& input) {
    if (input.early_send_bytes == 0) return false;
    if (input.ranks <= 2) return true;
    const bool few_early = input.ranks <= kPushedLargeMaxRanks;
    return input.segments <= predicted_scatter_segments(few_early ? kPushedLargeMaxBytes : kPushedMaxBytes);
}

// Step 0: the early ranks (`early`, piece i owned by early[i], `blocks` blocks a piece)
// reduce-scatter their data in one direct exchange, so early[i] holds the early ranks'
// partial of piece i. Appends the step, empty for the other ranks.
void add_early_reduce_scatter(schedule::Schedule& plan, std::span<const int> early, int blocks) {
    schedule::Step step;
    const int pieces = int(early.size());
    for (int mine = 0; mine < pieces; ++mine) {
        if (early[std::size_t(mine)] != plan.rank) continue;
        for (int other = 0; other < pieces; ++other) {
            if (other == mine) continue;
            reduction::add_send(step, early[std::size_t(other)], reduction::block_range(other * blocks, blocks));
            reduction::add_receive(step, early[std::size_t(other)], reduction::block_range(mine * blocks, blocks),
                                   schedule::Combine::received_first);
        }
    }
    plan.steps.push_back(std::move(step));
}

}  // namespace

// The messages each chunk moves in (one block each): one where a whole chunk's send is
// buffered before its receive (Open MPI's TCP, 64 KiB eager), else as many as keep each
// within BuildInput::early_send_bytes, under the MPI's eager limit (MPICH over UCX's TCP
// buffers 16 KiB, not 24: three; under 8 and 4 KiB limits seven and fourteen, sized for
// InfiniBand-like transports). Over MPICH's UCX each 48 KiB chunk went by rendezvous, a
// handshake with its receiver at every one of the K + 2 steps: p = 4, 512 KiB-1 MiB, the
// scatter took 1.5-4.9x native's excess whole and 0.22-0.56x in thirds; at p = 2 1.05x and
// 0.56-0.62x (docs/benchmarks.md, "The predicted scatter's chunks under the MPI's eager
// limit"). One where nothing of kEarlySendBytes is buffered (shared memory): unmeasured in
// smaller messages; and where no segments are given, so the chunks are not cut to kChunkBytes.
// (The one swap at p = 2, a whole vector, runs only where nothing is buffered.)
int messages_per_chunk(const schedule::BuildInput& input) {
    if (input.segments <= 0 || input.early_send_bytes == 0 || input.early_send_bytes >= kChunkBytes) return 1;
    return int((kChunkBytes + input.early_send_bytes - 1) / input.early_send_bytes);
}

// Segments of at most kChunkBytes, below Open MPI TCP's 64 KiB eager limit (docs/benchmarks.md,
// "The predicted chain Reduce and the predicted scatter in pieces"), up to 192 MiB; larger
// vectors take larger chunks (4096 segments at most).
int predicted_scatter_segments(std::uint64_t bytes) {
    return int(std::clamp<std::uint64_t>(bytes / kChunkBytes + (bytes % kChunkBytes != 0 ? 1 : 0), 1, 4096));
}

schedule::Schedule build_predicted_scatter(const schedule::BuildInput& input) {
    const int p = input.ranks;
    const int early_count = p - 1;
    const bool push = pushes_partials(input);
    const int chunks = chunks_for(early_count, input.segments, push);
    const int split = messages_per_chunk(input);  // blocks a chunk
    schedule::Schedule plan = reduction::empty_schedule(input, p > 1 ? early_count * chunks * split : 1);
    if (p <= 1) return plan;
    std::vector<int> early = predicted_order(input);
    const int last = early.back();
    early.pop_back();
    add_early_reduce_scatter(plan, early, chunks * split);  // step 0

    plan.steps.resize(std::size_t(chunks) + 2);
    const auto combine = schedule::Combine::received_first;
    // A chunk moves as one message a block: `split` of them (one where whole chunks are sent
    // eagerly).
    const auto send = [](schedule::Step& step, int peer, const std::vector<int>& chunk) {
        for (const int b : chunk) reduction::add_send(step, peer, {b});
    };
    const auto receive = [](schedule::Step& step, int peer, const std::vector<int>& chunk, schedule::Combine how) {
        for (const int b : chunk) reduction::add_receive(step, peer, {b}, how);
    };
    for (int piece = 0; piece < early_count; ++piece) {
        const int owner = early[std::size_t(piece)];
        for (int chunk = 0; chunk < chunks; ++chunk) {
            const std::vector<int> block = reduction::block_range((piece * chunks + chunk) * split, split);
            // The owner's partial reaches L in step 1 + chunk (swapped with L's data), or in
            // step 1 whatever the chunk (pushed). L's chunk goes back in step 1 + chunk: its
            // data, which the owner reduces, or, pushed, from chunk 1 on the finished chunk.
            const std::size_t partial_step = push ? 1 : std::size_t(1 + chunk);
            schedule::Step& back = plan.steps[std::size_t(1 + chunk)];
            const auto owner_combine = push && chunk > 0 ? schedule::Combine::none : combine;
            if (input.rank == last) {
                receive(plan.steps[partial_step], owner, block, combine);
                send(back, owner, block);
            } else if (input.rank == owner) {
                send(plan.steps[partial_step], last, block);
                receive(back, last, block, owner_combine);
            }
            // One step later the owner passes the finished chunk to the other early ranks.
            schedule::Step& pass = plan.steps[std::size_t(2 + chunk)];
            for (int other : early) {
                if (other == owner) continue;
                if (input.rank == owner) send(pass, other, block);
                if (input.rank == other) receive(pass, owner, block, schedule::Combine::none);
            }
        }
    }
    return plan;
}

}  // namespace papshim::allreduce
