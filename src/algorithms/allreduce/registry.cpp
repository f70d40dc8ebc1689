// The table of papshim's own Allreduce algorithms. Adding one = a builder file plus one line
// here, listed (papshim-info, the README) in this order.

#include <array>

#include "../reduction_steps.hpp"
#include "builders.hpp"
#include "papshim/node_shared.hpp"
#include "../reduce/clairvoyant.hpp"

namespace papshim::allreduce {

// name, schedule builder or node state machine, keeps rank order, arrival-ordered, beyond the
// slot (slot-sized ones), pieces per round (planners in rounds), plans from predicted arrivals, pieces by size,
// the largest vector of a slot-sized one (0: the slot), plans by its last arriver alone
namespace {

constexpr std::array<ReductionAlgorithm, 11> kAlgorithms{{
    {"recursive_doubling", build_recursive_doubling, nullptr, true, false, {}, nullptr},
    {"rabenseifner", build_rabenseifner, nullptr, false, false, {}, nullptr},
    {"ring", build_ring, nullptr, false, false, {}, nullptr},
    {"dynamic_leader", nullptr, run_dynamic_leader, false, true, "hierarchical", nullptr},
    {"symmetric_shm", nullptr, run_symmetric_shm, false, false, "hierarchical", nullptr, false, nullptr, node::kSymmetricBytes},
    {"arrival_chain", nullptr, run_arrival_chain, false, true, {}, nullptr},
    {"hierarchical", nullptr, run_hierarchical, false, true, {}, nullptr},
    {"clairvoyant", build_clairvoyant_scatter, nullptr, false, true, {}, clairvoyant::scatter_round_segments, true, predicted_scatter_segments},
    {"clairvoyant_bcast", build_clairvoyant_bcast, nullptr, false, true, {}, clairvoyant::round_segments, true},
    {"predicted_chain", build_predicted_chain, nullptr, false, true, {}, nullptr, true},
    {"predicted_scatter", build_predicted_scatter, nullptr, false, true, {}, nullptr, true, predicted_scatter_segments, 0, true},
}};

}  // namespace

std::span<const ReductionAlgorithm> table() { return kAlgorithms; }

}  // namespace papshim::allreduce
