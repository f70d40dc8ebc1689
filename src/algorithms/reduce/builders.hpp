// The pure Reduce schedule builders and their balanced-arrival cost models (bytes: the whole
// vector). Every builder accepts any p >= 1 and any root.
#pragma once

#include "papshim/algorithms.hpp"
#include "papshim/schedule.hpp"

namespace papshim::reduce {

schedule::Schedule build_binomial(const schedule::BuildInput& input);
schedule::Schedule build_rabenseifner(const schedule::BuildInput& input);
schedule::Schedule build_clairvoyant(const schedule::BuildInput& input);
schedule::Schedule build_predicted_chain(const schedule::BuildInput& input);

// Node-level state machine (src/algorithms/node_steps.hpp).
int run_arrival_chain(node::NodeView& view, const ReductionBuffers& buffers, MPI_Comm comm);

double binomial_cost(int ranks, double bytes, const LinkModel& link);
double rabenseifner_cost(int ranks, double bytes, const LinkModel& link);
double clairvoyant_cost(int ranks, double bytes, const LinkModel& link);
double predicted_chain_cost(int ranks, double bytes, const LinkModel& link);

}  // namespace papshim::reduce
