// --suite overhead: what the shim costs on calls it does not change. Each variant runs the
// same back-to-back loop; rounds interleave the variants so drift and noise hit all alike,
// and each variant is compared with native inside the same round. First comes a short run
// from a fresh state (a program with fewer calls than the trace buffer holds), then the
// long steady state.
#include <papshim/control.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <string_view>
#include <vector>

#include "common.hpp"

namespace papshim::bench {
namespace {

struct Variant {
    const char* name;
    const char* mode;       // shim mode while the variant runs
    bool through_shim;      // MPI_* (through papshim) or PMPI_* (the native call)
    const char* algorithm;  // chosen on MPI_COMM_WORLD for both collectives (dispatch mode)
};

// Native runs with the shim switched off, so no background work of the shim competes with it.
// dispatch+native measures the dispatch path alone; dispatch+auto what `auto` costs on
// balanced arrivals (at these sizes it should choose native and skip the handler).
constexpr Variant variants[] = {
    {"native", "off", false, "native"},
    {"off", "off", true, "native"},
    {"profile", "profile", true, "native"},
    {"dispatch+native", "dispatch", true, "native"},
    {"dispatch+auto", "dispatch", true, "auto"},
};
constexpr std::size_t variant_count = std::size(variants);

// The variant's mode, and its algorithm on MPI_COMM_WORLD (collective: every rank switches
// at the same point, outside the timed loops). Every variant makes the same calls, even where
// its algorithm is the last one's: at p = 2 on Open MPI a back-to-back 8-byte Allreduce
// settles in one of two steady states (about 530 and 600 ns a call), and which one followed
// the parity of the papshim_set_algorithm calls made before the loop; switching only into and
// out of `auto` gave its variant a state of its own (docs/benchmarks.md, "The forwarded call's
// cost").
void switch_to(const Variant& variant) {
    for (const char* collective : {"allreduce", "reduce", "allgather"})
        if (papshim_set_algorithm(MPI_COMM_WORLD, collective, variant.algorithm) != MPI_SUCCESS)
            throw UsageError(fmt::format("papshim_set_algorithm(\"{}\", \"{}\") failed", collective,
                                         variant.algorithm));
    switch_mode(variant.mode);
}

// The balanced calls issue 7 names (8-byte Allreduce, 1 KiB Allgather), an 8-byte Reduce to
// rank 0 (issue 8's balanced target names Reduce too) and a 64 KiB Allgather.
struct Benchmark {
    const char* collective;
    std::size_t bytes;  // per rank
    const char* label;
    bool allreduce() const { return std::string_view(collective) == "allreduce"; }
    bool reduce() const { return std::string_view(collective) == "reduce"; }
    bool gathers() const { return !allreduce() && !reduce(); }
};
constexpr Benchmark benchmarks[] = {
    {"allreduce", sizeof(double), "MPI_Allreduce 8 B"},
    {"reduce", sizeof(double), "MPI_Reduce 8 B"},
    {"allgather", 1024, "MPI_Allgather 1 KiB"},
    {"allgather", 64 * 1024, "MPI_Allgather 64 KiB"},
};
constexpr std::size_t benchmark_count = std::size(benchmarks);
// The Allgather buffers' size: the largest benchmark's.
constexpr std::size_t largest_allgather = std::ranges::max(benchmarks, {}, &Benchmark::bytes).bytes;

class Loops {
public:
    explicit Loops(const World& world)
        : world_(world),
          gather_send_(largest_allgather, static_cast<unsigned char>(world.rank + 1)),
          gather_recv_(largest_allgather * static_cast<std::size_t>(world.ranks)) {
        for (const Benchmark& benchmark : benchmarks) {
            std::vector<unsigned char> expected;
            if (benchmark.gathers()) {
                expected.resize(benchmark.bytes * static_cast<std::size_t>(world.ranks));
                PMPI_Allgather(gather_send_.data(), static_cast<int>(benchmark.bytes), MPI_BYTE, expected.data(),
                               static_cast<int>(benchmark.bytes), MPI_BYTE, MPI_COMM_WORLD);
            }
            gather_expected_.push_back(std::move(expected));
        }
    }

