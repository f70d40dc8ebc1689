// The four handlers: measure arrival, ask the dispatcher, run, record (DESIGN §2).
#include <algorithm>
#include <cassert>
#include <climits>
#include <cstddef>
#include <mutex>
#include <numeric>
#include <optional>
#include <span>
#include <type_traits>
#include <vector>

#include "builtin_ops.hpp"
#include "entry_points.hpp"
#include "quick_path.hpp"
#include "papshim/algorithms.hpp"
#include "papshim/clock.hpp"
#include "papshim/node_shared.hpp"
#include "papshim/progress.hpp"
#include "papshim/runtime.hpp"
#include "../src/schedule/message_exchange.hpp"

namespace papshim::interpose {
namespace {

using runtime::CommContext;

struct Outcome {
    int result = MPI_SUCCESS;
    std::string_view algorithm = "native";
    bool by_last_arriver = false;  // it ran a plan trusted for its last arriver only (Planning::last_plan)
};

// What MPI requires to match on every rank: it identifies the call for plans and records.
struct Shape {
    std::uint64_t bytes = 0;
    int root = -1;
    std::int16_t op = -1;
    std::uint64_t segment = 0;              // bytes of one PAP-aware step, for τ (0: bytes per rank)
    std::span<const std::uint64_t> blocks{};  // Allgatherv: every rank's block bytes
    // What one PAP-aware step moves, whose τ its algorithm plans with.
    std::uint64_t step_bytes(int ranks) const { return segment != 0 ? segment : bytes / std::uint64_t(ranks); }
};

// Whether `type` is a predefined datatype (MPI's builtin ops accept only those).
bool predefined(MPI_Datatype type) {
    int integers = 0, addresses = 0, types = 0, combiner = 0;
    return PMPI_Type_get_envelope(type, &integers, &addresses, &types, &combiner) == MPI_SUCCESS &&
           combiner == MPI_COMBINER_NAMED;
}

// The size of the last predefined datatype this thread passed. A loop passes the same type
// call after call, and PMPI_Type_size costs 30-45 instructions (callgrind, Open MPI and
// MPICH): an eighth to a quarter of profile mode's own cost. Only named types are kept: a user
// type's handle may be freed and come back for another type.
struct LastType {
    MPI_Datatype type{};
    int size = -1;  // none yet
};
static_assert(std::is_trivially_destructible_v<LastType>, "PAPSHIM_STARTUP_TLS");
PAPSHIM_STARTUP_TLS thread_local LastType last_type;

[[gnu::noinline]] int look_up_type_size(MPI_Datatype type) {
    int size = 0;
    if (PMPI_Type_size(type, &size) != MPI_SUCCESS) return 0;
    if (size >= 0 && predefined(type)) last_type = {type, size};
    return size;
}

// The algorithm's index in papshim's table: the same in every process, so it can name the
// algorithm in a planned call's tags.
std::size_t allgather_slot(const AllgatherAlgorithm& algorithm) {
    const std::size_t slot = std::size_t(&algorithm - allgather_algorithms().data());
    assert(slot < schedule::kPlannedAlgorithmSlots);
    return slot;
}

std::uint64_t type_size(MPI_Datatype type) {
    const LastType last = last_type;
    return std::uint64_t(last.size >= 0 && last.type == type ? last.size : look_up_type_size(type));
}

// Whether MPI accepts a caller's datatype or op handle, asked without raising an error. MPI's
// queries (MPI_Type_size, MPI_Op_commutative, ...) raise an invalid handle's error on
// MPI_COMM_WORLD, fatal by default, where the native collective raises it on the caller's
// communicator, whose handler may return it; so a call with an invalid handle goes native
// before papshim asks MPI anything about it. The probes are calls that take a communicator:
// papshim's duplicate of MPI_COMM_SELF, whose errors return. An empty MPI_Pack also refuses a
// type never committed, on both MPIs (MPI_Pack_size accepts one on Open MPI), which papshim's
// messages would meet only once some ranks had posted theirs. The last predefined type and op
// of this thread answer without a probe: a loop passes the same ones call after call.
[[gnu::noinline]] bool probe_type(MPI_Datatype type) {
    if (type == MPI_DATATYPE_NULL) return false;
    std::byte in{}, out{};
    int position = 0;
    if (PMPI_Pack(&in, 0, type, &out, 0, &position, runtime::state().self) != MPI_SUCCESS) return false;
    // A predefined type is kept as the last one (valid_type's answer without a probe): a
    // call that never asks its size (a named algorithm's) probed on every call.
    static_cast<void>(look_up_type_size(type));
    return true;
}

inline bool valid_type(MPI_Datatype type) {
    const LastType& last = last_type;
    return (last.size >= 0 && last.type == type) || probe_type(type);
}

struct LastOp {
    MPI_Op op{};
    bool set = false;
};
static_assert(std::is_trivially_destructible_v<LastOp>, "PAPSHIM_STARTUP_TLS");
PAPSHIM_STARTUP_TLS thread_local LastOp last_op;

[[gnu::noinline]] bool probe_op(MPI_Op op) {
    if (op == MPI_OP_NULL) return false;
    if (predefined_op(op)) {
        last_op = {op, true};
        return true;
    }
    // A user op: an empty Reduce on one rank checks the handle and calls nothing. Collectives
    // on one communicator must not run concurrently, hence the lock.
    static std::mutex probing;
    const std::lock_guard lock(probing);
    std::byte in{}, out{};
    return PMPI_Reduce(&in, &out, 0, MPI_BYTE, op, 0, runtime::state().self) == MPI_SUCCESS;
}

inline bool valid_op(MPI_Op op) {
    const LastOp& last = last_op;
    return (last.set && last.op == op) || probe_op(op);
}

// What a call's algorithm may plan with: this call's plan when every rank predicted this very
// call (the real signature equals the planned one: identical everywhere, since MPI requires
// matching arguments), the communicator's prediction guard, and τ.
struct Planning {
    const plan::Plan* plan = nullptr;
    const plan::Guard* guard = nullptr;
    std::int64_t tau_ns = 0;
    std::span<const std::uint64_t> blocks;  // Allgatherv: every rank's block bytes (BuildInput::block_bytes)
    std::uint64_t seq = 0;  // the planner's number of a followed call (Planner::seq), not the trace's
    // The planner that follows the call, set with guard (guard == &planner->guard()) where
    // a call is dispatched; run_reduction tells it whether auto ran a plan.
    plan::Planner* planner = nullptr;
    // A plan the guard trusts for its last arriver only (Guard::last_established), for an
    // algorithm that needs no more of it (ReductionAlgorithm::plans_by_last); else null.
    const plan::Plan* last_plan = nullptr;
};

void prepare_background(CommContext& ctx, plan::Planner& planner, const plan::Plan& plan, const plan::Guard& guard);

// Total bytes of a call whose size needs no context (a reduction's vector); none for
// arguments MPI would reject, which go through the handler to the native error.
constexpr std::uint64_t kSizeUnknown = ~std::uint64_t(0);
std::uint64_t vector_bytes(std::int64_t count, MPI_Datatype type) {
    return type == MPI_DATATYPE_NULL || count < 0 ? kSizeUnknown : std::uint64_t(count) * type_size(type);
}

// Inter-communicators' calls go to MPI whatever their size (handle(), after the size): a
// block size there is the other group's, and the root group's MPI_PROC_NULL ranks of a Reduce
// may pass any count and type, so the two groups must take the same path, and taking the full
// path on some ranks only would hang the context's duplicate.
bool inter_communicator(MPI_Comm comm) {
    int inter = 0;
    return PMPI_Comm_test_inter(comm, &inter) == MPI_SUCCESS && inter != 0;
}

// An Allgatherv's mean block in bytes, as choose_allgather reckons it (total / ranks); 0 on an
// inter-communicator, whose recvcounts has the other group's length.
template <class Count>
std::uint64_t mean_block_bytes(MPI_Comm comm, const Count* recvcounts, MPI_Datatype recvtype) {
    if (inter_communicator(comm)) return 0;
    if (!recvcounts || recvtype == MPI_DATATYPE_NULL) return kSizeUnknown;
    int ranks = 0;
    if (PMPI_Comm_size(comm, &ranks) != MPI_SUCCESS || ranks < 1) return kSizeUnknown;
    std::uint64_t elements = 0;
    for (int i = 0; i < ranks; ++i) {
        if (recvcounts[i] < 0) return kSizeUnknown;
        elements += std::uint64_t(recvcounts[i]);
    }
    return elements * type_size(recvtype) / std::uint64_t(ranks);
}

// The bytes whose τ the guard measures a followed call's arrival spread and prediction error
// in: the PAP-aware step's (Shape::step_bytes), but for an Allgatherv its mean block, not the
// largest that BDR's steps take. So `auto` plans BDR from a spread of 6τ of the mean block
// (Guard::kImbalanceFactor): at p = 8 with decreasing and half-full blocks, BDR beat the best
// classic algorithm at 10τ of the mean block under a staircase and with rank 0 late, and with
// decreasing blocks under a late last rank (half-full: 1.06x Sparbit's excess there); at 5τ
// it lost with decreasing blocks (docs/benchmarks.md, "Allgatherv: Sparbit or Bruck by the
// model"). A smaller τ also makes the guard's relative error larger on calls whose spread is
// under it, so it trusts balanced Allgatherv calls less often.
std::uint64_t guard_segment_bytes(Collective kind, const Shape& shape, int ranks) {
    return kind == Collective::allgatherv ? shape.bytes / std::uint64_t(ranks) : shape.step_bytes(ranks);
}

// The record of a call that ran: what every mode traces; handle() adds the prediction fields.
trace::Record call_record(Collective kind, const CommContext& ctx, const Shape& shape, std::uint64_t seq,
                          std::uint64_t arrival, std::uint64_t exit) {
    trace::Record r;
    r.arrival = arrival;
    r.exit = exit;
    r.bytes = shape.bytes;
    r.seq = seq;
    r.comm = ctx.id;
    r.rank = ctx.rank;
    r.world_rank = ctx.world_rank;
    r.comm_size = ctx.size;
    r.root = shape.root;
    r.collective = std::uint8_t(kind);
    r.op = shape.op;
    return r;
}

// What papshim_get_last_algorithm says after a call that went to MPI: through `ctx` when
// there is one, else (`remember`) an attribute of the communicator.
inline void note_native_call(Collective kind, MPI_Comm comm, CommContext* ctx, bool remember) {
    if (ctx) ctx->last_algorithm[std::size_t(kind)].store("native", std::memory_order_relaxed);
    else if (remember) runtime::remember_native_call(comm, kind);
}

// Profile mode: the native call between two timestamps, and its record. Every call in
// profile mode takes this path, so it does nothing else (docs/benchmarks.md, overhead). A
// communicator's first call makes its context, which agrees on an id with a broadcast: on
// arguments MPI rejects on this rank alone (valid_arguments, asked where this thread has no
// cached context), the call goes native without one, or that broadcast would meet the
// others' next collective.
template <class Native, class Describe, class ValidArguments>
int profile(Collective kind, MPI_Comm comm, const void* caller, Native&& native, Describe&& describe,
            ValidArguments&& valid_arguments) {
    const std::uint64_t arrival = clock::ticks();  // before context(), as in handle()
    CommContext* const cached = runtime::hot::cached_context(comm);
    if (!cached && !valid_arguments()) {
        note_native_call(kind, comm, runtime::existing_context(comm), true);
        return native();
    }
    CommContext& ctx = cached ? *cached : runtime::context(comm);
    const std::uint64_t seq = ctx.next_seq++;
    ctx.last_algorithm[std::size_t(kind)].store("native", std::memory_order_relaxed);
    const int result = native();
    const std::uint64_t exit = clock::ticks();
    if (result != MPI_SUCCESS || !runtime::tracing()) return result;
    if (const std::optional<Shape> shape = describe(ctx))
        runtime::record(call_record(kind, ctx, *shape, seq, arrival, exit), caller);
    return result;
}

// Keeps forwards()' answers for `comm` and `type` in this thread's quick_answer
// (quick_path.hpp), from the settings as they are after `generation` was read: the answer
// forwards() gives every call with these two until something bumps the generation. `ctx`:
// the communicator's context as forwards() had it (the cached one where it needed none), or
// null: calls below a threshold then report through an attribute, which the quick answer
// cannot write, so they keep taking the full path; calls native whatever their size report
// nowhere, and are kept.
[[gnu::noinline]] void keep_answer(MPI_Comm comm, MPI_Datatype type, CommContext* ctx, std::uint64_t generation) {
    const LastType last = last_type;
    const std::uint64_t size = last.type == type && last.size > 0 ? std::uint64_t(last.size) : 0;  // 0: unknown
    const bool chosen = ctx && runtime::hot::any_override.load(std::memory_order_relaxed);  // native_below's
    QuickAnswer answer{.comm = comm, .type = type, .generation = generation};
    for (std::size_t c = 0; c < std::size_t(collective_count); ++c) {
        const std::uint64_t below = chosen ? ctx->native_below[c].load(std::memory_order_acquire)
                                           : runtime::hot::configured_native_below[c];
        answer.report[c] = &unreported;
        if (below == runtime::kAllCalls) {
            answer.forward_span[c] = runtime::kAllCalls;
            if (chosen) answer.report[c] = &ctx->last_algorithm[c];
        } else if (below != 0 && ctx && size != 0) {
            const std::uint64_t below_count = (below + size - 1) / size;  // count·size < below
            // Counts from 1 to own_up_to / size (count·size <= own_up_to) are papshim's.
            const std::uint64_t own = ctx->own_up_to[c].load(std::memory_order_acquire) / size;
            answer.forward_from[c] = own > 0 ? own + 1 : 0;
            answer.forward_span[c] = below_count > answer.forward_from[c] ? below_count - answer.forward_from[c] : 0;
            answer.report[c] = &ctx->last_algorithm[c];
        }
    }
    quick_answer = answer;
}

// A duplicate of the world (or a reordering of it) without a context leaves this many calls in
// the world's small window to MPI before it makes one, and then its node view at once. Both
// cost 0.7-1.1 ms of collectives per communicator on Open MPI (4 ranks on 2 cores), which a
// library that duplicates the world per object paid per object: 2.1x native's time at 10 and
// 100 calls per object (medians of 14 rounds) when the context came at the first call. Open
// MPI's own call costs microseconds there, so about a thousand calls pay for them; MPICH's,
// with ranks sharing cores, milliseconds, so the world's 64 do (docs/benchmarks.md, "A
// duplicate per object").
#ifdef OPEN_MPI
constexpr std::uint64_t kWorldGroupCallsBeforeContext = 1024;
#else
constexpr std::uint64_t kWorldGroupCallsBeforeContext = kAutoSmallCallsBeforeView;
#endif

// The full path's first step: whether this call goes to MPI untouched (no context, no clock),
// its bookkeeping done and, where a threshold decided, the answer kept for the entry's test.
// `type`: the datatype whose count sizes the call (an Allgather's receive type); `quick_bytes`
// gives the call's total bytes (an Allgather(v)'s mean block) where that needs no context, else
// kSizeUnknown; `valid_handles` whether MPI knows the call's datatypes (valid_type), asked
// before anything else about them; `countable` whether a call in the world's window is one
// papshim's window algorithm could take (a predefined op) with arguments MPI accepts on this
// rank (reduction_arguments_valid): only those count towards a duplicate's context, so that
// the count stays the same on every member. handle() asks the rest before anything collective.
template <class QuickBytes, class ValidHandles, class Countable>
[[gnu::always_inline]] inline bool forwards(Collective kind, MPI_Comm comm, MPI_Datatype type,
                                            QuickBytes&& quick_bytes, ValidHandles&& valid_handles,
                                            Countable&& countable) {
    // Before anything keep_answer's answer depends on.
    const std::uint64_t generation = runtime::hot::generation.load(std::memory_order_acquire);
    const Mode mode = runtime::mode();
    if (mode == Mode::off || comm == MPI_COMM_NULL) return true;
    if (mode != Mode::dispatch || runtime::records_in(mode)) return false;
    // Calls whose algorithm is native whatever the arrivals.
    const runtime::NativeBelow fast = runtime::native_below(kind, comm);
    if (fast.bytes == 0) return false;
    if (fast.bytes == runtime::kAllCalls) {
        note_native_call(kind, comm, fast.ctx, false);
        keep_answer(comm, type, fast.ctx ? fast.ctx : runtime::hot::cached_context(comm), generation);
        return true;
    }
    // Arguments MPI rejects (an invalid handle; kSizeUnknown) go native here too: on the full
    // path this rank alone would make the communicator's context, a collective that the ranks
    // on this path never join, where the native call returns its error without a message.
    // Below a threshold (auto) the communicator's larger calls may have run papshim's own
    // algorithm, so its context, if it has one, says what ran; without one (no larger call
    // yet), an attribute remembers the native call. Creating the context here cost every new
    // communicator a duplicate and a broadcast.
    if (!valid_handles()) {
        note_native_call(kind, comm, runtime::existing_context(comm), true);
        return true;
    }
    const std::uint64_t bytes = quick_bytes();
    // The inter-communicator test (an MPI call) last: a small call is native either way.
    if (bytes != kSizeUnknown && bytes >= fast.bytes && !inter_communicator(comm)) return false;
    CommContext* const ctx = fast.ctx ? fast.ctx : runtime::existing_context(comm);
    // auto's small calls that papshim runs itself (CommContext::own_up_to); unknown sizes and
    // empty calls stay MPI's.
    if (ctx && bytes != kSizeUnknown && bytes > 0 && bytes <= ctx->own_up_to[std::size_t(kind)].load(std::memory_order_acquire))
        return false;
    // A communicator of the world's processes (a duplicate, or the same group reordered)
    // has the world's window. Without a context it leaves its first
    // kWorldGroupCallsBeforeContext such calls to MPI, counting them on the communicator; the
    // next takes the full path, which makes its context and, the count carried over, its node
    // view, on every member alike (contexts are made at the same calls everywhere). So a
    // library that duplicates the world per object pays for neither on objects with fewer
    // calls. One whose context profile mode made (no private duplicate, so no layout yet)
    // takes the full path at once, which makes the duplicate and opens the window; until then
    // the entry keeps no answer below the threshold for it: a mid-size call's kept answer
    // would forward the small ones, on the ranks that kept it only.
    const std::uint64_t window = runtime::hot::world_group_own_up_to[std::size_t(kind)];
    const bool awaiting_window = window != 0 && ctx && ctx->private_dup == MPI_COMM_NULL && !ctx->native_only() &&
                                 runtime::of_world_group(comm);
    if (bytes != kSizeUnknown && bytes > 0 && bytes <= window) {
        if (!ctx && countable()) {
            const std::uint64_t calls = runtime::count_world_window_call(comm, kind);  // remembers the call too
            if (calls > kWorldGroupCallsBeforeContext) return false;
            if (calls > 0) {
                keep_answer(comm, type, nullptr, generation);
                return true;
            }
        } else if (awaiting_window) {
            return false;
        }
    }
    note_native_call(kind, comm, ctx, true);
    keep_answer(comm, type, awaiting_window ? nullptr : ctx, generation);
    return true;
}

// The common path of every handler, for the calls forwards() does not take. `native` forwards
// to PMPI; `own` runs papshim's algorithm and returns nullopt when the call must go native
// (decided before any message); `describe` gives the call's shape, or nullopt for arguments
// MPI would reject; `valid_arguments` whether MPI accepts the call's arguments on this rank
// (reduction_arguments_valid, gather_arguments_valid), checked before anything collective and
// before any of the others asks MPI about the datatypes or the op. Profile mode asks only where
// this thread has no cached context for the communicator, and describes the call only after
// the native call succeeded.
template <class Native, class Own, class Describe, class ValidArguments>
int handle(Collective kind, MPI_Comm comm, const void* caller, Native&& native, Own&& own, Describe&& describe,
           ValidArguments&& valid_arguments) {
    const Mode mode = runtime::mode();
    if (mode == Mode::off || comm == MPI_COMM_NULL) return native();
    if (mode == Mode::profile) return profile(kind, comm, caller, native, describe, valid_arguments);
    const bool traced = runtime::records_in(mode);
    // Arguments MPI rejects: the native call and its error, nothing else asked of MPI, and
    // nothing collective (see forwards()).
    if (!valid_arguments()) {
        note_native_call(kind, comm, runtime::existing_context(comm), true);
        return native();
    }

    // Read before anything that may synchronise the ranks: a communicator's first call creates
    // its context (a duplicate) and may split it by node, and an arrival read after that
    // would show the first call balanced whatever it was. That first call is also `auto`'s
    // first sampled exchange; read late, it hid the imbalance until the 16th eligible call.
    const std::uint64_t arrival = clock::ticks();
    CommContext& ctx = runtime::context(comm);
    // A context profile mode made has no duplicate yet (papshim_set_mode): made now, before
    // any decision, as every member makes it in this call. A world-group communicator's
    // layout, and with it auto's small window, waited for that duplicate (layout_without_message).
    if (mode == Mode::dispatch && ctx.private_dup == MPI_COMM_NULL && runtime::private_comm(ctx) != MPI_COMM_NULL)
        runtime::update_own_up_to(ctx);
    const std::uint64_t seq = ctx.next_seq++;
    Planning planning;
    trace::PlanUse plan_use = trace::PlanUse::none;
    std::optional<Shape> shape;
    plan::Planner* planner = mode == Mode::dispatch ? runtime::planner(ctx) : nullptr;
    const auto layout = [&ctx] { return runtime::layout_of(ctx); };
    plan::Follow follow = plan::Follow::no;
    if (planner && (shape = describe(ctx)) &&
        (follow = ctx.policy.follow(std::uint8_t(kind), shape->bytes, layout)) != plan::Follow::no) {
        if (!planner->has_plan_hook())
            planner->set_plan_hook([&ctx](plan::Planner& p, const plan::Plan& next, const plan::Guard& guard) {
                prepare_background(ctx, p, next, guard);
            });
        const predict::Signature signature{std::uint8_t(kind), shape->op, shape->root, shape->bytes,
                                           shape->blocks.empty() ? 0 : predict::block_hash(shape->blocks)};
        runtime::measure_link(ctx);  // once per communicator, at its first followed call
        planning.tau_ns = runtime::tau_ns(ctx, shape->step_bytes(ctx.size));
        // On one node, auto's sampled exchanges of an Allreduce go through the node's shared
        // memory (Planner, "The board"): every rank's result depends on every rank's data (a
        // followed call is never empty), so its completion here proves every rank entered it
        // and wrote. Not a Reduce (non-roots may leave first) nor an Allgatherv (a rank with
        // an empty block need not be waited for); auto runs Allgather natively on one node.
        node::Segment* board = nullptr;
        if (kind == Collective::allreduce && ctx.policy.exchange == plan::Exchange::sampled &&
            layout() == NodeLayout::one_node)
            if (node::NodeView* view = runtime::node_view(ctx)) board = &view->segment;
        // A communicator MPI could not make for papshim here (the node view, for the board
        // above or an earlier call) makes this call native already: the planner takes no part
        // (its first exchange would make one more communicator).
        if (!ctx.native_only()) {
            // The unit of the guard (Guard::observe, plan::assess): τ of what a PAP-aware
            // step moves, but of an Allgatherv's mean block (guard_segment_bytes).
            const std::int64_t guard_tau_ns = runtime::tau_ns(ctx, guard_segment_bytes(kind, *shape, ctx.size));
            planner->enter(caller, signature, arrival, guard_tau_ns, ctx.policy, follow, shape->blocks, board);
            if (const int error = planner->failure(); error != MPI_SUCCESS)
                runtime::run_natively(ctx, error, "papshim's communicator for its exchange of predictions");
            planning.seq = planner->seq();
            planning.guard = &planner->guard();
            planning.planner = planner;
            if (const plan::Plan* p = planner->plan()) {
                // The guard (spec §1.5, §2.8): a plan from predictions that were recently wrong
                // costs more than the balanced form, so it is used only while they were right.
                // Its state comes from exchanged data, so every rank decides alike.
                plan_use = trace::PlanUse::miss;
                if (p->signature == signature.hash() && planner->same_layout(signature.blocks, shape->blocks)) {
                    if (planner->guard().trusted())
                        planning.plan = p;
                    else if (planner->guard().last_established(p->last, ctx.size))
                        planning.last_plan = p;
                    if (planning.plan) planning.blocks = shape->blocks;
                    plan_use = planning.plan ? trace::PlanUse::hit : trace::PlanUse::guarded;
                } else {
                    ++ctx.mispredicted_calls;
                }
            }
        }
    }
    if (!planning.guard) planner = nullptr;  // this call is not followed: no leave() either
    const bool predicted_online = planner && shape;
    Outcome outcome;
    std::optional<Outcome> ran;
    if (mode == Mode::dispatch) ran = own(ctx, planning);
    if (ran) {
        outcome = *ran;
        if (outcome.by_last_arriver) plan_use = trace::PlanUse::hit;
        // Names come from the static algorithm tables, so they stay valid.
        ctx.last_algorithm[std::size_t(kind)].store(outcome.algorithm.data(), std::memory_order_relaxed);
        if (outcome.result != MPI_SUCCESS) PMPI_Comm_call_errhandler(comm, outcome.result);
    } else {
        ctx.last_algorithm[std::size_t(kind)].store("native", std::memory_order_relaxed);
        outcome.result = native();
    }
    const std::uint64_t exit = planner || traced ? clock::ticks() : 0;
    if (planner && shape) planner->leave(exit);
    if (ctx.native_only()) runtime::settle_native(ctx);
    if (traced && outcome.result == MPI_SUCCESS && (shape || (shape = describe(ctx)))) {
        trace::Record r = call_record(kind, ctx, *shape, seq, arrival, exit);
        r.algorithm = runtime::algorithm_index(outcome.algorithm);
        if (predicted_online) {  // else the merge predicts offline
            const auto expected = planner->expected_arrival();
            r.online = std::uint8_t(expected ? trace::Online::predicted : trace::Online::no_prediction);
            r.predicted_arrival = expected.value_or(0);
            r.plan = std::uint8_t(plan_use);
        }
        runtime::record(r, caller);
    }
    return outcome.result;
}

// The schedule of a planned algorithm for this call: from the plan's arrival vector (the
// last one is kept: a persistent pattern plans the same vector call after call), or the
// balanced form without a plan. `commutative`: the reduction's op (Allgather: true).
const schedule::Schedule& planned_schedule(CommContext& ctx, schedule::Builder build, const Planning& planning,
                                           int root = -1, int segments = 0, bool commutative = true) {
    if (!planning.plan) {
        ++ctx.unplanned_calls;
        return ctx.schedule_for({build, root, commutative, segments});
    }
    ++ctx.planned_calls;
    const std::vector<std::int64_t>& arrivals = planning.plan->arrival_ns;
    auto& last = ctx.planned;
    if (last.build != build || last.root != root || last.step_ns != planning.tau_ns || last.segments != segments ||
        last.commutative != commutative || !std::ranges::equal(last.block_bytes, planning.blocks) ||
        last.arrival_ns != arrivals) {
        schedule::BuildInput input;
        input.ranks = ctx.size;
        input.rank = ctx.rank;
        input.arrival_ns = arrivals;
        input.step_ns = planning.tau_ns;
        input.block_bytes = planning.blocks;
        input.root = root;
        input.segments = segments;
        input.commutative = commutative;
        input.early_send_bytes = runtime::link_of(ctx).early_send_bytes;
        last.schedule = build(input);
        last.build = build;
        last.root = root;
        last.step_ns = planning.tau_ns;
        last.segments = segments;
        last.commutative = commutative;
        last.block_bytes.assign(planning.blocks.begin(), planning.blocks.end());
        last.arrival_ns = arrivals;
    }
    return last.schedule;
}

// auto's BDR decision for one call: the same at the call (choose_allgather) and on the helper
// thread ahead of it (prepare_background), which differ only in how they learn the layout.
bool auto_runs_bdr(const CommContext& ctx, std::uint64_t bytes, std::uint64_t largest, NodeLayout layout,
                   const plan::Guard& guard) {
    return auto_allgather_runs_bdr({ctx.size, bytes, largest, layout, guard.trusted(), guard.imbalanced()});
}

// auto's classic algorithm for an Allgather(v) (auto_allgather_classic). An Allgatherv's
// far-from-equal blocks are weighed by the simulator's model, once per layout: the choice is
// cached on the communicator, keyed by the layout's hash, and depends only on the layout, the
// link model and where the ranks sit (identical on every rank). The first weighing makes the
// node view (collective: every rank weighs the same blocks in the same call, as the caches
// fill alike). `recvcounts`: null for an Allgather. Calls whose blocks are not weighed leave
// before the block bytes are made. `layout`: the communicator's across nodes (the ring's
// threshold); the weighed choice takes the nodes' shape instead.
const AllgatherAlgorithm& classic_allgather(CommContext& ctx, std::uint64_t bytes, std::uint64_t largest,
                                            const int* recvcounts, std::uint64_t element_bytes, NodeLayout layout) {
    if (!recvcounts || !auto_allgather_weighs_blocks(ctx.size, bytes, largest))
        return auto_allgather_classic(ctx.size, bytes, largest, layout);
    thread_local std::vector<std::uint64_t> blocks;
    blocks.assign(recvcounts, recvcounts + ctx.size);
    for (std::uint64_t& block : blocks) block *= element_bytes;
    const std::uint64_t hash = predict::block_hash(blocks);
    for (const auto& [known, algorithm] : ctx.classic_by_layout)
        if (known == hash) return *algorithm;
    NodeShape nodes;
    if (const node::NodeView* view = runtime::node_view(ctx)) nodes = node_shape(view->node_of, view->node_count);
    const AllgatherAlgorithm& algorithm =
        auto_allgather_classic(ctx.size, bytes, largest, layout, blocks, runtime::link_of(ctx), nodes);
    if (ctx.classic_by_layout.size() == CommContext::kClassicLayouts) ctx.classic_by_layout.erase(ctx.classic_by_layout.begin());
    ctx.classic_by_layout.emplace_back(hash, &algorithm);
    return algorithm;
}

// The algorithm for an Allgather(v) of `bytes` (largest block `largest`) under `choice`, or
// null for native. `auto` (algorithms.hpp, kAutoOwnMinBlockBytes): below kAutoOwnMinBlockBytes
// per rank native, but auto_allgather_classic (Sparbit or the ring by the layout, or the model's
// pick for far-from-equal Allgatherv blocks) where auto_allgather_runs_classic says so,
// whatever the arrivals; from
// there BDR where auto_allgather_runs_bdr says it wins, this call has a trusted plan and the
// helper thread runs to post BDR's background receives (a plan can exist without it when
// another collective's named algorithm makes every call exchange); else native on one node
// and auto_allgather_classic across nodes. BSLB loses everywhere measured
// (docs/benchmarks.md): it runs when named. Collective (the node split) on first use under
// `auto`: call on the calling thread.
const AllgatherAlgorithm* choose_allgather(std::string_view choice, CommContext& ctx, std::uint64_t bytes,
                                          std::uint64_t largest, const int* recvcounts, std::uint64_t element_bytes,
                                          const Planning& planning) {
    if (choice != "auto") return find_allgather_algorithm(choice);
    if (bytes / std::uint64_t(ctx.size) < kAutoOwnMinBlockBytes) {
        // The layout only where it decides: a first ask splits the communicator by node.
        if (!auto_allgather_runs_classic(ctx.size, bytes, largest, NodeLayout::mixed)) return nullptr;
        const NodeLayout layout = runtime::layout_of(ctx);
        if (!auto_allgather_runs_classic(ctx.size, bytes, largest, layout)) return nullptr;
        return &classic_allgather(ctx, bytes, largest, recvcounts, element_bytes, layout);
    }
    // Progress::running() is the same on every rank, as auto_cadence assumes too.
    if (planning.plan && planning.guard && plan::Progress::instance().running() &&
        auto_runs_bdr(ctx, bytes, largest, runtime::layout_of(ctx), *planning.guard))
        return find_allgather_algorithm("bdr");
    if (!runtime::spans_nodes(ctx)) return nullptr;
    // From kAutoOwnMinBlockBytes per rank the layout across nodes does not change the classic
    // algorithm for near-equal blocks (auto_allgather_classic; registry.cpp asserts it), so it
    // is not asked here; an Allgatherv of far-from-equal blocks makes the node view for the
    // nodes' shape (classic_allgather), once per communicator.
    return &classic_allgather(ctx, bytes, largest, recvcounts, element_bytes, NodeLayout::mixed);
}

// On the helper thread, as soon as the plan for call plan.seq is known: if that call will
// run a planned Allgather(v) whose schedule starts with receives here, post them now, while
// this rank still computes (BDR's pre-steps, spec §2.3). An Allgatherv's receives are sized
// from the layout of the predicted signature, seen in an earlier call; the plan is used only
// by a call of that layout (Signature::blocks), so they fit. A layout not seen yet: those
// steps run in the foreground.
void prepare_background(CommContext& ctx, plan::Planner& planner, const plan::Plan& plan, const plan::Guard& guard) {
    const predict::Signature& next = planner.predicted_signature();
    const auto kind = Collective(next.collective);
    if (next.bytes == 0) return;
    thread_local std::vector<std::uint64_t> uniform;
    std::span<const std::uint64_t> blocks;
    if (kind == Collective::allgather) {
        if (next.bytes % std::uint64_t(ctx.size) != 0) return;
        uniform.assign(std::size_t(ctx.size), next.bytes / std::uint64_t(ctx.size));
        blocks = uniform;
    } else if (kind == Collective::allgatherv) {
        const std::vector<std::uint64_t>* known = planner.predicted_blocks();
        if (!known || known->size() != std::size_t(ctx.size)) return;
        blocks = *known;
    } else {
        return;
    }
    // A call receiving over 2 GiB goes native (run_allgather): nothing to post for it.
    if (std::accumulate(blocks.begin(), blocks.end(), std::uint64_t{0}) > std::uint64_t(INT_MAX)) return;
    // τ as the call will compute it (Shape::segment): one block, the largest for Allgatherv.
    const std::uint64_t largest = *std::max_element(blocks.begin(), blocks.end());
    Planning planning{&plan, &guard, runtime::tau_ns(ctx, largest), {}, plan.seq};
    if (kind == Collective::allgatherv) planning.blocks = blocks;
    const std::string_view choice = runtime::algorithm_for(ctx, kind);
    if (!guard.trusted()) return;  // the call will not use the plan (handle())
    const AllgatherAlgorithm* algorithm = nullptr;
    if (choice == "auto") {
        // What choose_allgather will decide, from the same exchanged state. The node layout is
        // known by now (the planner asked for it at an earlier call of this size); if not,
        // BDR's receives wait for the call.
        const std::optional<NodeLayout> layout = runtime::layout_if_known(ctx);
        if (layout && auto_runs_bdr(ctx, next.bytes, largest, *layout, guard)) algorithm = find_allgather_algorithm("bdr");
    } else {
        algorithm = find_allgather_algorithm(choice);
    }
    if (!algorithm || !uses_plans(kind, algorithm->name)) return;
    plan::Planner::Background& background = planner.background(plan.seq);
    schedule::BuildInput input;
    input.ranks = ctx.size;
    input.rank = ctx.rank;
    input.arrival_ns = plan.arrival_ns;
    input.step_ns = planning.tau_ns;
    input.block_bytes = planning.blocks;
    background.schedule = algorithm->build(input);
    const int error = post_prefetch(background.schedule, blocks,
                                    schedule::planned_tag_base(plan.seq, allgather_slot(*algorithm)),
                                    planner.data_comm(), background.prefetch);
    // A receive that fails after others were posted (resources: the argument checks come
    // before any post): one of those may already hold a faster rank's message, which
    // cancelling would lose, and the call would wait for it forever.
    if (error != MPI_SUCCESS && !background.prefetch.requests.empty())
        plan::abort_on_internal_error("posting the background receives of a planned Allgather", error);
    if (error != MPI_SUCCESS || background.prefetch.requests.empty()) {
        background.prefetch.clear();  // the call runs those steps in the foreground
        return;
    }
    background.seq = plan.seq;
    background.build = algorithm->build;
    background.done.store(false, std::memory_order_relaxed);
    background.cancel.store(false, std::memory_order_relaxed);
    background.active = true;
    plan::Progress::instance().watch(background.prefetch.requests, {}, &background.done, &background.cancel);
}

// Runs a planned algorithm: from this call's plan on the planned calls' communicator (with
// the background receives posted for it, if any), or its balanced form without a plan.
int run_planned_allgather(CommContext& ctx, const AllgatherAlgorithm& algorithm, const AllgatherBuffers& buffers,
                          const Planning& planning) {
    AllgatherRun run;
    plan::Planner* planner = ctx.planner.get();
    // Without the helper thread nothing receives while the rank computes, and a plan run in the
    // foreground lost to the balanced form (needs_helper_thread). Another collective's planned
    // algorithm can still make this communicator exchange, so a plan may be here.
    if (!planning.plan || !planner || !plan::Progress::instance().running()) {
        run.comm = runtime::private_comm(ctx);
        return execute_allgather(planned_schedule(ctx, algorithm.build, Planning{}), buffers, run);
    }
    run.comm = planner->data_comm();
    run.tag_base = schedule::planned_tag_base(planning.seq, allgather_slot(algorithm));
    plan::Planner::Background& background = planner->background(planning.seq);
    if (background.active && background.seq == planning.seq && background.build == algorithm.build) {
        // An error every rank finds before any message must not wait for the background
        // receives first: the ranks without any (the late ones) return at once and send
        // nothing, and the others would wait for ever (found by review).
        if (const int error = check_own_block(buffers, ctx.rank); error != MPI_SUCCESS) {
            planner->discard_background(planning.seq);
            return error;
        }
        ++ctx.planned_calls;
        plan::Progress::instance().await(background.done);
        run.prefetched = &background.prefetch;
        const int error = execute_allgather(background.schedule, buffers, run);
        background.active = false;
        return error;
    }
    planner->discard_background(planning.seq);
    return execute_allgather(planned_schedule(ctx, algorithm.build, planning), buffers, run);
}

std::uint64_t type_extent(MPI_Datatype type) {
    MPI_Aint lb = 0, extent = 0;
    PMPI_Type_get_extent(type, &lb, &extent);
    return std::uint64_t(extent);
}

// A null buffer whose data would start at address 0: MPI_ERR_BUFFER on MPICH (a crash on
// Open MPI), where papshim's own copies would crash. MPI_BOTTOM (also 0) with a type of
// absolute addresses has a non-zero true lower bound and stays papshim's.
bool null_data(const void* buffer, std::uint64_t count, MPI_Datatype type) {
    if (buffer != nullptr || count == 0) return false;
    MPI_Aint true_lb = 0, true_extent = 0;
    return PMPI_Type_get_true_extent(type, &true_lb, &true_extent) != MPI_SUCCESS || true_lb == 0;
}

// Open MPI accepts an Allreduce whose send buffer is its receive buffer when the count is 1 or
// the buffer MPI_BOTTOM (its MPI_ERR_ARG is for larger counts): the same data as in place.
template <class Count>
bool same_buffers_in_place(Collective kind, const void* sendbuf, const void* recvbuf, Count count) {
#ifdef OPEN_MPI
    return kind == Collective::allreduce && sendbuf == recvbuf && sendbuf != MPI_IN_PLACE &&
           (count <= 1 || sendbuf == MPI_BOTTOM);
#else
    static_cast<void>(kind), static_cast<void>(sendbuf), static_cast<void>(recvbuf), static_cast<void>(count);
    return false;
#endif
}

// Whether MPI accepts a Reduce's or an Allreduce's arguments on this rank: the checks MPI
// makes on the rank that passed them, without a message. Asked before anything collective
// (handle(), profile(); forwards() before it counts a call): a call MPI rejects on one rank
// alone must not make the communicator's context there (a duplicate and a broadcast that the
// other ranks, in their next collective, never join: found by review with one rank's
// MPI_OP_NULL). An inter-communicator's Reduce is left to MPI's checks: its calls are MPI's.
template <class Count>
bool reduction_arguments_valid(Collective kind, const void* sendbuf, const void* recvbuf, Count count,
                               MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm) {
    if (count < 0 || !valid_type(type) || !valid_op(op)) return false;
    // A predefined op on one of MPI's types it is not defined for: MPI_ERR_OP. (Refused
    // pairs papshim leaves to MPI are native on every rank alike.)
    if (predefined_op(op) && !builtin_op_accepts(op, type) && predefined(type)) return false;
    bool holds_result = true;
    if (kind == Collective::reduce) {
        int size = 0, rank = -1, inter = 0;
        if (const CommContext* ctx = runtime::hot::cached_context(comm)) {  // a loop's calls: no MPI call
            inter = ctx->inter ? 1 : 0;
            size = ctx->size;
            rank = ctx->rank;
        } else if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || PMPI_Comm_size(comm, &size) != MPI_SUCCESS ||
                   PMPI_Comm_rank(comm, &rank) != MPI_SUCCESS) {
            return false;
        }
        if (inter) return true;  // roots of the other group, MPI_ROOT, MPI_PROC_NULL: MPI's call anyway
        if (root < 0 || root >= size) return false;
        holds_result = rank == root;
    }
    // MPI checks the buffers only where the call moves data (MPICH's checks; Open MPI's alias
    // check): an empty call may pass one null pointer twice on one rank and two on another.
    if (count == 0 || type_size(type) == 0) return true;
    if (holds_result) {
        if (recvbuf == MPI_IN_PLACE) return false;
        if (sendbuf == recvbuf && !same_buffers_in_place(kind, sendbuf, recvbuf, count)) return false;
        if (null_data(recvbuf, std::uint64_t(count), type)) return false;
    } else if (sendbuf == MPI_IN_PLACE) {
        return false;  // in place only at the root
    }
    return sendbuf == MPI_IN_PLACE || !null_data(sendbuf, std::uint64_t(count), type);
}

// Whether MPI knows an Allgather(v)'s datatypes (valid_type); the send type is ignored in place.
bool gather_types_valid(const void* sendbuf, MPI_Datatype sendtype, MPI_Datatype recvtype) {
    return (sendbuf == MPI_IN_PLACE || valid_type(sendtype)) && valid_type(recvtype);
}

// The same for an Allgather (recvcounts null) or an Allgatherv: handles MPI knows (the send
// type is ignored in place), no negative count, receive buffer not in place, buffers MPI can
// address. An Allgatherv's counts are read here once more (O(p), as its shape is).
template <class Count, class Displacement>
bool gather_arguments_valid(const void* sendbuf, Count sendcount, MPI_Datatype sendtype, const void* recvbuf,
                            Count recvcount, const Count* recvcounts, const Displacement* displs,
                            MPI_Datatype recvtype, MPI_Comm comm, bool varying) {
    const bool in_place = sendbuf == MPI_IN_PLACE;
    if (!gather_types_valid(sendbuf, sendtype, recvtype) || (!in_place && sendcount < 0)) return false;
    if (recvbuf == MPI_IN_PLACE) return false;
    if (!in_place && type_size(sendtype) > 0 && null_data(sendbuf, std::uint64_t(sendcount), sendtype)) return false;
    std::uint64_t received = 0;  // elements, or one when any block is not empty
    if (!varying) {
        if (recvcount < 0) return false;
        received = std::uint64_t(recvcount);
    } else {
        if (!recvcounts || !displs) return false;
        int ranks = 0;
        if (inter_communicator(comm)) return true;  // counts per remote rank: native anyway
        if (PMPI_Comm_size(comm, &ranks) != MPI_SUCCESS) return false;
        for (int i = 0; i < ranks; ++i) {
            if (recvcounts[i] < 0) return false;
            received += std::uint64_t(recvcounts[i]);
        }
    }
    return type_size(recvtype) == 0 || !null_data(recvbuf, received, recvtype);
}

// A send buffer that is this rank's own non-empty block of the receive buffer, in the same
// type and count, the blocks placed `unit` bytes per element (papshim places them by the
// type's extent; MPICH's check, by its size).
bool sends_from_own_block(const AllgatherBuffers& b, int rank, std::uint64_t unit) {
    const int own_count = b.recvcounts ? b.recvcounts[rank] : b.recvcount;
    if (b.sendtype != b.recvtype || b.sendcount == 0 || own_count == 0) return false;
    const std::int64_t first = b.recvcounts ? b.displs[rank] : std::int64_t(rank) * b.recvcount;
    return b.sendbuf == static_cast<const std::byte*>(b.recvbuf) + first * std::int64_t(unit);
}

// papshim's own Allgather/Allgatherv, or nullopt for calls it leaves to MPI (arguments it
// accepted, gather_arguments_valid): inter-communicators, no data.
// p = 1 runs the executor (a local copy): MPICH 4.0.2's native Allgatherv on one rank
// ignores displs[0].
std::optional<Outcome> run_allgather(CommContext& ctx, Collective kind, AllgatherBuffers buffers,
                                     const Planning& planning) {
    const std::string_view choice = runtime::algorithm_for(ctx, kind);
    if (choice == "native" || ctx.inter) return std::nullopt;
    // MPI accepted the arguments (gather_arguments_valid, before the context was made).
    const bool in_place = buffers.sendbuf == MPI_IN_PLACE;
    std::uint64_t elements = 0, largest = 0;
    if (buffers.recvcounts) {
        for (int i = 0; i < ctx.size; ++i) {
            elements += std::uint64_t(buffers.recvcounts[i]);
            largest = std::max(largest, std::uint64_t(buffers.recvcounts[i]));
        }
    } else {
        elements = std::uint64_t(buffers.recvcount) * std::uint64_t(ctx.size);
        largest = std::uint64_t(buffers.recvcount);
    }
    const std::uint64_t element_bytes = type_size(buffers.recvtype);
    const std::uint64_t bytes = elements * element_bytes;
    if (bytes == 0) return std::nullopt;
#ifdef OPEN_MPI
    // Open MPI accepts a send buffer that is the rank's own block: the data are in place, and
    // run so, with the other ranks (this rank alone at the native call hung them, found by
    // review). A legacy code whose every rank passes its own block runs papshim's algorithm.
    if (!in_place && sends_from_own_block(buffers, ctx.rank, type_extent(buffers.recvtype)))
        buffers.sendbuf = MPI_IN_PLACE;
#else
    // MPICH's MPI_ERR_BUFFER, exactly where MPICH checks; the others may wait for this rank,
    // as they do under MPICH's native call.
    if (!in_place && (sends_from_own_block(buffers, ctx.rank, type_size(buffers.recvtype)) ||
                      sends_from_own_block(buffers, ctx.rank, type_extent(buffers.recvtype))))
        return std::nullopt;
#endif
    // Over 2 GiB received: a piece, a staged block or a background receive could exceed an
    // int count of bytes and fail mid-call. The count and the type signature are the same on
    // every rank, so every rank leaves such a call to MPI before any message.
    if (bytes > std::uint64_t(INT_MAX)) return std::nullopt;

    const AllgatherAlgorithm* algorithm = choose_allgather(choice, ctx, bytes, largest * element_bytes, buffers.recvcounts,
                                                                element_bytes, planning);
    if (!algorithm || ctx.native_only()) return std::nullopt;  // native_only: its node view could not be made
    if (uses_plans(kind, algorithm->name)) return Outcome{run_planned_allgather(ctx, *algorithm, buffers, planning), algorithm->name};
    AllgatherRun run;
    run.comm = runtime::private_comm(ctx);
    return Outcome{execute_allgather(ctx.schedule_for({algorithm->build}), buffers, run), algorithm->name};
}

// The named floating-point types of every language binding (a Fortran code's MPI_REAL or
// MPI_DOUBLE_PRECISION reaches the shim as its C handle).
bool floating_point(MPI_Datatype type) {
    for (MPI_Datatype t : {MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX,
                           MPI_C_LONG_DOUBLE_COMPLEX, MPI_CXX_FLOAT_COMPLEX, MPI_CXX_DOUBLE_COMPLEX,
                           MPI_CXX_LONG_DOUBLE_COMPLEX, MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_DOUBLE_INT, MPI_REAL,
                           MPI_DOUBLE_PRECISION, MPI_COMPLEX, MPI_DOUBLE_COMPLEX, MPI_REAL4, MPI_REAL8, MPI_REAL16,
                           MPI_COMPLEX8, MPI_COMPLEX16, MPI_COMPLEX32, MPI_2REAL, MPI_2DOUBLE_PRECISION})
        if (type == t) return true;
    return !predefined(type);  // a user type may hold anything: assume floating point
}

// Whether `algorithm` may run this call: rank order for non-commutative ops, a fixed
// reduction order for floating point under PAPSHIM_REPRODUCIBLE.
bool applicable(const ReductionAlgorithm& algorithm, const ReductionBuffers& b) {
    if (!b.commutative && !algorithm.keeps_rank_order) return false;
    // Under a user op, any type counts as floating point: the ranks' types may differ.
    if (algorithm.arrival_ordered && runtime::state().config.reproducible &&
        (!b.same_type_everywhere || floating_point(b.type)))
        return false;
    return true;
}

// Whether the vector fits a shared-memory slot (what the slot-sized algorithms take): a
// predefined type under a predefined op (so every rank decides alike, node::Call::make), and
// no larger than `largest` bytes where that is given (an algorithm's own cap).
bool fits_slot(const ReductionBuffers& b, std::uint64_t largest = 0) {
    const std::uint64_t slot = runtime::state().config.shm_slot;
    return b.same_type_everywhere && predefined(b.type) &&
           std::uint64_t(b.count) * type_extent(b.type) <= (largest ? std::min(largest, slot) : slot);
}

// Whether `auto` may run auto_reduction_classic's algorithm for this Reduce/Allreduce on some
// layout: a pure function of arguments MPI requires to match (the type is valid: handle()
// checked it), asked before the other checks and without the node layout, whose first ask
// splits the communicator. The rules are this build's MPI's (kBuiltNativeMpi: they were
// measured against its native collectives).
bool auto_may_run_classic(const CommContext& ctx, Collective kind, const ReductionBuffers& b) {
    if (b.count <= 0 || b.type == MPI_DATATYPE_NULL) return false;
    const std::uint64_t bytes = std::uint64_t(b.count) * type_size(b.type);
    return !auto_reduction_classic(kind, ctx.size, bytes, NodeLayout::one_rank_per_node, kBuiltNativeMpi).empty() ||
           !auto_reduction_classic(kind, ctx.size, bytes, NodeLayout::mixed, kBuiltNativeMpi).empty();
}

// auto_reduction_classic's algorithm for this call on the communicator's layout, where it
// applies to the call's op and type; null: native.
const ReductionAlgorithm* auto_classic_reduction(CommContext& ctx, Collective kind, const ReductionBuffers& b) {
    if (!auto_may_run_classic(ctx, kind, b)) return nullptr;
    const std::string_view name = auto_reduction_classic(kind, ctx.size, std::uint64_t(b.count) * type_size(b.type),
                                                         runtime::layout_of(ctx), kBuiltNativeMpi);
    const ReductionAlgorithm* algorithm = name.empty() ? nullptr : find_reduction_algorithm(kind, name);
    return algorithm && algorithm->build && applicable(*algorithm, b) ? algorithm : nullptr;
}

// The pieces `algorithm` cuts this call's vector into (BuildInput::segments; 0: its own).
int segments_for_call(const ReductionAlgorithm& algorithm, const ReductionBuffers& b) {
    return algorithm.segments_for_bytes ? algorithm.segments_for_bytes(vector_bytes(b.count, b.type)) : 0;
}

// A schedule that plans nothing (`algorithm` has a builder), built once per root, op and
// piece count (CommContext::schedule_for).
Outcome run_unplanned(CommContext& ctx, const ReductionAlgorithm& algorithm, const ReductionBuffers& b) {
    const schedule::Schedule& schedule =
        ctx.schedule_for({algorithm.build, b.root, b.commutative, segments_for_call(algorithm, b)});
    return Outcome{execute_reduction(schedule, b, runtime::private_comm(ctx)), algorithm.name};
}

// `auto`'s Reduce/Allreduce where it runs no plan: auto_classic_reduction's algorithm, or
// nullopt (native).
std::optional<Outcome> run_auto_classic(CommContext& ctx, Collective kind, const ReductionBuffers& b) {
    const ReductionAlgorithm* algorithm = auto_classic_reduction(ctx, kind, b);
    if (!algorithm) return std::nullopt;
    return run_unplanned(ctx, *algorithm, b);
}

// `auto` for Reduce/Allreduce once its guard shows imbalance (run_reduction checks it),
// identical on every rank (the guard comes from the exchanged vectors): where it runs no plan,
// native or the classic algorithm measured to beat native at this size and layout
// (auto_reduction_classic: across nodes the (pipelined) binomial tree for a Reduce, the ring
// for an Allreduce with one rank per node, or with several where p is not a power of two); under the imbalance the communicator's sampled exchanges show
// (Guard::kImbalanceFactor), the algorithm measured to win at this size and node layout
// (auto_reduction_candidate): on one node, one that follows the real
// arrivals through shared memory and needs no prediction (the dynamic leader, spec §5, or the
// arrival-ordered chain, §6.5); with one rank per node, a planned algorithm: for an Allreduce
// the predicted scatter (Clairvoyant's reduce-scatter form reshaped) from 128 KiB and 4 ranks
// or 384 KiB, the predicted chain from 8 MiB, for a Reduce the predicted chain (Clairvoyant's
// plan, pipelined; Clairvoyant's own until 2026-12-03), each only with a trusted plan for this
// call (else the classic or native); across nodes of several ranks each, the classic or native.
// Null: native. The caller checks that it applies to the call's op and type (applicable).
const ReductionAlgorithm* auto_reduction(CommContext& ctx, Collective kind, const ReductionBuffers& b) {
    const std::uint64_t bytes = std::uint64_t(b.count) * type_size(b.type);
    const NodeLayout layout = runtime::layout_of(ctx);
    const bool cores_shared = runtime::state().node_load.oversubscribed();
    const std::uint64_t slot = runtime::state().config.shm_slot;
    std::string_view name = auto_reduction_candidate(kind, bytes, slot, layout, cores_shared, ctx.size);
    // A call the slots cannot take (a user op, a derived type, an extent past the slot): the
    // candidate for a vector larger than any slot (a Reduce from 256 KiB on shared cores: the chain).
    if (name == "dynamic_leader" && !fits_slot(b))
        name = auto_reduction_candidate(kind, bytes, 0, layout, cores_shared, ctx.size);
    if (name.empty()) return nullptr;
    return find_reduction_algorithm(kind, name);
}

// auto_reduction_small's algorithm for a call within CommContext::own_up_to, where it takes the
// call whole (a predefined type and op, within its cells: never handed on); null: native.
const ReductionAlgorithm* auto_window_algorithm(CommContext& ctx, Collective kind, const ReductionBuffers& b) {
    const std::optional<NodeLayout> layout = runtime::layout_if_known(ctx);  // known: own_up_to was set from it
    if (!layout) return nullptr;
    const std::string_view name = auto_reduction_small(kind, std::uint64_t(b.count) * type_size(b.type), *layout,
                                                       runtime::state().node_load.oversubscribed());
    const ReductionAlgorithm* algorithm = name.empty() ? nullptr : find_reduction_algorithm(kind, name);
    return algorithm && fits_slot(b, algorithm->largest_bytes) ? algorithm : nullptr;
}

// papshim's own Reduce/Allreduce, or nullopt for calls it leaves to MPI (decided before any
// message, from arguments MPI requires to match; MPI accepted them, reduction_arguments_valid):
// inter-communicators, one rank, no data, builtin ops on derived types, and ops the chosen
// algorithm cannot apply in its order.
std::optional<Outcome> run_reduction(CommContext& ctx, Collective kind, ReductionBuffers b, Planning planning) {
    const std::string_view choice = runtime::algorithm_for(ctx, kind);
    if (choice == "native" || ctx.inter || ctx.size == 1) return std::nullopt;
    // The vector's bytes (0: no data, which goes native below). auto's small calls on a
    // communicator where it runs auto_reduction_small's algorithm, whatever the arrivals (the
    // count and the type's size match on every rank).
    const std::uint64_t bytes =
        b.count > 0 && b.type != MPI_DATATYPE_NULL ? std::uint64_t(b.count) * type_size(b.type) : 0;
    // The same test as forwards()'s: some bytes, within the window.
    const bool auto_small = choice == "auto" && bytes > 0 &&
                            bytes <= ctx.own_up_to[std::size_t(kind)].load(std::memory_order_acquire);
    // auto on balanced arrivals (or a call it does not follow) runs no plan: native, unless it
    // may run a classic algorithm of papshim's at this size.
    const bool auto_unplanned = choice == "auto" && !auto_small && (!planning.guard || !planning.guard->imbalanced());
    if (auto_unplanned && !auto_may_run_classic(ctx, kind, b)) return std::nullopt;
    // MPI accepted the arguments (reduction_arguments_valid, before the context was made).
    if (b.count <= 0) return std::nullopt;
#ifdef OPEN_MPI
    // Open MPI accepts an Allreduce whose send buffer is its receive buffer when the count is
    // 1 or the buffer MPI_BOTTOM: the same data as in place, and run so, with the other ranks
    // (forwarding this rank alone to native would leave them waiting in papshim's algorithm).
    if (same_buffers_in_place(kind, b.sendbuf, b.recvbuf, b.count)) b.sendbuf = MPI_IN_PLACE;
#endif
    // A predefined op on a derived type: papshim cannot combine it (MPI's own types
    // without an op were rejected before).
    if (predefined_op(b.op) && !builtin_op_accepts(b.op, b.type)) return std::nullopt;
    int commutative = 0;
    if (PMPI_Op_commutative(b.op, &commutative) != MPI_SUCCESS) return std::nullopt;
    b.commutative = commutative != 0;
    b.same_type_everywhere = predefined_op(b.op);

    const ReductionAlgorithm* algorithm = choice != "auto"  ? find_reduction_algorithm(kind, choice)
                                          : auto_small     ? auto_window_algorithm(ctx, kind, b)
                                          : auto_unplanned ? nullptr
                                                           : auto_reduction(ctx, kind, b);
    if (auto_small && !algorithm) return std::nullopt;  // a type or op its cells do not take
    // Its node view made only once enough such calls have come to pay for it (the count is
    // the same on every rank: every member takes this path for the same calls).
    if (auto_small && !ctx.nodes_ready.load(std::memory_order_acquire) &&
        ++ctx.small_calls_before_view <= kAutoSmallCallsBeforeView)
        return std::nullopt;
    // auto with nothing to follow the arrivals at this size and layout: what it runs unplanned.
    if (choice == "auto" && !algorithm) algorithm = auto_classic_reduction(ctx, kind, b);
    if (!algorithm || ctx.native_only()) return std::nullopt;  // native_only: its node view could not be made
    const bool planned = uses_plans(kind, algorithm->name);
    const bool by_last_arriver = !planning.plan && algorithm->plans_by_last && planning.last_plan;
    if (by_last_arriver) planning.plan = planning.last_plan;
    // auto takes a planned algorithm for what its plan is worth: only with a plan for this call
    // that the guard trusts and, for a planner in rounds, that the round rule accepts; else
    // what it runs without a plan (run_auto_classic). Whether it ran tells the planner whether
    // the exchange on every call that plans need is worth its cost (ExchangeRest); so does a
    // call whose op or type the algorithm cannot take, which never runs one. The planner is
    // set with the guard (handle()), which auto needs to get here.
    const bool auto_plans = choice == "auto" && planned;
    if (!applicable(*algorithm, b)) {
        if (auto_plans) planning.planner->note_plan_use(false);
        return auto_plans ? run_auto_classic(ctx, kind, b) : std::nullopt;
    }
    // A planner in rounds (Clairvoyant) plans with its own round length: what a rank moves in
    // one of its rounds (round_pieces) and its reduction, where tau_ns's segment is a rank's
    // share of the vector. Without a plan the balanced form takes no round (planned_schedule).
    Planning rounds = planning;
    bool declined = false;
    const int segments = segments_for_call(*algorithm, b);  // the round's parts and the schedule's alike
    if (algorithm->round_pieces && planning.plan) {
        const int pieces = algorithm->round_pieces(ctx.size, segments);
        rounds.tau_ns = runtime::reduction_round_ns(ctx, double(bytes) / pieces);
        declined = choice == "auto" && !auto_runs_round_planner(planning.plan->arrival_ns, rounds.tau_ns, pieces);
    }
    if (auto_plans && planning.plan && !declined)
        declined = !auto_takes_plan(kind, bytes, planning.plan->arrival_ns, runtime::tau_ns(ctx, bytes),
                                    runtime::link_of(ctx).early_send_bytes > 0);
    if (auto_plans) {
        planning.planner->note_plan_use(planning.plan && !declined);
        if (!planning.plan) return run_auto_classic(ctx, kind, b);
    }
    if (declined) {
        ++ctx.declined_calls;
        return run_auto_classic(ctx, kind, b);
    }
    if (algorithm->build && !planned) return run_unplanned(ctx, *algorithm, b);
    if (algorithm->build) {
        const auto& schedule = planned_schedule(ctx, algorithm->build, rounds, b.root, segments, b.commutative);
        return Outcome{execute_reduction(schedule, b, runtime::private_comm(ctx)), algorithm->name,
                       by_last_arriver};
    }
    node::NodeView* view = runtime::node_view(ctx);
    if (!view) return std::nullopt;  // MPI could not make it: native from now on
    if (!algorithm->beyond_slot.empty() && !fits_slot(b, algorithm->largest_bytes)) {
        // The one it hands the call to may combine in another order: asked again (a
        // symmetric Allreduce's large float vector under PAPSHIM_REPRODUCIBLE goes native).
        algorithm = find_reduction_algorithm(kind, algorithm->beyond_slot);
        if (!algorithm || !applicable(*algorithm, b)) return std::nullopt;
    }
    return Outcome{algorithm->run(*view, b, runtime::private_comm(ctx)), algorithm->name};
}

// MPI-4's large-count routines (MPI_Allgather_c, ...) take MPI_Count counts and MPI_Aint
// displacements. A call whose values fit an int runs as the int routine would, so that ranks
// mixing the two routines in one collective, as MPI allows, take the same path; larger ones
// go native. The ranks agree without a message: a reduction's count is the same on every
// rank, and an Allgather(v) count over INT_MAX of a type of at least a byte is a block of over
// 2 GiB, which papshim leaves to MPI on every rank. Allgatherv displacements, which each rank
// chooses for its own buffer, are taken as they are (MPI_Aint) and never decide the path.
template <class Value>
bool fits_int(Value value) {
    return value >= Value(INT_MIN) && value <= Value(INT_MAX);
}

// A count for the int path: itself when it fits; -1 when it is negative (the int path leaves
// it to MPI's error); 0 when the type has no bytes (the same empty data, as the ranks that
// count that block in another type see it); none for a block of over 2 GiB.
template <class Count>
std::optional<int> int_count(Count count, MPI_Datatype type) {
    if (fits_int(count)) return int(count);
    if (count < 0) return -1;
    if (type != MPI_DATATYPE_NULL && type_size(type) == 0) return 0;
    return std::nullopt;
}

// The send count for the int path; MPI ignores it in place, whatever its value.
template <class Count>
std::optional<int> int_send_count(const void* sendbuf, Count count, MPI_Datatype type) {
    return sendbuf == MPI_IN_PLACE && !fits_int(count) ? 0 : int_count(count, type);
}

// An Allgatherv's counts for the int path, in `counts`; false when one does not fit (see
// int_count).
template <class Count>
bool int_counts(const Count* counts_in, int n, MPI_Datatype type, std::vector<int>& counts) {
    counts.resize(std::size_t(n));
    for (std::size_t i = 0; i < std::size_t(n); ++i) {
        const std::optional<int> count = int_count(counts_in[i], type);
        if (!count) return false;
        counts[i] = *count;
    }
    return true;
}

// The full paths (forwards(), then handle()), one per family of routines, for the int and
// the large-count forms alike.
template <class Count, class Native>
int allgather_call(const void* sendbuf, Count sendcount, MPI_Datatype sendtype, void* recvbuf, Count recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm, const void* caller, Native&& native) {
    const auto arguments_valid = [&] {
        return gather_arguments_valid<Count, MPI_Aint>(sendbuf, sendcount, sendtype, recvbuf, recvcount, nullptr,
                                                       nullptr, recvtype, comm, false);
    };
    const auto types_valid = [&] { return gather_types_valid(sendbuf, sendtype, recvtype); };
    if (forwards(Collective::allgather, comm, recvtype, [&] { return vector_bytes(recvcount, recvtype); },
                 types_valid, [] { return false; }))
        return native();
    return handle(
        Collective::allgather, comm, caller, native,
        [&](CommContext& ctx, const Planning& planning) -> std::optional<Outcome> {
            const std::optional<int> send = int_send_count(sendbuf, sendcount, sendtype);
            const std::optional<int> receive = int_count(recvcount, recvtype);
            if (!send || !receive) return std::nullopt;
            AllgatherBuffers b{sendbuf, *send, sendtype, recvbuf, *receive, nullptr, nullptr, recvtype};
            return run_allgather(ctx, Collective::allgather, b, planning);
        },
        [&](CommContext& ctx) -> std::optional<Shape> {
            if (recvtype == MPI_DATATYPE_NULL || recvcount < 0) return std::nullopt;
            const std::uint64_t block = std::uint64_t(recvcount) * type_size(recvtype);
            return Shape{.bytes = block * std::uint64_t(ctx.size), .segment = block};
        },
        arguments_valid);
}

template <class Count, class Displacement, class Native>
int allgatherv_call(const void* sendbuf, Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                    const Count* recvcounts, const Displacement* displs, MPI_Datatype recvtype, MPI_Comm comm,
                    const void* caller, Native&& native) {
    const auto arguments_valid = [&] {
        return gather_arguments_valid(sendbuf, sendcount, sendtype, recvbuf, Count(0), recvcounts, displs, recvtype,
                                      comm, true);
    };
    const auto types_valid = [&] { return gather_types_valid(sendbuf, sendtype, recvtype); };
    if (forwards(Collective::allgatherv, comm, recvtype, [&] { return mean_block_bytes(comm, recvcounts, recvtype); },
                 types_valid, [] { return false; }))
        return native();
    return handle(
        Collective::allgatherv, comm, caller, native,
        [&](CommContext& ctx, const Planning& planning) -> std::optional<Outcome> {
            const std::optional<int> send = int_send_count(sendbuf, sendcount, sendtype);
            if (!send) return std::nullopt;
            AllgatherBuffers b{sendbuf, *send, sendtype, recvbuf, 0, nullptr, nullptr, recvtype};
            if (recvcounts && displs && !ctx.inter) {
                if constexpr (std::is_same_v<Count, int>) {
                    b.recvcounts = recvcounts;
                    // O(p) per call, beside the O(p) the shape and the checks already take.
                    thread_local std::vector<MPI_Aint> wide;
                    wide.assign(displs, displs + ctx.size);
                    b.displs = wide.data();
                } else {
                    thread_local std::vector<int> counts;  // large-count calls only
                    if (!int_counts(recvcounts, ctx.size, recvtype, counts)) return std::nullopt;
                    b.recvcounts = counts.data();
                    b.displs = displs;
                }
            }
            return run_allgather(ctx, Collective::allgatherv, b, planning);
        },
        [&](CommContext& ctx) -> std::optional<Shape> {
            if (recvtype == MPI_DATATYPE_NULL || !recvcounts) return std::nullopt;
            // Reused per thread; the shape points into it for the rest of this call.
            thread_local std::vector<std::uint64_t> block_bytes;
            block_bytes.clear();
            const std::uint64_t size = type_size(recvtype);
            std::uint64_t total = 0, largest = 0;
            for (int i = 0; i < (ctx.inter ? 0 : ctx.size); ++i) {
                block_bytes.push_back(std::uint64_t(std::max(recvcounts[i], Count(0))) * size);
                total += block_bytes.back();
                largest = std::max(largest, block_bytes.back());
            }
            return Shape{.bytes = total, .segment = largest, .blocks = block_bytes};
        },
        arguments_valid);
}

// A Reduce (its root as the caller gave it) or an Allreduce (root -1).
template <class Count, class Native>
int reduction_call(Collective kind, const void* sendbuf, void* recvbuf, Count count, MPI_Datatype datatype,
                   MPI_Op op, int root, MPI_Comm comm, const void* caller, Native&& native) {
    const auto arguments_valid = [&] {
        return reduction_arguments_valid(kind, sendbuf, recvbuf, count, datatype, op, root, comm);
    };
    if (forwards(kind, comm, datatype, [&] { return vector_bytes(count, datatype); },
                 [&] { return valid_type(datatype); }, [&] { return predefined_op(op) && arguments_valid(); }))
        return native();
    return handle(
        kind, comm, caller, native,
        [&](CommContext& ctx, const Planning& planning) -> std::optional<Outcome> {
            if (!fits_int(count)) return std::nullopt;
            return run_reduction(ctx, kind, {sendbuf, recvbuf, int(count), datatype, op, root, true}, planning);
        },
        [&](CommContext&) -> std::optional<Shape> {
            const std::uint64_t bytes = vector_bytes(count, datatype);
            if (bytes == kSizeUnknown) return std::nullopt;
            return Shape{.bytes = bytes, .root = root, .op = runtime::op_index(op)};
        },
        arguments_valid);
}

}  // namespace

