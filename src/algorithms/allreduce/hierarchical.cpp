// Hierarchical Allreduce (spec pap-aware-allreduce-and-reduce.md §7, with the arrival-aware
// first phase of its §7.3 extension): inside each node an arrival-aware reduce to local rank
// 0 (the dynamic leader for vectors that fit a shared-memory slot, the arrival chain for
// larger ones), an Allreduce among the node leaders over point-to-point (recursive doubling
// or Rabenseifner by size), and a broadcast inside each node. Only the leaders' phase
// waits for other nodes, whose arrival spread is what a flat algorithm pays for in full.

#include "../node_steps.hpp"
#include "builders.hpp"

namespace papshim::allreduce {

int run_hierarchical(node::NodeView& view, const ReductionBuffers& buffers, MPI_Comm comm) {
    node::Call call;
    if (const int error = node::Call::make(buffers, call); error != MPI_SUCCESS) return error;
    if (node::fits_slots(view, call)) {
        if (view.node_count == 1) {
            // One node: the dynamic leader's partial is already the result.
            return run_dynamic_leader(view, buffers, comm);
        }
        bool led = false;
        if (const int error = node::leader_reduce(view, call, led); error != MPI_SUCCESS) return error;
        if (view.local_rank == 0) {
            if (!led) node::copy_partial(view, call, call.out);
            if (const int error = node::leaders_allreduce(view, call, call.out); error != MPI_SUCCESS) return error;
        }
        return node::node_bcast(view, call, call.out, 0);
    }
    return run_chain_to_leaders(view, call);
}

}  // namespace papshim::allreduce
