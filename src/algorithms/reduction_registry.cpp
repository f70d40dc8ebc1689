// Lookup over the Reduce and Allreduce tables (each in its collective's folder).

#include <array>

#include "papshim/algorithms.hpp"

namespace papshim {
namespace reduce {
std::span<const ReductionAlgorithm> table();
}
namespace allreduce {
std::span<const ReductionAlgorithm> table();
}

std::span<const ReductionAlgorithm> reduction_algorithms(Collective collective) {
    if (collective == Collective::reduce) return reduce::table();
    if (collective == Collective::allreduce) return allreduce::table();
    return {};
}

const ReductionAlgorithm* find_reduction_algorithm(Collective collective, std::string_view name) {
    for (const auto& algorithm : reduction_algorithms(collective))
        if (algorithm.name == name) return &algorithm;
    return nullptr;
}

}  // namespace papshim
