#include "papshim/runtime.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "papshim/callsite.hpp"
#include "papshim/clock.hpp"
#include "papshim/report.hpp"

extern char** environ;

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

std::mutex contexts_lock;               // guards live_contexts and the ordinal counter
std::set<CommContext*> live_contexts;
std::uint32_t led_communicators = 0;    // communicators this process created as rank 0

// Thread-local one-entry cache of the last context; `generation` invalidates it when any
// context is freed (a handle may be reused by a new communicator).
std::atomic<std::uint64_t> generation{0};
struct LastContext {
    MPI_Comm comm = MPI_COMM_NULL;
    CommContext* ctx = nullptr;
    std::uint64_t generation = ~std::uint64_t{0};
};
thread_local LastContext last_context;

std::vector<std::string> op_names;
std::vector<MPI_Op> op_handles;
std::vector<std::string> algorithm_table{"native"};
AlgorithmNames known_names;
std::array<bool, collective_count> configured_native{};

void free_context(CommContext* ctx) {
    {
        std::lock_guard guard(contexts_lock);
        live_contexts.erase(ctx);
    }
    generation.fetch_add(1, std::memory_order_release);
    if (ctx->node != MPI_COMM_NULL) PMPI_Comm_free(&ctx->node);
    if (ctx->priv != MPI_COMM_NULL) PMPI_Comm_free(&ctx->priv);
    delete ctx;
}

int delete_attribute(MPI_Comm, int, void* value, void*) {
    free_context(static_cast<CommContext*>(value));
    return MPI_SUCCESS;
}

void verbose(int level, const std::string& line) {
    if (state().config.verbose >= level) fmt::print(stderr, "papshim: {}\n", line);
}

std::vector<std::string> environment_names() {
    std::vector<std::string> names;
    for (char** e = environ; e && *e; ++e) {
        std::string entry(*e);
        names.push_back(entry.substr(0, entry.find('=')));
    }
    return names;
}

// Every rank takes part; the lowest rank with a problem prints one line, all ranks exit.
[[noreturn]] void stop_job(MPI_Comm comm, const std::string& line, bool mine) {
    if (mine) fmt::print(stderr, "papshim: {}\n", line);
    std::fflush(stderr);
    PMPI_Barrier(comm);
    PMPI_Finalize();
    std::_Exit(2);
}

// Lowest rank for which `bad` holds, or INT_MAX.
int lowest_rank_with(MPI_Comm comm, int rank, bool bad) {
    int candidate = bad ? rank : INT_MAX, lowest = INT_MAX;
    PMPI_Allreduce(&candidate, &lowest, 1, MPI_INT, MPI_MIN, comm);
    return lowest;
}

