// papshim-sim's Reduce mode and the Clairvoyant scheduler benchmark (reduce_sim.hpp).

#include "reduce_sim.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <numeric>
#include <optional>
#include <random>
#include <stdexcept>

#include <time.h>

#include "papshim/algorithms.hpp"
#include "papshim/config.hpp"
#include "src/algorithms/node_steps.hpp"
#include "src/algorithms/reduce/clairvoyant.hpp"

namespace papshim::sim_tool {
namespace {

namespace clv = papshim::clairvoyant;

// The arrival-ordered chain, built from the known arrivals (a baseline of the simulator
// only): the non-root ranks by (arrival, rank), then the root; the vector in `pieces`, piece
// j leaving the chain's k-th rank in step k + j, as the thesis' chain with its pieces
// (spec pap-aware-allreduce-and-reduce.md §6.6).
std::vector<schedule::Schedule> chain_schedules(const std::vector<double>& arrival, int root, int pieces) {
    const int p = int(arrival.size());
    std::vector<int> order;
    for (int r = 0; r < p; ++r)
        if (r != root) order.push_back(r);
    std::stable_sort(order.begin(), order.end(),
                     [&](int x, int y) { return arrival[std::size_t(x)] < arrival[std::size_t(y)]; });
    order.push_back(root);
    std::vector<schedule::Schedule> out;
    for (int r = 0; r < p; ++r) out.push_back({.ranks = p, .rank = r, .blocks = pieces, .steps = {}});
    auto step_of = [&](int rank, int step) -> schedule::Step& {
        auto& steps = out[std::size_t(rank)].steps;
        if (steps.size() <= std::size_t(step)) steps.resize(std::size_t(step) + 1);
        return steps[std::size_t(step)];
    };
    for (int k = 0; k + 1 < p; ++k)
        for (int j = 0; j < pieces; ++j) {
            const int from = order[std::size_t(k)], to = order[std::size_t(k) + 1];
            step_of(from, k + j).sends.push_back({.peer = to, .blocks = {j}, .combine = schedule::Combine::none});
            step_of(to, k + j).recvs.push_back({.peer = from, .blocks = {j}, .combine = schedule::Combine::received_first});
        }
    return out;
}

// This thread's CPU seconds: on a machine shared with other jobs, wall time would count the
// time the scheduler waited for a core.
double cpu_seconds() {
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return double(now.tv_sec) + double(now.tv_nsec) * 1e-9;
}

// CPU seconds per call of `work` after one untimed call, in batches of doubling size until one takes `budget`
// seconds (one call when that alone does): the clock read costs more than a small plan.
template <typename Work>
double seconds_per_call(Work&& work, double budget) {
    work();  // warm: the scheduler keeps its arrays per thread
    for (int calls = 1;; calls *= 2) {
        const double start = cpu_seconds();
        for (int k = 0; k < calls; ++k) work();
        const double elapsed = cpu_seconds() - start;
        if (elapsed >= budget) return elapsed / calls;
    }
}

struct Row {
    std::string algorithm;
    double bytes = 0;
    int steps = 0;              // -1 with messages: not one schedule (a node algorithm's phases)
    std::size_t messages = 0;
    sim::TimingResult timing;
};

// papshim's node algorithms, which the simulator runs phase by phase (simulate_node_reduction).
std::optional<sim::NodeReduction> node_reduction(const std::string& name, bool allreduce) {
    if (name == "arrival_chain")
        return allreduce ? sim::NodeReduction::allreduce_arrival_chain : sim::NodeReduction::reduce_arrival_chain;
    if (name == "hierarchical" && allreduce) return sim::NodeReduction::allreduce_hierarchical;
    if (name == "symmetric_shm" && allreduce) return sim::NodeReduction::allreduce_symmetric;
    if (name == "dynamic_leader")
        return allreduce ? sim::NodeReduction::allreduce_dynamic_leader : sim::NodeReduction::reduce_dynamic_leader;
    return std::nullopt;
}

int simulate(const ReduceOptions& options, const Common& common) {
    const int p = common.ranks, root = options.allreduce ? -1 : options.root;
    if (root >= p) throw std::invalid_argument(fmt::format("--root {} needs more than {} ranks", root, p));
    // Before the header, as a bad option is reported.
    const bool node_algorithms = std::ranges::any_of(
        options.algorithms, [&](const std::string& name) { return node_reduction(name, options.allreduce).has_value(); });
    if (node_algorithms) sim::check_node_reduction_model(common.model);
    const Collective collective = options.allreduce ? Collective::allreduce : Collective::reduce;
    sim::TimingModel model = common.model;
    model.reduce_per_byte = options.gamma;
    const auto arrival = sim::make_arrivals(common.pattern, p, common.seed);
    std::vector<std::int64_t> arrival_ns;
    for (double a : arrival) arrival_ns.push_back(std::llround(a * 1e9));
    const int segments = clv::segments_for(p);
    fmt::print("papshim-sim {}: p={} root={} pattern={} seed={} alpha={} s beta={} s/B gamma={} s/B overhead={} s "
               "contention={} early_sends={} rendezvous={}\n",
               options.allreduce ? "allreduce" : "reduce", p, root, common.pattern_text, common.seed, model.latency, model.per_byte, model.reduce_per_byte,
               model.overhead, model.contention ? "on" : "off", options.early_send_bytes,
               std::isinf(model.rendezvous_bytes) ? std::string("never") : fmt::format("{}", model.rendezvous_bytes));
    std::vector<Row> rows;
    // PAPSHIM_SHM_SLOT unset (auto): the slot for this machine's largest node.
    const int node_ranks = model.ranks_per_node > 0 && model.ranks_per_node < p ? model.ranks_per_node : p;
    const std::size_t default_shm_slot = papshim::shm_slot_for_node(node_ranks);
    if (node_algorithms)
        fmt::print("node algorithms: {}, shared-memory slot {} B (PAPSHIM_SHM_SLOT's default, auto), chain pieces of {} B\n",
                   model.ranks_per_node > 0 && model.ranks_per_node < p
                       ? fmt::format("nodes of {} consecutive ranks", model.ranks_per_node)
                       : std::string("one node"),
                   default_shm_slot, node::kChainPieceBytes);
    for (double bytes : common.bytes) {
        std::vector<Row> table;
        auto run = [&](const std::string& name, const sim::ScheduleSet& set, int blocks) {
            if (common.check)
                if (auto error = sim::check_reduction_flow(set, root, true); !error.empty())
                    throw std::runtime_error(fmt::format("{} fails the data-flow check: {}", name, error));
            const std::vector<double> sizes(std::size_t(blocks), bytes / blocks);
            table.push_back({name, bytes, set.max_step_count(), set.send_count(),
                             sim::simulate_timing(set, model, arrival, sizes)});
        };
        // d: one piece over one link and its reduction, as the runtime computes it, unless given.
        auto round_ns = [&](int pieces) {
            const LinkModel link{.alpha = model.latency + 2 * model.overhead, .beta = model.per_byte, .gamma = options.gamma};
            return options.round_ns > 0 ? options.round_ns : clairvoyant_round_ns(link, bytes / pieces);
        };
        const std::int64_t d = round_ns(segments);
        for (const std::string& name : options.algorithms) {
            if (name == "clairvoyant" && !options.allreduce) {
                const clv::Problem problem{
                    .ranks = p, .arrival_ns = arrival_ns, .round_ns = d, .root = root, .segments = segments};
                clv::Plan plan;
                const double cost = seconds_per_call([&] { plan = clv::schedule_segment_tree(problem); }, 0.2);
                const auto schedules = clv::reduce_schedules(plan, p, segments);
                run(name, sim::ScheduleSet::from(schedules), segments);
                fmt::print("clairvoyant at {} B: N={} d={} ns, {} rounds ({} with messages), scheduler {:.1f} µs per call\n",
                           bytes, segments, d, plan.rounds, table.back().steps, cost * 1e6);
            } else if (const auto node_algorithm = node_reduction(name, options.allreduce)) {
                if (name == "dynamic_leader" && bytes > double(default_shm_slot))
                    fmt::print("note: papshim runs dynamic_leader only up to PAPSHIM_SHM_SLOT bytes (by default {} here); "
                               "this row models a larger slot\n", default_shm_slot);
                if (name == "symmetric_shm" && bytes > double(node::kSymmetricBytes))
                    fmt::print("note: papshim runs symmetric_shm only up to {} bytes (hierarchical above); this row "
                               "models a larger cell\n", node::kSymmetricBytes);
                table.push_back({name, bytes, -1, 0,
                                 sim::simulate_node_reduction(*node_algorithm, arrival, bytes, root,
                                                              double(default_shm_slot), model)});
            } else if (name == "chain") {
                run(name, sim::ScheduleSet::from(chain_schedules(arrival, root, segments)), segments);
            } else {  // papshim's builders, with the arrivals as an exact prediction
                schedule::BuildInput input;
                input.root = root;
                input.arrival_ns = arrival_ns;
                input.early_send_bytes = options.early_send_bytes;
                const ReductionAlgorithm* algorithm = find_reduction_algorithm(collective, name);
                if (algorithm->segments_for_bytes) input.segments = algorithm->segments_for_bytes(std::uint64_t(bytes));
                input.step_ns = algorithm->round_pieces ? round_ns(algorithm->round_pieces(p, input.segments)) : d;
                const auto set = sim::ScheduleSet::build(algorithm->build, p, input);
                run(name, set, set.blocks());
            }
        }
        std::ranges::stable_sort(table, {}, [](const Row& row) { return row.timing.mean_elapsed; });
        double best_elapsed = std::numeric_limits<double>::infinity(), best_run = best_elapsed;
        for (const auto& row : table) {
            best_elapsed = std::min(best_elapsed, row.timing.mean_elapsed);
            best_run = std::min(best_run, row.timing.run_time);
        }
        auto ratio = [](double value, double best) { return best > 0 ? value / best : 1.0; };
        fmt::print("\nvector bytes {}\n{:<14} {:>6} {:>10} {:>12} {:>12} {:>8} {:>8}\n", bytes, "algorithm", "steps",
                   "messages", "ē (µs)", "r (µs)", "ē/best", "r/best");
        for (const auto& row : table)
            fmt::print("{:<14} {:>6} {:>10} {:>12.3f} {:>12.3f} {:>8.3f} {:>8.3f}\n", row.algorithm,
                       row.steps < 0 ? "-" : std::to_string(row.steps),
                       row.steps < 0 ? "-" : std::to_string(row.messages), row.timing.mean_elapsed * 1e6,
                       row.timing.run_time * 1e6,
                       ratio(row.timing.mean_elapsed, best_elapsed), ratio(row.timing.run_time, best_run));
        rows.insert(rows.end(), table.begin(), table.end());
    }
    if (!common.json.empty()) {
        using Json = nlohmann::ordered_json;
        Json results = Json::array();
        for (const auto& row : rows)
            results.push_back({{"algorithm", row.algorithm},
                               {"bytes", row.bytes},
                               {"steps", row.steps < 0 ? Json(nullptr) : Json(row.steps)},
                               {"messages", row.steps < 0 ? Json(nullptr) : Json(row.messages)},
                               {"mean_elapsed", row.timing.mean_elapsed},
                               {"run_time", row.timing.run_time}});
        std::ofstream file(common.json);
        if (!file) throw std::runtime_error(fmt::format("cannot write '{}'", common.json));
        file << Json{{"ranks", p}, {"root", root}, {"pattern", common.pattern_text}, {"seed", common.seed},
                     {"results", std::move(results)}}
                    .dump(2)
             << '\n';
    }
    return 0;
}

// [CLV] Table 1 (spec §6.2): linear/segment-tree and pairing-heap/segment-tree time ratios,
// uniform and skewed, by P = N.
struct PaperRatio {
    int ranks;
    double uniform_linear, uniform_pairing, skewed_linear, skewed_pairing;
};
constexpr PaperRatio kPaper[] = {
    {4, 0.49, 1.84, 0.45, 2.45},     {8, 0.62, 3.07, 0.61, 5.68},      {16, 0.73, 3.53, 0.61, 5.34},
    {32, 0.97, 5.72, 0.67, 8.60},    {64, 1.26, 8.17, 0.64, 14.37},    {128, 2.00, 12.46, 0.61, 21.04},
    {256, 4.05, 15.58, 0.64, 22.77}, {512, 19.33, 43.64, 1.36, 82.98}};

// The scheduler-only benchmark (spec §5.3) in integer time: one unit = 10^6 ticks, d drawn
// from [0.001, 1] units; uniform: arrivals from [0, P + 0.1] units and a random root;
// skewed: all at 0 but rank P-1 at N units, root 0; balanced (papshim's run-time default):
// all at 0, root 0. The three schedulers must give the same plan.
int scheduler_bench(const ReduceOptions& options, const Common& common) {
    constexpr std::int64_t kUnit = 1'000'000;
    fmt::print("Clairvoyant schedulers, {} instances per row, N = {}; ratios are times over the segment tree's, "
               "[CLV] Table 1's in brackets; queue ops per P*N^2: the queues' inserts and erases\n",
               options.runs, options.bench_papshim_segments ? "papshim's (ceil(log2 P))" : "P ([CLV] §5.7)");
    fmt::print("{:>6} {:>6} {:<9} {:>13} {:>13} {:>13} {:>8} {:>7} {:>8} {:>7} {:>9} {:>8}\n", "P", "N", "pattern",
               "reference ms", "seg. tree ms", "queues ms", "ref/seg", "[CLV]", "que/seg", "[CLV]", "ops/PN^2",
               "rounds");
    for (int p : options.bench_ranks) {
        const int n = options.bench_papshim_segments ? clv::segments_for(p) : p;
        for (const char* pattern : {"uniform", "skewed", "balanced"}) {
            std::mt19937_64 rng(common.seed * 1000003 + std::uint64_t(p));
            double reference = 0, tree = 0, queues = 0, operations = 0;
            std::int64_t rounds = 0;
            for (int run = 0; run < options.runs; ++run) {
                std::vector<std::int64_t> a(std::size_t(p), 0);
                clv::Problem problem{.ranks = p, .arrival_ns = {}, .round_ns = 1000 + std::int64_t(rng() % std::uint64_t(kUnit - 1000 + 1)),
                                     .root = 0, .segments = n};
                if (pattern[0] == 'u') {
                    for (auto& x : a) x = std::int64_t(rng() % std::uint64_t((10 * std::int64_t(p) + 1) * kUnit / 10 + 1));
                    problem.root = int(rng() % std::uint64_t(p));
                } else if (pattern[0] == 's') {
                    a.back() = std::int64_t(n) * kUnit;
                }
                problem.arrival_ns = a;
                clv::Plan from_tree, from_reference, from_queues;
                clv::QueueOperations ops;
                tree += seconds_per_call([&] { from_tree = clv::schedule_segment_tree(problem); }, 1e-3);
                reference += seconds_per_call([&] { from_reference = clv::schedule_reference(problem); }, 1e-3);
                queues += seconds_per_call([&] { from_queues = clv::schedule_segment_queues(problem, &ops); }, 1e-3);
                if (!(from_tree == from_reference) || !(from_queues == from_reference))
                    throw std::runtime_error(fmt::format("the schedulers disagree at P={} N={} ({})", p, n, pattern));
                rounds += from_tree.rounds;
                operations += double(ops.inserts + ops.erases) / (double(p) * double(n) * double(n));
            }
            std::string paper_linear = "-", paper_pairing = "-";
            for (const auto& row : kPaper)
                if (row.ranks == p && n == p && pattern[0] != 'b') {
                    const bool uniform = pattern[0] == 'u';
                    paper_linear = fmt::format("{:.2f}", uniform ? row.uniform_linear : row.skewed_linear);
                    paper_pairing = fmt::format("{:.2f}", uniform ? row.uniform_pairing : row.skewed_pairing);
                }
            fmt::print("{:>6} {:>6} {:<9} {:>13.4f} {:>13.4f} {:>13.4f} {:>8.2f} {:>7} {:>8.2f} {:>7} {:>9.3f} {:>8}\n", p,
                       n, pattern, reference / options.runs * 1e3, tree / options.runs * 1e3,
                       queues / options.runs * 1e3, reference / tree, paper_linear, queues / tree, paper_pairing,
                       operations / options.runs, rounds / options.runs);
        }
    }
    return 0;
}

}  // namespace

int run_reduce(const ReduceOptions& options, const Common& common) {
    return options.bench_ranks.empty() ? simulate(options, common) : scheduler_bench(options, common);
}

}  // namespace papshim::sim_tool
