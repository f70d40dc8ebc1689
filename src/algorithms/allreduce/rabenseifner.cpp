// Rabenseifner's Allreduce, "RSA" (spec pap-aware-allreduce-and-reduce.md §8): fold onto a
// power of two p', reduce-scatter by recursive halving, allgather by recursive doubling, and
// hand the result back through the fold. log-many messages and bandwidth-optimal for large
// vectors; commutative ops only.

#include "../reduction_steps.hpp"
#include "builders.hpp"

namespace papshim::allreduce {

schedule::Schedule build_rabenseifner(const schedule::BuildInput& input) {
    const reduction::Fold fold(input.ranks);
    schedule::Schedule plan = reduction::empty_schedule(input, fold.pof2());
    reduction::add_fold_in(plan, fold);
    if (!fold.sits_out(input.rank)) {
        const int self = fold.new_rank(input.rank);
        reduction::add_halving_steps(plan, fold, self);
        reduction::add_doubling_steps(plan, fold, self);
    } else {
        plan.steps.resize(plan.steps.size() + 2 * static_cast<std::size_t>(reduction::log2_floor(fold.pof2())));
    }
    reduction::add_fold_out(plan, fold);
    return plan;
}

double rabenseifner_cost(int ranks, double bytes, const LinkModel& link) {
    return reduction::halving_cost(ranks, bytes, link) + reduction::doubling_cost(ranks, bytes, link) +
           reduction::fold_cost(ranks, bytes, link, true);
}

}  // namespace papshim::allreduce
