// Symmetric shared-memory Allreduce for the smallest vectors: no leader. Every rank of the
// node deposits its vector and combines every deposit itself (node::symmetric_reduce), so
// the last rank to arrive leaves without waiting and the others after seeing its one
// deposit - one handoff after the last arrival, where the dynamic leader needs two (the
// deposit to the leader, the result back). Combined in rank order: the same bits on every
// rank and on every run. Vectors of predefined types up to node::kSymmetricBytes; larger
// ones go to hierarchical (its registry line). Across nodes, local rank 0 combines its
// node's deposits, the node leaders combine point to point, and each node reads the result
// from the result slot.

#include "../node_steps.hpp"
#include "builders.hpp"

namespace papshim::allreduce {

int run_symmetric_shm(node::NodeView& view, const ReductionBuffers& buffers, MPI_Comm) {
    node::Call call;
    if (const int error = node::Call::make(buffers, call); error != MPI_SUCCESS) return error;
    // The dispatcher hands these to hierarchical (registry) after asking whether it applies.
    if (!node::fits_symmetric(call)) return MPI_ERR_INTERN;
    const bool combines = view.node_count == 1 || view.local_rank == 0;
    if (const int error = node::symmetric_reduce(view, call, call.out, combines); error != MPI_SUCCESS) return error;
    if (view.node_count == 1) return MPI_SUCCESS;
    if (view.local_rank == 0)
        if (const int error = node::leaders_allreduce(view, call, call.out); error != MPI_SUCCESS) return error;
    return node::node_bcast(view, call, call.out, 0);
}

}  // namespace papshim::allreduce
