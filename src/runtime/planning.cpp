// Which communicators predict and exchange, and the clock and τ the planners measure with
// (DESIGN §5). The planners themselves live in predictor/.
#include <cmath>

#include <fmt/format.h>

#include "internal.hpp"
#include "papshim/progress.hpp"

namespace papshim::runtime {
namespace {

// Calls smaller than this never exchange under `auto`: a plan cannot pay for the exchange
// there (measured: a small Iallgather costs microseconds, more than a whole small
// collective on shared memory; docs/benchmarks.md).
constexpr std::uint64_t kSampledMinBytes = 16 * 1024;
// native_below forwards auto's reductions below kSampledMinBytes before run_reduction sees
// them, so auto_reduction_classic's sizes must lie above it.
static_assert(kSampledMinBytes <= kAutoReduceTreeMinBytes && kSampledMinBytes <= kAutoAllreduceRingUnevenMinBytes);
// auto_reduction_small's calls lie below it (the quick path's window) and fit the symmetric
// Allreduce's cells.
static_assert(kAutoSmallMaxBytes < kSampledMinBytes && kAutoSmallMaxBytes <= node::kSymmetricBytes);

// Under `auto`, the calls whose algorithm can change with the arrivals, and how often they
// exchange: Reduce/Allreduce of the sizes auto_reduction_candidate names for the
// communicator's node layout, sampled; Allgather(v) with one rank per node of the sizes where
// auto may run BDR, on every call, if the helper thread runs to post BDR's background
// receives (without them BDR loses). Below those sizes auto's Allgather is a classic algorithm
// or native whatever the arrivals (auto_allgather_runs_classic), and on one node native: following it
// there cost a balanced 1 MiB Allgather 5-19% of native's time (p = 4, docs/benchmarks.md).
plan::Follow auto_cadence(std::uint8_t collective, std::uint64_t bytes, int ranks, NodeLayout layout) {
    const Collective kind = Collective(collective);
    if (gathers(kind)) {
        // 32 bytes a rank per call is little against blocks of 256 KiB, and sampling one call
        // in 16 left BDR waiting up to 16 calls after an imbalance began (docs/benchmarks.md,
        // "`auto` runs BDR").
        if (plan::Progress::instance().running() && auto_allgather_may_plan(ranks, bytes, layout))
            return plan::Follow::every_call;
        return plan::Follow::no;
    }
    if (bytes < kSampledMinBytes) return plan::Follow::no;
    const bool cores_shared = state().node_load.oversubscribed();
    return auto_reduction_candidate(kind, bytes, state().config.shm_slot, layout, cores_shared, ranks).empty()
               ? plan::Follow::no
               : plan::Follow::sampled;
}

}  // namespace

std::uint64_t native_below(Collective collective, std::string_view choice, const plan::Policy& policy) {
    if (choice == "native") return kAllCalls;
    // auto's Reduce/Allreduce below the sampled sizes is native whatever the arrivals, as long
    // as nothing else on the communicator exchanges on every call (then every call carries
    // the guard, and the candidate of its size may run).
    const bool reduction = collective == Collective::reduce || collective == Collective::allreduce;
    if (choice == "auto" && reduction && policy.exchange != plan::Exchange::always) return kSampledMinBytes;
    // auto's Allgather(v) with a mean block below this is native whatever the arrivals and
    // the layout (choose_allgather); its quick bytes are the mean block.
    if (choice == "auto" && gathers(collective) && policy.exchange != plan::Exchange::always)
        return kAutoClassicMinBlockBytes;
    return 0;
}

bool plans_here(Collective collective, std::string_view choice) {
    return uses_plans(collective, choice) &&
           (!needs_helper_thread(collective, choice) || plan::Progress::instance().running());
}

void update_policy(CommContext& ctx) {
    plan::Policy policy;
    if (!ctx.inter && ctx.size > 1) {
        for (int c = 0; c < collective_count; ++c) {
            const std::string_view choice = algorithm_for(ctx, Collective(c));
            if (plans_here(Collective(c), choice)) {
                policy.exchange = plan::Exchange::always;
            } else if (choice == "auto" && (!gathers(Collective(c)) || plan::Progress::instance().running())) {
                // auto's Allgather(v) follows calls only to plan BDR, which needs the helper
                // thread (started at MPI_Init or never, alike on every rank): without it
                // the communicator needs no planner for it.
                policy.sampled_collectives |= std::uint8_t(1u << c);
            }
        }
        if (policy.exchange == plan::Exchange::off && policy.sampled_collectives != 0)
            policy.exchange = plan::Exchange::sampled;
    }
    policy.cadence = auto_cadence;
    policy.ranks = ctx.size;
    ctx.policy = policy;
    for (int c = 0; c < collective_count; ++c)
        ctx.native_below[std::size_t(c)].store(native_below(Collective(c), algorithm_for(ctx, Collective(c)), policy),
                                               std::memory_order_release);
    update_own_up_to(ctx);
    hot::invalidate();
}

predict::Settings predictor_settings(const Config& config) {
    predict::Settings settings;
    settings.method = predict::parse_method(config.predictor).value_or(predict::Method::ema);  // validated at MPI_Init
    settings.alpha = config.ema_alpha;
    settings.window = config.sma_window;
    return settings;
}

plan::Planner* planner(CommContext& ctx) {
    if (ctx.policy.exchange == plan::Exchange::off || ctx.native_only()) return nullptr;
    if (!ctx.planner) ctx.planner = std::make_unique<plan::Planner>(private_comm(ctx), predictor_settings(state().config), global_ns);
    return ctx.planner.get();
}

const LinkModel& link_of(const CommContext& ctx) { return ctx.link ? *ctx.link : state().link; }

namespace {
// PAPSHIM_TAU_US in ns (at least 1: the variable takes any value above 0), or 0 when unset.
std::int64_t tau_override_ns() {
    const double tau_us = state().config.tau_us;
    return tau_us > 0 ? std::max<std::int64_t>(1, std::llround(tau_us * 1e3)) : 0;
}
}  // namespace

std::int64_t tau_ns(const CommContext& ctx, std::uint64_t segment_bytes) {
    if (const std::int64_t fixed = tau_override_ns()) return fixed;
    const LinkModel& link = link_of(ctx);
    return std::max<std::int64_t>(1, std::llround((link.alpha + link.beta * double(segment_bytes)) * 1e9));
}

std::int64_t reduction_round_ns(const CommContext& ctx, double piece_bytes) {
    if (const std::int64_t fixed = tau_override_ns()) return fixed;
    return clairvoyant_round_ns(link_of(ctx), piece_bytes);
}

void measure_link(CommContext& ctx) {
    const State& s = state();
    if (ctx.link || ctx.inter || ctx.size < 2 || s.config.tau_us > 0) return;
    // The pair MPI_Init measured (any duplicate of the world, and most communicators that span
    // it in order): its model, without measuring again.
    const int ends[2] = {0, ctx.size - 1};
    const std::vector<int> world_ends = detail::world_ranks_of(s, private_comm(ctx), ends);
    if (world_ends[0] == 0 && world_ends[1] == s.world_size - 1) {
        ctx.link = s.link;
        return;
    }
    // Fewer rounds than at MPI_Init: this runs inside an application's call (about 25 ms at
    // 1 Gbit/s, once per communicator).
    ctx.link = clock::measure_link(private_comm(ctx), {.ping_pongs = 8, .streams = 2});
    if (ctx.rank == 0)
        detail::verbose(2, fmt::format("communicator {}: alpha {:.2e} s, beta {:.2e} s/B, early sends {}",
                                       trace::comm_label(ctx.id), ctx.link->alpha, ctx.link->beta,
                                       detail::early_sends_label(*ctx.link)));
}

std::int64_t global_ns(std::uint64_t ticks) {
    // Relative to a point read now, so the tick rate's error only scales the (short)
    // distance from now, not the time since MPI_Init.
    const State& s = state();
    const clock::ClockPoint now = clock::point_now();
    const double delta_ns = (double(ticks) - double(now.tick)) * s.ns_per_tick;
    return std::llround((now.local + s.clock_offset) * 1e9 + delta_ns);
}

}  // namespace papshim::runtime
