// Process-wide state of the shim: configuration, the global clock, per-communicator
// contexts and the trace writer. Everything here is set up once in MPI_Init and torn
// down in MPI_Finalize; intercepted calls only read it (contexts and the trace are
// guarded for MPI_THREAD_MULTIPLE applications).
#pragma once

#include <mpi.h>

#include <array>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "papshim/algorithms.hpp"
#include "papshim/clock.hpp"
#include "papshim/config.hpp"
#include "papshim/node_shared.hpp"
#include "papshim/planner.hpp"
#include "papshim/trace.hpp"
#include "papshim/waiting.hpp"

// For the thread-locals every intercepted call touches: papshim is loaded when the program
// starts (LD_PRELOAD, or linked), never dlopen()ed, so they can sit in the static TLS block
// and cost one %fs-relative load instead of a __tls_get_addr call. They must also be
// constant-initialised and trivially destructible: otherwise the compiler guards them with a
// per-thread init flag of the default TLS model, and every access calls __tls_get_addr again.
#define PAPSHIM_STARTUP_TLS [[gnu::tls_model("initial-exec")]] constinit

namespace papshim::runtime {

// The communicator's private state, stored as an MPI attribute and freed with it.
struct CommContext {
    MPI_Comm user = MPI_COMM_NULL;
    // Private duplicate: the shim's traffic never meets the user's. Read it through
    // private_comm(): profile mode sends nothing of its own, so it makes none.
    MPI_Comm private_dup = MPI_COMM_NULL;
    MPI_Comm node = MPI_COMM_NULL;   // ranks of the private duplicate sharing this node's memory; see node_communicator()
    // Whether papshim has what it needs of its own here (run_natively): a communicator MPI
    // could not make for it (MPICH's 2048 communicator ids, shared with the application's)
    // makes every later call on this communicator native, as on every member alike.
    enum class Own : std::uint8_t { usable, failed, settled };  // settled: the policy says native too
    std::atomic<Own> own{Own::usable};
    bool native_only() const { return own.load(std::memory_order_acquire) != Own::usable; }
    std::unique_ptr<node::NodeView> nodes;  // see node_view()
    std::atomic<node::NodeView*> nodes_ready{nullptr};  // `nodes` once made: node_view() without a lock
    std::atomic<int> node_count{0};  // its nodes once layout_of() knows them (0: not yet)
    // Prediction and plans (DESIGN §5): when this communicator exchanges predictions (from the
    // algorithms chosen for it, so identical on every member), and its planner.
    plan::Policy policy;
    std::unique_ptr<plan::Planner> planner;
    // α, β between this communicator's rank 0 and last rank (measure_link); written once on
    // the calling thread before the first exchange, read by the helper thread after it.
    std::optional<LinkModel> link;
    long planned_calls = 0;    // calls that ran a plan made for them
    long unplanned_calls = 0;  // calls of a plan-using algorithm without a matching plan
    long declined_calls = 0;   // trusted plans auto left to MPI (auto_runs_round_planner)
    long mispredicted_calls = 0;  // followed calls with an agreed plan made for another signature
    // The last schedule built from a plan (a persistent pattern plans the same vector again).
    struct PlannedSchedule {
        schedule::Builder build = nullptr;
        int root = -1;
        std::int64_t step_ns = 0;
        int segments = 0;  // BuildInput::segments
        bool commutative = true;  // BuildInput::commutative
        std::vector<std::uint64_t> block_bytes;
        std::vector<std::int64_t> arrival_ns;
        schedule::Schedule schedule;
    } planned;
    int size = 1;
    int rank = 0;
    int world_rank = 0;              // this process's, copied here for the trace's hot path
    bool inter = false;
    std::uint64_t id = 0;            // trace::comm_id, identical on every member
    std::uint64_t next_seq = 0;
    // What ran the last call of each collective here (papshim_get_last_algorithm).
    std::array<std::atomic<const char*>, collective_count> last_algorithm{};
    // Per-collective algorithm chosen with papshim_set_algorithm (null: the configured one).
    // The names are static (the algorithm tables' literals), so the helper thread may read a
    // choice while the application changes it (a view of either name stays valid).
    std::array<std::atomic<const char*>, collective_count> algorithm{};
    // Calls of fewer bytes than this run native without the handler (the fast path; kAllCalls:
    // every call), from the algorithm chosen here and the policy (update_policy).
    std::array<std::atomic<std::uint64_t>, collective_count> native_below{};
    // Calls of more than 0 and at most this many bytes that `auto` runs as papshim's own
    // although they lie below native_below (auto_reduction_small; 0: none). Set by
    // update_policy and where the communicator's layout becomes known, each in the same call
    // on every member (update_own_up_to); a change bumps hot::generation.
    std::array<std::atomic<std::uint64_t>, collective_count> own_up_to{};
    // Such calls sent to MPI while the communicator had no node view
    // (kAutoSmallCallsBeforeView); only a collective's calling thread touches it.
    std::uint64_t small_calls_before_view = 0;
    // Schedules without predicted arrivals are pure functions of (algorithm, p, rank, root,
    // op commutativity, pieces of a size-cut algorithm), so each is built once per
    // communicator; size-cut ones are dropped past kSizeCutSchedules (schedule_for).
    struct ScheduleKey {
        schedule::Builder build = nullptr;
        int root = -1;
        bool commutative = true;
        int segments = 0;  // BuildInput::segments
        bool operator<(const ScheduleKey& other) const {
            auto tie = [](const ScheduleKey& k) {
                return std::tuple(reinterpret_cast<std::uintptr_t>(k.build), k.root, k.commutative, k.segments);
            };
            return tie(*this) < tie(other);
        }
    };
    std::map<ScheduleKey, schedule::Schedule> schedules;
    // A size-cut schedule holds a transfer per piece (up to ~200 KB at 1024 pieces), one per
    // root and piece count: a rotating root over many ranks would keep p of them.
    static constexpr std::size_t kSizeCutSchedules = 16;
    // auto's classic algorithm per Allgatherv layout (predict::block_hash of the block bytes):
    // fastest_classic_allgatherv costs 0.16 ms at 64 ranks. Up to kClassicLayouts, the oldest
    // dropped first; only the thread calling a collective on this communicator touches it.
    static constexpr std::size_t kClassicLayouts = 8;
    std::vector<std::pair<std::uint64_t, const AllgatherAlgorithm*>> classic_by_layout;
    std::mutex lock;                 // guards `schedules` and `algorithm`

