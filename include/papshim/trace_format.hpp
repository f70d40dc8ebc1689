// The files of a trace directory (docs/trace-format.md) and their merge into calls.csv and
// trace.json: what each rank of a running job writes, and what rank 0 reads at MPI_Finalize
// or papshim-report reads after a job died. No MPI and no threads here, so the offline tools
// use it as it is (library papshim_report).
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "papshim/merge_progress.hpp"
#include "papshim/predictor.hpp"

namespace papshim::trace {

// A call's times, in seconds from the job's start on the global clock. Further than this
// (about 3 years) no call of a job can be: its ticks are garbage. An exit before its arrival by
// a little can be real (a thread moved between CPUs whose counters differ slightly); by more
// than a second it is not. The merge leaves such records out and papshim-report refuses them.
inline constexpr double implausible_seconds = 1e8;
inline constexpr double exit_before_arrival_tolerance_s = 1.0;
inline bool plausible_seconds(double seconds) {
    return std::abs(seconds) < implausible_seconds;  // false for NaN
}
inline bool plausible_call_times(double arrival_s, double exit_s) {
    return plausible_seconds(arrival_s) && plausible_seconds(exit_s) &&
           exit_s >= arrival_s - exit_before_arrival_tolerance_s;
}

// Whether the online predictor ran for a call (dispatch mode with a planner on the
// communicator). Where it did not, the merge predicts offline from the rank's own records.
enum class Online : std::uint8_t { absent = 0, no_prediction = 1, predicted = 2 };
// What became of the plan for a call: none made, made and used (the call's signature was the
// planned one: a hit), made for a different call (a miss; the call fell back), or made for
// this call while the guard distrusted the recent predictions (guarded; it fell back too).
enum class PlanUse : std::uint8_t { none = 0, hit = 1, miss = 2, guarded = 3 };
// Its spelling in calls.csv's `plan` column (docs/trace-format.md); none is empty.
constexpr std::string_view plan_use_name(PlanUse use) {
    switch (use) {
        case PlanUse::hit: return "hit";
        case PlanUse::miss: return "miss";
        case PlanUse::guarded: return "guarded";
        case PlanUse::none: break;
    }
    return "";
}
// The column's text back; nullopt for anything but the four spellings.
constexpr std::optional<PlanUse> parse_plan_use(std::string_view name) {
    for (PlanUse use : {PlanUse::none, PlanUse::hit, PlanUse::miss, PlanUse::guarded}) {
        if (plan_use_name(use) == name) return use;
    }
    return std::nullopt;
}

// One intercepted call. Written raw to the per-rank spill file, so plain data only.
struct Record {
    std::uint64_t arrival = 0;   // clock::ticks(); seconds through the rank's Fit at merge
    std::uint64_t exit = 0;
    std::uint64_t bytes = 0;
    std::uint64_t seq = 0;
    std::uint64_t comm = 0;    // see comm_label()
    std::int32_t rank = 0;     // in the communicator
    std::int32_t world_rank = 0;
    std::int32_t comm_size = 0;
    std::int32_t root = -1;
    std::uint32_t site = 0;    // index into this rank's site table
    std::uint8_t collective = 0;
    std::uint8_t algorithm = 0;  // index into Names::algorithms
    std::int16_t op = -1;        // index into Names::ops; -1 none, -2 user-defined
    std::uint64_t predicted_arrival = 0;  // clock::ticks() the online predictor expected (Online::predicted)
    std::uint8_t online = 0;     // Online
    std::uint8_t plan = 0;       // PlanUse
    std::uint8_t unused[6] = {};
};
static_assert(sizeof(Record) == 80, "the spill file format is 80-byte records");

inline constexpr std::uint64_t world_comm = ~std::uint64_t{0};
inline std::uint64_t comm_id(int leader_world_rank, std::uint32_t ordinal) {
    return (std::uint64_t(std::uint32_t(leader_world_rank)) << 32) | ordinal;
}
std::string comm_label(std::uint64_t comm);

// Call site as written into calls.csv, and (index only) where its innermost frame is, so
// that a recovered trace can be symbolised offline.
struct SiteInfo {
    std::string key;
    std::string function;
    std::string location;
    std::string module_path;
    std::uintptr_t offset = 0;
};

// Names the records' indices refer to.
struct Names {
    std::vector<std::string> collectives;  // by Record::collective
    std::vector<std::string> algorithms;   // by Record::algorithm
    std::vector<std::string> ops;          // by Record::op >= 0
};

// Ticks to job-global seconds (the same map as clock::TickFit, without MPI).
struct Fit {
    std::uint64_t tick0 = 0;
    double seconds0 = 0.0;
    double seconds_per_tick = 1e-9;
    double seconds(std::uint64_t t) const {
        return seconds0 + (t >= tick0 ? double(t - tick0) : -double(tick0 - t)) * seconds_per_tick;
    }
};

// What last wrote a rank's index: a periodic refresh while the job ran, or one of the ends.
enum class Saved : std::uint8_t { running, finalize, abort, sigterm, exit, fast_exit };
// "running", "MPI_Finalize", "MPI_Abort", "SIGTERM", "exit", "_exit"
const char* saved_name(Saved saved);
std::optional<Saved> parse_saved(std::string_view name);

// Per-rank index (`.papshim-rank-N.index`): everything needed to read that rank's spill
// file. Rewritten (atomically, by rename) while the job runs, so a dead job leaves one.
struct Index {
    int world_rank = 0;
    Saved saved = Saved::running;
    std::uint64_t records = 0;  // records in the spill file when the index was written
    Fit fit;
    Names names;
    std::vector<SiteInfo> sites;
};

std::string spill_path(const std::string& dir, int world_rank);
std::string index_path(const std::string& dir, int world_rank);
// Writes `text` to `path`.new and renames it over `path`, so a reader (or a job killed
// meanwhile) sees the old file or the whole new one, never a cut one. POSIX calls only: the
// writer thread uses it while a signal handler waits. False with `error` naming the file.
bool replace_file(const std::string& path, std::string_view text, std::string& error);
// Writes the index to a temporary file and renames it over the old one. False with `error`.
bool write_index(const std::string& dir, const Index& index, std::string& error);
// Throws std::runtime_error naming the file and line on malformed input, also a tick fit
// that maps no tick to a finite time.
Index read_index(const std::string& path);
// Removes the spill files and indexes of ranks 0..world_size-1.
void remove_rank_files(const std::string& dir, int world_size);
// The files the merge and MPI_Finalize write; MPI_Init removes an earlier papshim trace's
// (remove_earlier_outputs), never files of these names in a directory that is not one.
inline constexpr const char* merged_outputs[] = {"calls.csv", "trace.json", "summary.txt"};
// The plots papshim-report writes beside a trace (docs/report.md, Plots):
// plot-sites.csv, plot-data.csv, pap-omega.png and pap-heatmap-<site number>.png.
inline constexpr const char* plot_inputs[] = {"plot-sites.csv", "plot-data.csv"};

// How each rank's records ended, as the merge found them.
struct RankEnd {
    int world_rank = 0;
    bool spill_file = false;          // .papshim-rank-N.bin found
    bool index = false;               // .papshim-rank-N.index found (without it no record is usable)
    Saved saved = Saved::running;
    std::uint64_t records = 0;        // records merged
    std::uint64_t torn_bytes = 0;     // a partly written last record, left out
    std::uint64_t bad_records = 0;    // the first invalid record (zero-filled, corrupt) and all after it, left out
    double last_arrival_s = 0;        // of its last record
    std::uint64_t calls_behind = 0;   // calls of its communicators other ranks recorded after its last one
};

inline constexpr long long default_max_json_events = 1'000'000;
struct MergeOptions {
    long long max_json_events = default_max_json_events;
    bool recovering = false;   // tolerate missing and partial files; keep the spill files
    // For records the online predictor did not see: the run's PAPSHIM_PREDICTOR,
    // PAPSHIM_EMA_ALPHA and PAPSHIM_SMA_WINDOW, so the offline prediction is the online one.
    predict::Settings predictor;
    // Where a merge that runs long says how far it is (MergeProgress's lines); none if empty.
    MergeProgress::Print progress;
    MergeProgress::Clock progress_clock;  // steady_clock when empty; tests pass their own
};

struct MergeResult {
    long long records = 0;
    std::vector<RankEnd> ranks;  // by world rank
    std::vector<std::string> warnings;  // recovery: what was left out of which spill file, one line each
};

// k-way merge of the per-rank spill files by arrival time into calls.csv and trace.json.
// Records without an online prediction get one from predict::CommHistory run over the
// rank's own records of that communicator (no message: what profile mode can know).
// Memory: one record per rank plus the indexes; one open file per rank (the soft limit on
// open files is raised toward the hard one for the merge). trace.json holds the first
// `max_json_events` records only (viewers choke on multi-GB JSON); calls.csv holds all.
// Both are written under temporary names and renamed at the end, so a merge cut short
// leaves no partial calls.csv. A record that cannot be one (zero-filled or corrupt: rank
// outside its communicator, unknown collective, implausible ticks) ends its rank's records.
// Normal mode (MPI_Finalize): every rank's files must be there and whole, else it throws;
// recovering: what is missing or invalid is counted in `ranks` and said in `warnings`.
// The spill files are left for the caller (remove_rank_files). Throws std::runtime_error
// with a one-line message.
MergeResult merge(const std::string& dir, int world_size, const MergeOptions& options = {});

// The world size of a dead job: meta.txt's world_size, else one more than the highest rank
// with a spill file or index; 0 when the directory holds neither.
int spill_world_size(const std::string& dir);
bool has_spill_files(const std::string& dir);

// A job's claim on its trace directory: rank 0 creates `papshim.lock` there (exclusively)
// at MPI_Init and removes it once MPI_Finalize has merged the trace and removed the spill
// files, or papshim-report has recovered it. A directory whose lock is there holds another
// job's trace: running, or dead and not recovered yet; neither may be overwritten.
inline constexpr const char* claim_file = "papshim.lock";
inline constexpr int max_claim_suffix = 99;

// Who holds a claim: what the lock file says.
struct ClaimOwner {
    std::string host;
    long pid = 0;
    std::string started;  // UTC, ISO 8601
    std::string describe() const;  // "host vm, pid 1234, started 2026-11-29T05:00:00Z"
    bool on_this_host() const;     // the lock was written on the host that reads it
};

struct Claim {
    std::string dir;                   // the directory claimed; empty when none could be
    std::vector<std::string> skipped;  // directories held by other jobs, each with its owner
    std::vector<std::string> foreign;  // directories that hold files of papshim's names but are no
                                       // papshim trace, each with those names: left untouched
    bool replaces_trace = false;       // `dir` holds an earlier papshim trace, which the job replaces
    std::string error;                 // why none could be claimed
};

// What a directory holds, as far as a job that traces into it is concerned. It is an earlier
// papshim trace when its meta.txt is papshim's (a `papshim_version=` line, which papshim
// writes first at MPI_Init); then the job may replace that trace's files. Otherwise any file
// of papshim's names (calls.csv, trace.json, summary.txt, meta.txt, papshim.lock, spill files,
// pap-*.png, plot-*.csv, and their `.new` temporaries) is someone else's, and the directory
// is not papshim's to write: `foreign`. Files of other names never count.
struct DirectoryContents {
    bool earlier_trace = false;
    std::vector<std::string> papshim_names;  // files of papshim's names found, sorted
    bool foreign() const { return !earlier_trace && !papshim_names.empty(); }
};
// `ignore_lock`: papshim.lock does not count (the caller holds it). A missing directory is empty.
DirectoryContents inspect_directory(const std::string& dir, bool ignore_lock = false);
bool is_papshim_file_name(std::string_view name);
// Whether `path` is a meta.txt papshim wrote.
bool is_papshim_meta(const std::string& path);
// Removes an earlier papshim trace's merged files (merged_outputs, and their `.new`
// temporaries) and the plots papshim-report wrote beside it (plot_inputs, pap-omega.png,
// pap-heatmap-N.png), so none of them passes for the new job's. Only for a directory that
// inspect_directory found to be an earlier trace.
void remove_earlier_outputs(const std::string& dir);

// Claims `wanted` for this job (creating it), or when another job holds it, or it holds
// files of papshim's names without being a papshim trace (DirectoryContents::foreign), the
// first of `wanted`.1 .. .99 that is free. The lock records `owner`.
Claim claim_directory(const std::string& wanted, const ClaimOwner& owner);
// The lock of `dir`; nullopt when there is none (or it cannot be read).
std::optional<ClaimOwner> claim_owner(const std::string& dir);
// Whether the owner is a process that still runs on this host (false for another host).
bool owner_runs_here(const ClaimOwner& owner);
// This process as an owner: host name, pid, now.
ClaimOwner this_process();
// Removes the lock (MPI_Finalize after the merge, or a recovery).
void release_directory(const std::string& dir);

// meta.txt lines that say how a recovered run ended (docs/trace-format.md, "After a crash").
std::string recovery_meta(const MergeResult& result);

// RFC 4180 field quoting.
std::string csv_field(std::string_view s);
std::string json_string(std::string_view s);

}  // namespace papshim::trace
