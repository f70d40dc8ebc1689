// Pieces shared by the suites of papshim-bench: statistics, clocks, progress and errors.
#pragma once

#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "options.hpp"

namespace papshim::bench {

// Results files keep their keys in the order written, as a reader expects them.
using Json = nlohmann::ordered_json;

// The JSON's "root" of a Reduce: the rank, as before --root rotate existed, or "rotate".
inline Json root_json(int root) { return root == kRotatingRoot ? Json("rotate") : Json(root); }

// A problem every rank detects identically (bad algorithm name, bad rank in a pattern):
// rank 0 prints it and every rank exits with status 2.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct World {
    int rank = 0;
    int ranks = 1;
};

// The order in which iteration (round, slice) `iteration` runs `count` variants: a permutation
// drawn from the iteration number alone, so identical on every rank. Not a rotation: rotating
// keeps every variant behind the same neighbour, whose after-effects (the helper thread
// digesting BDR's exchange, a previous call's messages still draining) then land on that one
// variant every time; shuffled, they spread over all. Every position and every predecessor
// comes up alike over many iterations.
std::vector<std::size_t> run_order(std::size_t count, int iteration);

double median(std::vector<double> values);
double mean(const std::vector<double>& values);
double minimum(const std::vector<double>& values);
double maximum(const std::vector<double>& values);

// "1.23 us", "45.6 ms": three significant digits in a readable unit.
std::string format_seconds(double seconds);
// "64 KiB", "1 MiB", "1000 B".
std::string format_bytes(std::size_t bytes);

// Waits `seconds`: sleeps through most of it, so oversubscribed ranks give the core to ranks
// that compute, and spins on the clock for the last 200 us, for precision.
void wait_for(double seconds);

// Rank 0 prints a progress line on stderr at most every few seconds.
class Progress {
public:
    explicit Progress(bool enabled) : enabled_(enabled) {}
    template <typename... Args>
    void update(fmt::format_string<Args...> format, Args&&... args) {
        if (!enabled_) return;
        const auto now = std::chrono::steady_clock::now();
        if (now - last_ < std::chrono::seconds(3)) return;
        last_ = now;
        const double elapsed = std::chrono::duration<double>(now - start_).count();
        fmt::print(stderr, "papshim-bench: [{:.0f} s] {}\n", elapsed,
                   fmt::format(format, std::forward<Args>(args)...));
        std::fflush(stderr);
    }

private:
    bool enabled_;
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
    std::chrono::steady_clock::time_point last_ = start_;
};

// Each suite prints its table on rank 0 and returns there its results for the JSON file
// (null on the other ranks).
Json run_overhead_suite(const Options& options, const World& world);
Json run_allgather_suite(const Options& options, const World& world);
Json run_sweep_suite(const Options& options, const World& world);

// Collective over MPI_COMM_WORLD: if `ok` is false on any rank, the first such rank prints
// `message` (one line on stderr) and the job aborts with status 3.
void abort_unless_everywhere(bool ok, const std::string& message);

// papshim_set_mode, turning a refusal into a UsageError.
void switch_mode(const char* mode);

}  // namespace papshim::bench
