// Command line of papshim-bench (CLI11): what to measure and how. Parsing is pure (no MPI),
// so every rank parses the same argv to the same Options and rank 0 alone reports a bad flag.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace papshim::bench {

enum class Suite { overhead, allgather };
enum class Collective { allgather, allgatherv };

// When each rank enters the collective, relative to the end of the aligning barrier.
struct ArrivalPattern {
    enum class Kind { none, uniform, one_late, staircase };
    Kind kind = Kind::none;
    double seconds = 0.0;  // uniform: max delay; one-late: the delay; staircase: step
    int late_rank = -1;    // one-late: the late rank, -1 = the last one
    std::string text = "none";
};

struct Options {
    Suite suite = Suite::overhead;
    Collective collective = Collective::allgather;
    std::vector<std::size_t> bytes;       // per rank; allgather suite only
    std::vector<std::string> algorithms;  // allgather suite only
    ArrivalPattern pattern;
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
};

ParseResult parse_options(int argc, char** argv);

// "64K" -> 65536, "1M" -> 1048576 (binary multiples). Throws std::invalid_argument.
std::size_t parse_byte_size(const std::string& text);
// "1K,4K", "1K:1M" (doubling) or a mix of both.
std::vector<std::size_t> parse_byte_list(const std::string& text);
// "500us", "2ms", "1.5s", "100ns". A unit is required.
double parse_duration(const std::string& text);
ArrivalPattern parse_pattern(const std::string& text);

// Seconds rank `rank` of `ranks` waits before entering call `call` of a sweep. Deterministic
// in (seed, call, rank), so every algorithm of one iteration sees the same arrival pattern.
double arrival_delay(const ArrivalPattern& pattern, std::uint64_t seed, std::uint64_t call,
                     int rank, int ranks);

const char* suite_name(Suite suite);
const char* collective_name(Collective collective);

}  // namespace papshim::bench
