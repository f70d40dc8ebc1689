// The trace sink of the running job: per-thread chunks of the writer's pool (no lock on the
// hot path), the call-site table, and the trace directory's life from MPI_Init to the merge
// at MPI_Finalize, or to a save when the job ends early: MPI_Abort, SIGTERM, exit() without
// MPI_Finalize (format: docs/trace-format.md).
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include "internal.hpp"
#include "papshim/callsite.hpp"
#include "papshim/clock.hpp"
#include "papshim/report.hpp"

namespace papshim::runtime {
namespace {

// How long an early end waits for the writer thread: a batch system sends SIGKILL some
// time after SIGTERM (Slurm's KillWait, 30 s by default).
constexpr int save_timeout_ms = 10'000;

std::mutex trace_lock;                  // guards sites
std::unique_ptr<CallSiteTable> sites;
// Never destroyed: its thread may still run while the process exits without MPI_Finalize.
trace::Writer& writer = *new trace::Writer;
std::atomic<bool> saving{false};        // a save (MPI_Abort, SIGTERM, exit()) is running
std::atomic<bool> ending{false};        // MPI_Abort or exit() saved: the process goes down
PAPSHIM_STARTUP_TLS thread_local bool saving_here = false;  // ... on this thread
pid_t tracing_process = 0;              // a forked child has no writer thread to wait for
clock::ClockPoint trace_start;          // first point of the tick fit
struct sigaction previous_sigterm {};
bool sigterm_installed = false;

// Each thread fills a chunk of its own, so the hot path takes no lock; a per-thread cache
// maps callers to sites, so the common case takes no table lookup either.
struct CachedSite {
    const void* caller = nullptr;
    std::uint32_t site = 0;
};
struct ThreadRecords;
// The hot path reaches this thread's records through a plain pointer (PAPSHIM_STARTUP_TLS);
// the records themselves have a destructor, so they live in a thread_local of their own,
// set up by the thread's first record.
PAPSHIM_STARTUP_TLS thread_local ThreadRecords* thread_records = nullptr;
// Set once the thread's records are destroyed (thread exit): a collective called later on
// this thread (another thread_local's destructor, an atexit handler) is not recorded.
PAPSHIM_STARTUP_TLS thread_local bool thread_records_gone = false;
struct ThreadRecords {
    trace::Writer::Producer producer{writer};  // hands its chunk to the writer at thread exit
    std::array<CachedSite, 16> sites{};
    ~ThreadRecords() {
        thread_records = nullptr;
        thread_records_gone = true;
    }
};
// Null once this thread's records are gone.
ThreadRecords* attach_thread_records() {
    if (thread_records_gone) return nullptr;
    thread_local ThreadRecords records;
    thread_records = &records;
    return &records;
}

std::vector<std::string> op_names;
std::vector<MPI_Op> op_handles;
std::vector<std::string> algorithm_table{"native"};

trace::Fit fit_now(const State& s) {
    const auto fit = clock::fit_ticks(trace_start, clock::point_now(), s.clock_offset);
    return {fit.tick0, fit.seconds0, fit.seconds_per_tick};
}

// The index is rewritten by the writer thread, possibly while a signal handler waits for
// it: never block on the table's lock, keep the last copy instead.
bool copy_sites(std::vector<trace::SiteInfo>& out) {
    std::unique_lock guard(trace_lock, std::try_to_lock);
    if (!guard.owns_lock() || !sites) return false;
    out.clear();
    for (const auto& site : sites->sites())
        out.push_back({site.key, site.function, site.location, site.module_path, site.offset});
    return true;
}

trace::Names names() {
    trace::Names n;
    for (int c = 0; c < collective_count; ++c) n.collectives.emplace_back(collective_name(Collective(c)));
    n.algorithms = algorithm_table;
    n.ops = op_names;
    return n;
}

// Saves the trace when the process ends early; returns whether this call did it. A SIGTERM
// the application's handler survives is no end: a later MPI_Abort, exit() or SIGTERM saves
// again, with the records made since. A signal on a thread that is saving skips its save
// (the interrupted one cannot go on until the handler returns); another thread waits for
// the running save first, so a SIGTERM does not end the process in the middle of an abort's
// save. After MPI_Abort's or exit()'s save no other is made: the process is going down, and
// the launcher's SIGTERM would only relabel the save.
bool save_early(trace::Saved why) {
    if (!hot::trace_enabled.load() || ::getpid() != tracing_process || ending.load() || saving_here) return false;
    for (int waited = 0; saving.exchange(true); ++waited) {
        if (waited >= save_timeout_ms) return false;
        ::poll(nullptr, 0, 1);  // async-signal-safe, as in Writer::save
    }
    const bool last = ending.load();
    saving_here = true;
    const bool saved = !last && writer.save(why, save_timeout_ms);
    if (why != trace::Saved::sigterm) ending = true;
    saving_here = false;
    saving = false;
    return saved;
}

// SIGTERM: the writer thread writes the records and the index (this handler only posts a
// semaphore and polls an atomic, both async-signal-safe), then the application's own
// disposition runs: its handler, or the default action (termination by SIGTERM).
void on_sigterm(int signal, siginfo_t* info, void* context) {
    const int saved_errno = errno;
    save_early(trace::Saved::sigterm);
    if (previous_sigterm.sa_handler == SIG_DFL) {
        ::sigaction(SIGTERM, &previous_sigterm, nullptr);
        ::raise(SIGTERM);  // blocked while this handler runs: delivered on return
    } else if (previous_sigterm.sa_handler == SIG_IGN) {
        // nothing to chain to
    } else if (previous_sigterm.sa_flags & SA_SIGINFO) {
        previous_sigterm.sa_sigaction(signal, info, context);
    } else {
        previous_sigterm.sa_handler(signal);
    }
    errno = saved_errno;
}

void install_sigterm() {
    struct sigaction current {};
    if (::sigaction(SIGTERM, nullptr, &current) != 0 || current.sa_handler == SIG_IGN) return;  // ignored: keep it so
    struct sigaction ours {};
    ours.sa_sigaction = on_sigterm;
    ours.sa_flags = SA_SIGINFO | SA_RESTART;
    ::sigemptyset(&ours.sa_mask);
    previous_sigterm = current;
    sigterm_installed = ::sigaction(SIGTERM, &ours, nullptr) == 0;
}

void uninstall_sigterm() {
    struct sigaction current {};
    if (sigterm_installed && ::sigaction(SIGTERM, nullptr, &current) == 0 && current.sa_sigaction == on_sigterm)
        ::sigaction(SIGTERM, &previous_sigterm, nullptr);
    sigterm_installed = false;
}

// Rank 0 writes it at MPI_Init already, so a job that dies leaves it; MPI_Finalize adds
// the record count and finalized=1 once calls.csv is in place (papshim-report recovers a
// trace whose meta.txt lacks it). Replaced whole, never cut.
void write_meta(const State& s, long long records) {
    std::string meta = fmt::format("papshim_version={}\nmpi={}\nworld_size={}\nmode={}\ncallsite_depth={}\n"
                                   "alpha_s={:.6e}\nbeta_s_per_byte={:.6e}\nclock_max_rtt_s={:.6e}\ntimestamps={}\n"
                                   "network={}\nnode_size={}\npredictor={}\nema_alpha={}\nsma_window={}\n",
                                   PAPSHIM_VERSION, PAPSHIM_MPI_NAME, s.world_size, mode_name(s.config.mode),
                                   s.config.callsite_depth, s.link.alpha, s.link.beta, s.clock_max_rtt, s.tick_source,
                                   s.config.network.empty() ? "unspecified" : s.config.network, s.config.node_size,
                                   s.config.predictor, s.config.ema_alpha, s.config.sma_window);
    if (s.node_load.cpus > 0) meta += fmt::format("node_ranks={}\nnode_cpus={}\n", s.node_load.ranks, s.node_load.cpus);
    if (records >= 0) meta += fmt::format("records={}\nfinalized=1\n", records);
    std::string error;
    if (!trace::replace_file(s.config.trace_dir + "/meta.txt", meta, error))
        fmt::print(stderr, "papshim: warning: {}\n", error);
}

}  // namespace


void record(const trace::Record& r, const void* caller) {
    ThreadRecords* const records = thread_records ? thread_records : attach_thread_records();
    if (!records) return;
    ThreadRecords& local = *records;
    CachedSite& slot = local.sites[(reinterpret_cast<std::uintptr_t>(caller) >> 4) % local.sites.size()];
    std::uint32_t site = slot.site;
    if (slot.caller != caller) {
        std::lock_guard guard(trace_lock);
        if (!sites) return;
        bool reusable = false;
        site = sites->identify(caller, reusable);
        if (reusable) slot = {caller, site};
    }
    local.producer.add(r, site);
}

void save_trace_before_abort() { save_early(trace::Saved::abort); }
void save_trace_before_fast_exit() { save_early(trace::Saved::fast_exit); }

std::uint8_t algorithm_index(std::string_view name) {
    if (name == "native") return 0;  // nearly every call; spares the loop (~50 instructions a call)
    for (std::size_t i = 0; i < algorithm_table.size(); ++i)
        if (algorithm_table[i] == name) return std::uint8_t(i);
    return 0;
}

std::int16_t op_index(MPI_Op op) {
    for (std::size_t i = 0; i < op_handles.size(); ++i)
        if (op_handles[i] == op) return std::int16_t(i);
    return -2;
}

namespace detail {

void register_names(const AlgorithmNames& names) {
    for (const auto& per_collective : names)
        for (const auto& n : per_collective)
            if (std::find(algorithm_table.begin(), algorithm_table.end(), n) == algorithm_table.end())
                algorithm_table.push_back(n);
    if (!op_handles.empty()) return;
    const std::pair<MPI_Op, const char*> ops[] = {
        {MPI_SUM, "MPI_SUM"},   {MPI_PROD, "MPI_PROD"}, {MPI_MAX, "MPI_MAX"},       {MPI_MIN, "MPI_MIN"},
        {MPI_LAND, "MPI_LAND"}, {MPI_LOR, "MPI_LOR"},   {MPI_LXOR, "MPI_LXOR"},     {MPI_BAND, "MPI_BAND"},
        {MPI_BOR, "MPI_BOR"},   {MPI_BXOR, "MPI_BXOR"}, {MPI_MAXLOC, "MPI_MAXLOC"}, {MPI_MINLOC, "MPI_MINLOC"},
        {MPI_REPLACE, "MPI_REPLACE"}};
    for (auto [op, name] : ops) {
        op_handles.push_back(op);
        op_names.emplace_back(name);
    }
}

// Rank 0 claims the trace directory for this job, or the next free one after it when
// another job's trace holds it or it holds files of papshim's names that are not a papshim
// trace (trace::claim_directory); every rank gets the one claimed, or an empty string and
// `error` when none could be. `replaces_trace` (rank 0): the directory holds an earlier
// papshim trace.
std::string claimed_directory(const State& s, std::string& error, bool& replaces_trace) {
    std::string claimed;
    replaces_trace = false;
    if (s.world_rank == 0) {
        const trace::Claim claim = trace::claim_directory(s.config.trace_dir, trace::this_process());
        claimed = claim.dir;
        error = claim.error;
        replaces_trace = claim.replaces_trace;
        for (const auto& held : claim.skipped)
            fmt::print(stderr, "papshim: {} holds the trace of another job, running or ended before its merge: "
                               "left as it is\n", held);
        for (std::size_t i = 0; i < claim.foreign.size(); ++i) {
            // One line each; the last says where the job traces (when no held directory's line does).
            const bool last = i + 1 == claim.foreign.size() && claim.skipped.empty() && !claimed.empty();
            fmt::print(stderr, "papshim: {} but is not a papshim trace (no meta.txt written by papshim): left as it "
                               "is{}\n", claim.foreign[i], last ? fmt::format("; this job traces into {}", claimed) : "");
        }
        if (!claim.skipped.empty() && !claimed.empty())
            fmt::print(stderr, "papshim: this job traces into {}; if no job uses {} any more, papshim-report --recover "
                               "{} recovers its trace, or remove {}/{}\n", claimed, s.config.trace_dir,
                       s.config.trace_dir, s.config.trace_dir, trace::claim_file);
    }
    claimed = broadcast_from_rank0(s.world, claimed);
    if (claimed.empty() && s.world_rank != 0) error = "rank 0 could not claim a trace directory";
    return claimed;
}

void open_trace(State& s) {
    std::string error;
    bool replaces_trace = false;
    const std::string claimed = claimed_directory(s, error, replaces_trace);
    bool ok = !claimed.empty();
    if (ok) {
        s.config.trace_dir = claimed;
        std::error_code created;  // on every rank: a node's view of a shared file system may lag
        std::filesystem::create_directories(s.config.trace_dir, created);
        if (created) error = fmt::format("cannot create directory {}: {}", s.config.trace_dir, created.message());
        ok = !created;
    }
    sites = std::make_unique<CallSiteTable>(s.config.callsite_depth);
    trace_start = clock::point_now();
    const State* job = &s;
    ok = ok && writer.open(s.config.trace_dir, s.world_rank, s.config.trace_buffer, names(),
                           {[job] { return fit_now(*job); }, copy_sites}, error);
    int bad = lowest_rank_with(s.world, s.world_rank, !ok);
    if (bad != INT_MAX) {
        if (bad == s.world_rank)
            fmt::print(stderr, "papshim: warning: tracing disabled: {} (PAPSHIM_TRACE_DIR='{}'); the application "
                               "runs on without a trace\n", error, s.config.trace_dir);
        std::string ignored;
        writer.finish({}, {}, ignored);  // no rank traces: close and remove this rank's files
        if (!claimed.empty()) {
            std::remove(trace::spill_path(s.config.trace_dir, s.world_rank).c_str());
            std::remove(trace::index_path(s.config.trace_dir, s.world_rank).c_str());
            if (s.world_rank == 0) trace::release_directory(s.config.trace_dir);
        }
        sites.reset();
        return;
    }
    if (s.world_rank == 0) {
        // An earlier trace's merged files and plots would pass for this run's (its plots
        // always, its calls.csv if this job dies before its merge). Only a directory that is
        // recognisably papshim's trace has them removed (claim_directory went past any other).
        if (replaces_trace) {
            trace::remove_earlier_outputs(s.config.trace_dir);
            fmt::print(stderr, "papshim: replacing the earlier trace in {}\n", s.config.trace_dir);
        }
        write_meta(s, -1);
    }
    tracing_process = ::getpid();
    hot::trace_enabled = true;
    hot::invalidate();
    install_sigterm();
    // exit() without MPI_Finalize (an MPI error handler, the application giving up): save too.
    static bool at_exit_registered = false;
    // quick_exit() runs its own handlers, not atexit's: a program that ends with it keeps its
    // records too (saved as by exit()).
    if (!at_exit_registered)
        at_exit_registered = std::atexit([] { save_early(trace::Saved::exit); }) == 0 &&
                             std::at_quick_exit([] { save_early(trace::Saved::exit); }) == 0;
}

void finish_trace(State& s) {
    if (!hot::trace_enabled.load()) return;
    uninstall_sigterm();
    std::string error;
    std::vector<trace::SiteInfo> site_infos;
    {
        std::lock_guard guard(trace_lock);
        hot::trace_enabled = false;  // records from here on (none in a correct program) are dropped
        hot::invalidate();
        sites->symbolise();
        for (const auto& site : sites->sites())
            site_infos.push_back({site.key, site.function, site.location, site.module_path, site.offset});
    }
    bool ok = writer.finish(std::move(site_infos), fit_now(s), error);
    if (!ok) fmt::print(stderr, "papshim: warning: {}\n", error);
    int bad = lowest_rank_with(s.world, s.world_rank, !ok);  // also: every rank's files are complete
    if (s.world_rank != 0) return;
    if (bad != INT_MAX) {
        fmt::print(stderr, "papshim: warning: the trace in {} is incomplete (rank {} failed); calls.csv not written; "
                           "papshim-report {} recovers what was written\n",
                   s.config.trace_dir, bad, s.config.trace_dir);
        return;
    }
    long long records = 0;
    try {
        trace::MergeOptions options;
        options.predictor = predictor_settings(s.config);
        // A long merge (about 2.4 s per 400k records) says how far it is, as the closing line
        // does whatever PAPSHIM_VERBOSE says: the user waits on MPI_Finalize.
        options.progress = [](const std::string& line) { fmt::print(stderr, "papshim: {}\n", line); };
        records = trace::merge(s.config.trace_dir, s.world_size, options).records;
    } catch (const std::exception& e) {
        fmt::print(stderr, "papshim: warning: trace merge failed: {}; the spill files are kept: papshim-report {} "
                           "recovers what they hold\n", e.what(), s.config.trace_dir);
        return;
    }
    // finalized=1 before the spill files go: a job killed in between leaves a complete
    // calls.csv, or spill files that papshim-report recovers, never half of them.
    write_meta(s, records);
    trace::remove_rank_files(s.config.trace_dir, s.world_size);
    if (records > trace::default_max_json_events)
        fmt::print(stderr, "papshim: trace.json holds the first {} of {} calls; calls.csv holds all\n",
                   trace::default_max_json_events, records);
    long long calls = -1;  // complete and incomplete, from the report's analysis
    try {
        const report::Analysis analysis = report::analyze_directory(s.config.trace_dir);
        calls = 0;
        for (const auto& site : analysis.sites) calls += (long long)(site.calls + site.incomplete);
        std::string failed;
        if (!trace::replace_file(s.config.trace_dir + "/summary.txt", report::format_summary(analysis), failed))
            throw std::runtime_error(failed);
    } catch (const std::exception& e) {
        fmt::print(stderr, "papshim: warning: summary.txt not written: {}\n", e.what());
    }
    // Last: a next job may now claim the directory and remove what this one merged there.
    trace::release_directory(s.config.trace_dir);
    // Whatever PAPSHIM_VERBOSE says: where the trace went, and how to read it.
    fmt::print(stderr, "papshim: trace of {} in {} (papshim-report {})\n",
               calls >= 0 ? fmt::format("{} calls ({} records)", calls, records) : fmt::format("{} records", records),
               s.config.trace_dir, s.config.trace_dir);
}

}  // namespace detail
}  // namespace papshim::runtime
