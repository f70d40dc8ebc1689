// Dynamic-leader Allreduce for small vectors (spec pap-aware-allreduce-and-reduce.md §5.5):
// on each node the first rank to arrive leads and reduces the others' deposits in the
// shared segment as they appear, so only one reduction is left when the last rank arrives.
// Across nodes, the node leaders (local rank 0, who takes the node's partial from the
// segment) combine with a point-to-point Allreduce, then each node reads the result from
// its segment. Vectors of predefined types up to PAPSHIM_SHM_SLOT bytes; commutative ops.

#include "../node_steps.hpp"
#include "builders.hpp"

namespace papshim::allreduce {

int run_dynamic_leader(node::NodeView& view, const ReductionBuffers& buffers, MPI_Comm) {
    node::Call call;
    if (const int error = node::Call::make(buffers, call); error != MPI_SUCCESS) return error;
    bool led = false;
    if (const int error = node::leader_reduce(view, call, call.out, true, led); error != MPI_SUCCESS) return error;
    if (view.node_count == 1) {
        if (!led) node::copy_partial(view, call, call.out);
        return MPI_SUCCESS;
    }
    if (view.local_rank == 0) {
        if (!led) node::copy_partial(view, call, call.out);
        if (const int error = node::leaders_allreduce(view, call, call.out); error != MPI_SUCCESS) return error;
    }
    return node::node_bcast(view, call, call.out, 0);
}

}  // namespace papshim::allreduce