    // Mean seconds per call on this rank for `calls` calls of benchmarks[which].
    double time(std::size_t which, const Variant& variant, int calls) {
        const int bytes = static_cast<int>(benchmarks[which].bytes);
        if (benchmarks[which].allreduce())
            return variant.through_shim ? time_allreduce<true>(calls) : time_allreduce<false>(calls);
        if (benchmarks[which].reduce())
            return variant.through_shim ? time_reduce<true>(calls) : time_reduce<false>(calls);
        return variant.through_shim ? time_allgather<true>(bytes, calls) : time_allgather<false>(bytes, calls);
    }

    void check(std::size_t which, const Variant& variant) {
        if (!benchmarks[which].gathers()) {
            const double expected = world_.ranks * (world_.ranks + 1) / 2.0;
            const bool holds_result = benchmarks[which].allreduce() || world_.rank == 0;
            abort_unless_everywhere(!holds_result || reduce_result_ == expected,
                                    fmt::format("overhead suite, variant {}: {} gave {}, expected {}", variant.name,
                                                benchmarks[which].label, reduce_result_, expected));
        } else {
            const std::vector<unsigned char>& expected = gather_expected_[which];
            abort_unless_everywhere(std::equal(expected.begin(), expected.end(), gather_recv_.begin()),
                                    fmt::format("overhead suite, variant {}: {} result differs from native",
                                                variant.name, benchmarks[which].label));
        }
    }

private:
    using Clock = std::chrono::steady_clock;

    // Mean seconds per call of `calls` back-to-back calls of `call`.
    template <class Call>
    static double time_calls(int calls, Call&& call) {
        const auto start = Clock::now();
        for (int i = 0; i < calls; ++i) call();
        return std::chrono::duration<double>(Clock::now() - start).count() / calls;
    }

