// --suite allgather: Allgather(v) algorithms under a process arrival pattern, after the
// mini-benchmarks of [AG] and [CLV] (spec/allgather-bdr-bslb-and-clairvoyant.md §5): aligned
// start, per-rank delay, then the call timed on the job-global clock on every rank.
#include <papshim/control.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "common.hpp"

namespace papshim::bench {
namespace {

struct Algorithm {
    std::string name;
    bool native = false;  // PMPI_* directly instead of MPI_* through papshim
    MPI_Comm comm = MPI_COMM_NULL;
};

// Block sizes of one message size. Allgatherv gets linearly decreasing blocks (Träff's
// distribution, the last rank's block is empty) with the same total as Allgather.
struct Layout {
    std::vector<int> counts;
    std::vector<int> displs;
    std::size_t total = 0;
};

Layout make_layout(Collective collective, std::size_t bytes, int ranks) {
    if (bytes * static_cast<std::size_t>(ranks) * 2 > static_cast<std::size_t>(INT_MAX))
        throw UsageError(
            fmt::format("--bytes {} is too large for {} ranks (counts are int)", bytes, ranks));
    Layout layout;
    layout.counts.assign(static_cast<std::size_t>(ranks), static_cast<int>(bytes));
    if (collective == Collective::allgatherv && ranks > 1) {
        std::size_t assigned = 0;
        for (int rank = 0; rank < ranks; ++rank) {
            const std::size_t block = 2 * bytes * static_cast<std::size_t>(ranks - 1 - rank) /
                                      static_cast<std::size_t>(ranks - 1);
            layout.counts[static_cast<std::size_t>(rank)] = static_cast<int>(block);
            assigned += block;
        }
        layout.counts[0] += static_cast<int>(bytes * static_cast<std::size_t>(ranks) - assigned);
    }
    int offset = 0;
    for (const int count : layout.counts) {
        layout.displs.push_back(offset);
        offset += count;
    }
    layout.total = static_cast<std::size_t>(offset);
    return layout;
}

class Buffers {
public:
    Buffers(const Layout& layout, int rank, std::size_t size_index)
        : layout_(layout),
          send_(std::max<std::size_t>(
              1, static_cast<std::size_t>(layout.counts[static_cast<std::size_t>(rank)]))),
          recv_(std::max<std::size_t>(1, layout.total)),
          rank_(rank) {
        // Content depends on rank, position and size, so a misplaced block cannot pass.
        for (std::size_t j = 0; j < send_.size(); ++j)
            send_[j] = static_cast<unsigned char>(rank * 131 + j * 7 + size_index * 29 + 13);
    }

    int call(Collective collective, const Algorithm& algorithm) {
        const int mine = layout_.counts[static_cast<std::size_t>(rank_)];
        if (collective == Collective::allgather) {
            const int count = layout_.counts[0];
            return algorithm.native ? PMPI_Allgather(send_.data(), count, MPI_BYTE, recv_.data(),
                                                     count, MPI_BYTE, algorithm.comm)
                                    : MPI_Allgather(send_.data(), count, MPI_BYTE, recv_.data(),
                                                    count, MPI_BYTE, algorithm.comm);
        }
        return algorithm.native ? PMPI_Allgatherv(send_.data(), mine, MPI_BYTE, recv_.data(),
                                                  layout_.counts.data(), layout_.displs.data(),
                                                  MPI_BYTE, algorithm.comm)
                                : MPI_Allgatherv(send_.data(), mine, MPI_BYTE, recv_.data(),
                                                 layout_.counts.data(), layout_.displs.data(),
                                                 MPI_BYTE, algorithm.comm);
    }

