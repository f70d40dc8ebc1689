// papshim-sim: runs papshim's Allgather schedules for p ranks through the simulator's
// LogGP-style model with a chosen arrival pattern, and ranks the algorithms by average
// elapsed time ē and run time r (spec allgather-bdr-bslb-and-clairvoyant.md §1.1).

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "papshim/algorithms.hpp"
#include "papshim/simulator.hpp"

namespace {

constexpr int kUsageError = 2;

constexpr std::string_view kHelp = R"(usage: papshim-sim [options]

Builds every rank's schedule of papshim's Allgather algorithms and runs them through a
LogGP-style model (no MPI needed): per algorithm it prints the average elapsed time
ē = mean(f_i - a_i), the run time r = max f - min a, and both relative to the best.

options:
  --ranks N              communicator size p (default 256; 1 to 65536)
  --bytes B[,B...]       bytes each rank contributes (one block), one table per value
                         (default 1024)
  --blocks DIST          how block sizes vary with rank, for Allgatherv ([T] §6.1.3, c = B):
                         equal (default), broadcast, spike, half-full, decreasing, geometric
  --pattern P            arrival times: balanced (default), uniform:MAX_S (a_i ~ U[0,MAX)),
                         one-late:D_S (one rank, picked by the seed, D seconds late),
                         staircase:STEP_S (a_i = i*STEP)
  --seed N               seed of the random patterns; rank i's draw depends only on
                         (N, i) (default 1)
  --alpha S              latency per message, seconds (default 2e-6)
  --beta S               time per byte, seconds (default 1e-9)
  --overhead S           CPU overhead per message at each end, seconds (default 0)
  --contention           single-port links: a rank injects one message at a time and
                         takes one arrival at a time
  --ranks-per-node C     two-level machine: C ranks per node; --alpha/--beta then apply
                         inside a node, --inter-alpha/--inter-beta between nodes, and the
                         inter-node messages of one step share their node's port (default 0:
                         every pair of ranks alike)
  --mapping M            sequential (node = rank / C, default) or cyclic (node = rank % nodes)
  --inter-alpha S        latency per inter-node message, seconds (default: --alpha)
  --inter-beta S         time per byte between nodes, seconds (default: --beta)
  --rendezvous B         messages of at least B bytes wait for the receiver to enter the
                         step (default: never)
  --algorithms A[,A...]  which algorithms (default all: sparbit, bruck, recursive_doubling,
                         neighbor_exchange, ring, gather_bcast)
  --check                also run the data-flow check on every schedule set
  --json FILE            also write the results as JSON to FILE
  --help                 this text

Times are printed in microseconds. Exit status: 0 on success, 2 on a bad option.
)";

struct Options {
    int ranks = 256;
    std::vector<double> bytes{1024};
    std::string blocks = "equal";
    std::string pattern_text = "balanced";
    papshim::sim::ArrivalPattern pattern;
    std::uint64_t seed = 1;
    papshim::sim::TimingModel model;
    std::vector<const papshim::AllgatherAlgorithm*> algorithms;
    bool check = false;
    std::string json;
};

struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

template <typename Number>
Number parse_number(std::string_view flag, std::string_view text) {
    Number value{};
    const char* end = text.data() + text.size();
    const auto [stop, error] = std::from_chars(text.data(), end, value);
    if (error != std::errc{} || stop != end) {
        throw UsageError(fmt::format("{} needs a number, got '{}'", flag, text));
    }
    return value;
}

double parse_non_negative(std::string_view flag, std::string_view text) {
    const double value = parse_number<double>(flag, text);
    if (!(value >= 0) || !std::isfinite(value)) {
        throw UsageError(fmt::format("{} must be a finite number >= 0, got '{}'", flag, text));
    }
    return value;
}

std::vector<std::string_view> split_commas(std::string_view text) {
    std::vector<std::string_view> parts;
    for (std::size_t start = 0;;) {
        const std::size_t comma = text.find(',', start);
        parts.push_back(text.substr(start, comma - start));
        if (comma == std::string_view::npos) return parts;
        start = comma + 1;
    }
}

// Block sizes of [T]'s Allgatherv distributions, floored (spec §4.3 and §6 item 9).
std::vector<double> block_sizes(std::string_view distribution, int p, double c) {
    std::vector<double> sizes(static_cast<std::size_t>(p), c);
    for (int i = 0; i < p; ++i) {
        double& m = sizes[static_cast<std::size_t>(i)];
        if (distribution == "broadcast") {
            m = i == 0 ? c : 0;
        } else if (distribution == "spike") {
            m = i == 0 ? p * c : (p > 1 ? std::floor(p * c / (p - 1)) : 0);
        } else if (distribution == "half-full") {
            m = i % 2 == 0 ? 2 * c : 0;
        } else if (distribution == "decreasing") {
            m = p > 1 ? std::floor(2 * c * (p - 1 - i) / (p - 1)) : c;
        } else if (distribution == "geometric") {
            m = p > 1 ? std::floor(p * c / ((i + 1.5) * std::log(p))) : c;
        }
    }
    return sizes;
}