    template <bool through_shim>
    double time_allreduce(int calls) {
        const double value = world_.rank + 1.0;
        return time_calls(calls, [&] {
            if constexpr (through_shim)
                MPI_Allreduce(&value, &reduce_result_, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            else
                PMPI_Allreduce(&value, &reduce_result_, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        });
    }

    template <bool through_shim>
    double time_reduce(int calls) {
        const double value = world_.rank + 1.0;
        return time_calls(calls, [&] {
            if constexpr (through_shim)
                MPI_Reduce(&value, &reduce_result_, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
            else
                PMPI_Reduce(&value, &reduce_result_, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        });
    }

    template <bool through_shim>
    double time_allgather(int bytes, int calls) {
        return time_calls(calls, [&] {
            if constexpr (through_shim)
                MPI_Allgather(gather_send_.data(), bytes, MPI_BYTE, gather_recv_.data(), bytes, MPI_BYTE,
                              MPI_COMM_WORLD);
            else
                PMPI_Allgather(gather_send_.data(), bytes, MPI_BYTE, gather_recv_.data(), bytes, MPI_BYTE,
                               MPI_COMM_WORLD);
        });
    }

    World world_;
    double reduce_result_ = 0.0;
    std::vector<unsigned char> gather_send_;
    std::vector<unsigned char> gather_recv_;
    std::vector<std::vector<unsigned char>> gather_expected_;  // per benchmark (empty for the Allreduce)
};

// The short run: the first `fresh_calls` 8-byte Allreduce calls of each variant in this
// process, in slices with the variant order shuffled per slice. Profile's records are the
// process's first, so its trace buffers are fresh.
constexpr int fresh_calls = 20000;
constexpr int fresh_slice = 1000;
constexpr int native_warmup = 200;  // MPI's own first calls (connection set-up) are not the shim's

struct FreshResult {
    std::vector<double> seconds;                    // per variant: Σ over slices, mean over ranks
    std::vector<std::vector<double>> slice_ratios;  // per variant, per slice: time / native's
};

FreshResult run_fresh(Loops& loops, const World& world) {
    loops.time(0, variants[0], native_warmup);
    FreshResult result{std::vector<double>(variant_count), std::vector<std::vector<double>>(variant_count)};
    for (int slice = 0; slice < fresh_calls / fresh_slice; ++slice) {
        std::vector<double> seconds(variant_count);
        for (const std::size_t index : run_order(variant_count, slice)) {
            switch_to(variants[index]);
            PMPI_Barrier(MPI_COMM_WORLD);
            seconds[index] = loops.time(0, variants[index], fresh_slice) * fresh_slice;
        }
        std::vector<double> summed(variant_count);
        PMPI_Allreduce(seconds.data(), summed.data(), static_cast<int>(variant_count), MPI_DOUBLE, MPI_SUM,
                       MPI_COMM_WORLD);
        for (std::size_t index = 0; index < variant_count; ++index) {
            result.seconds[index] += summed[index] / world.ranks;
            result.slice_ratios[index].push_back(summed[index] / summed[0]);
        }
    }
    for (const Variant& variant : variants) loops.check(0, variant);
    return result;
}

Json report_fresh(const FreshResult& fresh) {
    fmt::print(
        "\nfresh process: the first {} calls of MPI_Allreduce 8 B per variant, {} slices of {} (variant order "
        "shuffled per slice; profile's trace buffers fresh)\n"
        "time/call and ratio: over all {} calls; slice ratio: median (max) over slices of time / native's\n\n",
        fresh_calls, fresh_calls / fresh_slice, fresh_slice, fresh_calls);
    fmt::print("{:<22} {:<16} {:>11} {:>8} {:>17} {:>9} {:>11}\n", "benchmark", "variant", "time/call", "ratio",
               "slice ratio", "overhead", "extra/call");
    Json variants_json = Json::array();
    for (std::size_t index = 0; index < variant_count; ++index) {
        const double per_call = fresh.seconds[index] / fresh_calls;
        const double ratio = fresh.seconds[index] / fresh.seconds[0];
        const auto& slices = fresh.slice_ratios[index];
        fmt::print("{:<22} {:<16} {:>11} {:>8.3f} {:>8.3f} ({:<6.3f}) {:>+8.1f}% {:>11}\n",
                   index == 0 ? "MPI_Allreduce 8 B" : "", variants[index].name, format_seconds(per_call), ratio,
                   median(slices), maximum(slices), (ratio - 1) * 100,
                   format_seconds(per_call - fresh.seconds[0] / fresh_calls));
        variants_json.push_back({{"name", variants[index].name},
                                 {"mode", variants[index].mode},
                                 {"seconds_per_call", per_call},
                                 {"ratio_to_native", ratio},
                                 {"slice_ratios_to_native", slices}});
    }
    return {{"collective", "allreduce"},
            {"bytes_per_rank", sizeof(double)},
            {"calls", fresh_calls},
            {"slice_calls", fresh_slice},
            {"variants", std::move(variants_json)}};
}

struct VariantResult {
    std::vector<double> seconds_per_call;  // per round, mean over ranks
    std::vector<double> ratio_to_native;   // per round
    std::vector<double> extra_seconds;     // per round: time per call minus native's
};

}  // namespace

Json run_overhead_suite(const Options& options, const World& world) {
    Loops loops(world);
    const FreshResult fresh = run_fresh(loops, world);
    for (std::size_t which = 0; which < benchmark_count; ++which) {
        for (const Variant& variant : variants) {
            switch_to(variant);
            // The check reads the last call's result: at least one call, also with --warmup 0.
            loops.time(which, variant, std::max(options.warmup, 1));
            loops.check(which, variant);
        }
    }

    std::vector<std::vector<VariantResult>> results(benchmark_count,
                                                    std::vector<VariantResult>(variant_count));
    Progress progress(world.rank == 0);
    for (int round = 0; round < options.rounds; ++round) {
        for (std::size_t which = 0; which < benchmark_count; ++which) {
            std::vector<double> seconds(variant_count);
            for (const std::size_t index : run_order(variant_count, round)) {
                switch_to(variants[index]);
                PMPI_Barrier(MPI_COMM_WORLD);
                seconds[index] = loops.time(which, variants[index], options.iterations);
            }
            std::vector<double> summed(variant_count);
            PMPI_Allreduce(seconds.data(), summed.data(), static_cast<int>(variant_count),
                           MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            for (std::size_t index = 0; index < variant_count; ++index) {
                VariantResult& result = results[which][index];
                result.seconds_per_call.push_back(summed[index] / world.ranks);
                result.ratio_to_native.push_back(summed[index] / summed[0]);
                result.extra_seconds.push_back((summed[index] - summed[0]) / world.ranks);
            }
        }
        progress.update("overhead suite: round {}/{}", round + 1, options.rounds);
    }
    if (world.rank != 0) return {};

    fmt::print("\npapshim-bench overhead suite: p = {}\n", world.ranks);
    Json fresh_json = report_fresh(fresh);
    fmt::print(
        "\nsteady state: {} rounds x {} calls per variant after {} warm-up calls (variant order shuffled per "
        "round)\n",
        options.rounds, options.iterations, options.warmup);
    fmt::print(
        "time/call: median over rounds of the mean per call; ratio: median (min-max) over "
        "rounds of time / native's time in the same round; extra: median over rounds of time "
        "minus native's\n\n");
    fmt::print("{:<22} {:<16} {:>11} {:>8} {:>17} {:>9} {:>11}\n", "benchmark", "variant",
               "time/call", "ratio", "ratio min-max", "overhead", "extra/call");
    for (std::size_t which = 0; which < benchmark_count; ++which) {
        for (std::size_t index = 0; index < variant_count; ++index) {
            const VariantResult& result = results[which][index];
            const double ratio = median(result.ratio_to_native);
            fmt::print("{:<22} {:<16} {:>11} {:>8.3f} {:>8.3f}-{:<8.3f} {:>+8.1f}% {:>11}\n",
                       index == 0 ? benchmarks[which].label : "", variants[index].name,
                       format_seconds(median(result.seconds_per_call)), ratio,
                       minimum(result.ratio_to_native), maximum(result.ratio_to_native),
                       (ratio - 1) * 100, format_seconds(median(result.extra_seconds)));
        }
    }

    Json benchmarks_json = Json::array();
    for (std::size_t which = 0; which < benchmark_count; ++which) {
        Json variants_json = Json::array();
        for (std::size_t index = 0; index < variant_count; ++index) {
            const VariantResult& result = results[which][index];
            variants_json.push_back({
                {"name", variants[index].name},
                {"mode", variants[index].mode},
                {"through_shim", variants[index].through_shim},
                {"median_seconds_per_call", median(result.seconds_per_call)},
                {"median_ratio_to_native", median(result.ratio_to_native)},
                {"min_ratio_to_native", minimum(result.ratio_to_native)},
                {"max_ratio_to_native", maximum(result.ratio_to_native)},
                {"seconds_per_call", result.seconds_per_call},
                {"ratio_to_native", result.ratio_to_native},
                {"median_extra_seconds_per_call", median(result.extra_seconds)},
                {"extra_seconds_per_call", result.extra_seconds},
            });
        }
        benchmarks_json.push_back({{"collective", benchmarks[which].collective},
                                   {"bytes_per_rank", benchmarks[which].bytes},
                                   {"variants", std::move(variants_json)}});
    }
    return {{"suite", "overhead"},
            {"rounds", options.rounds},
            {"calls_per_round", options.iterations},
            {"warmup_calls", options.warmup},
            {"fresh", std::move(fresh_json)},
            {"benchmarks", std::move(benchmarks_json)}};
}

}  // namespace papshim::bench
