#include "papshim/algorithms.hpp"

namespace papshim {

AlgorithmNames algorithm_names() {
    AlgorithmNames names;
    for (const auto& a : allgather_algorithms()) {
        names[std::size_t(Collective::allgather)].emplace_back(a.name);
        names[std::size_t(Collective::allgatherv)].emplace_back(a.name);
    }
    for (Collective c : {Collective::reduce, Collective::allreduce})
        for (const auto& a : reduction_algorithms(c)) names[std::size_t(c)].emplace_back(a.name);
    return names;
}

bool uses_plans(Collective collective, std::string_view name) {
    if (gathers(collective)) {
        const AllgatherAlgorithm* algorithm = find_allgather_algorithm(name);
        return algorithm && algorithm->plans;
    }
    const ReductionAlgorithm* algorithm = find_reduction_algorithm(collective, name);
    return algorithm && algorithm->plans;
}

// Every planned Allgather(v) posts its first steps' receives on the helper thread
// (prepare_background); no reduction schedule receives before its rank arrives.
bool needs_helper_thread(Collective collective, std::string_view name) {
    return gathers(collective) && uses_plans(collective, name);
}

}  // namespace papshim
