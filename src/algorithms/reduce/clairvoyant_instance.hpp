// What the Clairvoyant schedulers (clairvoyant.hpp) share inside: the problem checked and
// normalised, and the idle-round jump. Not for builders: they call plan_for().
#pragma once

#include <cstdint>
#include <vector>

#include "clairvoyant.hpp"

namespace papshim::clairvoyant::detail {

// The problem in the form every scheduler uses: arrivals relative to the earliest, and d no
// longer than the spread + 1 — any longer d puts every rank in one window in every round,
// so the plan is the same (and `avail += d` stays far from overflow).
struct Instance {
    int ranks;
    int segments;
    int root;
    std::int64_t d;
    std::vector<std::int64_t> arrival;
};

// Throws std::invalid_argument on a Problem outside its ranges (clairvoyant.hpp).
Instance normalise(const Problem& problem);

// The idle rounds (one rank alone in its window) until `next` joins `lone`'s window.
inline std::int64_t idle_rounds(std::int64_t lone, std::int64_t next, std::int64_t d) { return (next - lone) / d; }

}  // namespace papshim::clairvoyant::detail
