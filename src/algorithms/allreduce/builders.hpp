// The pure Allreduce schedule builders (every one accepts any p >= 1) and the balanced-arrival
// cost models the node leaders' phase chooses between (bytes: the whole vector).
#pragma once

#include <cstdint>

#include "papshim/algorithms.hpp"
#include "papshim/schedule.hpp"

namespace papshim::allreduce {

schedule::Schedule build_recursive_doubling(const schedule::BuildInput& input);
schedule::Schedule build_ring(const schedule::BuildInput& input);
schedule::Schedule build_rabenseifner(const schedule::BuildInput& input);
schedule::Schedule build_clairvoyant_scatter(const schedule::BuildInput& input);
schedule::Schedule build_clairvoyant_bcast(const schedule::BuildInput& input);
schedule::Schedule build_predicted_chain(const schedule::BuildInput& input);
schedule::Schedule build_predicted_scatter(const schedule::BuildInput& input);
int predicted_scatter_segments(std::uint64_t bytes);
// The messages a chunk of at most kPushedChunkBytes moves in, each within
// BuildInput::early_send_bytes (1 where whole chunks are buffered, nothing is, or no segments
// are given); the predicted scatter's and Clairvoyant's reduce-scatter form's.
int messages_per_chunk(const schedule::BuildInput& input);

// Node-level state machines (src/algorithms/node_steps.hpp).
int run_dynamic_leader(node::NodeView& view, const ReductionBuffers& buffers, MPI_Comm comm);
int run_symmetric_shm(node::NodeView& view, const ReductionBuffers& buffers, MPI_Comm comm);
int run_arrival_chain(node::NodeView& view, const ReductionBuffers& buffers, MPI_Comm comm);
int run_hierarchical(node::NodeView& view, const ReductionBuffers& buffers, MPI_Comm comm);

double recursive_doubling_cost(int ranks, double bytes, const LinkModel& link);
double rabenseifner_cost(int ranks, double bytes, const LinkModel& link);

}  // namespace papshim::allreduce

namespace papshim::node {
struct Call;
}
namespace papshim::allreduce {
// The chain to each node's local rank 0, the leaders' Allreduce, the node broadcast.
int run_chain_to_leaders(node::NodeView& view, const node::Call& call);
}  // namespace papshim::allreduce
