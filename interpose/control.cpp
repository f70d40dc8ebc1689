// The public C API of include/papshim/control.h.
#include "papshim/control.h"

#include <cstring>
#include <string>

#include "entry_points.hpp"
#include "papshim/progress.hpp"
#include "papshim/runtime.hpp"
#include "papshim/waiting.hpp"

namespace {

// Every rank must pass the same (collective, name): compare against rank 0's choice so a
// mismatch fails everywhere instead of running different algorithms.
bool same_on_every_rank(MPI_Comm comm, const std::string& choice) {
    int mine = papshim::runtime::broadcast_from_rank0(comm, choice) == choice ? 1 : 0, all = 0;
    PMPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, comm);
    return all != 0;
}

}  // namespace

PAPSHIM_EXPORT int papshim_set_algorithm(MPI_Comm comm, const char* collective, const char* name) {
    using namespace papshim;
    if (!runtime::state().initialised || comm == MPI_COMM_NULL || !collective || !name) return MPI_ERR_ARG;
    // An inter-communicator's calls go to MPI whatever is selected; the checks below would
    // broadcast from rank 0 of the other group, which waits for the same (a hang).
    int inter = 0;
    if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter) return MPI_ERR_COMM;
    auto kind = parse_collective(collective);
    runtime::CommContext& ctx = runtime::context(comm);
    bool valid = kind && runtime::valid_algorithm_name(*kind, name);
    // Agreed over papshim's duplicate, or over the communicator itself where MPI could not
    // make one (this call is the application's collective on it, made by every member).
    MPI_Comm agree = runtime::private_comm(ctx);
    if (agree == MPI_COMM_NULL) agree = comm;
    int ok_here = valid ? 1 : 0, ok_everywhere = 0;
    PMPI_Allreduce(&ok_here, &ok_everywhere, 1, MPI_INT, MPI_LAND, agree);
    if (!ok_everywhere || !same_on_every_rank(agree, std::string(collective) + '\n' + name)) return MPI_ERR_ARG;
    if (ctx.native_only()) {
        runtime::settle_native(ctx);
        return std::strcmp(name, "native") == 0 ? MPI_SUCCESS : MPI_ERR_OTHER;  // it runs natively for good
    }
    runtime::set_algorithm(ctx, *kind, name);
    return MPI_SUCCESS;
}

PAPSHIM_EXPORT int papshim_get_algorithm(MPI_Comm comm, const char* collective, char* name, int len) {
    using namespace papshim;
    if (!runtime::state().initialised || comm == MPI_COMM_NULL || !collective || !name || len <= 0) return MPI_ERR_ARG;
    auto kind = parse_collective(collective);
    if (!kind) return MPI_ERR_ARG;
    // A query, not a collective: without a context yet, the configured choice applies.
    runtime::CommContext* ctx = runtime::existing_context(comm);
    std::string_view chosen = ctx ? runtime::algorithm_for(*ctx, *kind) : runtime::state().config.algorithm[std::size_t(*kind)];
    std::size_t n = std::min(chosen.size(), std::size_t(len - 1));
    std::memcpy(name, chosen.data(), n);
    name[n] = '\0';
    return MPI_SUCCESS;
}

PAPSHIM_EXPORT int papshim_get_last_algorithm(MPI_Comm comm, const char* collective, char* name, int len) {
    using namespace papshim;
    if (!runtime::state().initialised || comm == MPI_COMM_NULL || !collective || !name || len <= 0) return MPI_ERR_ARG;
    auto kind = parse_collective(collective);
    if (!kind) return MPI_ERR_ARG;
    runtime::CommContext* ctx = runtime::existing_context(comm);
    const char* last = ctx ? ctx->last_algorithm[std::size_t(*kind)].load(std::memory_order_relaxed) : nullptr;
    if (!last && runtime::native_call_seen(comm, *kind)) last = "native";
    std::string_view ran = last ? last : "";
    std::size_t n = std::min(ran.size(), std::size_t(len - 1));
    std::memcpy(name, ran.data(), n);
    name[n] = '\0';
    return MPI_SUCCESS;
}

// papshim_plan_stats::exchange documents these values.
static_assert(int(papshim::plan::Exchange::off) == 0 && int(papshim::plan::Exchange::sampled) == 1 &&
              int(papshim::plan::Exchange::always) == 2);
// papshim_plan_stats::resting, the README and docs/algorithms/clairvoyant.md §7 say 8.
static_assert(papshim::plan::ExchangeRest::kRestAfter == 8);

PAPSHIM_EXPORT int papshim_get_plan_stats(MPI_Comm comm, papshim_plan_stats* stats) {
    using namespace papshim;
    if (!runtime::state().initialised || comm == MPI_COMM_NULL || !stats) return MPI_ERR_ARG;
    *stats = papshim_plan_stats{};
    stats->helper_thread = plan::Progress::instance().running() ? 1 : 0;
    runtime::CommContext* ctx = runtime::existing_context(comm);
    if (!ctx) return MPI_SUCCESS;
    stats->calls = long(ctx->next_seq);
    stats->planned = ctx->planned_calls;
    stats->unplanned = ctx->unplanned_calls;
    stats->declined = ctx->declined_calls;
    stats->mispredicted = ctx->mispredicted_calls;
    stats->exchange = int(ctx->policy.exchange);
    if (const plan::Planner* planner = ctx->planner.get()) {
        stats->exchanges = planner->exchanges();
        stats->board_exchanges = planner->board_exchanges();
        stats->assessed = planner->guard().assessed();
        stats->good = planner->guard().good();
        stats->last_right = planner->guard().last_right();
        stats->trusted = planner->guard().trusted() ? 1 : 0;
        stats->armed = planner->armed() ? 1 : 0;
        // Only where it changes anything: auto's sampled calls.
        stats->resting = planner->resting() && ctx->policy.exchange == plan::Exchange::sampled;
    }
    return MPI_SUCCESS;
}

PAPSHIM_EXPORT int papshim_set_mode(const char* mode) {
    auto parsed = mode ? papshim::parse_mode(mode) : std::nullopt;
    if (!parsed || !papshim::runtime::state().initialised) return MPI_ERR_ARG;
    papshim::runtime::switch_mode(*parsed);
    return MPI_SUCCESS;
}

PAPSHIM_EXPORT int papshim_get_trace_dir(char* dir, int len) {
    using namespace papshim;
    if (!runtime::state().initialised || !dir || len <= 0) return MPI_ERR_ARG;
    dir[0] = '\0';
    if (!runtime::tracing()) return MPI_SUCCESS;
    const std::string& claimed = runtime::state().config.trace_dir;  // open_trace's choice
    if (claimed.size() >= std::size_t(len)) return MPI_ERR_TRUNCATE;
    std::memcpy(dir, claimed.c_str(), claimed.size() + 1);
    return MPI_SUCCESS;
}

PAPSHIM_EXPORT double papshim_wtime(void) { return papshim::runtime::now(); }

PAPSHIM_EXPORT const char* papshim_wait_policy(void) {
    return papshim::wait_policy_name(papshim::wait_policy());
}

PAPSHIM_EXPORT const char* papshim_version(void) { return PAPSHIM_VERSION; }
