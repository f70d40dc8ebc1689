// The table of papshim's own Reduce algorithms. Adding one = a builder file plus one line
// here, listed (papshim-info, the README) in this order.

#include <array>

#include "builders.hpp"

namespace papshim::reduce {

// name, schedule builder or node state machine, keeps rank order, arrival-ordered, slot-sized, cost,
// plans from predicted arrivals
namespace {

constexpr std::array<ReductionAlgorithm, 5> kAlgorithms{{
    {"binomial", build_binomial, nullptr, true, false, false, binomial_cost},
    {"rabenseifner", build_rabenseifner, nullptr, false, false, false, rabenseifner_cost},
    {"arrival_chain", nullptr, run_arrival_chain, false, true, false, nullptr},
    {"clairvoyant", build_clairvoyant, nullptr, false, true, false, clairvoyant_cost, true},
    {"predicted_chain", build_predicted_chain, nullptr, false, true, false, predicted_chain_cost, true},
}};

}  // namespace

std::span<const ReductionAlgorithm> table() { return kAlgorithms; }

}  // namespace papshim::reduce