bool known_distribution(std::string_view name) {
    for (std::string_view known : {"equal", "broadcast", "spike", "half-full", "decreasing", "geometric"}) {
        if (name == known) return true;
    }
    return false;
}

Options parse_options(int argc, char** argv) {
    Options options;
    std::optional<double> inter_alpha, inter_beta;
    for (int i = 1; i < argc; ++i) {
        const std::string_view flag = argv[i];
        auto value = [&]() -> std::string_view {
            if (i + 1 >= argc) throw UsageError(fmt::format("{} needs a value", flag));
            return argv[++i];
        };
        if (flag == "--help" || flag == "-h") {
            std::fputs(kHelp.data(), stdout);
            std::exit(0);
        } else if (flag == "--ranks") {
            const std::string_view text = value();
            options.ranks = parse_number<int>(flag, text);
            if (options.ranks < 1 || options.ranks > 65536) {
                throw UsageError(fmt::format("--ranks must be 1 to 65536, got '{}'", text));
            }
        } else if (flag == "--bytes") {
            options.bytes.clear();
            for (auto part : split_commas(value())) options.bytes.push_back(parse_non_negative(flag, part));
        } else if (flag == "--blocks") {
            options.blocks = value();
            if (!known_distribution(options.blocks)) {
                throw UsageError(fmt::format("--blocks: unknown distribution '{}'", options.blocks));
            }
        } else if (flag == "--pattern") {
            options.pattern_text = value();
            const auto pattern = papshim::sim::parse_arrival_pattern(options.pattern_text);
            if (!pattern) {
                throw UsageError(fmt::format("--pattern: '{}' is not balanced, uniform:MAX_S, one-late:D_S "
                                             "or staircase:STEP_S", options.pattern_text));
            }
            options.pattern = *pattern;
        } else if (flag == "--seed") {
            options.seed = parse_number<std::uint64_t>(flag, value());
        } else if (flag == "--alpha") {
            options.model.latency = parse_non_negative(flag, value());
        } else if (flag == "--beta") {
            options.model.per_byte = parse_non_negative(flag, value());
        } else if (flag == "--overhead") {
            options.model.overhead = parse_non_negative(flag, value());
        } else if (flag == "--contention") {
            options.model.contention = true;
        } else if (flag == "--ranks-per-node") {
            const std::string_view text = value();
            options.model.ranks_per_node = parse_number<int>(flag, text);
            if (options.model.ranks_per_node < 1) throw UsageError(fmt::format("--ranks-per-node must be >= 1, got '{}'", text));
        } else if (flag == "--mapping") {
            const std::string_view text = value();
            if (text != "sequential" && text != "cyclic") {
                throw UsageError(fmt::format("--mapping must be sequential or cyclic, got '{}'", text));
            }
            options.model.cyclic_mapping = text == "cyclic";
        } else if (flag == "--inter-alpha") {
            inter_alpha = parse_non_negative(flag, value());
        } else if (flag == "--inter-beta") {
            inter_beta = parse_non_negative(flag, value());
        } else if (flag == "--rendezvous") {
            options.model.rendezvous_bytes = parse_non_negative(flag, value());
        } else if (flag == "--algorithms") {
            for (auto name : split_commas(value())) {
                const auto* algorithm = papshim::find_allgather_algorithm(name);
                if (algorithm == nullptr) throw UsageError(fmt::format("--algorithms: unknown algorithm '{}'", name));
                options.algorithms.push_back(algorithm);
            }
        } else if (flag == "--check") {
            options.check = true;
        } else if (flag == "--json") {
            options.json = value();
        } else {
            throw UsageError(fmt::format("unknown option '{}'", flag));
        }
    }
    options.model.inter_latency = inter_alpha.value_or(options.model.latency);
    options.model.inter_per_byte = inter_beta.value_or(options.model.per_byte);
    if (options.algorithms.empty()) {
        for (const auto& algorithm : papshim::allgather_algorithms()) options.algorithms.push_back(&algorithm);
    }
    return options;
}

struct Row {
    std::string_view algorithm;
    double bytes;
    int steps;
    std::size_t messages;
    papshim::sim::TimingResult timing;
};

