// Configuration from PAPSHIM_* environment variables (DESIGN §6). Parsing is a pure
// function of a variable lookup, so it is unit-testable; the runtime reads the real
// environment once at MPI_Init and checks that every rank got the same values.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace papshim {

enum class Mode : std::uint8_t { off, profile, dispatch };

enum class Collective : std::uint8_t { allgather, allgatherv, reduce, allreduce };
inline constexpr int collective_count = 4;
// Allgather or Allgatherv: the collectives whose algorithms are the Allgather table's.
constexpr bool gathers(Collective c) { return c == Collective::allgather || c == Collective::allgatherv; }
std::string_view collective_name(Collective c);
std::optional<Collective> parse_collective(std::string_view name);

// Algorithm names papshim knows for each collective, besides "native" and "auto".
using AlgorithmNames = std::array<std::vector<std::string>, collective_count>;

struct Config {
    Mode mode = Mode::dispatch;
    // native by default: on the machines measured so far none of papshim's own Allgather
    // algorithms beats the native one on balanced arrivals (docs/benchmarks.md), so a
    // user opts in per collective. The PAP-aware algorithms are what `auto` is for.
    std::array<std::string, collective_count> algorithm{"native", "native", "native", "native"};
    std::string trace_dir;      // empty: no tracing
    int callsite_depth = 1;
    int verbose = 0;
    std::size_t trace_buffer = 65536;  // records kept in memory per rank before spilling
    // Ranks per node as papshim's node-aware algorithms see it: 0 = the MPI's shared-memory
    // split; N = virtual nodes of N consecutive world ranks (inside the MPI's split), so
    // tests and the emulated network exercise several nodes on one machine.
    int node_size = 0;
    // Bytes of each rank's slot in a node's shared-memory segment: the largest vector the
    // dynamic-leader Allreduce takes, and the largest result broadcast through the segment.
    // 0 (PAPSHIM_SHM_SLOT=auto, the default) until MPI_Init sets it from the world's largest
    // node (shm_slot_for_node); a number given stays.
    std::size_t shm_slot = 0;
    // Arrival prediction (DESIGN §5): how a call site's history is smoothed.
    std::string predictor = "ema";  // ema, sma or last
    double ema_alpha = 0.25;
    int sma_window = 8;
    // τ, the time of one segment over one link, for the PAP-aware planners; 0 = measured
    // (α + β·segment bytes from the link model of MPI_Init).
    double tau_us = 0;
    // A helper thread posts BDR's and BSLB's background receives and drives the exchanges
    // (needs MPI_THREAD_MULTIPLE, so MPI_Init is upgraded when BDR or BSLB is configured);
    // 0: progress only inside MPI calls, no upgrade, and BDR and BSLB run their balanced form.
    bool helper_thread = true;
    // `always`: start it (and upgrade MPI_Init) whatever the variables select, for programs
    // that choose BDR or BSLB per communicator with papshim_set_algorithm.
    bool helper_thread_always = false;
    // Floating-point reductions only by algorithms whose reduction order does not depend on
    // arrival order, so results repeat bit for bit from run to run.
    bool reproducible = false;
    // How papshim's algorithms wait for messages (papshim/waiting.hpp): auto, mpi or yield;
    // auto yields where a node runs more ranks than its ranks' CPUs and MPI's wait spins.
    std::string wait = "auto";
    // The CPUs this rank's node's ranks may use, where papshim's count (the union of their
    // affinity masks, NodeLoad) is wrong, e.g. under a cgroup CPU quota; 0 (auto): counted.
    int node_cpus = 0;
    // What network the job runs on, as said by whoever launched it (papshim-run
    // --emulate-network sets it); recorded in the trace's meta.txt and papshim-bench output.
    std::string network;

    bool tracing() const { return mode == Mode::profile || (mode == Mode::dispatch && !trace_dir.empty()); }
    // Canonical "NAME=value" lines, identical on ranks with the same configuration.
    std::vector<std::string> canonical() const;
};

// PAPSHIM_SHM_SLOT=auto: the slot for nodes of at most `local_ranks` ranks, so that a
// segment's slots (local_ranks + 1 of them; its flags and the symmetric Allreduce's cells,
// 2 x 1152 bytes a rank, come on top) stay within kShmSegmentBudget: a power of two from
// kShmSlotMin (the old fixed default) to kShmSlotMax. Its pages are taken as they are written
// (a dynamic leader's deposits), not when the segment is made. Since 2026-12-03
// (docs/benchmarks.md, "The dynamic leader beyond 64 KiB"): the dynamic leader took
// 0.49-0.88x native's mean time in the call on one node under imbalance at 256 KiB-4 MiB,
// where a 64 KiB slot left those sizes to MPI.
inline constexpr std::size_t kShmSegmentBudget = std::size_t(64) << 20;
inline constexpr std::size_t kShmSlotMin = std::size_t(64) << 10;
inline constexpr std::size_t kShmSlotMax = std::size_t(4) << 20;
constexpr std::size_t shm_slot_for_node(int local_ranks) {
    const std::size_t fits = kShmSegmentBudget / (std::size_t(std::max(local_ranks, 1)) + 1);
    return std::clamp(std::bit_floor(fits), kShmSlotMin, kShmSlotMax);
}

// One documented variable: what papshim-info and papshim-run --help print.
struct VariableInfo {
    std::string name;
    std::string default_value;
    std::string choices;
    std::string description;
};
std::vector<VariableInfo> describe_variables(const AlgorithmNames& names);

using Lookup = std::function<const char*(const char*)>;

struct ConfigError {
    std::string message;  // one line: names the variable, the value and the valid choices
};

// Parses every PAPSHIM_* variable; the first invalid one is reported. Unknown PAPSHIM_*
// variables are errors too (a typo must not silently run the default), but for the names
// module systems give an installed package (PAPSHIM_ROOT, PAPSHIM_DIR, ...: module_variable)
// that are not near misses of a variable (closest_variable).
struct ParseResult {
    std::optional<Config> config;
    std::optional<ConfigError> error;
    // A valid configuration with settings that have no effect (an algorithm outside dispatch
    // mode): one line naming them and why, for world rank 0 to print; the job runs.
    std::optional<std::string> warning;
};
ParseResult parse_config(const Lookup& lookup, const std::vector<std::string>& environment_names,
                         const AlgorithmNames& names);

// Validates one algorithm name for a collective ("native", "auto" or a known name).
bool valid_algorithm(Collective c, std::string_view name, const AlgorithmNames& names);
std::string algorithm_choices(Collective c, const AlgorithmNames& names);
// "invalid PAPSHIM_REDUCE='ring': expected one of ...; ring is an Allgather(v)/Allreduce
// algorithm": the choices, and the collectives that do have the name if it is another's.
std::string invalid_algorithm_message(Collective c, std::string_view name, const AlgorithmNames& names);

// The variable a PAPSHIM_* name is a near miss of: within 1 edit (a letter added, dropped or
// changed, or two neighbours swapped) of a name whose part after PAPSHIM_ has up to 5
// letters, 2 edits of a longer one; the closest, the first listed on a tie.
std::optional<std::string> closest_variable(std::string_view name, const std::vector<VariableInfo>& vars);
// PAPSHIM_ followed by anything ending in _ROOT, _DIR, _HOME, _PREFIX, _VERSION, _PATH, _LIB,
// _INC, _INCLUDE, _LIBDIR, _INCDIR or _BIN (or just ROOT, DIR, ...): what module systems set.
bool module_variable(std::string_view name);

std::string_view mode_name(Mode m);
std::optional<Mode> parse_mode(std::string_view s);

}  // namespace papshim
