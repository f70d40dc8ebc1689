// Block sizes of Träff's Allgatherv distributions (spec §4.3 and §6 item 9), shared by
// papshim-sim (--blocks, modelled) and papshim-bench (--blocks, measured), so that a layout
// simulated is the layout measured.
#pragma once

#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace papshim::blocks {

inline constexpr std::string_view kDistributions[] = {"equal",      "broadcast",  "spike",
                                                      "half-full", "decreasing", "geometric"};

// The command-line value of --blocks in both tools: `name` if it is one of kDistributions,
// else std::invalid_argument naming them all.
inline std::string parse_distribution(const std::string& name) {
    std::string known;
    for (std::string_view candidate : kDistributions) {
        if (name == candidate) return name;
        known += (known.empty() ? "" : ", ") + std::string(candidate);
    }
    throw std::invalid_argument("unknown distribution '" + name + "': expected one of " + known);
}

// Rank i's block for p ranks and a mean of about c per rank, floored; `name` must be one of
// kDistributions ("equal" for anything else).
inline std::vector<double> block_sizes(std::string_view name, int p, double c) {
    std::vector<double> sizes(static_cast<std::size_t>(p), c);
    for (int i = 0; i < p; ++i) {
        double& m = sizes[static_cast<std::size_t>(i)];
        if (name == "broadcast") {
            m = i == 0 ? c : 0;
        } else if (name == "spike") {
            m = i == 0 ? p * c : (p > 1 ? std::floor(p * c / (p - 1)) : 0);
        } else if (name == "half-full") {
            m = i % 2 == 0 ? 2 * c : 0;
        } else if (name == "decreasing") {
            m = p > 1 ? std::floor(2 * c * (p - 1 - i) / (p - 1)) : c;
        } else if (name == "geometric") {
            m = p > 1 ? std::floor(p * c / ((i + 1.5) * std::log(p))) : c;
        }
    }
    return sizes;
}

}  // namespace papshim::blocks
