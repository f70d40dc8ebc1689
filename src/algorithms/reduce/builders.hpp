// The pure Reduce schedule builders. Every builder accepts any p >= 1 and any root.
#pragma once

#include <cstdint>

#include "papshim/algorithms.hpp"
#include "papshim/schedule.hpp"

namespace papshim::reduce {

schedule::Schedule build_binomial(const schedule::BuildInput& input);
schedule::Schedule build_pipelined_binomial(const schedule::BuildInput& input);
schedule::Schedule build_rabenseifner(const schedule::BuildInput& input);
schedule::Schedule build_clairvoyant(const schedule::BuildInput& input);
schedule::Schedule build_predicted_chain(const schedule::BuildInput& input);

// Node-level state machines (src/algorithms/node_steps.hpp).
int run_dynamic_leader(node::NodeView& view, const ReductionBuffers& buffers, MPI_Comm comm);
int run_arrival_chain(node::NodeView& view, const ReductionBuffers& buffers, MPI_Comm comm);

}  // namespace papshim::reduce
