// Runs any Allgather/Allgatherv schedule over PMPI point-to-point (DESIGN §4, spec §1).
// Every step posts all its receives, then all its sends, then waits for all of them.

#include <cstring>
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

// Requests, statuses and derived types of one step; per thread and reused, so the hot path
// of small messages does not allocate after the first call.
struct StepScratch {
    std::vector<MPI_Request> requests;
    std::vector<MPI_Status> statuses;
    std::vector<MPI_Datatype> owned_types;
};
thread_local StepScratch step_scratch;

// True when `type`'s data fills [0, extent) with no gaps, so `n` elements are n*extent bytes
// that a memcpy moves exactly as MPI would (for the same type on both sides).
bool is_dense(MPI_Datatype type) {
    MPI_Aint lower_bound = 0, extent = 0, true_lower_bound = 0, true_extent = 0;
    MPI_Count size = 0;
    if (PMPI_Type_get_extent(type, &lower_bound, &extent) != MPI_SUCCESS) return false;
    if (PMPI_Type_get_true_extent(type, &true_lower_bound, &true_extent) != MPI_SUCCESS) return false;
    if (PMPI_Type_size_x(type, &size) != MPI_SUCCESS) return false;
    return lower_bound == 0 && true_lower_bound == 0 && extent == true_extent && size == extent;
}

// Copies the caller's contribution (sendcount x sendtype) into its own block.
int copy_own_block(const AllgatherBuffers& buffers, const BlockLayout& layout, int rank,
                   MPI_Comm comm) {
    if (buffers.sendbuf == MPI_IN_PLACE) return MPI_SUCCESS;
    void* own_block = layout.address(rank);
    const int own_count = layout.count(rank);
    if (buffers.sendtype == layout.type() && buffers.sendcount == own_count &&
        is_dense(layout.type())) {
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

int run_step(const schedule::Step& step, int tag, const BlockLayout& layout, MPI_Comm comm) {
    auto& scratch = step_scratch;
    scratch.requests.clear();
    scratch.owned_types.clear();

    auto post = [&](const schedule::Transfer& transfer, bool receive) {
        MessageBuffer message;
        int error = schedule::describe_blocks(layout, transfer.blocks, message);
        // All blocks empty: the peer computes the same from the same counts and skips too.
        if (error != MPI_SUCCESS || message.empty()) return error;
        if (message.owned_type != MPI_DATATYPE_NULL) scratch.owned_types.push_back(message.owned_type);
        MPI_Request request = MPI_REQUEST_NULL;
        error = receive
                    ? PMPI_Irecv(message.buffer, message.count, message.type, transfer.peer, tag, comm, &request)
                    : PMPI_Isend(message.buffer, message.count, message.type, transfer.peer, tag, comm, &request);
        if (error == MPI_SUCCESS) scratch.requests.push_back(request);
        return error;
    };

    int error = MPI_SUCCESS;
    for (const auto& transfer : step.recvs) {
        if ((error = post(transfer, true)) != MPI_SUCCESS) break;
    }
    const std::size_t posted_receives = scratch.requests.size();
    if (error == MPI_SUCCESS) {
        for (const auto& transfer : step.sends) {
            if ((error = post(transfer, false)) != MPI_SUCCESS) break;
        }
    }
    if (error != MPI_SUCCESS) {
        abandon_requests(scratch.requests, posted_receives);
    } else if (!scratch.requests.empty()) {
        scratch.statuses.resize(scratch.requests.size());
        const int wait_error = PMPI_Waitall(static_cast<int>(scratch.requests.size()),
                                            scratch.requests.data(), scratch.statuses.data());
        if (wait_error != MPI_SUCCESS) error = first_status_error(wait_error, scratch.statuses);
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
