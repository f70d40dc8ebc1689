// Command line of papshim-bench (CLI11): what to measure and how. Parsing is pure (no MPI),
// so every rank parses the same argv to the same Options and rank 0 alone reports a bad flag.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace papshim::bench {

enum class Suite { overhead, allgather, sweep };
// In papshim::Collective's order (options.cpp indexes papshim's algorithm names with it).
enum class Collective { allgather, allgatherv, reduce, allreduce };

// When each rank enters the collective, relative to the end of the aligning barrier.
struct ArrivalPattern {
    enum class Kind { none, uniform, one_late, staircase };
    Kind kind = Kind::none;
    double seconds = 0.0;  // uniform: max delay; one-late: the delay; staircase: step
    int late_rank = -1;    // one-late: the late rank, -1 = the last one
    std::string text = "none";
};

// --hiccups EVERY:D: on every EVERY-th measured iteration one rank, drawn from the seed,
// waits D more than its pattern says: the one-off stalls of a busy node (a daemon, a page
// flush, a late wake-up) that a predictor of arrivals has to live with. Off by default.
struct Hiccups {
    int every = 0;  // 0: none
    double seconds = 0.0;
    std::string text = "none";
};

// The sweep's patterns are kinds without a size: each runs at every maximum delay D.
struct SweepPattern {
    ArrivalPattern::Kind kind = ArrivalPattern::Kind::one_late;
    int late_rank = -1;  // one-late: the late rank, -1 = the last one
    std::string name;    // "one-late", "one-late:0", "uniform", "staircase"
};

// A maximum delay of the sweep: a multiple of tau ("5tau") or a time ("100us").
struct SweepDelay {
    double value = 0.0;  // tau multiples or seconds
    bool in_tau = false;
    std::string text;
};

// --root rotate: each communicator's k-th call of a size reduces to rank k mod p, as a loop that
// reduces to every rank in turn (the same root for every algorithm of one iteration).
inline constexpr int kRotatingRoot = -1;
// "0", "3" or "rotate": for titles.
std::string root_text(int root);

// --op: the reductions' operation. `ordered` is MPI_INT's sum created as a non-commutative
// user op: the same result, but MPI and papshim must combine in rank order.
enum class ReductionOp { sum, ordered };
const char* op_name(ReductionOp op);

struct Options {
    Suite suite = Suite::overhead;
    Collective collective = Collective::allgather;
    int root = 0;                         // reduce; kRotatingRoot: call k's root is k mod p
    ReductionOp op = ReductionOp::sum;    // reduce and allreduce
    std::string blocks = "decreasing";    // allgatherv: block_distributions.hpp
    std::vector<std::size_t> bytes;       // allgather and sweep suites
    std::vector<std::string> algorithms;  // allgather and sweep suites
    ArrivalPattern pattern;               // allgather suite
    Hiccups hiccups;                      // allgather and sweep suites
    std::vector<SweepPattern> sweep_patterns;
    std::vector<SweepDelay> delays;
    std::string plot_dir;  // sweep: draw PNGs there
    int iterations = 0;  // these three: 0 or -1 until parse_options sets the suite's default
    int warmup = -1;
    int rounds = 0;
    std::uint64_t seed = 1;
    std::string json_path;
    bool keep_trace = false;
};

struct ParseResult {
    Options options;
    std::string error;  // empty on success; otherwise one line for stderr
    std::string help;   // --help: the text to print (and nothing else to do)
    std::string warning;  // options the chosen suite ignores: one line for stderr, the run goes on
};

ParseResult parse_options(int argc, char** argv);

// "64K" -> 65536, "1M" -> 1048576 (binary multiples). Throws std::invalid_argument.
std::size_t parse_byte_size(const std::string& text);
// "1K,4K", "1K:1M" (doubling) or a mix of both.
std::vector<std::size_t> parse_byte_list(const std::string& text);
// "500us", "2ms", "1.5s", "100ns". A unit is required.
double parse_duration(const std::string& text);
ArrivalPattern parse_pattern(const std::string& text);
// "one-late,uniform,staircase", "one-late:0".
std::vector<SweepPattern> parse_sweep_patterns(const std::string& text);
// "0,1tau,50tau", "100us,2ms": each item a multiple of tau or a time; "0" alone is zero.
std::vector<SweepDelay> parse_delays(const std::string& text);
// The pattern `kind` with maximum delay `seconds` for `ranks` ranks: one-late and uniform
// take it as their delay and bound, staircase spreads it over the ranks (step D/(p-1)).
ArrivalPattern sweep_point(const SweepPattern& kind, double seconds, int ranks);

// Seconds rank `rank` of `ranks` waits before entering call `call` of a sweep. Deterministic
// in (seed, call, rank), so every algorithm of one iteration sees the same arrival pattern.
double arrival_delay(const ArrivalPattern& pattern, std::uint64_t seed, std::uint64_t call,
                     int rank, int ranks);

// "10:150ms": every 10th iteration, 150 ms. Throws std::invalid_argument.
Hiccups parse_hiccups(const std::string& text);
// The extra seconds rank `rank` of `ranks` waits in measured iteration `iteration` of the
// series `series` (a size and point: distinct draws of the stalled rank per series).
double hiccup_delay(const Hiccups& hiccups, std::uint64_t seed, std::uint64_t series, int iteration,
                    int rank, int ranks);

const char* suite_name(Suite suite);
const char* collective_name(Collective collective);
const char* collective_mpi_name(Collective collective);  // "MPI_Allgather"
// The collective for a table's title: "MPI_Reduce (root 0)", "MPI_Allgatherv (decreasing blocks)".
std::string collective_title(const Options& options);

}  // namespace papshim::bench
