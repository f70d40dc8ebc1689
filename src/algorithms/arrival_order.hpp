// The ranks in predicted arrival order, shared by the builders that plan from the order of
// the exchanged arrivals (BSLB, the predicted chains).
#pragma once

#include <algorithm>
#include <numeric>
#include <vector>

#include "papshim/schedule.hpp"

namespace papshim {

// Earliest first, ties by rank; rank order without a prediction (arrival_ns empty or not one
// per rank: the balanced form). A pure function of the exchanged vector.
inline std::vector<int> predicted_order(const schedule::BuildInput& input) {
    std::vector<int> order(static_cast<std::size_t>(input.ranks));
    std::iota(order.begin(), order.end(), 0);
    if (input.arrival_ns.size() == order.size())
        std::ranges::stable_sort(order, {}, [&](int r) { return input.arrival_ns[static_cast<std::size_t>(r)]; });
    return order;
}

}  // namespace papshim
