// Runs any Reduce/Allreduce schedule over PMPI point-to-point (DESIGN §4): block b of the
// schedule is the element range reduction_block(count, blocks, b) of the vector; sends read
// this rank's partial result (the accumulator), overwriting receives land in it, combining
// receives land in scratch and are reduced in with PMPI_Reduce_local after the step.

#include <cstring>
#include <vector>

#include "message_exchange.hpp"
#include "type_shape.hpp"
#include "papshim/algorithms.hpp"

namespace papshim {
namespace {

using schedule::TypeShape;
using schedule::WireMessage;
using schedule::copy_elements;

// Per thread and reused: the accumulator of non-root Reduce ranks, the combine buffers,
// the messages of a step.
struct ReductionScratch {
    std::vector<std::byte> accumulator;
    std::vector<std::byte> incoming;
    std::vector<WireMessage> wire;
    struct Pending {
        void* received;
        void* local;
        int count;
        schedule::Combine combine;
    };
    std::vector<Pending> combines;
};
thread_local ReductionScratch scratch;

bool has_receives(const schedule::Schedule& plan) {
    for (const auto& step : plan.steps)
        if (!step.recvs.empty()) return true;
    return false;
}

}  // namespace

int execute_reduction(const schedule::Schedule& plan, const ReductionBuffers& b, MPI_Comm comm) {
    TypeShape shape;
    if (const int error = shape.read(b.type); error != MPI_SUCCESS) return error;
    const bool holds_result = b.root < 0 || plan.rank == b.root;
    const void* own = b.sendbuf == MPI_IN_PLACE ? b.recvbuf : b.sendbuf;

    // The accumulator: the receive buffer where the result is due, else scratch (or the send
    // buffer itself for a rank that only ever sends).
    void* accumulator = nullptr;
    if (holds_result) {
        accumulator = b.recvbuf;
    } else if (has_receives(plan)) {
        accumulator = schedule::scratch_buffer(scratch.accumulator, 0, shape.span(b.count), shape);
    } else {
        accumulator = const_cast<void*>(own);  // read only: this rank only sends
    }
    if (const int error = copy_elements(own, accumulator, b.count, b.type, shape, plan.rank, comm); error != MPI_SUCCESS)
        return error;

    auto element = [&](std::int64_t first) { return schedule::byte_offset(accumulator, first * shape.extent); };
    for (std::size_t s = 0; s < plan.steps.size(); ++s) {
        const schedule::Step& step = plan.steps[s];
        scratch.wire.clear();
        scratch.combines.clear();
        // Combine buffers are laid out first, so no pointer into `incoming` moves later.
        std::size_t incoming_bytes = 0;
        for (const auto& t : step.recvs) {
            const auto range = schedule::reduction_blocks(b.count, plan.blocks, t.blocks.front(), int(t.blocks.size()));
            if (t.combine != schedule::Combine::none) incoming_bytes += (shape.span(range.count) + 63) / 64 * 64;
        }
        if (scratch.incoming.size() < incoming_bytes) scratch.incoming.resize(incoming_bytes);
        const auto incoming_at = [&](std::size_t at) { return schedule::byte_offset(scratch.incoming.data() + at, -shape.true_lb); };
        std::size_t at = 0;
        for (const auto& t : step.recvs) {
            const auto range = schedule::reduction_blocks(b.count, plan.blocks, t.blocks.front(), int(t.blocks.size()));
            if (range.count == 0) continue;  // the sender computes the same and skips too
            const int n = static_cast<int>(range.count);
            void* target = element(range.first);
            if (t.combine != schedule::Combine::none) {
                void* received = incoming_at(at);
                at += (shape.span(range.count) + 63) / 64 * 64;
                scratch.combines.push_back({received, target, n, t.combine});
                target = received;
            }
            scratch.wire.push_back({target, n, b.type, t.peer, true});
        }
        for (const auto& t : step.sends) {
            const auto range = schedule::reduction_blocks(b.count, plan.blocks, t.blocks.front(), int(t.blocks.size()));
            if (range.count == 0) continue;
            scratch.wire.push_back({element(range.first), static_cast<int>(range.count), b.type, t.peer, false});
        }
        if (const int error = schedule::exchange(scratch.wire, schedule::step_tag(s), comm); error != MPI_SUCCESS)
            return error;
        for (const auto& c : scratch.combines) {
            int error = MPI_SUCCESS;
            if (b.commutative || c.combine == schedule::Combine::received_first) {
                error = PMPI_Reduce_local(c.received, c.local, c.count, b.type, b.op);  // local = received op local
            } else {
                error = PMPI_Reduce_local(c.local, c.received, c.count, b.type, b.op);  // received = local op received
                if (error == MPI_SUCCESS) error = copy_elements(c.received, c.local, c.count, b.type, shape, plan.rank, comm);
            }
            if (error != MPI_SUCCESS) return error;
        }
    }
    return MPI_SUCCESS;
}

}  // namespace papshim
