// --suite sweep: the seeds' imbalance sweep ([AG] in spec/allgather-bdr-bslb-and-clairvoyant.md
// §5.1, [T] in spec/pap-aware-allreduce-and-reduce.md §9.3). Per size: tau, the one-way time
// of one message of the collective, measured in this run; then every algorithm under each
// pattern kind at each maximum delay (so that w/tau spans about 0 to 50), timed as the
// allgather suite times it (measure.hpp), with the wait no algorithm can avoid alongside.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "measure.hpp"

namespace papshim::bench {
namespace {

// tau, the time to deliver one `bytes`-byte message between ranks 0 and P-1 over PMPI on a
// private communicator: the longer of half the shortest ping-pong round trip and the time
// per message of a back-to-back stream (the shortest of ten). A shaped link (tbf) passes
// an isolated message at burst speed, but not the stream of them a collective sends; on an
// unshaped link the two agree. Every rank gets rank 0's values.
struct Tau {
    double ping_pong = 0;
    double stream = 0;
    double value() const { return std::max(ping_pong, stream); }
};

Tau measure_tau(std::size_t bytes, const World& world) {
    MPI_Comm comm = MPI_COMM_NULL;
    PMPI_Comm_dup(MPI_COMM_WORLD, &comm);
    const int peer = world.ranks - 1;
    const int other = world.rank == 0 ? peer : 0;
    std::vector<unsigned char> buffer(std::max<std::size_t>(1, bytes));
    const int count = static_cast<int>(bytes);
    const auto send = [&](int n) { PMPI_Send(buffer.data(), n, MPI_BYTE, other, 0, comm); };
    const auto receive = [&](int n) {
        PMPI_Recv(buffer.data(), n, MPI_BYTE, other, 0, comm, MPI_STATUS_IGNORE);
    };
    // A stream long enough to drain a shaper's burst allowance, short enough to stay cheap.
    const int streamed = static_cast<int>(
        std::clamp<std::size_t>((std::size_t{4} << 20) / std::max<std::size_t>(1, bytes), 4, 64));
    double times[2] = {std::numeric_limits<double>::infinity(),
                       std::numeric_limits<double>::infinity()};
    if (world.rank == 0 || world.rank == peer) {
        constexpr int warmup = 3;
        for (int round = 0; round < warmup + 20; ++round) {
            const double start = PMPI_Wtime();
            if (world.rank == 0) {
                send(count);
                receive(count);
            } else {
                receive(count);
                send(count);
            }
            if (round >= warmup) times[0] = std::min(times[0], (PMPI_Wtime() - start) / 2);
        }
        for (int round = 0; round < 10; ++round) {
            const double start = PMPI_Wtime();
            // Rank 0 streams, then waits for the peer's empty reply: the stream has arrived.
            for (int message = 0; message < streamed; ++message) {
                if (world.rank == 0)
                    send(count);
                else
                    receive(count);
            }
            if (world.rank == 0)
                receive(0);
            else
                send(0);
            times[1] = std::min(times[1], (PMPI_Wtime() - start) / streamed);
        }
    }
    // Polled with naps: ranks waiting here must not take the cores the pair is timed on.
    MPI_Request request = MPI_REQUEST_NULL;
    PMPI_Ibcast(times, 2, MPI_DOUBLE, 0, comm, &request);
    for (int done = 0; PMPI_Test(&request, &done, MPI_STATUS_IGNORE), !done;)
        std::this_thread::sleep_for(std::chrono::microseconds(100));
    PMPI_Comm_free(&comm);
    return {times[0], times[1]};
}

// One (pattern, maximum delay) of one size, and every algorithm's calls under it.
struct Point {
    const SweepPattern* kind;
    const SweepDelay* delay;
    ArrivalPattern pattern;  // with the delay in seconds
    double max_delay = 0;    // seconds
    std::vector<Cell> cells;  // per algorithm, rank 0 only
};

struct Size {
    std::size_t bytes = 0;
    Tau measured;
    double tau = 0;  // measured.value()
    std::vector<int> counts;
    std::vector<Point> points;
};

std::vector<double> excess(const Cell& cell) {
    std::vector<double> values(cell.elapsed.size());
    for (std::size_t call = 0; call < values.size(); ++call)
        values[call] = cell.elapsed[call] - cell.unavoidable_wait[call];
    return values;
}

// The point's place on the w/tau axis: the median arrival spread over every algorithm's
// calls. A median, because on an oversubscribed machine a few calls whose rank woke late
// from its delay inflate the mean spread far beyond what the pattern did to the rest.
double point_imbalance(const Point& point) {
    std::vector<double> all;
    for (const Cell& cell : point.cells)
        all.insert(all.end(), cell.imbalance.begin(), cell.imbalance.end());
    return median(std::move(all));
}

Json point_json(const Point& point, double tau, const AlgorithmSet& algorithms) {
    const Cell& base = point.cells[algorithms.baseline()];
    Json algorithms_json = Json::array();
    for (std::size_t index = 0; index < point.cells.size(); ++index) {
        const Cell& cell = point.cells[index];
        Json entry = cell_json(algorithms[index].name, cell, base);
        entry["mean_unavoidable_wait_s"] = mean(cell.unavoidable_wait);
        entry["mean_excess_s"] = mean(excess(cell));
        entry["excess_ratio"] = mean(excess(cell)) / mean(excess(base));
        entry["imbalance_factor"] = mean(cell.imbalance) / tau;
        entry["unavoidable_wait_s"] = cell.unavoidable_wait;
        algorithms_json.push_back(std::move(entry));
    }
    const double imbalance = point_imbalance(point);
    return {{"pattern", point.kind->name},
            {"max_delay", point.delay->text},
            {"max_delay_s", point.max_delay},
            {"parameter", point.pattern.text},
            {"median_imbalance_s", imbalance},
            {"median_imbalance_factor", imbalance / tau},
            {"algorithms", std::move(algorithms_json)}};
}

// Allgather(v) sizes are per rank, Reduce and Allreduce sizes the whole vector.
bool per_rank(Collective collective) {
    return collective == Collective::allgather || collective == Collective::allgatherv;
}

void print_table(const Options& options, const World& world, const std::vector<Size>& sizes,
                 const AlgorithmSet& algorithms) {
    const bool by_rank = per_rank(options.collective);
    fmt::print(
        "\npapshim-bench sweep suite: {}, p = {}, {} iterations (+{} warm-up) per point, "
        "seed {}\n",
        collective_title(options), world.ranks, options.iterations, options.warmup, options.seed);
    const std::string base = algorithms.baseline_name().substr(0, 6);
    fmt::print(
        "tau: time to deliver one {} between ranks 0 and {} (the longer of ping-pong and "
        "stream); D: maximum delay; e: mean_i (f_i - a_i); r: max f - min a; LB: mean_i (max a - a_i), the wait no algorithm avoids; "
        "excess: e - LB; w: max a - min a; means over calls; ratios of means to {} in the same "
        "run\n",
        by_rank ? "rank's block" : "vector", world.ranks - 1, algorithms.baseline_name());
    for (const Size& size : sizes) {
        fmt::print("\n{} {}, tau = {} (ping-pong {}, stream {} per message)\n",
                   format_bytes(size.bytes), by_rank ? "per rank" : "vector",
                   format_seconds(size.tau), format_seconds(size.measured.ping_pong),
                   format_seconds(size.measured.stream));
        fmt::print("{:<12} {:>8} {:<19} {:>10} {:>7} {:>10} {:>7} {:>10} {:>10} {:>7} {:>10} {:>6}\n",
                   "pattern", "D", "algorithm", "mean e", "e/" + base, "mean r", "r/" + base,
                   "LB", "excess", "x/" + base, "mean w", "w/tau");
        const SweepPattern* previous = nullptr;
        for (const Point& point : size.points) {
            const Cell& baseline = point.cells[algorithms.baseline()];
            for (std::size_t index = 0; index < point.cells.size(); ++index) {
                const Cell& cell = point.cells[index];
                const double cell_excess = mean(excess(cell));
                fmt::print(
                    "{:<12} {:>8} {:<19} {:>10} {:>7.3f} {:>10} {:>7.3f} {:>10} {:>10} {:>7.3f} "
                    "{:>10} {:>6.1f}\n",
                    index == 0 && point.kind != previous ? point.kind->name : "",
                    index == 0 ? point.delay->text : "", algorithms[index].name,
                    format_seconds(mean(cell.elapsed)),
                    mean(cell.elapsed) / mean(baseline.elapsed), format_seconds(mean(cell.run_time)),
                    mean(cell.run_time) / mean(baseline.run_time),
                    format_seconds(mean(cell.unavoidable_wait)), format_seconds(cell_excess),
                    cell_excess / mean(excess(baseline)), format_seconds(mean(cell.imbalance)),
                    mean(cell.imbalance) / size.tau);
            }
            // How many measured calls ran a plan: a PAP-aware algorithm without one runs its
            // balanced form, so its row says little about the pattern.
            std::string plans;
            for (std::size_t index = 0; index < point.cells.size(); ++index) {
                const Cell& cell = point.cells[index];
                if (cell.uses_plans())
                    plans += fmt::format("{}{} {}/{}", plans.empty() ? "" : ", ", algorithms[index].name,
                                         cell.planned, cell.planned + cell.unplanned);
                if (cell.declined > 0) plans += fmt::format(" ({} declined)", cell.declined);
            }
            if (!plans.empty()) fmt::print("{:<12} {:>8} calls that ran a plan: {}\n", "", "", plans);
            // What `auto` (or a named algorithm papshim forwarded) ran, where that was not the
            // algorithm named.
            std::string ran;
            for (std::size_t index = 0; index < point.cells.size(); ++index) {
                const Cell& cell = point.cells[index];
                if (!cell.ran_other_than(algorithms[index].name)) continue;
                ran += fmt::format("{}{}:", ran.empty() ? "" : "; ", algorithms[index].name);
                for (const auto& [name, calls] : cell.ran) ran += fmt::format(" {} {}", name, calls);
            }
            if (!ran.empty()) fmt::print("{:<12} {:>8} what ran: {}\n", "", "", ran);
            // Calls whose arrivals left the pattern because a rank woke late: the pattern is
            // what a plan was made from, so these say more about the machine than the algorithm.
            std::string late;
            for (std::size_t index = 0; index < point.cells.size(); ++index) {
                const std::vector<double>& starts = point.cells[index].late_start;
                const auto count = std::ranges::count_if(starts, [&](double s) { return s > size.tau; });
                if (count > 0)
                    late += fmt::format("{}{} {} (up to {})", late.empty() ? "" : ", ", algorithms[index].name,
                                        count, format_seconds(std::ranges::max(starts)));
            }
            if (!late.empty())
                fmt::print("{:<12} {:>8} calls with a rank more than tau late to start (woke late): {}\n", "",
                           "", late);
            previous = point.kind;
        }
    }
}

}  // namespace

Json run_sweep_suite(const Options& options, const World& world) {
    if (world.ranks < 2)
        throw UsageError("--suite sweep needs at least 2 ranks (there is no imbalance with one)");
    if (options.collective == Collective::reduce && options.root >= world.ranks)
        throw UsageError(fmt::format("--root {}: rank {} does not exist with {} ranks",
                                     options.root, options.root, world.ranks));
    for (const SweepPattern& kind : options.sweep_patterns)
        if (kind.late_rank >= world.ranks)
            throw UsageError(fmt::format("--patterns {}: rank {} does not exist with {} ranks",
                                         kind.name, kind.late_rank, world.ranks));
    switch_mode("dispatch");
    const AlgorithmSet algorithms(options.algorithms, options.collective);
    const std::size_t points_per_size = options.sweep_patterns.size() * options.delays.size();
    const std::size_t total_points = points_per_size * options.bytes.size();

    std::vector<Size> sizes;
    Progress progress(world.rank == 0);
    for (std::size_t size_index = 0; size_index < options.bytes.size(); ++size_index) {
        Size size;
        size.bytes = options.bytes[size_index];
        CollectiveCall call(options.collective, size.bytes, options.root, options.blocks, world,
                            size_index, options.op);
        call.check(algorithms);
        size.counts = call.counts();
        size.measured = measure_tau(size.bytes, world);
        size.tau = size.measured.value();
        for (const SweepPattern& kind : options.sweep_patterns) {
            for (const SweepDelay& delay : options.delays) {
                Point point{&kind, &delay, {}, delay.in_tau ? delay.value * size.tau : delay.value,
                            {}};
                point.pattern = sweep_point(kind, point.max_delay, world.ranks);
                const std::size_t point_index = size.points.size();
                const std::size_t done = size_index * points_per_size + point_index;
                Timing timing{options.warmup, options.iterations, {}, {}, {}};
                // Distinct draws for every size, point and (warm-up or measured) iteration;
                // the same for every algorithm of one iteration.
                const auto draw = [&](bool warmup, int iteration) {
                    const std::uint64_t call_id = (std::uint64_t{size_index} << 48) |
                                                  (std::uint64_t{point_index} << 24) |
                                                  (std::uint64_t{warmup} << 23) |
                                                  static_cast<std::uint64_t>(iteration);
                    return arrival_delay(point.pattern, options.seed, call_id, world.rank,
                                         world.ranks);
                };
                // --hiccups on the measured calls only: the warm-up shows the predictor the pattern.
                timing.delay = [&](int iteration) {
                    return draw(false, iteration) +
                           hiccup_delay(options.hiccups, options.seed, (std::uint64_t{size_index} << 24) | point_index,
                                        iteration, world.rank, world.ranks);
                };
                timing.warmup_delay = [&](int iteration) { return draw(true, iteration); };
                timing.after_iteration = [&](int iteration) {
                    progress.update("sweep {} {} ({}/{}): {} at D = {} ({}/{}), {:.0f}% done",
                                    collective_name(options.collective), format_bytes(size.bytes),
                                    size_index + 1, options.bytes.size(), kind.name, delay.text,
                                    point_index + 1, points_per_size,
                                    100.0 * (static_cast<double>(done) +
                                             (iteration + 1.0) / options.iterations) /
                                        static_cast<double>(total_points));
                };
                point.cells = measure(call, algorithms, timing, world);
                size.points.push_back(std::move(point));
            }
        }
        sizes.push_back(std::move(size));
    }
    if (world.rank != 0) return {};

    print_table(options, world, sizes, algorithms);
    Json sizes_json = Json::array();
    for (const Size& size : sizes) {
        Json points = Json::array();
        for (const Point& point : size.points) points.push_back(point_json(point, size.tau, algorithms));
        Json entry = {{"bytes", size.bytes},
                      {"tau_s", size.tau},
                      {"tau_ping_pong_s", size.measured.ping_pong},
                      {"tau_stream_s", size.measured.stream}};
        if (!size.counts.empty()) entry["counts"] = size.counts;
        entry["points"] = std::move(points);
        sizes_json.push_back(std::move(entry));
    }
    // The patterns and delays asked for are in the metadata's options.
    Json results = {{"suite", "sweep"}, {"collective", collective_name(options.collective)}};
    if (options.collective == Collective::reduce) results["root"] = root_json(options.root);
    if (options.collective == Collective::reduce || options.collective == Collective::allreduce)
        results["op"] = op_name(options.op);
    results["bytes_are"] = per_rank(options.collective) ? "per rank" : "the whole vector";
    results["iterations"] = options.iterations;
    results["warmup"] = options.warmup;
    results["seed"] = options.seed;
    results["baseline"] = algorithms.baseline_name();
    results["sizes"] = std::move(sizes_json);
    return results;
}

}  // namespace papshim::bench