void check_configuration(State& s, const ParseResult& parsed) {
    const int rank = s.world_rank;
    if (int bad = lowest_rank_with(s.world, rank, parsed.error.has_value()); bad != INT_MAX)
        stop_job(s.world, parsed.error ? parsed.error->message : "", bad == rank);

    // Rank 0's canonical configuration against everyone's, variable by variable.
    auto mine = parsed.config->canonical();
    std::string joined;
    for (const auto& l : mine) joined += l + '\n';
    const std::string reference = broadcast_from_rank0(s.world, joined);
    std::string difference;
    if (reference != joined) {
        std::size_t i = 0;
        std::string line;
        std::istringstream ref(reference);
        while (std::getline(ref, line) && i < mine.size() && line == mine[i]) ++i;
        auto eq = mine[i].find('=');
        std::string var = mine[i].substr(0, eq);
        difference = fmt::format("{} differs between ranks: rank 0 has '{}', rank {} has '{}'; every rank must use "
                                 "the same value", var, line.substr(std::min(line.size(), eq + 1)), rank,
                                 mine[i].substr(eq + 1));
    }
    if (int bad = lowest_rank_with(s.world, rank, !difference.empty()); bad != INT_MAX)
        stop_job(s.world, difference, bad == rank);
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

void write_meta(const State& s, long long records) {
    std::ofstream meta(s.config.trace_dir + "/meta.txt");
    meta << fmt::format("papshim_version={}\nmpi={}\nworld_size={}\nmode={}\ncallsite_depth={}\n"
                        "alpha_s={:.6e}\nbeta_s_per_byte={:.6e}\nclock_max_rtt_s={:.6e}\ntimestamps={}\nrecords={}\n",
                        PAPSHIM_VERSION, PAPSHIM_MPI_NAME, s.world_size, mode_name(s.config.mode),
                        s.config.callsite_depth, s.link.alpha, s.link.beta, s.clock_max_rtt, s.tick_source, records);
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

void register_ops() {
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

}  // namespace

State& state() {
    static State s;
    return s;
}

double now() { return clock::local_now() + state().clock_offset; }

bool tracing() { return trace_enabled.load(std::memory_order_relaxed); }

std::string broadcast_from_rank0(MPI_Comm comm, const std::string& value) {
    int rank = 0;
    PMPI_Comm_rank(comm, &rank);
    int length = int(value.size());
    PMPI_Bcast(&length, 1, MPI_INT, 0, comm);
    std::string reference = rank == 0 ? value : std::string(std::size_t(length), '\0');
    PMPI_Bcast(reference.data(), length, MPI_CHAR, 0, comm);
    return reference;
}

bool records_in(Mode mode) {
    if (!tracing()) return false;
    return mode == Mode::profile || (mode == Mode::dispatch && state().config.mode == Mode::dispatch);
}

bool always_native(Collective collective) {
    return configured_native[std::size_t(collective)] && !state().any_override.load(std::memory_order_relaxed);
}

bool valid_algorithm_name(Collective collective, std::string_view name) {
    return valid_algorithm(collective, name, known_names);
}

void set_algorithm(CommContext& ctx, Collective collective, std::string name) {
    state().any_override.store(true);
    std::lock_guard guard(ctx.lock);
    ctx.algorithm[std::size_t(collective)] = std::move(name);
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

void initialise(const AlgorithmNames& names) {
    State& s = state();
    if (s.initialised) return;
    PMPI_Comm_dup(MPI_COMM_WORLD, &s.world);
    PMPI_Comm_set_errhandler(s.world, MPI_ERRORS_RETURN);
    PMPI_Comm_rank(s.world, &s.world_rank);
    PMPI_Comm_size(s.world, &s.world_size);

    auto parsed = parse_config([](const char* name) { return std::getenv(name); }, environment_names(), names);
    check_configuration(s, parsed);
    s.config = *parsed.config;
    for (const auto& per_collective : names)
        for (const auto& n : per_collective)
            if (std::find(algorithm_table.begin(), algorithm_table.end(), n) == algorithm_table.end())
                algorithm_table.push_back(n);
    register_ops();
    known_names = names;
    for (int c = 0; c < collective_count; ++c) {
        const std::string& chosen = s.config.algorithm[std::size_t(c)];
        configured_native[std::size_t(c)] = chosen == "native" || (chosen == "auto" && names[std::size_t(c)].empty());
    }
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_attribute, &s.keyval, nullptr);

    // Clock and link model are needed by tracing and by `auto`; measured in every mode
    // but off, so that papshim_set_mode can switch later without a collective.
    if (s.config.mode != Mode::off) {
        s.tick_source = clock::select_tick_source();
        auto sync = clock::synchronise(s.world);
        s.clock_offset = sync.offset;
        s.clock_max_rtt = sync.max_rtt;
        s.link = sync.link;
    }
    if (s.config.tracing()) open_trace(s);
    s.initialised = true;
    if (s.world_rank == 0)
        verbose(1, fmt::format("{} ranks, mode {}, alpha {:.2e} s, beta {:.2e} s/B, clock rtt {:.2e} s{}",
                               s.world_size, mode_name(s.config.mode), s.link.alpha, s.link.beta, s.clock_max_rtt,
                               tracing() ? ", tracing to " + s.config.trace_dir : ""));
    current_mode.store(s.config.mode);
}

void finalise() {
    State& s = state();
    if (!s.initialised) return;
    current_mode.store(Mode::off);
    finish_trace(s);
    // Free every context still alive (the user's communicators that were never freed).
    std::vector<CommContext*> remaining;
    {
        std::lock_guard guard(contexts_lock);
        remaining.assign(live_contexts.begin(), live_contexts.end());
    }
    for (CommContext* ctx : remaining) PMPI_Comm_delete_attr(ctx->user, s.keyval);
    PMPI_Comm_free_keyval(&s.keyval);
    PMPI_Comm_free(&s.world);
    s.initialised = false;
}

CommContext& context(MPI_Comm comm) {
    State& s = state();
    LastContext& last = last_context;
    const auto gen = generation.load(std::memory_order_acquire);
    if (last.comm == comm && last.generation == gen) return *last.ctx;

    void* value = nullptr;
    int found = 0;
    PMPI_Comm_get_attr(comm, s.keyval, &value, &found);
    auto* ctx = static_cast<CommContext*>(value);
    if (!found) {
        // First use: every rank reaches this in the same collective call (MPI orders
        // collectives on a communicator), so the duplicate and the broadcast match.
        ctx = new CommContext;
        ctx->user = comm;
        int inter = 0;
        PMPI_Comm_test_inter(comm, &inter);
        ctx->inter = inter != 0;
        PMPI_Comm_size(comm, &ctx->size);
        PMPI_Comm_rank(comm, &ctx->rank);
        PMPI_Comm_dup(comm, &ctx->priv);
        PMPI_Comm_set_errhandler(ctx->priv, MPI_ERRORS_RETURN);
        int same = MPI_UNEQUAL;
        PMPI_Comm_compare(comm, MPI_COMM_WORLD, &same);
        if (same == MPI_IDENT) {
            ctx->id = trace::world_comm;
        } else if (ctx->inter) {
            // Local group's id only; records of inter-communicators are not matched across groups.
            std::lock_guard guard(contexts_lock);
            ctx->id = trace::comm_id(s.world_rank, led_communicators++);
        } else {
            std::uint64_t id = 0;
            if (ctx->rank == 0) {
                std::lock_guard guard(contexts_lock);
                id = trace::comm_id(s.world_rank, led_communicators++);
            }
            PMPI_Bcast(&id, 1, MPI_UINT64_T, 0, ctx->priv);
            ctx->id = id;
        }
        {
            std::lock_guard guard(contexts_lock);
            live_contexts.insert(ctx);
        }
        PMPI_Comm_set_attr(comm, s.keyval, ctx);
        if (s.config.verbose >= 2 && !ctx->inter) {
            // Every rank has the same verbosity, so this extra collective is taken everywhere.
            int node_rank = 0, leaders = 0;
            PMPI_Comm_rank(node_communicator(*ctx), &node_rank);
            int leader = node_rank == 0 ? 1 : 0;
            PMPI_Allreduce(&leader, &leaders, 1, MPI_INT, MPI_SUM, ctx->priv);
            if (ctx->rank == 0)
                fmt::print(stderr, "papshim: new communicator {} ({} ranks on {} node{})\n", trace::comm_label(ctx->id),
                           ctx->size, leaders, leaders == 1 ? "" : "s");
        }
    }
    last = {comm, ctx, gen};
    return *ctx;
}

MPI_Comm node_communicator(CommContext& ctx) {
    std::lock_guard guard(ctx.lock);
    if (ctx.node == MPI_COMM_NULL && !ctx.inter) {
        PMPI_Comm_split_type(ctx.priv, MPI_COMM_TYPE_SHARED, ctx.rank, MPI_INFO_NULL, &ctx.node);
        PMPI_Comm_set_errhandler(ctx.node, MPI_ERRORS_RETURN);
    }
    return ctx.node;
}

CommContext* existing_context(MPI_Comm comm) {
    void* value = nullptr;
    int found = 0;
    PMPI_Comm_get_attr(comm, state().keyval, &value, &found);
    return found ? static_cast<CommContext*>(value) : nullptr;
}

std::string_view algorithm_for(CommContext& ctx, Collective collective) {
    if (state().any_override.load(std::memory_order_relaxed)) {
        std::lock_guard guard(ctx.lock);
        if (!ctx.algorithm[std::size_t(collective)].empty()) return ctx.algorithm[std::size_t(collective)];
    }
    return state().config.algorithm[std::size_t(collective)];
}

}  // namespace papshim::runtime
