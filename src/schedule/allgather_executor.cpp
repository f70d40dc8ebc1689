// Runs any Allgather/Allgatherv schedule over PMPI point-to-point (DESIGN §4, spec §1):
// each step's blocks become messages (small multi-block messages of dense types packed,
// kPackLimitBytes; the rest described in place), exchanged by schedule::exchange.

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <span>
#include <vector>

#include "block_layout.hpp"
#include "message_exchange.hpp"
#include "papshim/algorithms.hpp"

namespace papshim {

namespace {

using schedule::BlockLayout;
using schedule::MessageBuffer;
using schedule::WireMessage;

// A message of several runs of a dense type and at most this many bytes is packed with
// memcpy into a scratch buffer instead of described by an hindexed type: building,
// committing and freeing that type per message costs more than copying a few KiB. Measured
// with papshim-bench (Sparbit against recursive doubling, p = 4 and 8, Open MPI shared
// memory): packing gains 5-10% on messages up to 16 KiB and loses 5-15% on 32 KiB and
// 64 KiB ones, where the two extra copies cost more than the datatype. Larger messages keep
// the zero-copy description.
constexpr std::size_t kPackLimitBytes = std::size_t{16} * 1024;

// Packed messages start at multiples of this in the scratch buffer.
constexpr std::size_t kPackAlignment = 64;

// One message of a step: its runs (a range of StepScratch::runs) and, if packed, where its
// bytes live in StepScratch::packed; or a piece of a block, as bytes.
struct PlannedMessage {
    const schedule::Transfer* transfer = nullptr;
    bool receive = false;
    std::size_t first_run = 0;
    std::size_t end_run = 0;
    bool packed = false;
    std::size_t packed_offset = 0;
    schedule::ElementRange piece_bytes{};  // a piece: its bytes of the block's packed form
};

// The blocks this call moves in pieces, where the layout is not dense: each lives packed
// (MPI_Pack's bytes, the type signature's on a homogeneous system, which is what a dense
// peer sends) for the whole call; a block received in pieces is unpacked into the layout as
// soon as its last piece is in, so a later whole-block send finds it there. Dense layouts
// send and receive the pieces in place.
class PieceStaging {
public:
    // The packed bytes of the piece's block, packed from the layout first if this rank holds
    // it whole (a send of a block not staged yet), or made ready for pieces to land in. Null
    // on error.
    std::byte* bytes_of(const BlockLayout& layout, const schedule::Transfer& transfer, bool holder, MPI_Comm comm,
                        int& error) {
        const int block = transfer.blocks.front();
        if (Entry* entry = find(block)) return entry->bytes.data();
        const std::int64_t bytes = layout.bytes(block);
        if (bytes > INT_MAX) {
            error = MPI_ERR_COUNT;
            return nullptr;
        }
        // The pieces that carry bytes: the first min(count, bytes) of them.
        const int missing = holder ? 0 : int(std::min<std::int64_t>(transfer.piece.count, bytes));
        Entry& entry = entries_.emplace_back(Entry{block, std::vector<std::byte>(std::size_t(bytes)), missing});
        if (holder) {
            int position = 0;
            error = PMPI_Pack(layout.address(block), layout.count(block), layout.type(), entry.bytes.data(),
                              int(bytes), &position, comm);
            if (error == MPI_SUCCESS && position != bytes) error = MPI_ERR_TYPE;  // not the signature's bytes
            if (error != MPI_SUCCESS) return nullptr;
        }
        return entry.bytes.data();
    }