void print_table(const Options& options, double bytes, std::vector<Row> rows) {
    std::ranges::stable_sort(rows, {}, [](const Row& row) { return row.timing.mean_elapsed; });
    double best_elapsed = std::numeric_limits<double>::infinity(), best_run = best_elapsed;
    for (const auto& row : rows) {
        best_elapsed = std::min(best_elapsed, row.timing.mean_elapsed);
        best_run = std::min(best_run, row.timing.run_time);
    }
    auto ratio = [](double value, double best) { return best > 0 ? value / best : 1.0; };
    fmt::print("\nblock bytes {} ({} blocks)\n", bytes, options.blocks);
    fmt::print("{:<20} {:>6} {:>10} {:>12} {:>12} {:>8} {:>8}\n", "algorithm", "steps", "messages", "ē (µs)",
               "r (µs)", "ē/best", "r/best");
    for (const auto& row : rows) {
        fmt::print("{:<20} {:>6} {:>10} {:>12.3f} {:>12.3f} {:>8.3f} {:>8.3f}\n", row.algorithm, row.steps,
                   row.messages, row.timing.mean_elapsed * 1e6, row.timing.run_time * 1e6,
                   ratio(row.timing.mean_elapsed, best_elapsed), ratio(row.timing.run_time, best_run));
    }
}

void write_json(const Options& options, const std::vector<Row>& rows) {
    std::FILE* file = std::fopen(options.json.c_str(), "w");
    if (file == nullptr) throw std::runtime_error(fmt::format("cannot write '{}'", options.json));
    const auto& m = options.model;
    fmt::print(file,
               "{{\n  \"ranks\": {},\n  \"pattern\": \"{}\",\n  \"seed\": {},\n  \"blocks\": \"{}\",\n"
               "  \"model\": {{\"alpha\": {}, \"beta\": {}, \"overhead\": {}, \"contention\": {}, "
               "\"rendezvous_bytes\": {}, \"ranks_per_node\": {}, \"mapping\": \"{}\", "
               "\"inter_alpha\": {}, \"inter_beta\": {}}},\n  \"results\": [",
               options.ranks, options.pattern_text, options.seed, options.blocks, m.latency, m.per_byte,
               m.overhead, m.contention, std::isinf(m.rendezvous_bytes) ? "null" : fmt::format("{}", m.rendezvous_bytes),
               m.ranks_per_node, m.cyclic_mapping ? "cyclic" : "sequential", m.inter_latency, m.inter_per_byte);
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const auto& row = rows[i];
        fmt::print(file,
                   "{}\n    {{\"algorithm\": \"{}\", \"bytes\": {}, \"steps\": {}, \"messages\": {}, "
                   "\"mean_elapsed\": {}, \"run_time\": {}}}",
                   i == 0 ? "" : ",", row.algorithm, row.bytes, row.steps, row.messages, row.timing.mean_elapsed,
                   row.timing.run_time);
    }
    fmt::print(file, "\n  ]\n}}\n");
    std::fclose(file);
}

int run(const Options& options) {
    const auto arrival = papshim::sim::make_arrivals(options.pattern, options.ranks, options.seed);
    const auto& m = options.model;
    fmt::print("papshim-sim: p={} pattern={} seed={} alpha={} s beta={} s/B overhead={} s contention={} "
               "rendezvous={}\n",
               options.ranks, options.pattern_text, options.seed, m.latency, m.per_byte, m.overhead,
               m.contention ? "on" : "off",
               std::isinf(m.rendezvous_bytes) ? "never" : fmt::format(">= {} B", m.rendezvous_bytes));
    if (m.ranks_per_node > 0) {
        fmt::print("nodes: {} ranks per node, {} mapping, inter-node alpha={} s beta={} s/B\n", m.ranks_per_node,
                   m.cyclic_mapping ? "cyclic" : "sequential", m.inter_latency, m.inter_per_byte);
    }
    std::vector<Row> rows;
    // One schedule set at a time: at p = 4096 a ring's set alone is about a gigabyte.
    for (const auto* algorithm : options.algorithms) {
        const auto set = papshim::sim::ScheduleSet::build(algorithm->build, options.ranks);
        if (options.check) {
            if (auto error = papshim::sim::check_data_flow(set); !error.empty()) {
                fmt::print(stderr, "papshim-sim: {} fails the data-flow check: {}\n", algorithm->name, error);
                return 1;
            }
        }
        for (double bytes : options.bytes) {
            const auto sizes = block_sizes(options.blocks, options.ranks, bytes);
            rows.push_back({algorithm->name, bytes, set.max_step_count(), set.send_count(),
                            papshim::sim::simulate_timing(set, options.model, arrival, sizes)});
        }
    }
    if (options.check) fmt::print("data-flow check: all {} algorithms pass\n", options.algorithms.size());
    for (double bytes : options.bytes) {
        std::vector<Row> table;
        for (const auto& row : rows) {
            if (row.bytes == bytes) table.push_back(row);
        }
        print_table(options, bytes, std::move(table));
    }
    if (!options.json.empty()) write_json(options, rows);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(parse_options(argc, argv));
    } catch (const UsageError& error) {
        fmt::print(stderr, "papshim-sim: {} (see --help)\n", error.what());
        return kUsageError;
    } catch (const std::exception& error) {
        fmt::print(stderr, "papshim-sim: {}\n", error.what());
        return 1;
    }
}
