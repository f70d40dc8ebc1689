// Dynamic-leader Reduce: the shared-memory dynamic leader of spec pap-aware-allreduce-and-
// reduce.md §5.5 with one rank taking the result. On each node the first rank to arrive leads
// and reduces the others' deposits in the shared segment as they appear; a rank that is not
// due the node's partial deposits and leaves at once. One node: the partial goes to the root
// (accumulated in its buffer when the root leads, else copied from the result slot). Several
// nodes: to local rank 0, the leaders reduce to the root's node (binomial), whose leader
// hands the result to the root, as the arrival chain does. Vectors of predefined types up to
// PAPSHIM_SHM_SLOT bytes (larger ones run the arrival chain); commutative ops.

#include "../node_steps.hpp"
#include "builders.hpp"

namespace papshim::reduce {

int run_dynamic_leader(node::NodeView& view, const ReductionBuffers& buffers, MPI_Comm) {
    node::Call call;
    if (const int error = node::Call::make(buffers, call); error != MPI_SUCCESS) return error;
    const int root_node = view.node_of[std::size_t(buffers.root)];
    const int root_local = view.local_rank_of[std::size_t(buffers.root)];
    const bool root_here = view.node_index == root_node && view.local_rank == root_local;
    // Who takes this node's partial, and into which buffer (the root's own where it takes it).
    const int target = view.node_count == 1 ? root_local : 0;
    void* partial = nullptr;
    if (view.local_rank == target)
        partial = root_here ? call.out : node::slot_scratch(view.leader_scratch, call);
    bool led = false;
    if (const int error = node::leader_reduce(view, call, partial, false, led); error != MPI_SUCCESS) return error;
    if (view.local_rank == target && !led) node::copy_partial(view, call, partial);
    if (view.node_count == 1) return MPI_SUCCESS;
    return node::leaders_reduce_to_root(view, call, partial, buffers.root);
}

}  // namespace papshim::reduce
