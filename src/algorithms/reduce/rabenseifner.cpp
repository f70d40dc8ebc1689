// Rabenseifner's Reduce, "RSG" (spec pap-aware-allreduce-and-reduce.md §8): fold onto a
// power of two p', reduce-scatter by recursive halving (new rank n ends with block n of p'
// fully reduced), then a binomial gather of the blocks to the root's new rank; when the
// root sat out in the fold, the rank it handed its data to passes the result on.
// Commutative ops only (the halving pairs ranks p'/2 apart).

#include "../reduction_steps.hpp"
#include "builders.hpp"

namespace papshim::reduce {

using reduction::add_receive;
using reduction::add_send;
using reduction::block_range;

schedule::Schedule build_rabenseifner(const schedule::BuildInput& input) {
    const int p = input.ranks;
    const int rank = input.rank;
    const int root = input.root < 0 ? 0 : input.root;
    const reduction::Fold fold(p);
    const int pof2 = fold.pof2();
    schedule::Schedule plan = reduction::empty_schedule(input, pof2);
    reduction::add_fold_in(plan, fold);
    int halving_steps = 0;
    for (int mask = 1; mask < pof2; mask <<= 1) ++halving_steps;
    const int acting_root = fold.sits_out(root) ? root + 1 : root;  // who holds the result

    if (!fold.sits_out(rank)) {
        const int self = fold.new_rank(rank);
        reduction::add_halving_steps(plan, fold, self);
        // Binomial gather towards the acting root, in new ranks relative by XOR: at step k
        // the ranks with bit k set (and no lower bit) send the aligned 2^k blocks they hold.
        const int relative = self ^ fold.new_rank(acting_root);
        for (int mask = 1; mask < pof2; mask <<= 1) {
            schedule::Step step;
            const int partner = self ^ mask;
            if (relative & mask) {
                add_send(step, fold.old_rank(partner), block_range(self / mask * mask, mask));
                plan.steps.push_back(std::move(step));
                break;
            }
            add_receive(step, fold.old_rank(partner), block_range(partner / mask * mask, mask),
                        schedule::Combine::none);
            plan.steps.push_back(std::move(step));
        }
    }
    if (acting_root != root && (rank == root || rank == acting_root)) {
        plan.steps.resize(static_cast<std::size_t>(1 + 2 * halving_steps));
        schedule::Step handover;
        if (rank == acting_root)
            add_send(handover, root, block_range(0, pof2));
        else
            add_receive(handover, acting_root, block_range(0, pof2), schedule::Combine::none);
        plan.steps.push_back(std::move(handover));
    }
    return plan;
}

}  // namespace papshim::reduce
