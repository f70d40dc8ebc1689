// The table of papshim's own Allreduce algorithms. Adding one = a builder file plus one line
// here. Order matters: `auto` keeps the earliest of equally cheap entries.

#include <array>

#include "builders.hpp"

namespace papshim::allreduce {

// name, builder, keeps rank order, arrival-ordered, cost
extern const std::array<ReductionAlgorithm, 3> kAlgorithms{{
    {"recursive_doubling", build_recursive_doubling, true, false, recursive_doubling_cost},
    {"rabenseifner", build_rabenseifner, false, false, rabenseifner_cost},
    {"ring", build_ring, false, false, ring_cost},
}};

}  // namespace papshim::allreduce
