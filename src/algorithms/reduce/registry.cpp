// The table of papshim's own Reduce algorithms. Adding one = a builder file plus one line
// here. Order matters: `auto` keeps the earliest of equally cheap entries.

#include <array>

#include "builders.hpp"

namespace papshim::reduce {

// name, builder, keeps rank order, arrival-ordered, cost
extern const std::array<ReductionAlgorithm, 2> kAlgorithms{{
    {"binomial", build_binomial, true, false, binomial_cost},
    {"rabenseifner", build_rabenseifner, false, false, rabenseifner_cost},
}};

}  // namespace papshim::reduce
