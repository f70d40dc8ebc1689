// The shim's life in a job: MPI_Init (configuration checked on every rank, clocks and link
// model, trace opened) and MPI_Finalize (trace merged, contexts freed). Contexts live in
// contexts.cpp, the trace sink in trace_sink.cpp.
#include "papshim/runtime.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <sstream>

#include "internal.hpp"
#include "papshim/clock.hpp"
#include "papshim/progress.hpp"
#include "papshim/waiting.hpp"

extern char** environ;

namespace papshim::runtime {
namespace {

AlgorithmNames known_names;

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

void check_configuration(State& s, const ParseResult& parsed) {
    const int rank = s.world_rank;
    if (int bad = detail::lowest_rank_with(s.world, rank, parsed.error.has_value()); bad != INT_MAX)
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
    if (int bad = detail::lowest_rank_with(s.world, rank, !difference.empty()); bad != INT_MAX)
        stop_job(s.world, difference, bad == rank);
    // Every rank has rank 0's configuration now, so rank 0's word holds for all.
    if (rank == 0 && parsed.warning) fmt::print(stderr, "papshim: warning: {}\n", *parsed.warning);
}

// Whether the configured algorithm of some collective satisfies `test(collective, name)`.
template <class Test>
bool any_configured(const Config& config, Test&& test) {
    for (int c = 0; c < collective_count; ++c)
        if (test(Collective(c), std::string_view(config.algorithm[std::size_t(c)]))) return true;
    return false;
}

// The configuration chooses an algorithm that plans from predicted arrivals for some
// collective, and can run its plans here (plans_here: BDR and BSLB only with the helper thread).
bool plans_any(const Config& config) { return any_configured(config, plans_here); }  // not auto

// The configuration chooses BDR or BSLB for some collective: their plans need the helper
// thread (needs_helper_thread).
bool needs_any_helper_thread(const Config& config) { return any_configured(config, needs_helper_thread); }

// `auto` is configured for Allgather or Allgatherv: it runs BDR where the helper thread can
// post BDR's background receives, that is where MPI already provides MPI_THREAD_MULTIPLE
// (`auto` does not raise the level itself; PAPSHIM_HELPER_THREAD=always does).
bool auto_gathers(const Config& config) {
    return any_configured(config, [](Collective c, std::string_view name) { return gathers(c) && name == "auto"; });
}

}  // namespace

namespace detail {

int lowest_rank_with(MPI_Comm comm, int rank, bool bad) {
    int candidate = bad ? rank : INT_MAX, lowest = INT_MAX;
    PMPI_Allreduce(&candidate, &lowest, 1, MPI_INT, MPI_MIN, comm);
    return lowest;
}

void verbose(int level, const std::string& line) {
    if (state().config.verbose >= level) fmt::print(stderr, "papshim: {}\n", line);
}

std::string early_sends_label(const LinkModel& link) {
    if (link.early_send_bytes == 0) return "wait";
    if (link.early_send_bytes >= kPushedChunkBytes) return "buffered";
    return fmt::format("buffered up to {:g} KiB", double(link.early_send_bytes) / 1024);
}

std::vector<int> world_ranks_of(const State& s, MPI_Comm comm, std::span<const int> ranks) {
    std::vector<int> world_ranks(ranks.size(), MPI_UNDEFINED);
    MPI_Group group = MPI_GROUP_NULL, world = MPI_GROUP_NULL;
    PMPI_Comm_group(comm, &group);
    PMPI_Comm_group(s.world, &world);
    PMPI_Group_translate_ranks(group, int(ranks.size()), ranks.data(), world, world_ranks.data());
    PMPI_Group_free(&group);
    PMPI_Group_free(&world);
    return world_ranks;
}

}  // namespace detail

double now() { return clock::local_now() + state().clock_offset; }

std::string broadcast_from_rank0(MPI_Comm comm, const std::string& value) {
    int rank = 0;
    PMPI_Comm_rank(comm, &rank);
    int length = int(value.size());
    PMPI_Bcast(&length, 1, MPI_INT, 0, comm);
    std::string reference = rank == 0 ? value : std::string(std::size_t(length), '\0');
    PMPI_Bcast(reference.data(), length, MPI_CHAR, 0, comm);
    return reference;
}

NativeBelow chosen_native_below(Collective collective, MPI_Comm comm) {
    // Some communicator has a papshim_set_algorithm choice: it is this one's only if its
    // context holds one. That context exists on every member or on none (created collectively),
    // so every rank decides alike; a process-wide flag alone would differ between the members
    // of `comm` that did and did not take part in the choice, and they would deadlock.
    const std::size_t c = std::size_t(collective);
    CommContext* ctx = existing_context(comm);
    if (!ctx) return {hot::configured_native_below[c], nullptr};
    return {ctx->native_below[c].load(std::memory_order_acquire), ctx};
}

bool valid_algorithm_name(Collective collective, std::string_view name) {
    return valid_algorithm(collective, name, known_names);
}

namespace {
void arm_finish_at_self_deletion();  // below, with finalise()
}  // namespace

void initialise(const AlgorithmNames& names, bool thread_multiple) {
    State& s = state();
    if (s.initialised) return;
    PMPI_Comm_dup(MPI_COMM_WORLD, &s.world);
    PMPI_Comm_set_errhandler(s.world, MPI_ERRORS_RETURN);
    PMPI_Comm_dup(MPI_COMM_SELF, &s.self);
    PMPI_Comm_set_errhandler(s.self, MPI_ERRORS_RETURN);
    PMPI_Comm_rank(s.world, &s.world_rank);
    PMPI_Comm_size(s.world, &s.world_size);
    // Ranks may ask for different thread levels (MPI 4.0 §11.2.1). Whether the helper thread
    // runs decides which calls exchange and plan, which must be the same on every rank: it
    // runs only where every rank has MPI_THREAD_MULTIPLE.
    int multiple_here = thread_multiple ? 1 : 0, multiple_everywhere = 0;
    PMPI_Allreduce(&multiple_here, &multiple_everywhere, 1, MPI_INT, MPI_LAND, s.world);
    s.thread_multiple = multiple_everywhere != 0;

    auto parsed = parse_config([](const char* name) { return std::getenv(name); }, environment_names(), names);
    check_configuration(s, parsed);
    s.config = *parsed.config;
    detail::register_names(names);
    known_names = names;
    // Started before the policies: whether it runs decides whether BDR and BSLB can plan.
    if (s.config.mode == Mode::dispatch && s.config.helper_thread &&
        (s.config.helper_thread_always || needs_any_helper_thread(s.config) || auto_gathers(s.config)))
        plan::Progress::instance().start(s.thread_multiple);
    // The policy every communicator of more than one rank gets without a per-communicator choice.
    plan::Policy configured_policy;
    if (plans_any(s.config)) configured_policy.exchange = plan::Exchange::always;
    for (int c = 0; c < collective_count; ++c) {
        const std::string& chosen = s.config.algorithm[std::size_t(c)];
        hot::configured_native_below[std::size_t(c)] = native_below(Collective(c), chosen, configured_policy);
    }
    hot::invalidate();
    detail::create_context_keyval(s);

    // Clock and link model are needed by tracing and by `auto`; measured in every mode
    // but off, so that papshim_set_mode can switch later without a collective.
    if (s.config.mode != Mode::off) {
        s.tick_source = clock::select_tick_source();
        s.init_point = clock::point_now();
        auto sync = clock::synchronise(s.world);
        const clock::ClockPoint after = clock::point_now();
        if (clock::use_tsc && after.tick > s.init_point.tick)
            s.ns_per_tick = (after.local - s.init_point.local) * 1e9 / double(after.tick - s.init_point.tick);
        s.clock_offset = sync.offset;
        s.clock_max_rtt = sync.max_rtt;
        s.link = sync.link;
    }
    // An explicit PAPSHIM_WAIT holds in every mode (papshim_set_mode can leave off later).
    // auto measures the node (collective: every rank has the same mode and PAPSHIM_WAIT,
    // check_configuration) where papshim may run, and only where MPI's wait spins: Open MPI
    // yields by itself on a node mpiexec knows is oversubscribed, and its wait beat papshim's
    // test-and-yield loop there (docs/benchmarks.md, "Waiting on an oversubscribed node").
    const bool mpi_yields_itself = std::string_view(PAPSHIM_MPI_NAME) == "openmpi";
    const bool measure_waits = s.config.wait == "auto" && !mpi_yields_itself && s.config.mode != Mode::off;
    // The trace's meta.txt says whether rank 0's node was oversubscribed (the report warns),
    // and auto's one-node Reduce/Allreduce rules depend on it (auto_reduction_candidate): in
    // every mode but off (papshim_set_mode may switch to dispatch later; off then leaves the
    // rules for a core per rank).
    if (s.config.mode != Mode::off) {
        s.node_load = node_load(s.world);
        if (s.config.node_cpus > 0) s.node_load.cpus = s.config.node_cpus;
    }
    if (s.config.wait == "yield")
        set_wait_policy(WaitPolicy::yield);
    else if (measure_waits)
        set_wait_policy(measured_wait_policy(s.node_load));
    // The node algorithms' waits spin on a core of their own, as MPI's do there (node::Backoff).
    set_spin_on_own_core(s.config.wait != "yield" && s.node_load.cpus > 0 && !s.node_load.oversubscribed());
    if (s.config.tracing()) detail::open_trace(s);
    s.initialised = true;
    if (s.world_rank == 0)
        detail::verbose(1, fmt::format("{} ranks, mode {}, alpha {:.2e} s, beta {:.2e} s/B, early sends {}, "
                                       "clock rtt {:.2e} s, waits {}{}",
                                       s.world_size, mode_name(s.config.mode), s.link.alpha, s.link.beta,
                                       detail::early_sends_label(s.link), s.clock_max_rtt,
                                       wait_policy_name(wait_policy()),
                                       tracing() ? ", tracing to " + s.config.trace_dir : ""));
    switch_mode(s.config.mode);
    // MPI_COMM_WORLD's context now, inside a call that is collective and slow anyway: made
    // at its first collective instead, its duplicate cost that call 0.18-0.90 ms
    // (docs/benchmarks.md, "The first call's context, made in MPI_Init"). Only where calls
    // would make it: untraced dispatch of native-only choices never looks at a context.
    const bool all_native = std::all_of(hot::configured_native_below.begin(), hot::configured_native_below.end(),
                                        [](std::uint64_t below) { return below == kAllCalls; });
    // The world's nodes, wherever papshim may run its own algorithms (papshim_set_algorithm
    // can choose one later): a communicator's first call that asks for its layout then needs
    // no message for it (a node view made in that call cost 10-15 ms over an emulated
    // 1 Gbit/s network at 8 ranks).
    if (s.config.mode == Mode::dispatch) detail::map_world_nodes(s);
    open_world_group_windows(s);
    // PAPSHIM_SHM_SLOT=auto: from the largest node, the same on every rank (every rank holds
    // the same map, or none); the fixed 64 KiB where there is no map.
    if (s.config.shm_slot == 0) {
        std::vector<int> ranks_on(s.node_of_world.size(), 0);  // by the node's lowest world rank
        for (int node : s.node_of_world) ++ranks_on[std::size_t(node)];
        const int largest = ranks_on.empty() ? 0 : *std::ranges::max_element(ranks_on);
        s.config.shm_slot = largest > 0 ? shm_slot_for_node(largest) : kShmSlotMin;
    }
    if (s.config.mode == Mode::profile || (s.config.mode == Mode::dispatch && (tracing() || !all_native)))
        context(MPI_COMM_WORLD);
    arm_finish_at_self_deletion();
}

namespace {

// MPI_Finalize deletes MPI_COMM_SELF's attributes first, newest first, while MPI still works:
// libraries (HDF5, PETSc) close files and call collectives from those callbacks. papshim's own
// attribute there, set at the end of MPI_Init, is deleted after theirs: the trace is written
// from its callback, so that their calls are in it.
int self_keyval = MPI_KEYVAL_INVALID;
bool self_tracked = false;  // MPI_COMM_SELF is being freed (begin_free) during those callbacks

void finish(State& s) {
    switch_mode(Mode::off);
    detail::finish_trace(s);
    detail::free_remaining_contexts(s);  // completes exchanges in flight (the helper drives them)
    plan::Progress::instance().stop();
    PMPI_Comm_free_keyval(&s.keyval);
    PMPI_Comm_free_keyval(&s.native_calls_keyval);
    PMPI_Comm_free(&s.self);
    PMPI_Comm_free(&s.world);
    s.initialised = false;
}

int finish_at_self_deletion(MPI_Comm, int, void*, void*) {
    if (self_tracked) end_free();
    self_tracked = false;
    if (state().initialised) finish(state());
    return MPI_SUCCESS;
}

void arm_finish_at_self_deletion() {
    if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finish_at_self_deletion, &self_keyval, nullptr) != MPI_SUCCESS)
        return;
    if (PMPI_Comm_set_attr(MPI_COMM_SELF, self_keyval, nullptr) != MPI_SUCCESS) {
        PMPI_Comm_free_keyval(&self_keyval);
        self_keyval = MPI_KEYVAL_INVALID;
    }
}

}  // namespace

void finalise(bool self_attributes_deleted) {
    State& s = state();
    if (!s.initialised) return;
    if (self_keyval == MPI_KEYVAL_INVALID || !self_attributes_deleted) return finish(s);
    // Until papshim's attribute goes, calls are recorded (native: the helper thread may not
    // run into MPI_Finalize, so the planned algorithms stop here, alike on every rank).
    detail::retire_planners();
    plan::Progress::instance().stop();
    switch_mode(tracing() ? Mode::profile : Mode::off);
    self_tracked = begin_free(MPI_COMM_SELF);
}

void after_mpi_finalize() {
    State& s = state();
    if (!s.initialised) return;
    // An MPI that never deleted MPI_COMM_SELF's attributes: what papshim-report can recover.
    switch_mode(Mode::off);
    save_trace_before_abort();
    fmt::print(stderr, "papshim: MPI_Finalize did not delete MPI_COMM_SELF's attributes; the trace was not merged "
                       "(papshim-report --recover DIR merges what each rank saved)\n");
    s.initialised = false;
}

}  // namespace papshim::runtime
