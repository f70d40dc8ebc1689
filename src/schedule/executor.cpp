// Runs any Allgather/Allgatherv schedule over PMPI point-to-point (DESIGN §4, spec §1).
// Every step posts all its receives, then all its sends, then waits for all of them; small
// multi-block messages of dense types travel packed (kPackLimitBytes), the rest as described.

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <span>
#include <vector>

#include "block_layout.hpp"
#include "papshim/algorithms.hpp"

namespace papshim {

namespace {

using schedule::BlockLayout;
using schedule::MessageBuffer;

// Tags of the executor on the private communicator: one per step (mod the span), all below
// 32767, the smallest MPI_TAG_UB MPI allows. The step in the tag is a guard only: the
// pairing rule (a receive from q in step s matches q's send in its step s) plus MPI's
// non-overtaking order already make the matching unambiguous.
constexpr int kStepTagBase = 0x2000;
constexpr int kStepTagSpan = 0x1000;
constexpr int kOwnBlockTag = kStepTagBase - 1;

int step_tag(std::size_t step) {
    return kStepTagBase + static_cast<int>(step % kStepTagSpan);
}

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
// bytes live in StepScratch::packed.
struct PlannedMessage {
    const schedule::Transfer* transfer = nullptr;
    bool receive = false;
    std::size_t first_run = 0;
    std::size_t end_run = 0;
    bool packed = false;
    std::size_t packed_offset = 0;
};

// Requests, statuses, derived types, runs and packed bytes of one step; per thread and
// reused, so the hot path of small messages does not allocate after the first call.
struct StepScratch {
    std::vector<MPI_Request> requests;
    std::vector<MPI_Status> statuses;
    std::vector<MPI_Datatype> owned_types;
    std::vector<schedule::Run> runs;
    std::vector<PlannedMessage> messages;
    std::vector<std::byte> packed;
};
thread_local StepScratch step_scratch;

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
    // Different (signature-equal) types: let MPI convert through a message to ourselves.
    return PMPI_Sendrecv(buffers.sendbuf, buffers.sendcount, buffers.sendtype, rank, kOwnBlockTag,
                         own_block, own_count, layout.type(), rank, kOwnBlockTag, comm,
                         MPI_STATUS_IGNORE);
}

// The first real error among the statuses of a failed Waitall.
int first_status_error(int waitall_error, const std::vector<MPI_Status>& statuses) {
    if (waitall_error != MPI_ERR_IN_STATUS) return waitall_error;
    for (const MPI_Status& status : statuses) {
        if (status.MPI_ERROR != MPI_SUCCESS && status.MPI_ERROR != MPI_ERR_PENDING) {
            return status.MPI_ERROR;
        }
    }
    return waitall_error;
}

// After a failed post: cancel the receives already posted (their senders may never come)
// and release every request without waiting.
void abandon_requests(std::vector<MPI_Request>& requests, std::size_t posted_receives) {
    for (std::size_t i = 0; i < requests.size(); ++i) {
        if (i < posted_receives) PMPI_Cancel(&requests[i]);
        PMPI_Request_free(&requests[i]);
    }
    requests.clear();
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
        PlannedMessage message{&transfer, receive, scratch.runs.size(), 0, false, 0};
        schedule::append_runs(layout, transfer.blocks, scratch.runs);
        message.end_run = scratch.runs.size();
        // All blocks empty: the peer computes the same from the same byte counts and skips too.
        if (message.end_run == message.first_run) return;
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

// Posts one planned message; a packed send is packed first.
int post_message(const PlannedMessage& message, StepScratch& scratch, const BlockLayout& layout,
                 int tag, MPI_Comm comm) {
    const auto runs = runs_of(scratch, message);
    MessageBuffer buffer;
    if (message.packed) {
        std::byte* packed = scratch.packed.data() + message.packed_offset;
        if (!message.receive) schedule::pack_runs(layout, runs, packed);
        buffer.buffer = packed;
        buffer.count = schedule::total_count(runs);
        buffer.type = layout.type();
    } else if (const int error = schedule::describe_runs(layout, runs, buffer); error != MPI_SUCCESS) {
        return error;
    }
    if (buffer.owned_type != MPI_DATATYPE_NULL) scratch.owned_types.push_back(buffer.owned_type);
    const int peer = message.transfer->peer;
    MPI_Request request = MPI_REQUEST_NULL;
    const int error =
        message.receive ? PMPI_Irecv(buffer.buffer, buffer.count, buffer.type, peer, tag, comm, &request)
                        : PMPI_Isend(buffer.buffer, buffer.count, buffer.type, peer, tag, comm, &request);
    if (error == MPI_SUCCESS) scratch.requests.push_back(request);
    return error;
}

int run_step(const schedule::Step& step, int tag, const BlockLayout& layout, MPI_Comm comm) {
    auto& scratch = step_scratch;
    scratch.requests.clear();
    scratch.owned_types.clear();
    plan_step(step, layout, scratch);

    int error = MPI_SUCCESS;
    std::size_t posted_receives = 0;  // receives come first in scratch.messages
    for (const PlannedMessage& message : scratch.messages) {
        if ((error = post_message(message, scratch, layout, tag, comm)) != MPI_SUCCESS) break;
        if (message.receive) posted_receives = scratch.requests.size();
    }
    if (error != MPI_SUCCESS) {
        abandon_requests(scratch.requests, posted_receives);
    } else if (!scratch.requests.empty()) {
        scratch.statuses.resize(scratch.requests.size());
        const int wait_error = PMPI_Waitall(static_cast<int>(scratch.requests.size()),
                                            scratch.requests.data(), scratch.statuses.data());
        if (wait_error != MPI_SUCCESS) error = first_status_error(wait_error, scratch.statuses);
    }
    if (error == MPI_SUCCESS) {
        for (const PlannedMessage& message : scratch.messages) {
            if (message.receive && message.packed) {
                schedule::unpack_runs(layout, runs_of(scratch, message),
                                      scratch.packed.data() + message.packed_offset);
            }
        }
    }
    for (MPI_Datatype& type : scratch.owned_types) PMPI_Type_free(&type);
    return error;
}

}  // namespace

int execute_allgather(const schedule::Schedule& plan, const AllgatherBuffers& buffers,
                      MPI_Comm comm) {
    int error = MPI_SUCCESS;
    const BlockLayout layout(buffers.recvbuf, buffers.recvtype, buffers.recvcount,
                             buffers.recvcounts, buffers.displs, error);
    if (error != MPI_SUCCESS) return error;
    if ((error = copy_own_block(buffers, layout, plan.rank, comm)) != MPI_SUCCESS) return error;
    // Allgather with nothing to move: every transfer would be skipped anyway.
    if (buffers.recvcounts == nullptr && layout.empty(plan.rank)) return MPI_SUCCESS;
    for (std::size_t s = 0; s < plan.steps.size(); ++s) {
        if ((error = run_step(plan.steps[s], step_tag(s), layout, comm)) != MPI_SUCCESS) return error;
    }
    return MPI_SUCCESS;
}

}  // namespace papshim
