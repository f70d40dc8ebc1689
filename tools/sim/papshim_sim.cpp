// papshim-sim: runs papshim's Allgather schedules for p ranks through the simulator's
// LogGP-style model with a chosen arrival pattern, and ranks the algorithms by average
// elapsed time ē and run time r (spec allgather-bdr-bslb-and-clairvoyant.md §1.1).

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "block_distributions.hpp"
#include "cli.hpp"
#include "papshim/algorithms.hpp"
#include "papshim/simulator.hpp"
#include "reduce_sim.hpp"

namespace {

constexpr int kUsageError = 2;

constexpr const char* kDescription = R"(Builds every rank's schedule of papshim's Allgather algorithms and runs them through a
LogGP-style model (no MPI needed): per algorithm it prints the average elapsed time
ē = mean(f_i - a_i), the run time r = max f - min a, and both relative to the best.)";

constexpr const char* kFooter =
    "Times are printed in microseconds. Exit status: 0 on success, 2 on a bad option.";

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
    papshim::sim_tool::ReduceOptions reduce;  // --reduce, --scheduler-bench (reduce_sim.hpp)
};

}  // namespace

namespace papshim::sim_tool {  // reduce_sim.hpp's

// Non-negative finite seconds, bytes or counts given as plain numbers ("2e-6").
double parse_non_negative(const std::string& text) {
    double value = 0;
    const char* end = text.data() + text.size();
    const auto [stop, error] = std::from_chars(text.data(), end, value);
    if (error != std::errc{} || stop != end || !(value >= 0) || !std::isfinite(value))
        throw std::invalid_argument(fmt::format("expected a finite number >= 0, got '{}'", text));
    return value;
}

std::vector<std::string> split_commas(const std::string& text) {
    std::vector<std::string> parts;
    for (std::size_t start = 0;;) {
        const std::size_t comma = text.find(',', start);
        parts.push_back(text.substr(start, comma - start));
        if (comma == std::string::npos) return parts;
        start = comma + 1;
    }
}

// The Reduce mode's options (reduce_sim.hpp), here so that CLI11 is compiled once.
void define_reduce_options(CLI::App& app, ReduceOptions& options) {
    using papshim::cli::add_parsed;
    // Names of papshim's scheduled algorithms of a collective (and `extra` ones of the simulator).
    auto names_of = [&options](Collective collective, std::vector<std::string_view> extra) {
        return [&options, collective, extra](const std::string& text) {
            std::vector<std::string> names;
            for (const std::string& name : split_commas(text)) {
                const auto* algorithm = find_reduction_algorithm(collective, name);
                if (std::ranges::find(extra, name) == extra.end() && (algorithm == nullptr || algorithm->build == nullptr))
                    throw std::invalid_argument(fmt::format("unknown or unscheduled {} algorithm '{}'",
                                                            collective == Collective::reduce ? "Reduce" : "Allreduce", name));
                names.push_back(name);
            }
            options.allreduce = collective == Collective::allreduce;
            return names;
        };
    };
    add_parsed(app, "--reduce", options.algorithms, names_of(Collective::reduce, {"clairvoyant", "chain", "dynamic_leader", "arrival_chain"}),
               "simulate these Reduce algorithms instead of the Allgather ones:\n"
               "clairvoyant (planned from the pattern's arrivals), chain (in\n"
               "arrival order to the root, in N pieces), predicted_chain, binomial,\n"
               "pipelined_binomial (the tree in 8-16 KiB pieces),\n"
               "rabenseifner; papshim's node algorithms dynamic_leader (up to the\n"
               "slot) and arrival_chain (inside each node, then the node leaders'\n"
               "binomial tree; docs/simulator.md)",
               "A[,A...]");
    add_parsed(app, "--allreduce", options.algorithms,
               names_of(Collective::allreduce, {"dynamic_leader", "symmetric_shm", "arrival_chain", "hierarchical"}),
               "the same for Allreduce: clairvoyant, clairvoyant_bcast, predicted_chain,\n"
               "predicted_scatter, recursive_doubling, rabenseifner, ring; and\n"
               "papshim's node algorithms dynamic_leader, symmetric_shm, arrival_chain\n"
               "and hierarchical (inside nodes at --alpha/--beta, a shared-memory\n"
               "message's; between nodes at --inter-alpha/--inter-beta;\n"
               "docs/simulator.md)",
               "A[,A...]");
    add_parsed(
        app, "--root", options.root,
        [](const std::string& text) { return papshim::cli::parse_integer<int>(text, 0); },
        "the Reduce root (default 0)", "R");
    add_parsed(
        app, "--gamma", options.gamma, parse_non_negative,
        "Reduce: seconds per byte to reduce a received partial (default 0)", "S");
    add_parsed(
        app, "--round-ns", options.round_ns,
        [](const std::string& text) { return papshim::cli::parse_integer<std::int64_t>(text, 1); },
        "Clairvoyant's round length d in ns (default: one segment's\n"
        "alpha + 2*overhead + bytes/N*(beta+gamma))",
        "D");
    add_parsed(
        app, "--early-sends", options.early_send_bytes,
        [](const std::string& text) { return papshim::cli::parse_integer<std::uint64_t>(text, 1); },
        "the largest message the MPI completes before its receiver arrives,\n"
        "as papshim's link measurement finds it (49152: Open MPI's TCP;\n"
        "16384: UCX's TCP; 7680, 3584): predicted_scatter pushes its partials\n"
        "and cuts its chunks by it; larger messages wait for their receiver\n"
        "unless --rendezvous says otherwise (default: none sent early, the\n"
        "scatter swaps)",
        "B");
    add_parsed(
        app, "--scheduler-bench", options.bench_ranks,
        [](const std::string& text) {
            std::vector<int> ranks;
            for (const std::string& part : split_commas(text))
                ranks.push_back(papshim::cli::parse_integer<int>(part, 2, 65536));
            return ranks;
        },
        "time Clairvoyant's three schedulers on [CLV] §5.7's instances at\n"
        "these P (N = P unless --bench-segments papshim) and exit",
        "P[,P...]");
    add_parsed(
        app, "--bench-segments", options.bench_papshim_segments,
        [](const std::string& text) {
            if (text != "equal" && text != "papshim")
                throw std::invalid_argument(fmt::format("expected equal or papshim, got '{}'", text));
            return text == "papshim";
        },
        "N in the scheduler benchmark: equal (N = P, default) or papshim\n"
        "(ceil(log2 P))",
        "S");
    add_parsed(
        app, "--runs", options.runs,
        [](const std::string& text) { return papshim::cli::parse_integer<int>(text, 1); },
        "instances per row of the scheduler benchmark (default 250)", "K");
}

}  // namespace papshim::sim_tool

