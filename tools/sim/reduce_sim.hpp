// papshim-sim's Reduce mode (issue 9, docs/simulator.md "Clairvoyant"): Clairvoyant planned
// from the given arrivals against papshim's Reduce builders and an arrival-ordered chain,
// through the timing model; and the scheduler-only benchmark of [CLV] §5.7 (spec §5.3).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "papshim/simulator.hpp"

namespace CLI {
class App;
}

namespace papshim::sim_tool {

struct ReduceOptions {
    std::vector<std::string> algorithms;  // --reduce or --allreduce: this mode when not empty
    bool allreduce = false;
    int root = 0;
    double gamma = 0;            // TimingModel::reduce_per_byte
    std::int64_t round_ns = 0;   // Clairvoyant's d; 0: one segment's round in the model
    // BuildInput::early_send_bytes for papshim's builders (--early-sends): the largest message
    // the MPI completes before its receiver arrives; 0: none (the predicted scatter swaps).
    std::uint64_t early_send_bytes = 0;
    std::vector<int> bench_ranks;  // --scheduler-bench: that benchmark when not empty
    bool bench_papshim_segments = false;
    int runs = 250;
    bool active() const { return !algorithms.empty() || !bench_ranks.empty(); }
};

// The settings papshim-sim shares with its Allgather mode.
struct Common {
    int ranks = 0;
    std::vector<double> bytes;
    sim::ArrivalPattern pattern;
    std::string pattern_text;
    std::uint64_t seed = 1;
    sim::TimingModel model;
    bool check = false;
    std::string json;  // also write the results here when not empty
};

// The Reduce mode's options (defined in papshim_sim.cpp, the one file that compiles CLI11).
void define_reduce_options(CLI::App& app, ReduceOptions& options);
// Command-line pieces of papshim_sim.cpp: "a,b,c" -> {"a", "b", "c"}, and a finite number >= 0
// (std::invalid_argument otherwise).
std::vector<std::string> split_commas(const std::string& text);
double parse_non_negative(const std::string& text);
// Prints the tables; returns the exit status.
int run_reduce(const ReduceOptions& options, const Common& common);

}  // namespace papshim::sim_tool
