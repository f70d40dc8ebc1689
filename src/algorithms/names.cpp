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
    (void)collective;
    // The algorithms whose schedule is built from the exchanged predicted-arrival vector.
    for (std::string_view planned : {"bdr", "bslb", "clairvoyant", "clairvoyant_rs", "predicted_chain", "predicted_scatter"})
        if (name == planned) return true;
    return false;
}

}  // namespace papshim
