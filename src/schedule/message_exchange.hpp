// One step of any schedule on the wire: post every receive, then every send, wait for all
// (DESIGN §4: the single place that talks PMPI point-to-point for schedules).
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <span>

namespace papshim::schedule {

struct WireMessage {
    void* buffer = nullptr;
    int count = 0;
    MPI_Datatype type = MPI_DATATYPE_NULL;
    int peer = -1;
    bool receive = false;
};

// Tags of the executors on the private communicator (tags 1-8 there belong to the link
// measurement, clock::measure_link): one per step (mod the span), all
// below 32767, the smallest MPI_TAG_UB MPI allows. The step in the tag is a guard only: the
// pairing rule (a receive from q in step s matches q's send in its step s) plus MPI's
// non-overtaking order already make the matching unambiguous.
inline constexpr int kStepTagBase = 0x2000;
inline constexpr int kStepTagSpan = 0x600;
inline constexpr int kSelfCopyTag = kStepTagBase - 1;
inline int step_tag(std::size_t step, int base = kStepTagBase) { return base + static_cast<int>(step % kStepTagSpan); }
// Planned calls run on the planner's communicator (its exchange, a collective, never meets
// them), in one tag span per (algorithm, sequence parity). The receives a rank posts in the
// background for call k+1 must not meet call k's messages; and receives armed for one
// algorithm must not meet another's when the call runs a different one
// (papshim_set_algorithm between calls): cancelling them fails once a faster rank's message
// has matched, and that message is then lost to the call.
inline constexpr int kPlannedAlgorithmSlots = 8;  // Allgather algorithms, by their index in the table
static_assert(kStepTagBase + 2 * kPlannedAlgorithmSlots * kStepTagSpan - 1 <= 32767);
inline int planned_tag_base(std::uint64_t seq, std::size_t algorithm_slot) {
    return kStepTagBase + (2 * static_cast<int>(algorithm_slot) + static_cast<int>(seq & 1)) * kStepTagSpan;
}

// Posts `messages` (receives first) with `tag` on `comm` and waits for all of them. After a
// failed post or wait nothing is left pending (papshim::abandon).
// Returns an MPI error code (the first failing status's on MPI_ERR_IN_STATUS).
int exchange(std::span<const WireMessage> messages, int tag, MPI_Comm comm);

}  // namespace papshim::schedule