// The full paths the entry points take (quick_path.hpp), each with its native call as a closure.
int allgather_full(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm, const void* caller) {
    return allgather_call(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, caller, [=] {
        return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    });
}

int allgatherv_full(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int* recvcounts,
                    const int* displs, MPI_Datatype recvtype, MPI_Comm comm, const void* caller) {
    return allgatherv_call(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, caller, [=] {
        return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
    });
}

int reduce_full(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                MPI_Comm comm, const void* caller) {
    return reduction_call(Collective::reduce, sendbuf, recvbuf, count, datatype, op, root, comm, caller,
                          [=] { return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm); });
}

int allreduce_full(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                   const void* caller) {
    return reduction_call(Collective::allreduce, sendbuf, recvbuf, count, datatype, op, -1, comm, caller,
                          [=] { return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm); });
}

#ifdef PAPSHIM_LARGE_COUNT
int allgather_c_full(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, const void* caller) {
    return allgather_call(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, caller, [=] {
        return PMPI_Allgather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    });
}

int allgatherv_c_full(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                      const MPI_Count* recvcounts, const MPI_Aint* displs, MPI_Datatype recvtype, MPI_Comm comm,
                      const void* caller) {
    return allgatherv_call(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, caller, [=] {
        return PMPI_Allgatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
    });
}

int reduce_c_full(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root,
                  MPI_Comm comm, const void* caller) {
    return reduction_call(Collective::reduce, sendbuf, recvbuf, count, datatype, op, root, comm, caller,
                          [=] { return PMPI_Reduce_c(sendbuf, recvbuf, count, datatype, op, root, comm); });
}

int allreduce_c_full(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                     MPI_Comm comm, const void* caller) {
    return reduction_call(Collective::allreduce, sendbuf, recvbuf, count, datatype, op, -1, comm, caller,
                          [=] { return PMPI_Allreduce_c(sendbuf, recvbuf, count, datatype, op, comm); });
}
#endif

}  // namespace papshim::interpose