    std::vector<unsigned char>& received() { return recv_; }

private:
    const Layout& layout_;
    std::vector<unsigned char> send_;
    std::vector<unsigned char> recv_;
    int rank_;
};

// One algorithm at one size: per-call arrays gathered on rank 0 plus what derives from them.
struct Cell {
    std::vector<double> elapsed;            // per call: mean_i (f_i - a_i)
    std::vector<double> run_time;           // per call: max f - min a
    std::vector<double> imbalance;          // per call: max a - min a (the ω the pattern produced)
    std::vector<double> rank_mean_elapsed;  // per rank: mean over calls of f_i - a_i (OSU)
};

Cell summarise(const std::vector<double>& arrivals, const std::vector<double>& exits, int ranks,
               int calls) {
    Cell cell;
    cell.rank_mean_elapsed.assign(static_cast<std::size_t>(ranks), 0.0);
    for (int call = 0; call < calls; ++call) {
        double elapsed = 0;
        double first_arrival = std::numeric_limits<double>::infinity();
        double last_arrival = -first_arrival;
        double last_exit = -first_arrival;
        for (int rank = 0; rank < ranks; ++rank) {
            const std::size_t at =
                static_cast<std::size_t>(rank) * static_cast<std::size_t>(calls) +
                static_cast<std::size_t>(call);
            const double own = exits[at] - arrivals[at];
            elapsed += own;
            cell.rank_mean_elapsed[static_cast<std::size_t>(rank)] += own / calls;
            first_arrival = std::min(first_arrival, arrivals[at]);
            last_arrival = std::max(last_arrival, arrivals[at]);
            last_exit = std::max(last_exit, exits[at]);
        }
        cell.elapsed.push_back(elapsed / ranks);
        cell.run_time.push_back(last_exit - first_arrival);
        cell.imbalance.push_back(last_arrival - first_arrival);
    }
    return cell;
}

std::vector<Algorithm> open_algorithms(const Options& options, const char* collective) {
    std::vector<Algorithm> algorithms;
    for (const std::string& name : options.algorithms) {
        Algorithm algorithm{name, name == "native", MPI_COMM_NULL};
        // Each algorithm gets its own communicator, so the selection is made once and the
        // shim's per-communicator state (history, plans) is the algorithm's alone.
        PMPI_Comm_dup(MPI_COMM_WORLD, &algorithm.comm);
        if (!algorithm.native) {
            PMPI_Comm_set_errhandler(algorithm.comm, MPI_ERRORS_RETURN);
            const int status = papshim_set_algorithm(algorithm.comm, collective, name.c_str());
            PMPI_Comm_set_errhandler(algorithm.comm, MPI_ERRORS_ARE_FATAL);
            if (status != MPI_SUCCESS)
                throw UsageError(fmt::format(
                    "--algorithms: papshim does not accept '{}' for {} (papshim-info lists the "
                    "names)",
                    name, collective));
        }
        algorithms.push_back(std::move(algorithm));
    }
    return algorithms;
}

Json size_json(const Options& options, const World& world, const std::vector<Cell>& row,
               const std::vector<Algorithm>& algorithms, std::size_t baseline,
               std::size_t size_index) {
    const std::size_t bytes = options.bytes[size_index];
    const double base_e = mean(row[baseline].elapsed);
    const double base_r = mean(row[baseline].run_time);
    Json algorithms_json = Json::array();
    for (std::size_t index = 0; index < row.size(); ++index) {
        const Cell& cell = row[index];
        algorithms_json.push_back({
            {"name", algorithms[index].name},
            {"mean_elapsed_s", mean(cell.elapsed)},
            {"median_elapsed_s", median(cell.elapsed)},
            {"mean_run_time_s", mean(cell.run_time)},
            {"median_run_time_s", median(cell.run_time)},
            {"elapsed_ratio", mean(cell.elapsed) / base_e},
            {"run_time_ratio", mean(cell.run_time) / base_r},
            {"mean_imbalance_s", mean(cell.imbalance)},
            {"osu_min_latency_s", minimum(cell.rank_mean_elapsed)},
            {"osu_avg_latency_s", mean(cell.rank_mean_elapsed)},
            {"osu_max_latency_s", maximum(cell.rank_mean_elapsed)},
            {"elapsed_s", cell.elapsed},
            {"run_time_s", cell.run_time},
            {"imbalance_s", cell.imbalance},
            {"rank_mean_elapsed_s", cell.rank_mean_elapsed},
        });
    }
    return {{"bytes_per_rank", bytes},
            {"counts", make_layout(options.collective, bytes, world.ranks).counts},
            {"algorithms", std::move(algorithms_json)}};
}

}  // namespace

Json run_allgather_suite(const Options& options, const World& world) {
    const char* collective = collective_name(options.collective);
    if (options.pattern.kind == ArrivalPattern::Kind::one_late &&
        options.pattern.late_rank >= world.ranks)
        throw UsageError(fmt::format("--pattern {}: rank {} does not exist with {} ranks",
                                     options.pattern.text, options.pattern.late_rank, world.ranks));
    switch_mode("dispatch");
    std::vector<Algorithm> algorithms = open_algorithms(options, collective);
    const std::size_t count = algorithms.size();
    const std::size_t baseline =
        static_cast<std::size_t>(std::ranges::find(options.algorithms, "native") -
                                 options.algorithms.begin()) %
        count;
    const int calls = options.iterations;

    std::vector<std::vector<Cell>> cells;  // [size][algorithm], rank 0 only
    Progress progress(world.rank == 0);
    for (std::size_t size_index = 0; size_index < options.bytes.size(); ++size_index) {
        const std::size_t bytes = options.bytes[size_index];
        const Layout layout = make_layout(options.collective, bytes, world.ranks);
        Buffers buffers(layout, world.rank, size_index);

        const Algorithm reference_call{"native", true, MPI_COMM_WORLD};
        buffers.call(options.collective, reference_call);
        const std::vector<unsigned char> reference = buffers.received();
        for (const Algorithm& algorithm : algorithms) {
            std::ranges::fill(buffers.received(), static_cast<unsigned char>(0xA5));
            const int status = buffers.call(options.collective, algorithm);
            const auto mismatch = std::ranges::mismatch(buffers.received(), reference);
            const bool same = status == MPI_SUCCESS && mismatch.in1 == buffers.received().end();
            abort_unless_everywhere(
                same, fmt::format("{} algorithm '{}' at {} bytes per rank: {}", collective,
                                  algorithm.name, bytes,
                                  status != MPI_SUCCESS
                                      ? fmt::format("returned error {}", status)
                                      : fmt::format("result differs from native at byte {}",
                                                    mismatch.in1 - buffers.received().begin())));
        }

        for (int iteration = 0; iteration < options.warmup; ++iteration) {
            for (std::size_t slot = 0; slot < count; ++slot) {
                PMPI_Barrier(MPI_COMM_WORLD);
                buffers.call(options.collective,
                             algorithms[(slot + static_cast<std::size_t>(iteration)) % count]);
            }
        }

        std::vector<std::vector<double>> arrivals(
            count, std::vector<double>(static_cast<std::size_t>(calls)));
        std::vector<std::vector<double>> exits = arrivals;
        for (int iteration = 0; iteration < calls; ++iteration) {
            const double delay = arrival_delay(
                options.pattern, options.seed,
                (size_index << 32) | static_cast<std::size_t>(iteration), world.rank, world.ranks);
            for (std::size_t slot = 0; slot < count; ++slot) {
                const std::size_t index = (slot + static_cast<std::size_t>(iteration)) % count;
                // Two barriers, as in IMB and [AG]: the second starts everyone closer together.
                PMPI_Barrier(MPI_COMM_WORLD);
                PMPI_Barrier(MPI_COMM_WORLD);
                wait_for(delay);
                arrivals[index][static_cast<std::size_t>(iteration)] = papshim_wtime();
                buffers.call(options.collective, algorithms[index]);
                exits[index][static_cast<std::size_t>(iteration)] = papshim_wtime();
            }
            progress.update("{} {} per rank ({}/{}): iteration {}/{}", collective,
                            format_bytes(bytes), size_index + 1, options.bytes.size(),
                            iteration + 1, calls);
        }

        std::vector<Cell> row;
        std::vector<double> all_arrivals(world.rank == 0 ? static_cast<std::size_t>(calls) *
                                                               static_cast<std::size_t>(world.ranks)
                                                         : 0);
        std::vector<double> all_exits(all_arrivals.size());
        for (std::size_t index = 0; index < count; ++index) {
            PMPI_Gather(arrivals[index].data(), calls, MPI_DOUBLE, all_arrivals.data(), calls,
                        MPI_DOUBLE, 0, MPI_COMM_WORLD);
            PMPI_Gather(exits[index].data(), calls, MPI_DOUBLE, all_exits.data(), calls, MPI_DOUBLE,
                        0, MPI_COMM_WORLD);
            if (world.rank == 0)
                row.push_back(summarise(all_arrivals, all_exits, world.ranks, calls));
        }
        cells.push_back(std::move(row));
    }
    for (Algorithm& algorithm : algorithms) PMPI_Comm_free(&algorithm.comm);
    if (world.rank != 0) return {};

    const bool balanced = options.pattern.kind == ArrivalPattern::Kind::none;
    const std::string& baseline_name = options.algorithms[baseline];
    fmt::print(
        "\npapshim-bench allgather suite: MPI_{}, p = {}, pattern {}, {} iterations "
        "(+{} warm-up) per size, seed {}\n",
        collective == std::string("allgather") ? "Allgather" : "Allgatherv", world.ranks,
        options.pattern.text, calls, options.warmup, options.seed);
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
        sizes.push_back(
            size_json(options, world, cells[size_index], algorithms, baseline, size_index));
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
