// --suite allgather: Allgather(v) algorithms under a process arrival pattern, after the
// mini-benchmarks of [AG] and [CLV] (spec/allgather-bdr-bslb-and-clairvoyant.md §5): aligned
// start, per-rank delay, then the call timed on the job-global clock on every rank
// (measure.hpp).
#include <cstddef>
#include <string>
#include <vector>

#include "measure.hpp"

namespace papshim::bench {
namespace {

Json size_json(std::size_t bytes, const std::vector<int>& counts, const std::vector<Cell>& row,
               const AlgorithmSet& algorithms) {
    Json algorithms_json = Json::array();
    for (std::size_t index = 0; index < row.size(); ++index) {
        const Cell& cell = row[index];
        Json entry = cell_json(algorithms[index].name, cell, row[algorithms.baseline()]);
        entry["osu_min_latency_s"] = minimum(cell.rank_mean_elapsed);
        entry["osu_avg_latency_s"] = mean(cell.rank_mean_elapsed);
        entry["osu_max_latency_s"] = maximum(cell.rank_mean_elapsed);
        entry["rank_mean_elapsed_s"] = cell.rank_mean_elapsed;
        algorithms_json.push_back(std::move(entry));
    }
    return {{"bytes_per_rank", bytes}, {"counts", counts}, {"algorithms", std::move(algorithms_json)}};
}

}  // namespace

Json run_allgather_suite(const Options& options, const World& world) {
    const char* collective = collective_name(options.collective);
    if (options.pattern.kind == ArrivalPattern::Kind::one_late &&
        options.pattern.late_rank >= world.ranks)
        throw UsageError(fmt::format("--pattern {}: rank {} does not exist with {} ranks",
                                     options.pattern.text, options.pattern.late_rank, world.ranks));
    switch_mode("dispatch");
    const AlgorithmSet algorithms(options.algorithms, options.collective);
    const std::size_t count = algorithms.size();
    const std::size_t baseline = algorithms.baseline();
    const int calls = options.iterations;

    std::vector<std::vector<Cell>> cells;    // [size][algorithm], rank 0 only
    std::vector<std::vector<int>> counts;  // [size][rank]: block bytes
    Progress progress(world.rank == 0);
    for (std::size_t size_index = 0; size_index < options.bytes.size(); ++size_index) {
        const std::size_t bytes = options.bytes[size_index];
        CollectiveCall call(options.collective, bytes, options.root, options.blocks, world, size_index);
        call.check(algorithms);
        Timing timing{options.warmup, calls, {}, {}, {}};
        timing.delay = [&](int iteration) {
            return arrival_delay(options.pattern, options.seed,
                                 (size_index << 32) | static_cast<std::size_t>(iteration),
                                 world.rank, world.ranks) +
                   hiccup_delay(options.hiccups, options.seed, size_index, iteration, world.rank, world.ranks);
        };
        timing.after_iteration = [&](int iteration) {
            progress.update("{} {} per rank ({}/{}): iteration {}/{}", collective,
                            format_bytes(bytes), size_index + 1, options.bytes.size(),
                            iteration + 1, calls);
        };
        cells.push_back(measure(call, algorithms, timing, world));
        counts.push_back(call.counts());
    }
    if (world.rank != 0) return {};

    const bool balanced = options.pattern.kind == ArrivalPattern::Kind::none;
    const std::string& baseline_name = algorithms.baseline_name();
    fmt::print(
        "\npapshim-bench allgather suite: {}, p = {}, pattern {}, {} iterations "
        "(+{} warm-up) per size, seed {}\n",
        collective_title(options), world.ranks, options.pattern.text, calls, options.warmup, options.seed);
    fmt::print(
        "e: average elapsed time mean_i(f_i - a_i); r: run time max f - min a; w: arrival "
        "spread max a - min a; means (and the median of e) over calls; ratios of means to {}{}\n\n",
        baseline_name,
        balanced ? "; lat min/max: OSU-style min and max over ranks of the per-rank mean" : "");
    std::string header =
        fmt::format("{:<10} {:<19} {:>10} {:>7} {:>10} {:>10} {:>7} {:>10}", "bytes/rank",
                    "algorithm", "mean e", "e/" + std::string(baseline_name.substr(0, 6)),
                    "median e", "mean r", "r/" + std::string(baseline_name.substr(0, 6)), "mean w");
    if (balanced) header += fmt::format(" {:>10} {:>10}", "lat min", "lat max");
    fmt::print("{}\n", header);
    for (std::size_t size_index = 0; size_index < cells.size(); ++size_index) {
        const double base_e = mean(cells[size_index][baseline].elapsed);
        const double base_r = mean(cells[size_index][baseline].run_time);
        for (std::size_t index = 0; index < count; ++index) {
            const Cell& cell = cells[size_index][index];
            std::string line = fmt::format(
                "{:<10} {:<19} {:>10} {:>7.3f} {:>10} {:>10} {:>7.3f} {:>10}",
                index == 0 ? format_bytes(options.bytes[size_index]) : "", algorithms[index].name,
                format_seconds(mean(cell.elapsed)), mean(cell.elapsed) / base_e,
                format_seconds(median(cell.elapsed)), format_seconds(mean(cell.run_time)),
                mean(cell.run_time) / base_r, format_seconds(mean(cell.imbalance)));
            if (balanced)
                line +=
                    fmt::format(" {:>10} {:>10}", format_seconds(minimum(cell.rank_mean_elapsed)),
                                format_seconds(maximum(cell.rank_mean_elapsed)));
            fmt::print("{}\n", line);
        }
    }

    Json sizes = Json::array();
    for (std::size_t size_index = 0; size_index < cells.size(); ++size_index)
        sizes.push_back(size_json(options.bytes[size_index], counts[size_index],
                                  cells[size_index], algorithms));
    return {{"suite", "allgather"},
            {"collective", collective},
            {"pattern", options.pattern.text},
            {"iterations", calls},
            {"warmup", options.warmup},
            {"seed", options.seed},
            {"baseline", baseline_name},
            {"sizes", std::move(sizes)}};
}

}  // namespace papshim::bench
