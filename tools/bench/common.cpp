#include "common.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <thread>

#include <papshim/control.h>

namespace papshim::bench {

std::vector<std::size_t> run_order(std::size_t count, int iteration) {
    std::vector<std::size_t> order(count);
    std::iota(order.begin(), order.end(), std::size_t{0});
    // Fisher-Yates with the engine's raw output (std::shuffle's use of it is the library's own).
    std::mt19937 engine(0x9e3779b9u ^ static_cast<std::uint32_t>(iteration));
    for (std::size_t i = count; i > 1; --i) std::swap(order[i - 1], order[engine() % i]);
    return order;
}

double median(std::vector<double> values) {
    if (values.empty()) return NAN;
    const std::size_t middle = values.size() / 2;
    std::ranges::nth_element(values, values.begin() + static_cast<std::ptrdiff_t>(middle));
    const double upper = values[middle];
    if (values.size() % 2) return upper;
    const double lower =
        *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(middle));
    return (lower + upper) / 2;
}

double mean(const std::vector<double>& values) {
    if (values.empty()) return NAN;
    return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

double minimum(const std::vector<double>& values) {
    return values.empty() ? NAN : std::ranges::min(values);
}

double maximum(const std::vector<double>& values) {
    return values.empty() ? NAN : std::ranges::max(values);
}

std::string format_seconds(double seconds) {
    if (!std::isfinite(seconds)) return "-";
    struct Unit {
        double scale;
        const char* name;
    };
    static constexpr Unit units[] = {{1e-9, "ns"}, {1e-6, "us"}, {1e-3, "ms"}, {1.0, "s"}};
    const Unit* unit = &units[0];
    for (const Unit& candidate : units)
        if (std::abs(seconds) >= candidate.scale) unit = &candidate;
    const double scaled = seconds / unit->scale;
    const double magnitude = std::abs(scaled);
    const int decimals = magnitude >= 100 ? 1 : magnitude >= 10 ? 2 : 3;
    return fmt::format("{:.{}f} {}", scaled, decimals, unit->name);
}

std::string format_bytes(std::size_t bytes) {
    if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) return fmt::format("{} MiB", bytes >> 20);
    if (bytes >= (1u << 10) && bytes % (1u << 10) == 0) return fmt::format("{} KiB", bytes >> 10);
    return fmt::format("{} B", bytes);
}

void wait_for(double seconds) {
    if (seconds <= 0) return;
    using Clock = std::chrono::steady_clock;
    const auto until = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                          std::chrono::duration<double>(seconds));
    constexpr auto spin = std::chrono::microseconds(200);
    if (seconds > 2 * std::chrono::duration<double>(spin).count())
        std::this_thread::sleep_until(until - spin);
    while (Clock::now() < until) {
    }
}

void abort_unless_everywhere(bool ok, const std::string& message) {
    int rank = 0;
    int ranks = 1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &ranks);
    int mine = ok ? ranks : rank;
    int first_bad = ranks;
    PMPI_Allreduce(&mine, &first_bad, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first_bad == ranks) return;
    if (rank == first_bad) {
        fmt::print(stderr, "papshim-bench: rank {}: {}\n", rank, message);
        std::fflush(stderr);
    }
    PMPI_Barrier(MPI_COMM_WORLD);  // lets the message out before the abort tears the job down
    PMPI_Abort(MPI_COMM_WORLD, 3);
}

void switch_mode(const char* mode) {
    if (papshim_set_mode(mode) != MPI_SUCCESS)
        throw UsageError(fmt::format("papshim_set_mode(\"{}\") failed", mode));
}

}  // namespace papshim::bench
