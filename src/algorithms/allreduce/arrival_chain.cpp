// Arrival-ordered Allreduce, "PAP+Bcast" (spec pap-aware-allreduce-and-reduce.md §6.8): the
// node's ranks reduce in a chain in the order they arrive (arrival order read from the
// shared segment, data by point-to-point), so one reduction is left when the last rank
// arrives; that rank, holding the result, broadcasts it (through the segment when it fits a
// slot, else a binomial tree). Several nodes: each chain ends at the node's local rank 0,
// which combines with the other nodes' leaders and broadcasts. Commutative ops.

#include "../node_steps.hpp"
#include "builders.hpp"

namespace papshim::allreduce {

int run_arrival_chain(node::NodeView& view, const ReductionBuffers& buffers, MPI_Comm) {
    node::Call call;
    if (const int error = node::Call::make(buffers, call); error != MPI_SUCCESS) return error;
    int last = -1;
    if (view.node_count == 1) {
        if (const int error = node::chain_reduce(view, call, -1, call.out, last); error != MPI_SUCCESS) return error;
        return node::node_bcast(view, call, call.out, last);
    }
    return run_chain_to_leaders(view, call);
}

int run_chain_to_leaders(node::NodeView& view, const node::Call& call) {
    int last = -1;
    if (const int error = node::chain_reduce(view, call, 0, call.out, last); error != MPI_SUCCESS) return error;
    if (view.local_rank == 0)
        if (const int error = node::leaders_allreduce(view, call, call.out); error != MPI_SUCCESS) return error;
    return node::node_bcast(view, call, call.out, 0);
}

}  // namespace papshim::allreduce
