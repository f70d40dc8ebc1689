// The PAP report (docs/report.md): reads a trace directory (calls.csv + meta.txt, format in
// docs/trace-format.md), groups the rows into calls by (comm, seq), and computes per call site
// the imbalance metrics of spec/allgather-bdr-bslb-and-clairvoyant.md §1.1 and
// spec/pap-aware-allreduce-and-reduce.md §1.2-1.4, plus Scalasca-style wait states.
// Used by the library at MPI_Finalize (summary.txt) and by the papshim-report tool.
// No MPI in here: everything below runs on plain files and vectors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "papshim/predictor.hpp"
#include "papshim/trace_format.hpp"

namespace papshim::report {

// ---- pure maths (times in seconds; arrivals indexed by rank in the communicator) ----------

double mean(std::span<const double> values);  // 0 for an empty span
// Worst-case imbalance time ω = max a_i − min a_i; 0 for fewer than two arrivals.
double omega(std::span<const double> arrivals);
// Average-case imbalance time: (1/n) Σ |a_i − ā|, the mean absolute deviation about the mean.
double mean_absolute_deviation(std::span<const double> arrivals);
// Percentile p in [0, 100] with linear interpolation between closest ranks (numpy's default);
// 0 for an empty vector. Takes a copy because it partially sorts.
double percentile(std::vector<double> values, double p);
// The rank that arrived last (largest arrival; the lowest such rank on a tie); -1 if empty.
int last_rank(std::span<const double> arrivals);
// Wait at N×N per rank: latest arrival − own arrival (Allgather(v), Allreduce).
std::vector<double> wait_at_nxn(std::span<const double> arrivals);
// Early Reduce: earliest non-root arrival − root arrival when positive, else 0 (Reduce).
double early_reduce(std::span<const double> arrivals, int root);

struct RankShare {
    int rank = -1;
    std::uint64_t count = 0;
    double share = 0;  // count / total calls, 0..1
};
// The `n` ranks with the largest counts (ties: lower rank first), shares of `total_calls`.
std::vector<RankShare> top_ranks(const std::map<int, std::uint64_t>& counts,
                                 std::uint64_t total_calls, std::size_t n);

// Bytes of one point-to-point message of the collective, the size τ is taken at:
// Allgather(v) `bytes / comm_size` (one rank's block), Reduce/Allreduce the whole vector.
double message_bytes(const std::string& collective, std::uint64_t bytes, int comm_size);
// τ(m) = alpha_s + beta_s_per_byte · m.
double tau(double alpha_s, double beta_s_per_byte, double message_bytes);

// ---- input -------------------------------------------------------------------------------

// Streaming RFC 4180 reader: quoted fields with commas, doubled quotes and line breaks;
// LF or CRLF record ends. Throws std::runtime_error("<name>:<line>: ...") on bad quoting.
class CsvReader {
public:
    CsvReader(std::istream& in, std::string name);
    // Reads the next record into `fields`; false at end of input (a final empty line is no
    // record).
    bool next(std::vector<std::string>& fields);
    // Line on which the record last returned by next() started (1-based).
    std::size_t line() const { return record_line_; }
    const std::string& name() const { return name_; }

private:
    std::istream& in_;
    std::string name_;
    std::size_t current_line_ = 1;
    std::size_t record_line_ = 0;
};

// One row of calls.csv (the columns the report needs; others are ignored).
struct CallRow {
    int rank = 0;
    int world_rank = 0;
    std::string comm;
    int comm_size = 0;
    std::int64_t seq = 0;
    std::string collective;
    std::uint64_t bytes = 0;
    int root = -1;
    std::string callsite;
    std::string function;
    std::string location;
    double arrival_s = 0;
    double exit_s = 0;
    std::string algorithm;                     // what ran; empty when the column is absent
    std::optional<double> predicted_arrival_s; // this rank's predicted arrival, if there was one
    std::string plan;                          // "hit", "miss", "guarded" or empty
};

// calls.csv rows, columns found by header name. Errors name the file and line.
class CallsReader {
public:
    CallsReader(std::istream& in, std::string name);
    bool next(CallRow& row);
    std::size_t line() const { return csv_.line(); }

private:
    CsvReader csv_;
    std::vector<std::string> fields_;
    std::vector<std::size_t> column_;  // index in the CSV record of each CallRow field
    std::size_t header_columns_ = 0;
};

struct RunMeta {
    std::map<std::string, std::string> values;  // every key=value, comments stripped
    std::optional<double> alpha_s;
    std::optional<double> beta_s_per_byte;
    std::string get(const std::string& key, const std::string& fallback = "") const;
    // world_size= as a count above 0; nullopt when missing or not one.
    std::optional<int> world_size() const;
};
// The predictor settings the run used (meta.txt predictor=, ema_alpha=, sma_window=; the
// defaults for traces that predate them). Throws std::runtime_error naming a bad value.
predict::Settings predictor_settings(const RunMeta& meta);

// key=value lines; a line whose first non-blank character is `#` is a comment (a `#` later
// in a line is part of the value: PAPSHIM_NETWORK is free text); unknown keys kept in
// `values` but otherwise ignored. A line without '=' is an error naming file and line.
RunMeta parse_meta(std::istream& in, const std::string& name);
RunMeta read_meta(const std::string& path);

// ---- analysis ----------------------------------------------------------------------------

// One complete call of a site, kept for the plots (arrival delay = a_i − min a).
struct SampledCall {
    std::uint64_t index = 0;          // n-th complete call of its site, in completion order
    std::vector<double> delays_s;     // by rank in the communicator
};

// Complete calls of a site by what became of their plan (calls.csv `plan`).
struct PlanCounts {
    std::uint64_t hit = 0;
    std::uint64_t miss = 0;
    std::uint64_t guarded = 0;
    std::uint64_t none = 0;
    std::uint64_t made() const { return hit + miss + guarded; }  // calls that had a plan
};

struct SiteStats {
    std::string collective;
    std::string callsite;
    std::string function;
    std::string location;
    std::uint64_t calls = 0;          // complete calls
    std::uint64_t incomplete = 0;     // calls with some rank's row missing (not in the metrics)
    std::uint64_t mixed_sites = 0;    // complete calls whose ranks named other call sites
    std::uint64_t bytes = 0;          // Σ bytes over complete calls (one rank's result size)
    int max_comm_size = 0;
    std::vector<double> omega_s;      // per complete call, completion order
    double sum_mad_s = 0;
    double sum_omega_over_tau = 0;    // only meaningful when τ is known
    double wait_s = 0;                // Σ Wait at N×N (or Early Reduce for Reduce) over ranks
    std::map<int, std::uint64_t> last_counts;  // world rank → calls it arrived last in
    // Arrival delays of a subset of the calls: every `sample_stride`-th one.
    std::vector<SampledCall> samples;
    std::uint64_t sample_stride = 1;
    // Arrival prediction, over the rows of complete calls (float: one value per row).
    std::uint64_t rows = 0;                   // rows of complete calls
    std::uint64_t predicted_rows = 0;         // ... with a prediction
    // |predicted − actual arrival|, each from its call's earliest, over the rows of calls in
    // which every rank had a prediction (a common shift changes no plan: the guard's error)
    std::vector<float> prediction_error_s;
    std::vector<float> relative_error;        // the same over ω of its call (calls with ω > 0)
    std::uint64_t last_assessed = 0;          // complete calls in which every rank had a prediction
    std::uint64_t last_right = 0;             // ... whose predicted last arriver arrived last
    std::map<std::string, PlanCounts> plans;  // by the algorithm that ran (rank 0's row)
};

struct RankWait {
    std::uint64_t calls = 0;          // complete calls the rank took part in
    std::uint64_t last = 0;           // ... in which it arrived last
    std::uint64_t nxn_calls = 0;      // ... that were Allgather(v)/Allreduce
    double wait_nxn_s = 0;            // Σ Wait at N×N
    std::uint64_t reduce_root_calls = 0;
    double early_reduce_s = 0;        // Σ Early Reduce while root
};

// Ranks first..last (inclusive).
struct RankRange {
    int first = 0;
    int last = 0;
    bool operator==(const RankRange&) const = default;
};

struct IncompleteCall {
    std::string comm;
    std::int64_t seq = 0;
    std::string collective;
    int comm_size = 0;
    std::vector<RankRange> missing;   // ranks in the communicator, ascending
};

struct Analysis {
    std::string directory;
    RunMeta meta;
    std::uint64_t rows = 0;
    double first_arrival_s = 0;
    double last_exit_s = 0;
    double time_in_calls_s = 0;       // Σ (exit − arrival) over rows
    std::vector<SiteStats> sites;     // busiest (most calls) first
    std::map<int, RankWait> ranks;    // by world rank
    std::vector<IncompleteCall> incomplete;  // the first few, for the report
    std::uint64_t incomplete_total = 0;
    bool has_tau() const { return meta.alpha_s && meta.beta_s_per_byte; }
};

// How many arrival-delay vectors per site are kept for the heat maps (at most twice this,
// thinned by doubling the stride).
inline constexpr std::size_t max_sampled_calls = 2000;

// Reads `calls` (stream) with the given meta. Throws std::runtime_error on malformed input.
Analysis analyze(std::istream& calls, const std::string& calls_name, RunMeta meta);
// Reads DIR/calls.csv and DIR/meta.txt (meta.txt optional: without it τ is unknown).
Analysis analyze_directory(const std::string& dir);

struct SummaryOptions {
    std::size_t top_sites = 10;  // call sites listed; the rest are folded into one line
};
std::string format_summary(const Analysis& analysis, const SummaryOptions& options = {});
// The text the library writes to DIR/summary.txt and `papshim-report DIR` prints.
std::string summarize_directory(const std::string& dir);

// ---- a dead job's trace --------------------------------------------------------------------

// DIR holds spill files (.papshim-rank-N.bin/.index) and its meta.txt does not say that a
// merge completed (finalized=1 or recovered=1): the job died, or its merge at MPI_Finalize
// was cut short or failed. A calls.csv there is not this run's whole trace.
bool needs_recovery(const std::string& dir);
// Merges DIR's spill files into calls.csv and trace.json (keeping the spill files) with the
// run's predictor settings from meta.txt, and rewrites meta.txt with records= and the keys
// that say how each rank's records ended (docs/trace-format.md, "After a crash"), which
// format_summary() then reports. Refuses a directory without spill files and one whose
// meta.txt says MPI_Finalize merged it, and one whose claim (papshim.lock) names a process
// that still runs on this host, or a process on another host unless `asked` (--recover: the
// user says that job has ended). Releases the claim of a trace it recovered. Throws
// std::runtime_error with a one-line message. A long merge's progress lines go to `progress`.
trace::MergeResult recover_directory(const std::string& dir, bool asked = false,
                                     const trace::MergeProgress::Print& progress = {});

// Writes the plot input for tools/report/papshim_plot.py into `out_dir`:
//   plot-sites.csv  site,collective,callsite,function,calls,ranks,sample_stride,omega_stride
//   plot-data.csv   site,call,rank,value_ms  (rank -1: ω of that call; else arrival delay)
// for the `top_sites` busiest sites. Throws std::runtime_error if a file cannot be written.
void write_plot_data(const Analysis& analysis, const std::string& out_dir,
                     std::size_t top_sites);

}  // namespace papshim::report
