// Recursive-doubling Allreduce (spec pap-aware-allreduce-and-reduce.md §8): fold onto a power
// of two, then log2 p' steps in which partners at distance 1, 2, 4, ... swap their whole
// partial vectors and both reduce; the fold hands the result back at the end. Partials
// always cover ranges of ranks, combined in rank order, so non-commutative ops may use it.

#include "../reduction_steps.hpp"
#include "builders.hpp"

namespace papshim::allreduce {

using reduction::add_receive;
using reduction::add_send;

schedule::Schedule build_recursive_doubling(const schedule::BuildInput& input) {
    const reduction::Fold fold(input.ranks);
    schedule::Schedule plan = reduction::empty_schedule(input, 1);
    reduction::add_fold_in(plan, fold);
    if (!fold.sits_out(input.rank)) {
        const int self = fold.new_rank(input.rank);
        for (int mask = 1; mask < fold.pof2(); mask <<= 1) {
            const int partner = self ^ mask;
            schedule::Step step;
            add_send(step, fold.old_rank(partner), {0});
            add_receive(step, fold.old_rank(partner), {0}, reduction::order_with(partner, self));
            plan.steps.push_back(std::move(step));
        }
    } else {
        plan.steps.resize(plan.steps.size() + static_cast<std::size_t>(reduction::log2_floor(fold.pof2())));
    }
    reduction::add_fold_out(plan, fold);
    return plan;
}

double recursive_doubling_cost(int ranks, double bytes, const LinkModel& link) {
    const int pof2 = ranks > 0 ? int(std::bit_floor(unsigned(ranks))) : 1;
    return reduction::log2_floor(pof2) * (link.alpha + bytes * (link.beta + link.gamma)) +
           reduction::fold_cost(ranks, bytes, link, true);
}

}  // namespace papshim::allreduce
