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
    // Vectors that fit a slot: the dynamic leader, whose steps are this algorithm's with the
    // leader's reduce as the first phase.
    if (node::fits_slots(view, call)) return run_dynamic_leader(view, buffers, comm);
    return run_chain_to_leaders(view, call);
}

}  // namespace papshim::allreduce
