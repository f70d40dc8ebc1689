// The trace sink of the running job: per-thread record buffers (no lock on the hot path),
// the call-site table, and the trace directory's life from MPI_Init to the merge at
// MPI_Finalize (format: docs/trace-format.md).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#include "internal.hpp"
#include "papshim/callsite.hpp"
#include "papshim/clock.hpp"
#include "papshim/report.hpp"

namespace papshim::runtime {
namespace {

std::mutex trace_lock;                  // guards sites and writer
std::unique_ptr<CallSiteTable> sites;
trace::Writer writer;
std::atomic<bool> trace_enabled{false};
clock::ClockPoint trace_start;          // first point of the tick fit

// Each thread collects its records in a small buffer of its own, so the hot path takes no
// lock; a full buffer, the thread's exit and MPI_Finalize move them to the writer.
struct CachedSite {
    const void* caller = nullptr;
    std::uint32_t site = 0;
};
struct ThreadRecords;
std::set<ThreadRecords*> thread_buffers;  // guarded by trace_lock

struct ThreadRecords {
    std::array<trace::Record, 256> records;
    std::size_t count = 0;
    std::array<CachedSite, 16> sites{};  // caller -> site, the common case takes no table lookup

    ThreadRecords() {
        std::lock_guard guard(trace_lock);
        thread_buffers.insert(this);
    }
    ~ThreadRecords() {
        std::lock_guard guard(trace_lock);
        flush_locked();
        thread_buffers.erase(this);
    }
    void flush_locked() {  // caller holds trace_lock
        if (trace_enabled.load(std::memory_order_relaxed))
            for (std::size_t i = 0; i < count; ++i) writer.add(records[i]);
        count = 0;
    }
};
thread_local ThreadRecords thread_records;

std::vector<std::string> op_names;
std::vector<MPI_Op> op_handles;
std::vector<std::string> algorithm_table{"native"};

void write_meta(const State& s, long long records) {
    std::ofstream meta(s.config.trace_dir + "/meta.txt");
    meta << fmt::format("papshim_version={}\nmpi={}\nworld_size={}\nmode={}\ncallsite_depth={}\n"
                        "alpha_s={:.6e}\nbeta_s_per_byte={:.6e}\nclock_max_rtt_s={:.6e}\ntimestamps={}\nrecords={}\n"
                        "network={}\nnode_size={}\n",
                        PAPSHIM_VERSION, PAPSHIM_MPI_NAME, s.world_size, mode_name(s.config.mode),
                        s.config.callsite_depth, s.link.alpha, s.link.beta, s.clock_max_rtt, s.tick_source, records,
                        s.config.network.empty() ? "unspecified" : s.config.network, s.config.node_size);
}

}  // namespace

bool tracing() { return trace_enabled.load(std::memory_order_relaxed); }

bool records_in(Mode mode) {
    if (!tracing()) return false;
    return mode == Mode::profile || (mode == Mode::dispatch && state().config.mode == Mode::dispatch);
}

void record(trace::Record r, const void* caller) {
    ThreadRecords& local = thread_records;
    CachedSite& slot = local.sites[(reinterpret_cast<std::uintptr_t>(caller) >> 4) % local.sites.size()];
    if (slot.caller == caller) {
        r.site = slot.site;
    } else {
        std::lock_guard guard(trace_lock);
        if (!sites) return;
        bool reusable = false;
        r.site = sites->identify(caller, reusable);
        if (reusable) slot = {caller, r.site};
    }
    local.records[local.count++] = r;
    if (local.count == local.records.size()) {
        std::lock_guard guard(trace_lock);
        local.flush_locked();
    }
}

std::uint8_t algorithm_index(std::string_view name) {
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

void open_trace(State& s) {
    std::string error;
    std::error_code created;
    std::filesystem::create_directories(s.config.trace_dir, created);
    bool ok = !created && writer.open(s.config.trace_dir, s.world_rank, s.config.trace_buffer, error);
    if (created) error = fmt::format("cannot create directory {}: {}", s.config.trace_dir, created.message());
    int bad = lowest_rank_with(s.world, s.world_rank, !ok);
    if (bad != INT_MAX) {
        if (bad == s.world_rank)
            fmt::print(stderr, "papshim: warning: tracing disabled: {} (PAPSHIM_TRACE_DIR='{}'); the application "
                               "runs on without a trace\n", error, s.config.trace_dir);
        if (ok) {  // close and remove this rank's file: no rank traces
            std::string ignored;
            writer.finish({}, {}, ignored);
            std::remove(trace::spill_path(s.config.trace_dir, s.world_rank).c_str());
            std::remove(trace::sites_path(s.config.trace_dir, s.world_rank).c_str());
        }
        return;
    }
    sites = std::make_unique<CallSiteTable>(s.config.callsite_depth);
    trace_start = clock::point_now();
    trace_enabled = true;
}

void finish_trace(State& s) {
    if (!trace_enabled.load()) return;
    std::string error;
    std::vector<trace::SiteInfo> site_infos;
    {
        std::lock_guard guard(trace_lock);
        for (ThreadRecords* buffer : thread_buffers) buffer->flush_locked();
        trace_enabled = false;  // records from here on (none in a correct program) are dropped
        sites->symbolise();
        for (const auto& site : sites->sites()) site_infos.push_back({site.key, site.function, site.location});
    }
    const auto fit = clock::fit_ticks(trace_start, clock::point_now(), s.clock_offset);
    bool ok = writer.finish(site_infos, fit, error);
    if (!ok) fmt::print(stderr, "papshim: warning: {}\n", error);
    int bad = lowest_rank_with(s.world, s.world_rank, !ok);  // also: every rank's files are complete
    if (s.world_rank != 0) return;
    if (bad != INT_MAX) {
        fmt::print(stderr, "papshim: warning: the trace in {} is incomplete (rank {} failed); calls.csv not written\n",
                   s.config.trace_dir, bad);
        return;
    }
    trace::Names names;
    for (int c = 0; c < collective_count; ++c) names.collectives.emplace_back(collective_name(Collective(c)));
    names.algorithms = algorithm_table;
    names.ops = op_names;
    long long records = trace::merge(s.config.trace_dir, s.world_size, names, error);
    if (records < 0) {
        fmt::print(stderr, "papshim: warning: trace merge failed: {}\n", error);
        return;
    }
    write_meta(s, records);
    if (records > trace::default_max_json_events)
        fmt::print(stderr, "papshim: trace.json holds the first {} of {} calls; calls.csv holds all\n",
                   trace::default_max_json_events, records);
    try {
        std::ofstream(s.config.trace_dir + "/summary.txt") << report::summarize_directory(s.config.trace_dir);
    } catch (const std::exception& e) {
        fmt::print(stderr, "papshim: warning: summary.txt not written: {}\n", e.what());
    }
    verbose(1, fmt::format("trace of {} records written to {}", records, s.config.trace_dir));
}

}  // namespace detail
}  // namespace papshim::runtime