    // The schedule of `key` for this rank, built on first use.
    const schedule::Schedule& schedule_for(const ScheduleKey& key);
};

struct State {
    Config config;
    bool initialised = false;
    int world_rank = 0;
    int world_size = 1;
    MPI_Comm world = MPI_COMM_NULL;  // the shim's private duplicate of MPI_COMM_WORLD
    // A duplicate of MPI_COMM_SELF whose errors return: what a caller's handles are checked on
    // (interpose/collectives.cpp, valid_type and valid_op).
    MPI_Comm self = MPI_COMM_NULL;
    double clock_offset = 0.0;       // local_now() + offset = global time
    double clock_max_rtt = 0.0;
    NodeLoad node_load;              // this rank's node at MPI_Init (measured in every mode but off)
    // Each world rank's node, named by its lowest world rank (map_world_nodes at MPI_Init,
    // where `auto` may ask for layouts): a communicator's layout without a message. Empty:
    // not made, or MPI could not make it on some rank.
    std::vector<int> node_of_world;
    const char* tick_source = "steady_clock";  // what trace timestamps are read from
    clock::ClockPoint init_point;    // a point on both clocks at MPI_Init
    double ns_per_tick = 1.0;        // measured over MPI_Init's clock synchronisation
    bool thread_multiple = false;    // every rank has MPI_THREAD_MULTIPLE (helper thread possible)
    LinkModel link;
    int keyval = MPI_KEYVAL_INVALID;
    int native_calls_keyval = MPI_KEYVAL_INVALID;  // remember_native_call's attribute
};

// Function-local, so it exists before any static initialiser asks for it; inline, because
// every intercepted call reads it. Only for code linked into libpapshim itself: with hidden
// visibility, a program that links the shared library and calls this gets a State of its own.
// Never destroyed: made at MPI_Init, a static would be destroyed before an exit handler the
// program registered earlier, and one that calls MPI_Finalize would then read freed memory.
[[gnu::always_inline]] inline State& state() {
    static State& s = *new State;
    return s;
}

// The mode in force (papshim_set_mode may change it between collectives). `off` until
// MPI_Init has finished and after MPI_Finalize has started.
inline std::atomic<Mode> current_mode{Mode::off};
inline Mode mode() { return current_mode.load(std::memory_order_relaxed); }

// What the fast path reads on every intercepted call, defined here so that the handlers
// inline it: as calls into the runtime library they took about 70 of the 213 instructions
// papshim added to an 8-byte Allreduce it forwarded (callgrind; docs/benchmarks.md, "The
// forwarded call's cost").
namespace hot {
// Whether the trace is open (tracing()).
inline std::atomic<bool> trace_enabled{false};
// Some communicator has a papshim_set_algorithm choice.
inline std::atomic<bool> any_override{false};
// native_below's thresholds from the configuration (configure()), for communicators without
// a papshim_set_algorithm choice.
inline std::array<std::uint64_t, collective_count> configured_native_below{};
// CommContext::own_up_to as a communicator of the world's processes (a duplicate of the world)
// would have it under the configured algorithms (open_world_group_windows, in MPI_Init): such
// a communicator without a context takes the full path for these calls, which makes its
// context at the same call on every member; 0: no window.
inline std::array<std::uint64_t, collective_count> world_group_own_up_to{};
// Bumped (invalidate()) wherever an answer the hot path keeps per thread may change: a
// context freed or parked for its communicator's free (the handle may come back for a new
// communicator), the mode, the trace opened or closed, a communicator's algorithm choice or
// thresholds (update_policy: a context made, papshim_set_algorithm, run_natively). The keepers
// store the value they read before looking up what they keep; a stale one is a miss, never a
// wrong answer.
inline std::atomic<std::uint64_t> generation{0};
inline void invalidate() { generation.fetch_add(1, std::memory_order_release); }
// Thread-local one-entry cache of the last context, behind `generation`. Empty until its
// first lookup: its generation starts at a value the counter never reaches.
struct LastContext {
    MPI_Comm comm{};  // not MPI_COMM_NULL: Open MPI's is no constant expression (PAPSHIM_STARTUP_TLS)
    CommContext* ctx = nullptr;
    std::uint64_t generation = ~std::uint64_t{0};
};
static_assert(std::is_trivially_destructible_v<LastContext>, "PAPSHIM_STARTUP_TLS");
PAPSHIM_STARTUP_TLS inline thread_local LastContext last_context;
// The cached context of `comm`, or nullptr when the cache holds another (or none).
inline CommContext* cached_context(MPI_Comm comm) {
    const LastContext& last = last_context;
    return last.comm == comm && last.generation == generation.load(std::memory_order_acquire) ? last.ctx : nullptr;
}
}  // namespace hot

// Every change of mode goes through here: the hot path's kept answers depend on it.
inline void switch_mode(Mode mode) {
    current_mode.store(mode);
    hot::invalidate();
}

// Called by MPI_Init/MPI_Init_thread after PMPI_Init succeeded. Validates the configuration
// collectively; on invalid or inconsistent configuration prints one line and exits.
// `thread_multiple`: MPI provides MPI_THREAD_MULTIPLE here (the helper thread may run if every rank has it).
void initialise(const AlgorithmNames& names, bool thread_multiple);
// Called by MPI_Finalize before PMPI_Finalize. The trace is written and every context freed
// when PMPI_Finalize deletes papshim's attribute of MPI_COMM_SELF, after the application's
// (whose callbacks' collectives are recorded, and run natively); here if that attribute could
// not be set, or if `self_attributes_deleted` is false (MPI sessions are open, and MPI deletes
// them at the last session's end, when MPI_COMM_WORLD is gone).
void finalise(bool self_attributes_deleted);
// Called by MPI_Finalize after PMPI_Finalize: if MPI never deleted that attribute, saves this
// rank's records for papshim-report --recover and says so.
void after_mpi_finalize();

// The context of `comm`, created on first use (collective over `comm`: it duplicates it).
CommContext& context(MPI_Comm comm);
// The ranks of the context's communicator on this node (MPI_COMM_TYPE_SHARED), created on
// first use: collective over the communicator, so callers must decide to ask for it
// identically on every rank (as every dispatch decision is). Freed with the context.
// MPI_COMM_NULL where MPI could not make it, which may be on some nodes only: node_view()
// makes every member agree.
MPI_Comm node_communicator(CommContext& ctx);
// Whether the communicator's ranks are not all on one node (layout_of(): may be collective
// on first use).
bool spans_nodes(CommContext& ctx);

// The communicator seen node by node, with the node's shared-memory segment; created on
// first use, collective over the communicator like node_communicator(). Freed with the context.
// Null where MPI could not make its communicators or window on some node (every member
// learns it in the same call): the context then runs natively (run_natively).
node::NodeView* node_view(CommContext& ctx);
// Its NodeLayout (one node, one rank per node, or mixed): from State::node_of_world where
// every member is in this process's world (no message), else from node_view(), collective on
// first use like it. One node where node_view() has none (the call then runs natively).
NodeLayout layout_of(CommContext& ctx);
// The layout if layout_of() or node_view() has found it, or nullopt; never collective (for
// the helper thread).
std::optional<NodeLayout> layout_if_known(CommContext& ctx);

// PAPSHIM_PREDICTOR, _EMA_ALPHA and _SMA_WINDOW as the predictor's settings: the online
// planners' and the trace merge's offline prediction alike.
predict::Settings predictor_settings(const Config& config);
// The planner of `ctx`, created on first use; null when nothing on `ctx` uses plans.
plan::Planner* planner(CommContext& ctx);
// Recomputes ctx.policy from the algorithms chosen for it (context creation, set_algorithm).
void update_policy(CommContext& ctx);
// Whether `choice` for `collective` can run plans in this process, so that its communicator
// exchanges predictions on every call: it plans, and if it needs the helper thread
// (needs_helper_thread), the thread runs. The same on every rank.
bool plans_here(Collective collective, std::string_view choice);
// τ, one segment of `segment_bytes` over one link of `ctx`: PAPSHIM_TAU_US, or α + β·segment_bytes
// from the communicator's link model (measure_link; MPI_Init's world model until it is
// measured), identical on every rank. The segment is what a PAP-aware step moves: a rank's
// share of the vector for a reduction, a rank's block for Allgather, the largest block for
// Allgatherv (docs/algorithms/bdr.md §6). Never communicates (the helper thread calls it).
std::int64_t tau_ns(const CommContext& ctx, std::uint64_t segment_bytes);
// Clairvoyant's round length d for pieces of `piece_bytes`: one piece over one link and its
// reduction, α + piece_bytes·(β + γ) (spec §4.8; papshim-sim's d), or PAPSHIM_TAU_US.
// Identical on every rank and never communicates, as tau_ns.
std::int64_t reduction_round_ns(const CommContext& ctx, double piece_bytes);
// The link model of `ctx`: its own once measure_link measured it, MPI_Init's world model
// before; identical on every rank (rank 0's measurement, broadcast).
const LinkModel& link_of(const CommContext& ctx);
// Measures ctx's link model once, at the first call the planner follows on it (collective:
// every rank reaches that call alike), unless PAPSHIM_TAU_US fixes τ or the communicator's
// rank 0 and last rank are the world's, whose model MPI_Init measured.
void measure_link(CommContext& ctx);
// This rank's clock ticks as nanoseconds on the job-global clock.
std::int64_t global_ns(std::uint64_t ticks);

// The context's private duplicate of its communicator, made now if it has none yet
// (collective: by the thread of a collective call that every member makes, as every
// decision that needs it is the same on every member). Contexts made in dispatch mode have
// it from the start; profile mode's have none until a call needs one. MPI_COMM_NULL where
// MPI could not make it (every member alike): the context then runs natively.
MPI_Comm private_comm(CommContext& ctx);
// Every later call on ctx's communicator runs natively, from the call in progress on (which
// must not have sent any message of papshim's algorithm yet): MPI could not make a
// communicator or window papshim needs there (`error`, `what`), which every member learns in
// the same call. Says so once per process. The policy follows at settle_native().
void run_natively(CommContext& ctx, int error, std::string_view what);
// After a call in which run_natively() was called: its policy becomes native's too (the fast
// path), where no caller still reads the old one.
void settle_native(CommContext& ctx);
// The context if `comm` already has one (no communication), else nullptr.
CommContext* look_up_context(MPI_Comm comm);
inline CommContext* existing_context(MPI_Comm comm) {
    CommContext* const cached = hot::cached_context(comm);
    return cached ? cached : look_up_context(comm);
}
// Around PMPI_Comm_free/PMPI_Comm_disconnect of `comm` (the hooks): collectives that delete
// callbacks call on it meanwhile keep (or get) a context that is freed by end_free() once
// the free has returned, instead of one attached to the dying communicator. begin_free says
// whether end_free must follow (not before MPI_Init or after MPI_Finalize).
bool begin_free(MPI_Comm comm);
void end_free();
// A call that went to MPI on the fast path of a communicator without a context: remembered
// in an attribute of its own (one bit per collective, no allocation), so that
// papshim_get_last_algorithm can say "native" without the context, whose creation is
// collective (a duplicate and a broadcast: 0.3-0.4 ms per communicator over TCP, which an
// application that splits communicators in its loop, like LAMMPS's RCB balancing, pays often).
void remember_native_call(MPI_Comm comm, Collective collective);
// A call within the world's small window (hot::world_group_own_up_to) on a communicator without
// a context, counted in remember_native_call's attribute (which it also sets): the count so
// far, this call included, or 0 where the communicator does not hold the world's processes
// (asked once per communicator). Local; the same on every member, which make the same calls.
std::uint64_t count_world_window_call(MPI_Comm comm, Collective collective);
bool native_call_seen(MPI_Comm comm, Collective collective);

// The algorithm configured for `collective` on this communicator.
std::string_view algorithm_for(CommContext& ctx, Collective collective);

// Whether calls made in `mode` are recorded: always in profile mode (if the trace is
// open); in dispatch mode only when the job was configured as dispatch with a trace dir.
inline bool records_in(Mode mode) {
    if (!hot::trace_enabled.load(std::memory_order_relaxed)) return false;
    return mode == Mode::profile || (mode == Mode::dispatch && state().config.mode == Mode::dispatch);
}
// The fast path: calls of `collective` on `comm` of fewer than `bytes` bytes forward to native
// without the handler (kAllCalls: every call; 0: none). From the algorithm chosen for `comm`
// (configured, or papshim_set_algorithm's), so identical on every member. `ctx`: the
// context holding a papshim_set_algorithm choice, if that is what decided.
inline constexpr std::uint64_t kAllCalls = ~std::uint64_t(0);
struct NativeBelow {
    std::uint64_t bytes = 0;
    CommContext* ctx = nullptr;
};
NativeBelow chosen_native_below(Collective collective, MPI_Comm comm);  // some communicator has a choice
inline NativeBelow native_below(Collective collective, MPI_Comm comm) {
    if (!hot::any_override.load(std::memory_order_relaxed))
        return {hot::configured_native_below[std::size_t(collective)], nullptr};
    return chosen_native_below(collective, comm);
}
// CommContext::own_up_to from the algorithms chosen for the communicator and its layout where
// that is known without a message; called by update_policy and where the layout is found.
void update_own_up_to(CommContext& ctx);
// hot::world_group_own_up_to from the configuration, the node load and the world's map.
void open_world_group_windows(State& s);
// Whether `comm` holds the world's processes (congruent or similar to MPI_COMM_WORLD): local.
bool of_world_group(MPI_Comm comm);
// The same for an algorithm name on a communicator of `policy` (configuration, update_policy).
std::uint64_t native_below(Collective collective, std::string_view choice, const plan::Policy& policy);
// Rank 0's `value` on every rank of `comm` (collective).
std::string broadcast_from_rank0(MPI_Comm comm, const std::string& value);

// papshim_set_algorithm: validated and agreed on by the caller; stores the override.
void set_algorithm(CommContext& ctx, Collective collective, std::string name);
bool valid_algorithm_name(Collective collective, std::string_view name);

// Tracing: the call site of the current call and the record sink.
inline bool tracing() { return hot::trace_enabled.load(std::memory_order_relaxed); }
// Records one call; identifies its call site from `caller` under the same lock.
void record(const trace::Record& r, const void* caller);
std::uint8_t algorithm_index(std::string_view name);
std::int16_t op_index(MPI_Op op);
double now();  // global clock

}  // namespace papshim::runtime
