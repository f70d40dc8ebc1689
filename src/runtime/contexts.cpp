// Per-communicator contexts (DESIGN §2 step 2): created lazily on a communicator's first
// intercepted collective (MPI_COMM_WORLD's at the end of MPI_Init), cached as an MPI
// attribute, freed by the attribute's delete callback (MPI_Comm_free) or at MPI_Finalize.
#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <type_traits>
#include <utility>
#include <vector>

#include "internal.hpp"
#include "papshim/progress.hpp"

namespace papshim::runtime {
namespace {

std::mutex contexts_lock;               // guards live_contexts and the ordinal counter
// In creation order. Freeing some contexts is collective over their nodes (a node window,
// a node communicator), so MPI_Finalize frees the rest in one order on every rank
// (free_remaining_contexts). Pointer order differed between ranks and deadlocked in
// MPI_Win_free; so did creation order, where threads made contexts at the same time.
std::vector<CommContext*> live_contexts;
std::uint32_t led_communicators = 0;    // communicators this process created as rank 0

// The communicators this thread is freeing (the MPI_Comm_free and MPI_Comm_disconnect hooks;
// MPI_COMM_SELF while MPI_Finalize deletes its attributes), innermost last, with the context
// whose attribute MPI deleted meanwhile. MPI deletes a communicator's attributes newest first,
// so a user's attribute set before the communicator's first collective is deleted after
// papshim's, and its callback may still call collectives on the communicator: they find the
// context here (or one made here, without an attribute), freed once the free has returned.
// Made again through the attribute, it would be attached to a communicator MPI is destroying,
// and MPI_Finalize would free it through a stale handle, or through a new communicator's.
struct Freeing {
    MPI_Comm comm{};
    CommContext* ctx = nullptr;
};
constexpr int kMaxFreeing = 8;  // frees nested in delete callbacks; deeper ones are not tracked
PAPSHIM_STARTUP_TLS thread_local Freeing freeing[kMaxFreeing];
PAPSHIM_STARTUP_TLS thread_local int freeing_count = 0;

Freeing* being_freed(MPI_Comm comm) {
    for (int i = freeing_count; i-- > 0;)
        if (freeing[i].comm == comm) return &freeing[i];
    return nullptr;
}

// The innermost line of an MPI error's text (MPICH's holds its whole call stack, the reason
// last: "Too many communicators (0/2048 free ...)").
std::string error_reason(int error) {
    char text[MPI_MAX_ERROR_STRING] = {};
    int length = 0;
    if (PMPI_Error_string(error, text, &length) != MPI_SUCCESS) return fmt::format("MPI error {}", error);
    std::string_view reason(text, std::size_t(std::max(length, 0)));
    while (!reason.empty() && (reason.back() == '\n' || reason.back() == ' ')) reason.remove_suffix(1);
    if (const auto line = reason.rfind('\n'); line != std::string_view::npos) reason.remove_prefix(line + 1);
    return std::string(reason);
}

// papshim's duplicate of an application's (intra-)communicator: the same ranks in the same
// order, by MPI_Comm_split with one color, which unlike MPI_Comm_dup copies no attributes: the
// application's copy callbacks never run for papshim's communicator (nor can one that fails on
// some ranks fail it there only). Errors return whatever the communicator's handler, so that
// running out of communicators reaches run_natively instead of ending the job in MPI; another
// thread's point-to-point error on `comm` in that moment returns too.
int duplicate_returning_errors(MPI_Comm comm, int rank, MPI_Comm* dup) {
    MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
    PMPI_Comm_get_errhandler(comm, &handler);
    const bool swap = handler != MPI_ERRORS_RETURN;
    if (swap) PMPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    const int rc = PMPI_Comm_split(comm, 0, rank, dup);
    if (swap) PMPI_Comm_set_errhandler(comm, handler);
    PMPI_Errhandler_free(&handler);
    if (rc != MPI_SUCCESS) *dup = MPI_COMM_NULL;
    else PMPI_Comm_set_errhandler(*dup, MPI_ERRORS_RETURN);
    return rc;
}

void free_context(CommContext* ctx) {
    {
        std::lock_guard guard(contexts_lock);
        live_contexts.erase(std::remove(live_contexts.begin(), live_contexts.end(), ctx), live_contexts.end());
    }
    hot::invalidate();
    ctx->planner.reset();  // completes an exchange in flight (collective, like this callback)
    if (ctx->nodes) {
        if (ctx->nodes->window != MPI_WIN_NULL) PMPI_Win_free(&ctx->nodes->window);
        if (ctx->nodes->leaders != MPI_COMM_NULL) PMPI_Comm_free(&ctx->nodes->leaders);
    }
    if (ctx->node != MPI_COMM_NULL) PMPI_Comm_free(&ctx->node);
    if (ctx->private_dup != MPI_COMM_NULL) PMPI_Comm_free(&ctx->private_dup);
    delete ctx;
}

// The attribute's delete callback: MPI_Comm_free (collective) or MPI_Finalize. While a hook
// frees the communicator, the context lives until the free returns (Freeing).
int delete_attribute(MPI_Comm comm, int, void* value, void*) {
    auto* ctx = static_cast<CommContext*>(value);
    if (Freeing* f = being_freed(comm); f && !f->ctx) {
        f->ctx = ctx;
        // The handle may come back from another thread's MPI_Comm_dup before end_free: no
        // kept answer or cached context may serve it from here on.
        hot::invalidate();
        return MPI_SUCCESS;
    }
    free_context(ctx);
    return MPI_SUCCESS;
}

// remember_native_call's attribute (0 without it, never copied to a duplicate): bit c for
// collective c; kGroupAsked once count_world_window_call compared the communicator with the
// world, kOfWorldGroup its answer; from bit kWindowCallsShift the calls it counted.
constexpr std::uintptr_t kGroupAsked = 1u << 6, kOfWorldGroup = 1u << 7;
constexpr int kWindowCallsShift = 8;

std::uintptr_t native_call_bits(MPI_Comm comm) {
    void* value = nullptr;
    int found = 0;
    PMPI_Comm_get_attr(comm, state().native_calls_keyval, &value, &found);
    return found ? reinterpret_cast<std::uintptr_t>(value) : 0;
}

// The calls count_world_window_call counted on `comm` (0 for a communicator not of the world).
std::uint64_t world_window_calls(MPI_Comm comm) { return native_call_bits(comm) >> kWindowCallsShift; }

// A communicator id identical on every member (trace::comm_id): its rank 0 numbers it and
// broadcasts it over `over` (the private duplicate, or the communicator itself where there
// is none yet: a collective every member makes at the same call, before the user's).
std::uint64_t agree_on_id(const State& s, CommContext& ctx, MPI_Comm comm, MPI_Comm over) {
    int same = MPI_UNEQUAL;
    PMPI_Comm_compare(comm, MPI_COMM_WORLD, &same);
    if (same == MPI_IDENT) return trace::world_comm;
    if (ctx.inter) {
        // Local group's id only; records of inter-communicators are not matched across groups.
        std::lock_guard guard(contexts_lock);
        return trace::comm_id(s.world_rank, led_communicators++);
    }
    std::uint64_t id = 0;
    if (ctx.rank == 0) {
        std::lock_guard guard(contexts_lock);
        id = trace::comm_id(s.world_rank, led_communicators++);
    }
    PMPI_Bcast(&id, 1, MPI_UINT64_T, 0, over);
    return id;
}

void describe_new_communicator(CommContext& ctx) {
    // Every rank has the same verbosity, so this extra collective is taken everywhere (in
    // profile mode too, which otherwise makes no communicator). Where MPI could not make
    // papshim's duplicate (every member alike), nothing; a node communicator it could not
    // make counts no leader.
    const MPI_Comm over = private_comm(ctx);
    if (over == MPI_COMM_NULL) return;
    int node_rank = 1, leaders = 0;
    if (const MPI_Comm node = node_communicator(ctx); node != MPI_COMM_NULL) PMPI_Comm_rank(node, &node_rank);
    int leader = node_rank == 0 ? 1 : 0;
    PMPI_Allreduce(&leader, &leaders, 1, MPI_INT, MPI_SUM, over);
    if (ctx.rank == 0)
        fmt::print(stderr, "papshim: new communicator {} ({} ranks on {} node{})\n", trace::comm_label(ctx.id),
                   ctx.size, leaders, leaders == 1 ? "" : "s");
}

// Outside the hot path: its spills and calls stay out of context()'s fast case.
[[gnu::noinline]] CommContext& find_or_create_context(MPI_Comm comm) {
    // Read before the lookup: if a context is freed meanwhile, the entry stored below is stale.
    const std::uint64_t gen = hot::generation.load(std::memory_order_acquire);
    hot::LastContext& last = hot::last_context;
    State& s = state();
    void* value = nullptr;
    int found = 0;
    PMPI_Comm_get_attr(comm, s.keyval, &value, &found);
    auto* ctx = static_cast<CommContext*>(value);
    Freeing* dying = found ? nullptr : being_freed(comm);
    if (dying && dying->ctx) ctx = dying->ctx;
    else if (!found) {
        // First use: every rank reaches this in the same collective call (MPI orders
        // collectives on a communicator), so the duplicate and the broadcast match.
        ctx = new CommContext;
        ctx->user = comm;
        ctx->world_rank = s.world_rank;
        int inter = 0;
        PMPI_Comm_test_inter(comm, &inter);
        ctx->inter = inter != 0;
        PMPI_Comm_size(comm, &ctx->size);
        PMPI_Comm_rank(comm, &ctx->rank);
        // Profile mode sends nothing of its own: no duplicate (0.3-0.4 ms per communicator
        // over TCP, which an application splitting communicators in its loop pays often).
        if (mode() != Mode::profile) private_comm(*ctx);
        ctx->id = agree_on_id(s, *ctx, comm, ctx->private_dup != MPI_COMM_NULL ? ctx->private_dup : comm);
        {
            std::lock_guard guard(contexts_lock);
            live_contexts.push_back(ctx);
        }
        // The small calls auto left to MPI before the context count towards its node view.
        ctx->small_calls_before_view =
            std::min<std::uint64_t>(world_window_calls(comm), kAutoSmallCallsBeforeView);
        if (s.config.verbose >= 2 && !ctx->inter && !ctx->native_only()) describe_new_communicator(*ctx);
        update_policy(*ctx);
        if (ctx->native_only()) settle_native(*ctx);
        if (dying) dying->ctx = ctx;  // no attribute on a communicator being destroyed
        else PMPI_Comm_set_attr(comm, s.keyval, ctx);
    }
    last = {comm, ctx, gen};
    return *ctx;
}

}  // namespace

CommContext& context(MPI_Comm comm) {
    if (CommContext* const cached = hot::cached_context(comm)) return *cached;
    return find_or_create_context(comm);
}

MPI_Comm node_communicator(CommContext& ctx) {
    std::lock_guard guard(ctx.lock);
    // Made, or never to be made: every failure below makes the context native-only, so it
    // is not tried again (a retry on some nodes only would hang).
    if (ctx.node != MPI_COMM_NULL || ctx.inter || ctx.native_only()) return ctx.node;
    const MPI_Comm over = private_comm(ctx);
    if (over == MPI_COMM_NULL) return MPI_COMM_NULL;
    // Over the whole communicator: MPI agrees on the new communicator's id, so a failure is
    // the same on every member.
    MPI_Comm shared = MPI_COMM_NULL;
    if (const int rc = PMPI_Comm_split_type(over, MPI_COMM_TYPE_SHARED, ctx.rank, MPI_INFO_NULL, &shared);
        rc != MPI_SUCCESS) {
        run_natively(ctx, rc, "papshim's node communicator");
        return MPI_COMM_NULL;
    }
    if (const int node_size = state().config.node_size; node_size > 0) {
        // Virtual nodes: consecutive world ranks, never wider than the real node. Split per
        // node, so it may fail on some nodes only: the members agree.
        MPI_Comm virtual_node = MPI_COMM_NULL;
        const int rc = PMPI_Comm_split(shared, state().world_rank / node_size, ctx.rank, &virtual_node);
        PMPI_Comm_free(&shared);
        int made_here = rc == MPI_SUCCESS ? 1 : 0, made_everywhere = 0;
        PMPI_Allreduce(&made_here, &made_everywhere, 1, MPI_INT, MPI_LAND, over);
        if (!made_everywhere) {
            if (virtual_node != MPI_COMM_NULL) PMPI_Comm_free(&virtual_node);
            run_natively(ctx, rc, "papshim's node communicator");
            return MPI_COMM_NULL;
        }
        shared = virtual_node;
    }
    PMPI_Comm_set_errhandler(shared, MPI_ERRORS_RETURN);
    ctx.node = shared;
    return ctx.node;
}

namespace {
// CommContext::node_count where the world's map cannot count the nodes: the node view must.
constexpr int kNodesNeedView = -1;

// This process's count of the communicator's nodes from the world's map, or 0 where there is
// no map or a member translates to no world rank.
int translated_node_count(const State& s, MPI_Comm over, int ranks) {
    std::vector<int> members(static_cast<std::size_t>(ranks));
    std::iota(members.begin(), members.end(), 0);
    const std::vector<int> world_ranks = detail::world_ranks_of(s, over, members);
    // A node as node_communicator() makes it: a shared-memory node, cut into PAPSHIM_NODE_SIZE
    // consecutive world ranks where that is set.
    const int node_size = s.config.node_size;
    std::vector<std::pair<int, int>> nodes;
    nodes.reserve(world_ranks.size());
    for (const int w : world_ranks) {
        if (w == MPI_UNDEFINED || w < 0 || w >= int(s.node_of_world.size())) return 0;
        nodes.emplace_back(s.node_of_world[std::size_t(w)], node_size > 0 ? w / node_size : 0);
    }
    std::ranges::sort(nodes);
    return int(std::ranges::distance(nodes.begin(), std::ranges::unique(nodes).begin()));
}

// The communicator's nodes from the world's map, agreed by every member, or kNodesNeedView.
// A communicator of the world's group needs no message: every member holds the same map
// (map_world_nodes). Any other may hold processes of another world (spawned, connected),
// which MPICH before 4.3 translates to wrong ranks instead of MPI_UNDEFINED
// (pmodels/mpich#6832): its members agree on the count, one Allreduce of two integers.
// Collective unless the communicator is the world's group; called at the same call on every
// member (layout_of's first ask).
// Whether `over` holds the world's processes (congruent or similar to it): they all hold the
// same map of the world's nodes.
bool world_group(const State& s, MPI_Comm over) {
    int same = MPI_UNEQUAL;
    PMPI_Comm_compare(over, s.world, &same);
    return same == MPI_CONGRUENT || same == MPI_SIMILAR;
}

int mapped_node_count(CommContext& ctx) {
    const State& s = state();
    if (ctx.inter) return kNodesNeedView;
    const MPI_Comm over = private_comm(ctx);
    if (over == MPI_COMM_NULL) return kNodesNeedView;
    const int here = s.node_of_world.empty() ? 0 : translated_node_count(s, over, ctx.size);
    if (world_group(s, over)) return here > 0 ? here : kNodesNeedView;
    const int bounds[2] = {here, -here};
    int agreed[2] = {0, 0};
    if (PMPI_Allreduce(bounds, agreed, 2, MPI_INT, MPI_MAX, over) != MPI_SUCCESS) return kNodesNeedView;
    return here > 0 && agreed[0] == here && agreed[1] == -here ? here : kNodesNeedView;
}

// The node count if known, or found without the node view (cached in ctx.node_count:
// kNodesNeedView where the map cannot count them); 0 where the view must count them.
int nodes_without_view(CommContext& ctx) {
    int nodes = ctx.node_count.load(std::memory_order_acquire);
    if (nodes == 0) {
        if (const node::NodeView* ready = ctx.nodes_ready.load(std::memory_order_acquire)) nodes = ready->node_count;
        else if (ctx.native_only()) return 0;  // no new collectives on a communicator run natively
        else nodes = mapped_node_count(ctx);
        ctx.node_count.store(nodes, std::memory_order_release);
        if (nodes > 0) update_own_up_to(ctx);
    }
    return nodes > 0 ? nodes : 0;
}

// The layout where it is known, or that of a communicator of the world's processes (the world,
// a duplicate) from the world's map (then kept, as nodes_without_view would keep it); never
// collective, and the same on every member. Any other communicator waits for a call that asks
// (its count needs a message): whether it has a context yet depends on tracing and on its
// other calls, which must not change what auto runs. A world-group communicator gets its
// context at its first small call in the window (forwards()), so neither does that.
std::optional<NodeLayout> layout_without_message(CommContext& ctx) {
    if (const std::optional<NodeLayout> known = layout_if_known(ctx)) return known;
    const State& s = state();
    // A context profile mode made has no duplicate yet: its layout waits for a call that asks.
    if (ctx.private_dup == MPI_COMM_NULL || s.node_of_world.empty() || !world_group(s, ctx.user))
        return std::nullopt;
    const int nodes = translated_node_count(s, ctx.private_dup, ctx.size);
    if (nodes <= 0) return std::nullopt;
    int unknown = 0;
    ctx.node_count.compare_exchange_strong(unknown, nodes, std::memory_order_acq_rel);
    return node_layout(nodes, ctx.size);
}

// CommContext::own_up_to for one collective under `algorithm` on a communicator of `layout`:
// auto's small Allreduce rule's window, or 0. The one rule for contexts and for the world's
// duplicates that have none yet (open_world_group_windows).
std::uint64_t small_window(std::string_view algorithm, Collective c, NodeLayout layout, bool cores_shared) {
    return algorithm == "auto" && !auto_reduction_small(c, kAutoSmallMaxBytes, layout, cores_shared).empty()
               ? kAutoSmallMaxBytes
               : 0;
}
}  // namespace

void update_own_up_to(CommContext& ctx) {
    const bool cores_shared = state().node_load.oversubscribed();
    bool any_auto = false;
    for (int c = 0; c < collective_count; ++c) any_auto = any_auto || algorithm_for(ctx, Collective(c)) == "auto";
    // No layout work where no rule can own a call (auto_reduction_small needs shared cores).
    const bool may_own = any_auto && cores_shared && !ctx.inter && ctx.size > 1 && !ctx.native_only();
    const std::optional<NodeLayout> layout = may_own ? layout_without_message(ctx) : std::nullopt;
    bool changed = false;
    for (int c = 0; c < collective_count; ++c) {
        const std::uint64_t up_to =
            layout ? small_window(algorithm_for(ctx, Collective(c)), Collective(c), *layout, cores_shared) : 0;
        changed = ctx.own_up_to[std::size_t(c)].exchange(up_to, std::memory_order_acq_rel) != up_to || changed;
    }
    if (changed) hot::invalidate();  // answers kept without the window
}

bool of_world_group(MPI_Comm comm) { return world_group(state(), comm); }

void open_world_group_windows(State& s) {
    hot::world_group_own_up_to.fill(0);
    const bool cores_shared = s.node_load.oversubscribed();
    if (s.config.mode != Mode::dispatch || !cores_shared || s.world_size < 2 || s.node_of_world.empty()) return;
    const int nodes = translated_node_count(s, s.world, s.world_size);
    if (nodes <= 0) return;
    const NodeLayout layout = node_layout(nodes, s.world_size);
    for (int c = 0; c < collective_count; ++c)
        hot::world_group_own_up_to[std::size_t(c)] =
            small_window(s.config.algorithm[std::size_t(c)], Collective(c), layout, cores_shared);
}

bool spans_nodes(CommContext& ctx) {
    if (const int nodes = nodes_without_view(ctx); nodes > 0) return nodes > 1;
    // The node communicator's size alone, without the rest of the view.
    const MPI_Comm node = node_communicator(ctx);  // splits on first use
    int node_ranks = ctx.size;
    return node != MPI_COMM_NULL && PMPI_Comm_size(node, &node_ranks) == MPI_SUCCESS && node_ranks != ctx.size;
}

NodeLayout layout_of(CommContext& ctx) {
    if (const int nodes = nodes_without_view(ctx); nodes > 0) return node_layout(nodes, ctx.size);
    // The node view, collective on first use.
    const node::NodeView* view = node_view(ctx);
    return node_layout(view ? view->node_count : 1, ctx.size);  // none: the call runs natively
}

std::optional<NodeLayout> layout_if_known(CommContext& ctx) {
    int nodes = ctx.node_count.load(std::memory_order_acquire);
    if (nodes <= 0)
        if (const node::NodeView* view = ctx.nodes_ready.load(std::memory_order_acquire)) nodes = view->node_count;
    if (nodes <= 0) return std::nullopt;
    return node_layout(nodes, ctx.size);
}

node::NodeView* node_view(CommContext& ctx) {
    // Every followed Allreduce asks (its layout, its board): no locks once the view exists.
    if (node::NodeView* ready = ctx.nodes_ready.load(std::memory_order_acquire)) return ready;
    if (ctx.native_only()) return nullptr;
    const MPI_Comm node = node_communicator(ctx);  // takes ctx.lock itself
    std::lock_guard guard(ctx.lock);
    if (ctx.nodes) return ctx.nodes.get();
    // No node communicator, or another thread's call found a failure meanwhile: every member
    // alike (run_natively()).
    if (node == MPI_COMM_NULL || ctx.native_only()) return nullptr;
    auto view = std::make_unique<node::NodeView>();
    view->node = node;
    PMPI_Comm_rank(node, &view->local_rank);
    PMPI_Comm_size(node, &view->local_size);
    // Node leaders (local rank 0) in the order of their communicator ranks; every member
    // learns its node's index, and everyone every rank's node and local rank. The split is
    // over the whole communicator, so its failure is everybody's; the window's, made per
    // node, may be some nodes' only: the Allgather below makes every member agree.
    int error = MPI_SUCCESS;  // this rank's first failure
    if (const int rc = PMPI_Comm_split(private_comm(ctx), view->local_rank == 0 ? 0 : MPI_UNDEFINED, ctx.rank,
                                       &view->leaders);
        rc != MPI_SUCCESS) {
        view->leaders = MPI_COMM_NULL;
        error = rc;
    }
    if (view->leaders != MPI_COMM_NULL) {
        PMPI_Comm_set_errhandler(view->leaders, MPI_ERRORS_RETURN);
        PMPI_Comm_rank(view->leaders, &view->node_index);
        PMPI_Comm_size(view->leaders, &view->node_count);
    }
    int mine[2] = {view->node_index, view->node_count};
    PMPI_Bcast(mine, 2, MPI_INT, 0, node);
    view->node_index = mine[0];
    view->node_count = mine[1];

    // The segment lives in local rank 0's part of one shared window; the others map it.
    const std::size_t slot = state().config.shm_slot;
    const std::size_t bytes = node::Segment::bytes_for(view->local_size, slot);
    void* base = nullptr;
    if (error == MPI_SUCCESS) {
        // MPICH 4.0.2 fails an assertion (ending the job) inside MPI_Win_allocate_shared when it
        // cannot make the window's own communicator, instead of returning the error: two
        // duplicates of the node communicator made and freed just before tell whether it can,
        // with one to spare for another thread of the application making one meanwhile.
        MPI_Comm probe[2] = {MPI_COMM_NULL, MPI_COMM_NULL};
        error = PMPI_Comm_dup(node, &probe[0]);
        if (error == MPI_SUCCESS) error = PMPI_Comm_dup(node, &probe[1]);
        for (MPI_Comm& made : probe)
            if (made != MPI_COMM_NULL) PMPI_Comm_free(&made);
        if (error == MPI_SUCCESS) {
            error = PMPI_Win_allocate_shared(MPI_Aint(view->local_rank == 0 ? bytes : 0), 1, MPI_INFO_NULL, node, &base,
                                             &view->window);
        }
        if (error != MPI_SUCCESS) view->window = MPI_WIN_NULL;
    }
    std::vector<int> triples(3 * std::size_t(ctx.size));
    const int own[3] = {view->node_index, view->local_rank, error == MPI_SUCCESS ? 1 : 0};
    PMPI_Allgather(own, 3, MPI_INT, triples.data(), 3, MPI_INT, private_comm(ctx));
    bool made_everywhere = true;
    for (int r = 0; r < ctx.size; ++r) {
        view->node_of.push_back(triples[3 * std::size_t(r)]);
        view->local_rank_of.push_back(triples[3 * std::size_t(r) + 1]);
        made_everywhere = made_everywhere && triples[3 * std::size_t(r) + 2] != 0;
    }
    if (!made_everywhere) {
        // Freed as made: the window by its whole node, the leaders' communicator by every
        // leader. The node communicator stays, freed with the context.
        if (view->window != MPI_WIN_NULL) PMPI_Win_free(&view->window);
        if (view->leaders != MPI_COMM_NULL) PMPI_Comm_free(&view->leaders);
        run_natively(ctx, error, "papshim's node-leader communicator or node window");
        return nullptr;
    }
    MPI_Aint size = 0;
    int unit = 0;
    PMPI_Win_shared_query(view->window, 0, &size, &unit, &base);
    // The world's map and the view count the same nodes, or two decisions made from them
    // could differ between calls (and ranks would pick different algorithms).
    if (const int mapped = ctx.node_count.load(std::memory_order_acquire); mapped > 0 && mapped != view->node_count)
        plan::abort_on_internal_error("counting the communicator's nodes", MPI_ERR_INTERN);
    view->segment = node::Segment(static_cast<std::byte*>(base), view->local_size, slot);
    if (view->local_rank == 0) view->segment.initialise();
    PMPI_Barrier(node);
    ctx.nodes = std::move(view);
    ctx.nodes_ready.store(ctx.nodes.get(), std::memory_order_release);
    update_own_up_to(ctx);  // the layout may be news (no map of the world's nodes)
    return ctx.nodes.get();
}

MPI_Comm private_comm(CommContext& ctx) {
    // An inter-communicator's calls all go to MPI: no duplicate (one made would be agreed per
    // group, and fail in one group only).
    if (ctx.private_dup == MPI_COMM_NULL && !ctx.inter && !ctx.native_only())
        if (const int rc = duplicate_returning_errors(ctx.user, ctx.rank, &ctx.private_dup); rc != MPI_SUCCESS)
            run_natively(ctx, rc, "papshim's duplicate");
    return ctx.private_dup;
}

void run_natively(CommContext& ctx, int error, std::string_view what) {
#ifdef OPEN_MPI
    // Open MPI 4.1 does not agree on a failure to make a communicator: the rank that ran out of
    // ids returns it, the others wait inside MPI for that rank (comm_cid.c). Nothing papshim
    // does here can free them, so the job ends with the reason, as before.
    if (error != MPI_SUCCESS)
        plan::abort_on_internal_error(fmt::format("making {} (the MPI may have run out of communicators; README, "
                                                  "Known limits)", what).c_str(), error);
#endif
    CommContext::Own usable = CommContext::Own::usable;
    if (!ctx.own.compare_exchange_strong(usable, CommContext::Own::failed)) return;
    hot::any_override.store(true);
    for (auto& algorithm : ctx.algorithm) algorithm.store("native", std::memory_order_release);
    hot::invalidate();
    static std::atomic<bool> said{false};
    if (ctx.rank == 0 && !said.exchange(true))
        fmt::print(stderr,
                   "papshim: MPI could not make {} for a communicator of {} ranks ({}); that communicator's "
                   "collectives run natively from now on, as will those of any other where this happens (MPICH has "
                   "2048 communicators per process, papshim's own among them; README, Known limits)\n",
                   what, ctx.size, error == MPI_SUCCESS ? "on another rank" : error_reason(error));
}

void settle_native(CommContext& ctx) {
    CommContext::Own failed = CommContext::Own::failed;
    if (ctx.own.compare_exchange_strong(failed, CommContext::Own::settled)) update_policy(ctx);
}

CommContext* look_up_context(MPI_Comm comm) {
    void* value = nullptr;
    int found = 0;
    PMPI_Comm_get_attr(comm, state().keyval, &value, &found);
    if (found) return static_cast<CommContext*>(value);
    const Freeing* dying = being_freed(comm);
    return dying ? dying->ctx : nullptr;
}

bool begin_free(MPI_Comm comm) {
    if (!state().initialised || comm == MPI_COMM_NULL || freeing_count == kMaxFreeing) return false;
    freeing[freeing_count++] = {comm, nullptr};
    return true;
}

void end_free() {
    const Freeing done = freeing[--freeing_count];
    if (done.ctx) free_context(done.ctx);
}

void remember_native_call(MPI_Comm comm, Collective collective) {
    if (being_freed(comm)) return;  // no attribute on a communicator being destroyed
    const std::uintptr_t bits = native_call_bits(comm), bit = std::uintptr_t{1} << int(collective);
    if ((bits & bit) == 0) PMPI_Comm_set_attr(comm, state().native_calls_keyval, reinterpret_cast<void*>(bits | bit));
}

std::uint64_t count_world_window_call(MPI_Comm comm, Collective collective) {
    if (being_freed(comm)) return 0;
    const std::uintptr_t before = native_call_bits(comm);
    std::uintptr_t bits = before | std::uintptr_t{1} << int(collective);
    if ((bits & kGroupAsked) == 0) bits |= kGroupAsked | (world_group(state(), comm) ? kOfWorldGroup : 0);
    std::uint64_t calls = 0;
    if ((bits & kOfWorldGroup) != 0) {
        calls = (bits >> kWindowCallsShift) + 1;
        bits = (bits & ((std::uintptr_t{1} << kWindowCallsShift) - 1)) | std::uintptr_t(calls) << kWindowCallsShift;
    }
    if (bits != before) PMPI_Comm_set_attr(comm, state().native_calls_keyval, reinterpret_cast<void*>(bits));
    return calls;
}

bool native_call_seen(MPI_Comm comm, Collective collective) {
    return (native_call_bits(comm) >> int(collective) & 1) != 0;
}

std::string_view algorithm_for(CommContext& ctx, Collective collective) {
    if (hot::any_override.load(std::memory_order_relaxed))
        if (const char* chosen = ctx.algorithm[std::size_t(collective)].load(std::memory_order_acquire)) return chosen;
    return state().config.algorithm[std::size_t(collective)];
}

namespace {
// The static copy of a valid algorithm name: the algorithm tables' (literals, as
// last_algorithm stores them too), or native's and auto's.
const char* static_name(Collective collective, std::string_view name) {
    if (name == "native") return "native";
    if (name == "auto") return "auto";
    if (gathers(collective)) {
        const AllgatherAlgorithm* algorithm = find_allgather_algorithm(name);
        return algorithm ? algorithm->name.data() : nullptr;
    }
    const ReductionAlgorithm* algorithm = find_reduction_algorithm(collective, name);
    return algorithm ? algorithm->name.data() : nullptr;
}
}  // namespace

void set_algorithm(CommContext& ctx, Collective collective, std::string name) {
    hot::any_override.store(true);
    // papshim_set_algorithm validated the name; an unknown one leaves the configured choice.
    ctx.algorithm[std::size_t(collective)].store(static_name(collective, name), std::memory_order_release);
    update_policy(ctx);
    // Every rank calls this at the same point of the communicator's calls, so the rest stays
    // alike everywhere.
    if (ctx.planner) ctx.planner->reset_rest();
}

const schedule::Schedule& CommContext::schedule_for(const ScheduleKey& key) {
    std::lock_guard guard(lock);
    auto it = schedules.find(key);
    if (it == schedules.end()) {
        // Past the bound every size-cut schedule is dropped and rebuilt on use: a build costs
        // far less than the large call it serves. The caller's reference from an earlier call
        // is no longer used (one call at a time per communicator).
        const auto size_cut = [](const auto& entry) { return entry.first.segments > 0; };
        if (key.segments > 0 && std::size_t(std::ranges::count_if(schedules, size_cut)) >= kSizeCutSchedules)
            std::erase_if(schedules, size_cut);
        schedule::BuildInput input;
        input.ranks = size;
        input.rank = rank;
        input.root = key.root;
        input.commutative = key.commutative;
        input.segments = key.segments;
        input.early_send_bytes = link_of(*this).early_send_bytes;
        it = schedules.emplace(key, key.build(input)).first;
    }
    return it->second;
}

namespace {

// By the id every member agrees on (agree_on_id), newest leader's ordinal first: two
// communicators that share ranks are freed in the same relative order on all of them, however
// their threads raced to make the contexts. An inter-communicator's id is its rank's own, but
// its context holds nothing freed collectively over a node: those go last, newest first.
std::vector<CommContext*> live_contexts_in_freeing_order() {
    std::vector<CommContext*> remaining;
    {
        std::lock_guard guard(contexts_lock);
        remaining.assign(live_contexts.rbegin(), live_contexts.rend());
    }
    std::stable_sort(remaining.begin(), remaining.end(), [](const CommContext* a, const CommContext* b) {
        if (a->inter != b->inter) return b->inter;
        return !a->inter && a->id > b->id;
    });
    return remaining;
}

}  // namespace

namespace detail {

void map_world_nodes(State& s) {
    // Each rank learns its node's lowest world rank (its node communicator's rank 0, keyed by
    // world rank), then everyone's. -1: MPI could not split here, and nobody keeps a map.
    int lowest = -1;
    MPI_Comm node = MPI_COMM_NULL;
    if (PMPI_Comm_split_type(s.world, MPI_COMM_TYPE_SHARED, s.world_rank, MPI_INFO_NULL, &node) == MPI_SUCCESS &&
        node != MPI_COMM_NULL) {
        const int first = 0;
        lowest = world_ranks_of(s, node, std::span(&first, 1)).front();
        PMPI_Comm_free(&node);
    }
    std::vector<int> lowest_of(std::size_t(s.world_size), -1);
    // Kept only where every rank has it whole: mapped_node_count trusts, without a message,
    // that every member of a world-group communicator holds the same map.
    const int whole_here = PMPI_Allgather(&lowest, 1, MPI_INT, lowest_of.data(), 1, MPI_INT, s.world) == MPI_SUCCESS &&
                                   std::ranges::none_of(lowest_of, [](int r) { return r < 0; })
                               ? 1
                               : 0;
    int whole_everywhere = 0;
    if (PMPI_Allreduce(&whole_here, &whole_everywhere, 1, MPI_INT, MPI_LAND, s.world) != MPI_SUCCESS ||
        !whole_everywhere)
        lowest_of.clear();
    s.node_of_world = std::move(lowest_of);
}

void create_context_keyval(State& s) {
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_attribute, &s.keyval, nullptr);
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &s.native_calls_keyval, nullptr);
}

void free_remaining_contexts(State& s) {
    for (CommContext* ctx : live_contexts_in_freeing_order()) PMPI_Comm_delete_attr(ctx->user, s.keyval);
}

void retire_planners() {
    // Completes an exchange in flight and cancels background receives (collective over the
    // planner's communicators, in the same order on every rank, as freeing the contexts is).
    for (CommContext* ctx : live_contexts_in_freeing_order()) ctx->planner.reset();
}

}  // namespace detail
}  // namespace papshim::runtime
