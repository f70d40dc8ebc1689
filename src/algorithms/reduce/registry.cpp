// The table of papshim's own Reduce algorithms. Adding one = a builder file plus one line
// here, listed (papshim-info, the README) in this order.

#include <array>

#include "../reduction_steps.hpp"
#include "builders.hpp"
#include "clairvoyant.hpp"

namespace papshim::reduce {

// name, schedule builder or node state machine, keeps rank order, arrival-ordered, beyond the
// slot (slot-sized ones), pieces per round (planners in rounds), plans from predicted arrivals, pieces by size
namespace {

constexpr std::array<ReductionAlgorithm, 7> kAlgorithms{{
    {"binomial", build_binomial, nullptr, true, false, {}, nullptr},
    {"pipelined_binomial", build_pipelined_binomial, nullptr, true, false, {}, nullptr, false,
     reduction::pipeline_pieces},
    {"rabenseifner", build_rabenseifner, nullptr, false, false, {}, nullptr},
    {"dynamic_leader", nullptr, run_dynamic_leader, false, true, "arrival_chain", nullptr},
    {"arrival_chain", nullptr, run_arrival_chain, false, true, {}, nullptr},
    {"clairvoyant", build_clairvoyant, nullptr, false, true, {}, clairvoyant::round_segments, true},
    {"predicted_chain", build_predicted_chain, nullptr, false, true, {}, nullptr, true, reduction::pipeline_pieces},
}};

}  // namespace

std::span<const ReductionAlgorithm> table() { return kAlgorithms; }

}  // namespace papshim::reduce