namespace {

using papshim::sim_tool::parse_non_negative;
using papshim::sim_tool::split_commas;

constexpr int kMaxRanks = 65536;


// The command line, bound to `options`; inter-node costs default to the intra-node ones.
void define_options(CLI::App& app, Options& options, std::optional<double>& inter_alpha,
                    std::optional<double>& inter_beta) {
    papshim::cli::configure(app, "papshim-sim [options]", kDescription, kFooter, 25);
    using papshim::cli::add_parsed;
    add_parsed(
        app, "--ranks", options.ranks,
        [](const std::string& text) { return papshim::cli::parse_integer<int>(text, 1, kMaxRanks); },
        fmt::format("communicator size p (default 256; 1 to {})", kMaxRanks), "N");
    add_parsed(
        app, "--bytes", options.bytes,
        [](const std::string& text) {
            std::vector<double> bytes;
            for (const std::string& part : split_commas(text))
                bytes.push_back(parse_non_negative(part));
            return bytes;
        },
        "bytes each rank contributes (one block), one table per value\n(default 1024)",
        "B[,B...]");
    add_parsed(
        app, "--blocks", options.blocks, papshim::blocks::parse_distribution,
        "how block sizes vary with rank, for Allgatherv ([T] §6.1.3, c = B):\n"
        "equal (default), broadcast, spike, half-full, decreasing, geometric",
        "DIST");
    add_parsed(
        app, "--pattern", options.pattern,
        [&options](const std::string& text) {
            const auto pattern = papshim::sim::parse_arrival_pattern(text);
            if (!pattern)
                throw std::invalid_argument(fmt::format(
                    "'{}' is not balanced, uniform:MAX_S, one-late:D_S, staircase:STEP_S or list:A0,A1,...",
                    text));
            options.pattern_text = text;
            return *pattern;
        },
        "arrival times: balanced (default), uniform:MAX_S (a_i ~ U[0,MAX)),\n"
        "one-late:D_S (one rank, picked by the seed, D seconds late),\n"
        "staircase:STEP_S (a_i = i*STEP), list:A0,A1,... (rank i arrives at\n"
        "A_i seconds, e.g. a call's arrival_s from a trace's calls.csv; sets\n"
        "--ranks to the list's length)",
        "P");
    add_parsed(
        app, "--seed", options.seed,
        [](const std::string& text) { return papshim::cli::parse_integer<std::uint64_t>(text, 0); },
        "seed of the random patterns; rank i's draw depends only on\n(N, i) (default 1)", "N");
    auto& m = options.model;
    add_parsed(app, "--alpha", m.latency, parse_non_negative,
               "latency per message, seconds (default 2e-6)", "S");
    add_parsed(app, "--beta", m.per_byte, parse_non_negative,
               "time per byte, seconds (default 1e-9)", "S");
    add_parsed(app, "--overhead", m.overhead, parse_non_negative,
               "CPU overhead per message at each end, seconds (default 0)", "S");
    app.add_flag("--contention", m.contention,
                 std::string("single-port links: a rank injects one message at a time and\n"
                             "takes one arrival at a time"));
    add_parsed(
        app, "--ranks-per-node", m.ranks_per_node,
        [](const std::string& text) { return papshim::cli::parse_integer<int>(text, 1); },
        "two-level machine: C ranks per node; --alpha/--beta then apply\n"
        "inside a node, --inter-alpha/--inter-beta between nodes, and the\n"
        "inter-node messages of one step share their node's port fairly (default 0:\n"
        "every pair of ranks alike)",
        "C");
    add_parsed(
        app, "--mapping", m.cyclic_mapping,
        [](const std::string& text) {
            if (text != "sequential" && text != "cyclic")
                throw std::invalid_argument(
                    fmt::format("expected sequential or cyclic, got '{}'", text));
            return text == "cyclic";
        },
        "sequential (node = rank / C, default) or cyclic (node = rank % nodes)", "M");
    add_parsed(app, "--inter-alpha", inter_alpha, parse_non_negative,
               "latency per inter-node message, seconds (default: --alpha)", "S");
    add_parsed(app, "--inter-beta", inter_beta, parse_non_negative,
               "time per byte between nodes, seconds (default: --beta)", "S");
    add_parsed(app, "--rendezvous", m.rendezvous_bytes, parse_non_negative,
               "messages of at least B bytes wait for the receiver to enter the\n"
               "step (default: never)",
               "B");
    add_parsed(
        app, "--algorithms", options.algorithms,
        [](const std::string& text) {
            std::vector<const papshim::AllgatherAlgorithm*> chosen;
            for (const std::string& name : split_commas(text)) {
                const auto* algorithm = papshim::find_allgather_algorithm(name);
                if (algorithm == nullptr)
                    throw std::invalid_argument(fmt::format("unknown algorithm '{}'", name));
                chosen.push_back(algorithm);
            }
            return chosen;
        },
        "which algorithms (default all: sparbit, bruck, recursive_doubling,\n"
        "neighbor_exchange, ring, gather_bcast, bdr, bslb); bdr and bslb plan\n"
        "with the pattern's arrivals (an exact prediction), bdr with tau = one\n"
        "largest block over one link and the block sizes (empty blocks)",
        "A[,A...]");
    app.add_flag("--check", options.check,
                 std::string("also run the data-flow check on every schedule set"));
    add_parsed(app, "--json", options.json, papshim::cli::non_empty("a file name"),
               "also write the results as JSON to FILE", "FILE");
    papshim::sim_tool::define_reduce_options(app, options.reduce);
}

// The options, or the error line for stderr; `help` gets the help text if asked for.
std::optional<Options> parse_options(int argc, char** argv, std::string& error,
                                     std::string& help) {
    Options options;
    std::optional<double> inter_alpha, inter_beta;
    CLI::App app;
    define_options(app, options, inter_alpha, inter_beta);
    error = papshim::cli::parse(app, argc, argv, help);
    if (!error.empty() || !help.empty()) return std::nullopt;
    if (const auto& times = options.pattern.times; options.pattern.kind == papshim::sim::ArrivalPattern::Kind::list) {
        const int listed = int(times.size());
        if (app.count("--ranks") > 0 && options.ranks != listed) {
            error = fmt::format("--pattern list: has {} arrivals but --ranks is {}", listed, options.ranks);
            return std::nullopt;
        }
        if (listed > kMaxRanks) {
            error = fmt::format("--pattern list: has {} arrivals, more than {} ranks", listed, kMaxRanks);
            return std::nullopt;
        }
        options.ranks = listed;
    }
    // As the link measurement finds it: sends above what the MPI buffers early wait for the
    // receiver, and what is sent early waits in socket buffers.
    if (options.reduce.early_send_bytes > 0) {
        if (app.count("--rendezvous") == 0) options.model.rendezvous_bytes = double(options.reduce.early_send_bytes) + 1;
        options.model.socket_buffers = true;
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
    std::ofstream file(options.json);
    if (!file) throw std::runtime_error(fmt::format("cannot write '{}'", options.json));
    const auto& m = options.model;
    using Json = nlohmann::ordered_json;
    Json results = Json::array();
    for (const auto& row : rows) {
        results.push_back({{"algorithm", row.algorithm},
                           {"bytes", row.bytes},
                           {"steps", row.steps},
                           {"messages", row.messages},
                           {"mean_elapsed", row.timing.mean_elapsed},
                           {"run_time", row.timing.run_time}});
    }
    // JSON has no infinity: "never" (rendezvous) is written as null, as nlohmann does.
    const Json document = {{"ranks", options.ranks},
                           {"pattern", options.pattern_text},
                           {"seed", options.seed},
                           {"blocks", options.blocks},
                           {"model",
                            {{"alpha", m.latency},
                             {"beta", m.per_byte},
                             {"overhead", m.overhead},
                             {"contention", m.contention},
                             {"rendezvous_bytes", m.rendezvous_bytes},
                             {"ranks_per_node", m.ranks_per_node},
                             {"mapping", m.cyclic_mapping ? "cyclic" : "sequential"},
                             {"inter_alpha", m.inter_latency},
                             {"inter_beta", m.inter_per_byte}}},
                           {"results", std::move(results)}};
    file << document.dump(2) << '\n';
}

// BDR and BSLB plan from predicted arrivals; papshim-sim gives them the pattern's own (an
// exact prediction, integer ns from the earliest), τ of the largest block over one link and
// the block sizes (BDR assumes one rank per node: inter-node costs on a two-level machine;
// BSLB only uses the order), and runs their leading receive-only steps in the background
// (BDR's pre-steps, BSLB's gather at the root; docs/algorithms/bdr.md, bslb.md).
bool plans_with_arrivals(const papshim::AllgatherAlgorithm& algorithm) {
    return algorithm.name == "bdr" || algorithm.name == "bslb";
}

double bdr_tau(const papshim::sim::TimingModel& m, const std::vector<double>& sizes) {
    const double largest = *std::max_element(sizes.begin(), sizes.end());
    const bool nodes = m.ranks_per_node > 0;
    return (nodes ? m.inter_latency : m.latency) + largest * (nodes ? m.inter_per_byte : m.per_byte) + 2 * m.overhead;
}

papshim::sim::ScheduleSet planned_set(const papshim::AllgatherAlgorithm& algorithm, const std::vector<double>& arrival,
                                      double tau, const std::vector<double>& sizes) {
    const double earliest = *std::min_element(arrival.begin(), arrival.end());
    std::vector<std::int64_t> arrival_ns;
    for (double a : arrival) arrival_ns.push_back(std::llround((a - earliest) * 1e9));
    std::vector<std::uint64_t> block_bytes;
    for (double bytes : sizes)  // rounded up: a block is empty only at 0 bytes
        block_bytes.push_back(static_cast<std::uint64_t>(std::ceil(std::max(bytes, 0.0))));
    papshim::schedule::BuildInput input;
    input.arrival_ns = arrival_ns;
    input.step_ns = std::llround(tau * 1e9);
    input.block_bytes = block_bytes;
    return papshim::sim::ScheduleSet::build(algorithm.build, static_cast<int>(arrival.size()), input);
}

int run(const Options& options) {
    if (options.reduce.active())
        return papshim::sim_tool::run_reduce(options.reduce, {options.ranks, options.bytes, options.pattern, options.pattern_text,
                                                              options.seed, options.model, options.check, options.json});
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
        const bool planned = plans_with_arrivals(*algorithm);  // one set per size: τ depends on it
        auto model = options.model;
        model.background_receives = planned;
        std::optional<papshim::sim::ScheduleSet> set;
        for (double bytes : options.bytes) {
            const auto sizes = papshim::blocks::block_sizes(options.blocks, options.ranks, bytes);
            if (planned || !set) {
                set = planned ? planned_set(*algorithm, arrival, bdr_tau(m, sizes), sizes)
                              : papshim::sim::ScheduleSet::build(algorithm->build, options.ranks);
                if (auto error = options.check ? papshim::sim::check_data_flow(*set) : ""; !error.empty()) {
                    fmt::print(stderr, "papshim-sim: {} fails the data-flow check: {}\n", algorithm->name, error);
                    return 1;
                }
            }
            rows.push_back({algorithm->name, bytes, set->max_step_count(), set->send_count(),
                            papshim::sim::simulate_timing(*set, model, arrival, sizes)});
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
    std::string error, help;
    const std::optional<Options> options = parse_options(argc, argv, error, help);
    if (!help.empty()) {
        fmt::print("{}", help);
        return 0;
    }
    if (!options) {
        fmt::print(stderr, "papshim-sim: {} (see --help)\n", error);
        return kUsageError;
    }
    try {
        return run(*options);
    } catch (const std::exception& failure) {
        fmt::print(stderr, "papshim-sim: {}\n", failure.what());
        return 1;
    }
}