    // One piece of `block` has landed; unpacks the block once every piece has.
    int arrived(const BlockLayout& layout, int block, MPI_Comm comm) {
        Entry* entry = find(block);
        if (entry == nullptr || entry->missing <= 0 || --entry->missing > 0) return MPI_SUCCESS;
        int position = 0;
        return PMPI_Unpack(entry->bytes.data(), int(entry->bytes.size()), &position, layout.address(block),
                           layout.count(block), layout.type(), comm);
    }

private:
    struct Entry {
        int block;
        std::vector<std::byte> bytes;
        int missing;  // pieces still to land; 0 when held whole
    };
    Entry* find(int block) {
        for (Entry& entry : entries_)
            if (entry.block == block) return &entry;
        return nullptr;
    }
    std::vector<Entry> entries_;
};

// A piece's byte range of its block: the same on both ends, as both know the block's count
// and type size (the signature).
schedule::ElementRange piece_range(const BlockLayout& layout, const schedule::Transfer& transfer) {
    return schedule::reduction_block(layout.bytes(transfer.blocks.front()), transfer.piece.count, transfer.piece.index);
}

// Derived types, runs, messages and packed bytes of one step; per thread and reused, so the
// hot path of small messages does not allocate after the first call.
struct StepScratch {
    std::vector<MPI_Datatype> owned_types;
    std::vector<schedule::Run> runs;
    std::vector<PlannedMessage> messages;
    std::vector<WireMessage> wire;
    std::vector<std::byte> packed;
};
thread_local StepScratch step_scratch;

}  // namespace

// More data than the block holds: MPI_ERR_TRUNCATE, as the native call reports it (Open MPI's
// Sendrecv to itself truncates silently). Before any message, like every rank's.
int check_own_block(const AllgatherBuffers& buffers, int rank) {
    if (buffers.sendbuf == MPI_IN_PLACE) return MPI_SUCCESS;
    const int own_count = buffers.recvcounts != nullptr ? buffers.recvcounts[rank] : buffers.recvcount;
    MPI_Count send_size = 0, block_size = 0;
    PMPI_Type_size_x(buffers.sendtype, &send_size);
    PMPI_Type_size_x(buffers.recvtype, &block_size);
    return MPI_Count(buffers.sendcount) * send_size > MPI_Count(own_count) * block_size ? MPI_ERR_TRUNCATE
                                                                                      : MPI_SUCCESS;
}

namespace {

// Copies the caller's contribution (sendcount x sendtype) into its own block.
int copy_own_block(const AllgatherBuffers& buffers, const BlockLayout& layout, int rank,
                   MPI_Comm comm) {
    if (buffers.sendbuf == MPI_IN_PLACE) return MPI_SUCCESS;
    void* own_block = layout.address(rank);
    const int own_count = layout.count(rank);
    if (buffers.sendtype == layout.type() && buffers.sendcount == own_count &&
        layout.dense()) {
        if (own_count > 0) {
            std::memmove(own_block, buffers.sendbuf,
                         static_cast<std::size_t>(own_count) * static_cast<std::size_t>(layout.extent()));
        }
        return MPI_SUCCESS;
    }
    if (const int error = check_own_block(buffers, rank); error != MPI_SUCCESS) return error;
    // Different (signature-equal) types: let MPI convert through a message to ourselves.
    return PMPI_Sendrecv(buffers.sendbuf, buffers.sendcount, buffers.sendtype, rank, schedule::kSelfCopyTag,
                         own_block, own_count, layout.type(), rank, schedule::kSelfCopyTag, comm,
                         MPI_STATUS_IGNORE);
}

std::span<const schedule::Run> runs_of(const StepScratch& scratch, const PlannedMessage& message) {
    return std::span(scratch.runs).subspan(message.first_run, message.end_run - message.first_run);
}

// Collects the runs of every transfer of the step (receives first) and decides which
// messages are packed. The two ends of a message may decide differently (their receive
// types may differ): a packed message is still total_count elements of the receive type,
// so its type signature, and with it the matching, is the same as unpacked.
void plan_step(const schedule::Step& step, const BlockLayout& layout, StepScratch& scratch) {
    scratch.runs.clear();
    scratch.messages.clear();
    std::size_t packed_bytes = 0;
    auto plan = [&](const schedule::Transfer& transfer, bool receive) {
        PlannedMessage message{&transfer, receive, scratch.runs.size(), 0, false, 0, {}};
        if (!transfer.piece.whole()) {
            // Empty pieces (a block shorter than its piece count in bytes) are skipped on both ends.
            message.piece_bytes = piece_range(layout, transfer);
            message.end_run = message.first_run;
            if (message.piece_bytes.count > 0) scratch.messages.push_back(message);
            return;
        }
        schedule::append_runs(layout, transfer.blocks, scratch.runs);
        message.end_run = scratch.runs.size();
        // All blocks empty: the peer computes the same from the same byte counts and skips too.
        // A transfer that lists no blocks at all is a signal (BSLB's turn) and always goes.
        if (message.end_run == message.first_run && !transfer.blocks.empty()) return;
        const int elements = schedule::total_count(runs_of(scratch, message));
        const std::size_t bytes = static_cast<std::size_t>(layout.type_size()) *
                                  static_cast<std::size_t>(std::max(0, elements));
        message.packed = message.end_run - message.first_run > 1 && layout.dense() && elements > 0 &&
                         bytes <= kPackLimitBytes;
        if (message.packed) {
            message.packed_offset = packed_bytes;
            packed_bytes += (bytes + kPackAlignment - 1) / kPackAlignment * kPackAlignment;
        }
        scratch.messages.push_back(message);
    };
    for (const auto& transfer : step.recvs) plan(transfer, true);
    for (const auto& transfer : step.sends) plan(transfer, false);
    // Grown here, before any request points into it; never while messages are in flight.
    if (scratch.packed.size() < packed_bytes) scratch.packed.resize(packed_bytes);
}

// The wire form of a piece: its bytes in place (dense layouts) or in the staging.
int describe_piece(const PlannedMessage& message, StepScratch& scratch, const BlockLayout& layout,
                   PieceStaging& staging, MPI_Comm comm) {
    const int block = message.transfer->blocks.front();
    const auto [first, length] = message.piece_bytes;
    if (length > INT_MAX) return MPI_ERR_COUNT;
    std::byte* base = nullptr;
    if (layout.dense()) {
        base = static_cast<std::byte*>(layout.address(block));
    } else {
        int error = MPI_SUCCESS;
        base = staging.bytes_of(layout, *message.transfer, !message.receive, comm, error);
        if (base == nullptr) return error;
    }
    scratch.wire.push_back({base + first, int(length), MPI_BYTE, message.transfer->peer, message.receive});
    return MPI_SUCCESS;
}

// The wire form of one planned message; a packed send is packed first.
int describe_message(const PlannedMessage& message, StepScratch& scratch, const BlockLayout& layout,
                     PieceStaging& staging, MPI_Comm comm) {
    if (!message.transfer->piece.whole()) return describe_piece(message, scratch, layout, staging, comm);
    const auto runs = runs_of(scratch, message);
    MessageBuffer buffer;
    if (runs.empty()) {
        // A signal: a zero-byte message.
        buffer.buffer = nullptr;
        buffer.count = 0;
        buffer.type = MPI_BYTE;
    } else if (message.packed) {
        std::byte* packed = scratch.packed.data() + message.packed_offset;
        if (!message.receive) schedule::pack_runs(layout, runs, packed);
        buffer.buffer = packed;
        buffer.count = schedule::total_count(runs);
        buffer.type = layout.type();
    } else if (const int error = schedule::describe_runs(layout, runs, buffer); error != MPI_SUCCESS) {
        return error;
    }
    if (buffer.owned_type != MPI_DATATYPE_NULL) scratch.owned_types.push_back(buffer.owned_type);
    scratch.wire.push_back({buffer.buffer, buffer.count, buffer.type, message.transfer->peer, message.receive});
    return MPI_SUCCESS;
}

int run_step(const schedule::Step& step, int tag, const BlockLayout& layout, PieceStaging& staging, MPI_Comm comm) {
    auto& scratch = step_scratch;
    scratch.owned_types.clear();
    scratch.wire.clear();
    plan_step(step, layout, scratch);

    int error = MPI_SUCCESS;
    for (const PlannedMessage& message : scratch.messages) {
        if ((error = describe_message(message, scratch, layout, staging, comm)) != MPI_SUCCESS) break;
    }
    if (error == MPI_SUCCESS) error = schedule::exchange(scratch.wire, tag, comm);
    if (error == MPI_SUCCESS) {
        for (const PlannedMessage& message : scratch.messages) {
            if (message.receive && message.packed) {
                schedule::unpack_runs(layout, runs_of(scratch, message),
                                      scratch.packed.data() + message.packed_offset);
            }
            if (message.receive && !message.transfer->piece.whole() && !layout.dense() && error == MPI_SUCCESS)
                error = staging.arrived(layout, message.transfer->blocks.front(), comm);
        }
    }
    for (MPI_Datatype& type : scratch.owned_types) PMPI_Type_free(&type);
    return error;
}

}  // namespace

int post_prefetch(const schedule::Schedule& plan, std::span<const std::uint64_t> block_bytes, int tag_base,
                  MPI_Comm comm, Prefetch& prefetch) {
    prefetch.clear();
    // Pieces stay in the foreground: the staging holds whole blocks only.
    const auto receives_pieces = [](const schedule::Step& step) {
        return std::ranges::any_of(step.recvs, [](const schedule::Transfer& t) { return !t.piece.whole(); });
    };
    while (prefetch.steps < plan.steps.size() && plan.steps[prefetch.steps].sends.empty() &&
           !receives_pieces(plan.steps[prefetch.steps]))
        ++prefetch.steps;
    std::size_t total = 0;
    for (std::size_t s = 0; s < prefetch.steps; ++s) {
        for (const auto& transfer : plan.steps[s].recvs) {
            std::size_t bytes = 0;
            for (int block : transfer.blocks) {
                if (block < 0 || std::size_t(block) >= block_bytes.size()) return MPI_ERR_ARG;
                prefetch.blocks.push_back(block);
                prefetch.offsets.push_back(total + bytes);
                prefetch.sizes.push_back(std::size_t(block_bytes[std::size_t(block)]));
                bytes += prefetch.sizes.back();
            }
            // Checked before anything is allocated: one receive carries at most INT_MAX bytes.
            if (bytes > std::size_t(INT_MAX)) return MPI_ERR_COUNT;
            total += bytes;
        }
    }
    if (total > prefetch.staging_bytes) {
        prefetch.staging.reset();
        prefetch.staging_bytes = 0;
        try {
            // Not zero-filled: every byte a receive lands is written by it before it is read.
            prefetch.staging = std::make_unique_for_overwrite<std::byte[]>(total);
        } catch (const std::bad_alloc&) {
            return MPI_ERR_NO_MEM;  // on the helper thread: the call runs those steps in the foreground
        }
        prefetch.staging_bytes = total;
    }
    std::size_t at = 0;
    for (std::size_t s = 0; s < prefetch.steps; ++s) {
        for (const auto& transfer : plan.steps[s].recvs) {
            std::size_t bytes = 0;
            for (int block : transfer.blocks) bytes += std::size_t(block_bytes[std::size_t(block)]);
            // Blocks, all empty: the sender's executor sends nothing (plan_step). No blocks: a
            // signal, a zero-byte message that always goes.
            if (bytes == 0 && !transfer.blocks.empty()) continue;
            MPI_Request request = MPI_REQUEST_NULL;
            const int error = PMPI_Irecv(prefetch.staging.get() + at, int(bytes), MPI_BYTE, transfer.peer,
                                         schedule::step_tag(s, tag_base), comm, &request);
            if (error != MPI_SUCCESS) return error;
            prefetch.requests.push_back(request);
            at += bytes;
        }
    }
    return MPI_SUCCESS;
}

namespace {

// The prefetched blocks into the receive buffer (bytes as the sender's blocks packed them).
int place_prefetched(const Prefetch& prefetch, const BlockLayout& layout, MPI_Comm comm, int rank) {
    for (std::size_t i = 0; i < prefetch.blocks.size(); ++i) {
        const int block = prefetch.blocks[i];
        if (prefetch.sizes[i] == 0) continue;
        const std::byte* from = prefetch.staging.get() + prefetch.offsets[i];
        if (layout.dense()) {
            std::memcpy(layout.address(block), from, prefetch.sizes[i]);
            continue;
        }
        const int error = PMPI_Sendrecv(from, int(prefetch.sizes[i]), MPI_BYTE, rank, schedule::kSelfCopyTag,
                                        layout.address(block), layout.count(block), layout.type(), rank,
                                        schedule::kSelfCopyTag, comm, MPI_STATUS_IGNORE);
        if (error != MPI_SUCCESS) return error;
    }
    return MPI_SUCCESS;
}

}  // namespace

int execute_allgather(const schedule::Schedule& plan, const AllgatherBuffers& buffers, const AllgatherRun& run) {
    int error = MPI_SUCCESS;
    const BlockLayout layout(buffers.recvbuf, buffers.recvtype, buffers.recvcount,
                             buffers.recvcounts, buffers.displs, run.comm, error);
    if (error != MPI_SUCCESS) return error;
    if ((error = copy_own_block(buffers, layout, plan.rank, run.comm)) != MPI_SUCCESS) return error;
    // Allgather with nothing to move: every transfer would be skipped anyway.
    if (buffers.recvcounts == nullptr && layout.empty(plan.rank)) return MPI_SUCCESS;
    std::size_t first = 0;
    if (run.prefetched) {
        if ((error = place_prefetched(*run.prefetched, layout, run.comm, plan.rank)) != MPI_SUCCESS) return error;
        first = run.prefetched->steps;
    }
    PieceStaging staging;
    for (std::size_t s = first; s < plan.steps.size(); ++s) {
        if ((error = run_step(plan.steps[s], schedule::step_tag(s, run.tag_base), layout, staging, run.comm)) !=
            MPI_SUCCESS)
            return error;
    }
    return MPI_SUCCESS;
}

}  // namespace papshim
