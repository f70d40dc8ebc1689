// Arrival-ordered Reduce (spec pap-aware-allreduce-and-reduce.md §6.5, pieces §6.6): the
// node's ranks form a chain in the order they arrive (read from the shared segment); each
// receives the running partial from the rank that arrived before it, reduces its own data
// in, passes it on and leaves, so early ranks leave early and one reduction is left when the
// last rank arrives; the last sends the result to the root. Several nodes: each chain ends
// at its node's local rank 0, the leaders reduce to the root's node (binomial), whose leader
// hands the result to the root. Commutative ops.

#include "../node_steps.hpp"
#include "builders.hpp"

namespace papshim::reduce {

int run_arrival_chain(node::NodeView& view, const ReductionBuffers& buffers, MPI_Comm) {
    node::Call call;
    if (const int error = node::Call::make(buffers, call); error != MPI_SUCCESS) return error;
    const int root_local = view.local_rank_of[std::size_t(buffers.root)];
    int last = -1;
    if (view.node_count == 1) return node::chain_reduce(view, call, root_local, call.out, last);

    const int root_node = view.node_of[std::size_t(buffers.root)];
    const bool root_here = view.node_index == root_node && view.local_rank == root_local;
    // The node's partial on its leader: the root's own buffer where the root leads its node.
    void* partial = nullptr;
    if (view.local_rank == 0)
        partial = root_here ? call.out
                            : schedule::scratch_buffer(view.leader_scratch, 0, call.shape.span(call.count), call.shape);
    if (const int error = node::chain_reduce(view, call, 0, partial, last); error != MPI_SUCCESS) return error;
    return node::leaders_reduce_to_root(view, call, partial, buffers.root);
}

}  // namespace papshim::reduce
