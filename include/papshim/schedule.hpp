// A collective algorithm as data (DESIGN §4): ordered steps of sends and receives of
// block lists between ranks. Builders are pure functions; one executor per kind of data
// (gathered blocks, reduced vectors) runs any schedule over PMPI point-to-point, and the
// simulator runs the same schedule without MPI.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace papshim::schedule {

// How a received message meets the local copy of its blocks.
enum class Combine : std::uint8_t {
    none,            // overwrite: gathered blocks, or a finished reduction result
    received_first,  // local = received (op) local: the sender's contributions come first in rank order
    local_first,     // local = local (op) received
};

// One message to or from `peer`. `blocks` are block ids, packed into the message in the
// listed order. Allgather: block b is rank b's contribution. Reductions: block b is the
// b-th of Schedule::blocks near-equal element ranges of the vector (reduction_block), and
// a transfer lists consecutive ascending blocks, so its data is one contiguous range.
// An Allgather transfer that lists no blocks is a signal: a zero-byte message that only
// orders its two ends (BSLB passes the gather's turn with it).
//
// A piece (Allgather only) moves part of one block: the transfer lists that one block, and
// of its bytes (count x type size, the type signature, so the same on every rank) carries
// the `index`-th of `count` near-equal byte ranges (reduction_block over bytes). A rank holds
// the block once it has every piece. Pieces let one block leave its owner once, split over
// several ranks, instead of whole along a tree (BDR's tail).
struct Piece {
    int index = 0;
    int count = 0;  // 0: the transfer moves whole blocks
    bool whole() const { return count == 0; }
    friend bool operator==(const Piece&, const Piece&) = default;
};

struct Transfer {
    int peer = -1;
    std::vector<int> blocks;
    Combine combine = Combine::none;  // receives only
    Piece piece{};
};

// All sends and receives of a step are posted together and completed together before the
// next step starts; sends read the blocks as they were when the step started. Several
// combining receives may bring one block in a step: they are reduced in, in the order listed.
struct Step {
    std::vector<Transfer> sends;
    std::vector<Transfer> recvs;
};

struct Schedule {
    int ranks = 0;   // p
    int rank = 0;    // the rank this schedule is for
    int blocks = 0;  // number of blocks (p for Allgather)
    std::vector<Step> steps;
};

// What a builder may look at: data that is identical on every rank (DESIGN §3).
struct BuildInput {
    int ranks = 1;
    int rank = 0;
    // Predicted arrival of every rank, integer nanoseconds relative to the earliest (as
    // exchanged, so bit-identical everywhere); empty when unknown (balanced form).
    std::span<const std::int64_t> arrival_ns;
    // The algorithm's time unit in nanoseconds (BDR: τ, one segment over one link;
    // Clairvoyant: the round length d); 0 when unknown.
    std::int64_t step_ns = 0;
    // Allgatherv: every rank's block bytes (identical everywhere: MPI requires matching
    // counts); empty when not given. BDR uses it to let empty blocks take no pre-step slot.
    std::span<const std::uint64_t> block_bytes;
    int root = -1;            // Reduce: the root; -1 for the all-collectives
    bool commutative = true;  // reductions: whether the op may be applied out of rank order
    // Reductions cut into pieces by the vector's size: how many
    // (ReductionAlgorithm::segments_for_bytes, identical everywhere); 0: the builder's default.
    int segments = 0;
    // The largest message (of kEarlySendBytes) whose send completes before its receiver has
    // arrived, its data waiting in the receiver's socket (LinkModel::early_send_bytes,
    // measured with the link and broadcast, so the same on every rank): a schedule may push
    // messages up to this size to a rank that is still away. 0: none.
    std::uint64_t early_send_bytes = 0;
};

using Builder = Schedule (*)(const BuildInput&);

// Elements [first, first + count) of a `total`-element vector cut into `blocks` near-equal
// ranges (the first total % blocks ranges one element longer). Identical on every rank.
struct ElementRange {
    std::int64_t first = 0;
    std::int64_t count = 0;
};
inline ElementRange reduction_block(std::int64_t total, int blocks, int block) {
    const std::int64_t base = total / blocks, extra = total % blocks;
    const std::int64_t first = block * base + (block < extra ? block : extra);
    return {first, base + (block < extra ? 1 : 0)};
}
// The elements of the consecutive blocks [first_block, first_block + block_count).
inline ElementRange reduction_blocks(std::int64_t total, int blocks, int first_block, int block_count) {
    if (block_count <= 0) return {reduction_block(total, blocks, first_block).first, 0};
    const ElementRange head = reduction_block(total, blocks, first_block);
    const ElementRange tail = reduction_block(total, blocks, first_block + block_count - 1);
    return {head.first, tail.first + tail.count - head.first};
}

}  // namespace papshim::schedule
