#include "options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string_view>

#include "block_distributions.hpp"
#include "cli.hpp"
#include "papshim/algorithms.hpp"

namespace papshim::bench {

static_assert(static_cast<int>(Collective::allreduce) ==
                  static_cast<int>(papshim::Collective::allreduce),
              "the two enums list the collectives in the same order");

namespace {

constexpr std::size_t max_bytes_per_rank = std::size_t{1} << 30;

std::string lowercase(std::string_view text) {
    std::string out(text);
    std::ranges::transform(out, out.begin(), [](unsigned char c) { return std::tolower(c); });
    return out;
}

std::vector<std::string> split(std::string_view text, char separator) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (true) {
        const std::size_t end = text.find(separator, start);
        parts.emplace_back(text.substr(start, end - start));
        if (end == std::string_view::npos) return parts;
        start = end + 1;
    }
}

// Splits "12.5ms" into the number and the unit; throws when there is no number.
std::pair<double, std::string> number_and_unit(const std::string& text) {
    std::size_t used = 0;
    double value = 0.0;
    try {
        value = std::stod(text, &used);
    } catch (const std::exception&) {
        throw std::invalid_argument(fmt::format("'{}' does not start with a number", text));
    }
    if (!std::isfinite(value) || value < 0)
        throw std::invalid_argument(fmt::format("'{}' is not a non-negative number", text));
    return {value, lowercase(text.substr(used))};
}

// splitmix64: a stateless, well-mixed hash, identical on every platform (unlike <random>'s
// distributions), so a seed reproduces the same delays anywhere.
std::uint64_t mix(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

}  // namespace

const char* suite_name(Suite suite) {
    static constexpr const char* names[] = {"overhead", "allgather", "sweep"};
    return names[static_cast<std::size_t>(suite)];
}

const char* collective_name(Collective collective) {
    static constexpr const char* names[] = {"allgather", "allgatherv", "reduce", "allreduce"};
    return names[static_cast<std::size_t>(collective)];
}

std::size_t parse_byte_size(const std::string& text) {
    const auto [value, unit] = number_and_unit(text);
    double multiplier = 0.0;
    if (unit.empty() || unit == "b")
        multiplier = 1.0;
    else if (unit == "k" || unit == "kib" || unit == "kb")
        multiplier = 1024.0;
    else if (unit == "m" || unit == "mib" || unit == "mb")
        multiplier = 1024.0 * 1024.0;
    else if (unit == "g" || unit == "gib" || unit == "gb")
        multiplier = 1024.0 * 1024.0 * 1024.0;
    else
        throw std::invalid_argument(
            fmt::format("'{}': unknown size unit '{}' (use B, K, M or G)", text, unit));
    const double bytes = value * multiplier;
    if (bytes < 1 || bytes > static_cast<double>(max_bytes_per_rank) || bytes != std::floor(bytes))
        throw std::invalid_argument(
            fmt::format("'{}' must be a whole number of bytes between 1 and 1G", text));
    return static_cast<std::size_t>(bytes);
}

std::vector<std::size_t> parse_byte_list(const std::string& text) {
    std::vector<std::size_t> sizes;
    for (const std::string& item : split(text, ',')) {
        const std::vector<std::string> ends = split(item, ':');
        if (ends.size() == 1) {
            sizes.push_back(parse_byte_size(item));
        } else if (ends.size() == 2) {
            const std::size_t first = parse_byte_size(ends[0]);
            const std::size_t last = parse_byte_size(ends[1]);
            if (last < first)
                throw std::invalid_argument(fmt::format("range '{}' ends below its start", item));
            for (std::size_t size = first; size <= last; size *= 2) sizes.push_back(size);
        } else {
            throw std::invalid_argument(fmt::format("'{}' is not SIZE or FIRST:LAST", item));
        }
    }
    return sizes;
}

// A delay longer than this is a typo, and one beyond int64 nanoseconds (9.2e9 s) wrapped to a
// wake-up time in the past: no delay at all.
constexpr double kMaxDelaySeconds = 3600;
constexpr double kMaxDelayTau = 1e6;

namespace {

// Seconds per `unit` of time, or nullopt for anything else.
std::optional<double> seconds_per(const std::string& unit) {
    if (unit == "s") return 1.0;
    if (unit == "ms") return 1e-3;
    if (unit == "us") return 1e-6;
    if (unit == "ns") return 1e-9;
    return std::nullopt;
}

}  // namespace

double parse_duration(const std::string& text) {
    const auto [value, unit] = number_and_unit(text);
    const std::optional<double> scale = seconds_per(unit);
    if (!scale) throw std::invalid_argument(fmt::format("'{}' needs a time unit: s, ms, us or ns (e.g. 2ms)", text));
    const double seconds = value * *scale;
    if (seconds > kMaxDelaySeconds)
        throw std::invalid_argument(fmt::format("'{}' is longer than {} s", text, kMaxDelaySeconds));
    return seconds;
}

namespace {

ArrivalPattern parse_pattern_parts(const std::string& text) {
    const std::vector<std::string> parts = split(text, ':');
    ArrivalPattern pattern;
    pattern.text = text;
    const std::string& kind = parts[0];
    const auto expect_parts = [&](std::size_t low, std::size_t high, const char* usage) {
        if (parts.size() < low || parts.size() > high)
            throw std::invalid_argument(fmt::format("'{}': expected {}", text, usage));
    };
    if (kind == "none") {
        expect_parts(1, 1, "none");
    } else if (kind == "uniform") {
        expect_parts(2, 2, "uniform:MAX, e.g. uniform:1ms");
        pattern.kind = ArrivalPattern::Kind::uniform;
        pattern.seconds = parse_duration(parts[1]);
    } else if (kind == "one-late") {
        expect_parts(2, 3, "one-late:DELAY[:RANK], e.g. one-late:500us:0");
        pattern.kind = ArrivalPattern::Kind::one_late;
        pattern.seconds = parse_duration(parts[1]);
        if (parts.size() == 3) pattern.late_rank = cli::parse_integer<int>(parts[2], 0);
    } else if (kind == "staircase") {
        expect_parts(2, 2, "staircase:STEP, e.g. staircase:100us");
        pattern.kind = ArrivalPattern::Kind::staircase;
        pattern.seconds = parse_duration(parts[1]);
    } else {
        throw std::invalid_argument(fmt::format(
            "'{}': expected none, uniform:MAX, one-late:D[:RANK] or staircase:STEP", text));
    }
    return pattern;
}

}  // namespace

ArrivalPattern parse_pattern(const std::string& text) {
    try {
        return parse_pattern_parts(text);
    } catch (const std::invalid_argument& error) {
        const std::string_view what = error.what();
        if (what.starts_with(fmt::format("'{}':", text))) throw;
        throw std::invalid_argument(fmt::format("'{}': {}", text, what));
    }
}

std::vector<SweepPattern> parse_sweep_patterns(const std::string& text) {
    std::vector<SweepPattern> patterns;
    for (const std::string& item : split(text, ',')) {
        const std::vector<std::string> parts = split(item, ':');
        SweepPattern pattern{ArrivalPattern::Kind::one_late, -1, item};
        if (parts[0] == "one-late" && parts.size() <= 2) {
            if (parts.size() == 2) pattern.late_rank = cli::parse_integer<int>(parts[1], 0);
        } else if ((parts[0] == "uniform" || parts[0] == "staircase") && parts.size() == 1) {
            pattern.kind = parts[0] == "uniform" ? ArrivalPattern::Kind::uniform
                                                 : ArrivalPattern::Kind::staircase;
        } else {
            throw std::invalid_argument(fmt::format(
                "'{}': expected one-late[:RANK], uniform or staircase (the sweep sets the "
                "delays)",
                item));
        }
        patterns.push_back(pattern);
    }
    return patterns;
}

std::vector<SweepDelay> parse_delays(const std::string& text) {
    std::vector<SweepDelay> delays;
    for (const std::string& item : split(text, ',')) {
        SweepDelay delay{0.0, false, item};
        const auto [value, unit] = number_and_unit(item);
        if (unit == "tau") {
            if (value > kMaxDelayTau)
                throw std::invalid_argument(fmt::format("'{}' is more than {:g} tau", item, kMaxDelayTau));
            delay.value = value;
            delay.in_tau = true;
        } else if (unit.empty() && value == 0) {
            delay.in_tau = true;  // zero in any unit
        } else if (seconds_per(unit)) {
            delay.value = parse_duration(item);
        } else {
            throw std::invalid_argument(
                fmt::format("'{}': expected a multiple of tau (e.g. 5tau) or a time (e.g. 100us)", item));
        }
        delays.push_back(delay);
    }
    return delays;
}

ArrivalPattern sweep_point(const SweepPattern& kind, double seconds, int ranks) {
    ArrivalPattern pattern;
    pattern.kind = kind.kind;
    pattern.late_rank = kind.late_rank;
    pattern.seconds = kind.kind == ArrivalPattern::Kind::staircase && ranks > 1
                          ? seconds / (ranks - 1)
                          : seconds;
    const std::string base = kind.kind == ArrivalPattern::Kind::one_late    ? "one-late"
                             : kind.kind == ArrivalPattern::Kind::uniform ? "uniform"
                                                                          : "staircase";
    pattern.text = fmt::format("{}:{:.4g}us", base, pattern.seconds * 1e6);
    if (kind.late_rank >= 0) pattern.text += fmt::format(":{}", kind.late_rank);
    return pattern;
}

double arrival_delay(const ArrivalPattern& pattern, std::uint64_t seed, std::uint64_t call,
                     int rank, int ranks) {
    switch (pattern.kind) {
        case ArrivalPattern::Kind::none:
            return 0.0;
        case ArrivalPattern::Kind::uniform: {
            const std::uint64_t bits =
                mix(mix(mix(seed) ^ call) ^ static_cast<std::uint64_t>(rank));
            const double unit = static_cast<double>(bits >> 11) * 0x1.0p-53;  // [0, 1)
            return unit * pattern.seconds;
        }
        case ArrivalPattern::Kind::one_late: {
            const int late = pattern.late_rank < 0 ? ranks - 1 : pattern.late_rank;
            return rank == late ? pattern.seconds : 0.0;
        }
        case ArrivalPattern::Kind::staircase:
            return rank * pattern.seconds;
    }
    return 0.0;
}

Hiccups parse_hiccups(const std::string& text) {
    if (text == "none") return {};
    const std::size_t colon = text.find(':');
    if (colon == std::string::npos)
        throw std::invalid_argument(fmt::format("'{}': expected EVERY:D, e.g. 10:150ms, or none", text));
    Hiccups hiccups;
    hiccups.every = cli::parse_integer<int>(text.substr(0, colon), 1);
    hiccups.seconds = parse_duration(text.substr(colon + 1));
    if (hiccups.seconds <= 0)
        throw std::invalid_argument(fmt::format("'{}': the stall must be longer than 0", text));
    hiccups.text = text;
    return hiccups;
}

double hiccup_delay(const Hiccups& hiccups, std::uint64_t seed, std::uint64_t series, int iteration,
                    int rank, int ranks) {
    if (hiccups.every <= 0 || (iteration + 1) % hiccups.every != 0) return 0.0;
    // The stalled rank: drawn per series and iteration, the same on every rank.
    const std::uint64_t bits = mix(mix(mix(seed ^ 0x68696363ULL) ^ series) ^ static_cast<std::uint64_t>(iteration));
    return static_cast<int>(bits % static_cast<std::uint64_t>(ranks)) == rank ? hiccups.seconds : 0.0;
}

std::string root_text(int root) { return root == kRotatingRoot ? "rotate" : std::to_string(root); }

const char* op_name(ReductionOp op) { return op == ReductionOp::ordered ? "ordered" : "sum"; }

std::string collective_title(const Options& options) {
    const char* name = collective_mpi_name(options.collective);
    const std::string op = options.op == ReductionOp::ordered ? ", non-commutative sum" : "";
    if (options.collective == Collective::reduce)
        return fmt::format("{} (root {}{})", name, root_text(options.root), op);
    if (options.collective == Collective::allreduce && !op.empty()) return fmt::format("{} ({})", name, op.substr(2));
    if (options.collective == Collective::allgatherv) return fmt::format("{} ({} blocks)", name, options.blocks);
    return name;
}

const char* collective_mpi_name(Collective collective) {
    static constexpr const char* names[] = {"MPI_Allgather", "MPI_Allgatherv", "MPI_Reduce",
                                            "MPI_Allreduce"};
    return names[static_cast<std::size_t>(collective)];
}

namespace {

// One of an enum's names (--suite, --collective), each listed in `all`.
template <typename Enum, std::size_t count>
Enum choose(const std::string& value, const Enum (&all)[count], const char* (*name)(Enum)) {
    std::string names;
    for (const Enum candidate : all) {
        if (value == name(candidate)) return candidate;
        names += names.empty() ? name(candidate) : fmt::format(", {}", name(candidate));
    }
    throw std::invalid_argument(fmt::format("'{}': expected one of {}", value, names));
}

constexpr Suite all_suites[] = {Suite::overhead, Suite::allgather, Suite::sweep};
constexpr Collective all_collectives[] = {Collective::allgather, Collective::allgatherv,
                                          Collective::reduce, Collective::allreduce};

std::vector<std::string> parse_algorithms(const std::string& text) {
    std::vector<std::string> names;
    for (const std::string& name : split(text, ',')) {
        if (name.empty()) throw std::invalid_argument(fmt::format("'{}' has an empty name", text));
        if (std::ranges::find(names, name) == names.end()) names.push_back(name);
    }
    return names;
}

constexpr const char* description = R"(Measures papshim against the native MPI collectives inside one run. papshim-bench is linked
to libpapshim.so, so MPI_* calls go through the shim; "native" calls PMPI_* directly, which is
exactly what a program gets without the shim. Variants are interleaved so that machine noise
hits all of them alike; results are reported as ratios to native measured in the same run.

Suites:
  --suite overhead      (default) cost of the shim on calls it does not change: 8-byte
                        MPI_Allreduce and MPI_Reduce (to rank 0) loops (1 MPI_DOUBLE, MPI_SUM)
                        and MPI_Allgather loops of 1 KiB and 64 KiB per rank, each under the
                        variants native (PMPI_*), off, profile, dispatch+native (dispatch mode,
                        algorithm "native") and dispatch+auto. Two phases. Fresh process, first: the process's first
                        20000 calls of the 8-byte Allreduce per variant, as a short program
                        makes them (profile's trace buffers fresh), in 20 slices of 1000 with
                        the variant order shuffled per slice; fixed counts, not changed by
                        --iterations, --rounds or --warmup. Reported per variant: time per
                        call and ratio to native over all calls, and the median (max) over
                        slices of the slice's ratio to native. Steady state, then: each round
                        runs every variant (order shuffled per round) for --iterations
                        back-to-back calls after a barrier. Reported per variant: median over
                        rounds of the mean time per call, and the median (min-max) over rounds
                        of the ratio to native's time in the same round.
  --suite allgather     compares Allgather algorithms under a process arrival pattern. Every
                        iteration runs each algorithm once (order shuffled per iteration):
                        double barrier, each rank waits its --pattern delay (the same delays for
                        every algorithm of that iteration), then times the call on the
                        job-global clock: a_i on entry, f_i on exit. Per call:
                          e = mean_i (f_i - a_i)   (average elapsed time, the [AG] metric)
                          r = max_i f_i - min_i a_i (run time, the [CLV] metric)
                        Reported per size and algorithm: mean e, mean r, their ratios to native
                        and, with --pattern none, the OSU-style latency (per-rank mean over
                        iterations; min, avg and max over ranks). Each algorithm's result is
                        checked once per size against native's; a mismatch aborts the run.
  --suite sweep         the imbalance sweep of [AG] and [T]: per size it measures tau, the
                        one-way time of one message of the collective (the per-rank block for
                        Allgather(v), the whole vector for Reduce/Allreduce; the minimum over
                        ping-pongs between ranks 0 and P-1), then runs every algorithm as the
                        allgather suite does under each of --patterns at each of --delays.
                        Reported per size, pattern, delay and algorithm: mean e, mean r,
                          LB = mean_i (max_j a_j - a_i)  (the wait no algorithm can avoid)
                          excess = e - LB
                        the measured w and w/tau, and the ratios of e, r and the excess to
                        native's in the same run. --plot draws e/native and excess/native
                        against w/tau, one line per algorithm.)";

constexpr const char* footer = R"(Environment: if PAPSHIM_TRACE_DIR is unset, the overhead suite points it at a temporary
directory (needed by the profile variant) and removes it at the end unless --keep-trace.
PAPSHIM_NETWORK (set by papshim-run --emulate-network) names the network in the output.
Progress goes to stderr every few seconds; the table to stdout (rank 0 only).
Exit status: 0 success, 2 bad arguments, 3 a result differing from native.)";

// The command line, bound to `options`; unset counts stay 0 or -1 for the suite's default.
void define_options(CLI::App& app, Options& options) {
    cli::configure(app, "mpiexec -n P papshim-bench [options]", description, footer, 36);
    cli::add_parsed(
        app, "--suite", options.suite,
        [](const std::string& text) { return choose(text, all_suites, suite_name); },
        "suite to run (default: overhead)", "overhead|allgather|sweep");
    cli::add_parsed(
        app, "--collective", options.collective,
        [](const std::string& text) { return choose(text, all_collectives, collective_name); },
        "collective (default: allgather); the allgather suite takes\n"
        "allgather or allgatherv, the sweep all four. allgatherv uses\n"
        "uneven blocks (--blocks); reduce and allreduce sum MPI_INT\n"
        "vectors (MPI_SUM)",
        "NAME");
    // Defined after --collective, so its callback runs later and wins.
    app.add_flag_callback(
        "--allgatherv", [&options] { options.collective = Collective::allgatherv; },
        "same as --collective allgatherv");
    cli::add_parsed(
        app, "--blocks", options.blocks, blocks::parse_distribution,
        "allgatherv's block sizes by rank around --bytes per rank, as\n"
        "papshim-sim --blocks models them: decreasing (default: linear,\n"
        "the last rank's empty, allgather's total), equal, broadcast,\n"
        "spike, half-full, geometric",
        "DIST");
    cli::add_parsed(
        app, "--root", options.root,
        [](const std::string& text) {
            if (text == "rotate") return kRotatingRoot;
            try {
                return cli::parse_integer<int>(text, 0);
            } catch (const std::invalid_argument&) {
                throw std::invalid_argument("expected a rank (an integer >= 0) or rotate, got '" + text + "'");
            }
        },
        "root of --collective reduce (default: 0), or rotate: call k of\n"
        "each algorithm reduces to rank k mod p",
        "N|rotate");
    cli::add_parsed(
        app, "--op", options.op,
        [](const std::string& text) {
            if (text == "sum") return ReductionOp::sum;
            if (text == "ordered") return ReductionOp::ordered;
            throw std::invalid_argument("expected sum or ordered, got '" + text + "'");
        },
        "operation of --collective reduce and allreduce on MPI_INT:\n"
        "sum (MPI_SUM, default) or ordered (the same sum as a user op\n"
        "declared non-commutative, which MPI and papshim combine in rank\n"
        "order: it times the rank-order paths; as the sum itself commutes,\n"
        "the result check cannot catch a combine out of order, which\n"
        "the mpi.reduction tests check with a matrix product)",
        "sum|ordered");
    cli::add_parsed(app, "--bytes", options.bytes, parse_byte_list,
                    "bytes per rank (Allgather(v)) or of the vector (Reduce,\n"
                    "Allreduce): comma-separated sizes and doubling ranges, units\n"
                    "B, K, M, G (binary), e.g. 1K,4K,64K or 1K:1M or 8,1K:16K\n"
                    "(default: allgather suite 1K:1M, sweep 64K,1M)",
                    "LIST");
    cli::add_parsed(app, "--algorithms", options.algorithms, parse_algorithms,
                    "comma-separated algorithms (allgather and sweep suites);\n"
                    "\"native\" is the PMPI call, other names are selected with\n"
                    "papshim_set_algorithm (including \"auto\") (default: native\n"
                    "and every papshim algorithm of the collective, as\n"
                    "papshim-info --algorithms lists them)",
                    "LIST");
    cli::add_parsed(app, "--pattern", options.pattern, parse_pattern,
                    "arrival pattern, allgather suite (default: none):\n"
                    "  none                 every rank enters at once\n"
                    "  uniform:MAX          each rank waits U[0, MAX), drawn\n"
                    "                       anew per rank and iteration\n"
                    "  one-late:D[:RANK]    RANK (default: the last) waits D\n"
                    "  staircase:STEP       rank i waits i*STEP\n"
                    "times take a unit: ns, us, ms or s (e.g. uniform:1ms)",
                    "PATTERN");
    cli::add_parsed(app, "--patterns", options.sweep_patterns, parse_sweep_patterns,
                    "sweep: pattern kinds, each run at every maximum delay D of\n"
                    "--delays (default: one-late,uniform,staircase):\n"
                    "  one-late[:RANK]      RANK (default: the last) waits D\n"
                    "  uniform              each rank waits U[0, D), drawn anew\n"
                    "                       per rank and iteration\n"
                    "  staircase            rank i waits i*D/(P-1)",
                    "LIST");
    cli::add_parsed(app, "--delays", options.delays, parse_delays,
                    "sweep: maximum delays D, each a multiple of tau (5tau) or a\n"
                    "time (100us) (default: 0,1tau,2tau,5tau,10tau,20tau,50tau,\n"
                    "so that w/tau spans 0 to 50 on any network)",
                    "LIST");
    cli::add_parsed(app, "--hiccups", options.hiccups, parse_hiccups,
                    "allgather and sweep: on every EVERY-th measured iteration one\n"
                    "rank, drawn from --seed, waits D more than its pattern says:\n"
                    "one-off stalls of a busy node, which a predictor of arrivals\n"
                    "must live with (default: none; e.g. 10:150ms)",
                    "EVERY:D");
    const auto count = [](int minimum) {
        return [minimum](const std::string& text) { return cli::parse_integer<int>(text, minimum); };
    };
    cli::add_parsed(app, "--iterations", options.iterations, count(1),
                    "overhead: calls per variant per round (default: 2000);\n"
                    "allgather: measured iterations per size (default: 50);\n"
                    "sweep: per size, pattern and delay (default: 20)",
                    "N");
    cli::add_parsed(app, "--warmup", options.warmup, count(0),
                    "untimed calls per variant before measuring\n"
                    "(default: 200 overhead, 5 allgather per size, 6 sweep per\n"
                    "point; the sweep's run under the point's pattern, so the\n"
                    "predictor has seen it before the measured calls)",
                    "N");
    cli::add_parsed(app, "--rounds", options.rounds, count(1),
                    "overhead suite: rounds (default: 30)", "N");
    cli::add_parsed(
        app, "--seed", options.seed,
        [](const std::string& text) { return cli::parse_integer<std::uint64_t>(text, 0); },
        "seed of the arrival delays (default: 1)", "N");
    cli::add_parsed(app, "--json", options.json_path, cli::non_empty("a file name"),
                    "also write every raw number and the run's metadata as JSON", "FILE");
    cli::add_parsed(
        app, "--plot", options.plot_dir, cli::non_empty("a directory"),
        "sweep: draw PNGs of e/native and excess/native against w/tau\n"
        "into DIR (papshim_bench_plot.py, matplotlib), one per size and\n"
        "pattern; without --json the results go to DIR/sweep.json",
        "DIR");
    app.add_flag("--keep-trace", options.keep_trace,
                 std::string("keep the profile-mode trace directory (overhead suite)"));
}

}  // namespace

ParseResult parse_options(int argc, char** argv) {
    ParseResult result;
    Options& options = result.options;
    CLI::App app;
    define_options(app, options);
    if (std::string error = cli::parse(app, argc, argv, result.help); !error.empty()) {
        result.error = fmt::format("papshim-bench: {} (see --help)", error);
        return result;
    }

    // Flags that belong to another suite or collective are mistakes, not no-ops.
    const auto misplaced = [&]() -> std::string {
        const bool sweep = options.suite == Suite::sweep;
        for (const char* flag : {"--patterns", "--delays", "--plot"})
            if (!sweep && app.count(flag)) return fmt::format("{} is for --suite sweep", flag);
        if (sweep && app.count("--pattern"))
            return "--pattern is for --suite allgather; the sweep takes --patterns and --delays";
        if (options.suite == Suite::allgather && options.collective != Collective::allgather &&
            options.collective != Collective::allgatherv)
            return fmt::format("--collective {}: the allgather suite runs allgather or "
                               "allgatherv (--suite sweep runs all four)",
                               collective_name(options.collective));
        if (app.count("--root") && options.collective != Collective::reduce)
            return "--root is for --collective reduce";
        if (app.count("--op") && options.collective != Collective::reduce && options.collective != Collective::allreduce)
            return "--op is for --collective reduce and allreduce";
        if (app.count("--blocks") && options.collective != Collective::allgatherv)
            return "--blocks is for --collective allgatherv";
        return {};
    };
    if (std::string error = misplaced(); !error.empty()) {
        result.error = fmt::format("papshim-bench: {} (see --help)", error);
        return result;
    }

    // Options the chosen suite never reads (beyond the misplaced ones above): a word, so that
    // nobody takes the overhead suite's numbers for the --pattern they gave.
    const std::vector<const char*> ignored_flags =
        options.suite == Suite::overhead
            ? std::vector<const char*>{"--collective", "--allgatherv", "--blocks", "--root", "--op", "--bytes", "--algorithms",
                                       "--pattern", "--seed", "--hiccups"}
            : std::vector<const char*>{"--rounds", "--keep-trace"};
    std::string ignored;
    for (const char* flag : ignored_flags)
        if (app.count(flag)) ignored += fmt::format("{}{}", ignored.empty() ? "" : ", ", flag);
    if (!ignored.empty())
        result.warning = fmt::format("papshim-bench: warning: --suite {} ignores {}", suite_name(options.suite), ignored);

    const Suite suite = options.suite;
    const auto by_suite = [suite](int overhead, int allgather, int sweep) {
        return suite == Suite::overhead ? overhead : suite == Suite::allgather ? allgather : sweep;
    };
    if (options.iterations == 0) options.iterations = by_suite(2000, 50, 20);
    if (options.warmup < 0) options.warmup = by_suite(200, 5, 6);
    if (options.rounds == 0) options.rounds = suite == Suite::overhead ? 30 : 1;
    if (options.bytes.empty())
        options.bytes = parse_byte_list(suite == Suite::sweep ? "64K,1M" : "1K:1M");
    if (options.algorithms.empty()) {
        const papshim::AlgorithmNames names = papshim::algorithm_names();
        options.algorithms = {"native"};
        for (const std::string& name : names[static_cast<std::size_t>(options.collective)])
            options.algorithms.push_back(name);
    }
    if (options.sweep_patterns.empty())
        options.sweep_patterns = parse_sweep_patterns("one-late,uniform,staircase");
    if (options.delays.empty()) options.delays = parse_delays("0,1tau,2tau,5tau,10tau,20tau,50tau");
    return result;
}

}  // namespace papshim::bench
