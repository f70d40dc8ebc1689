// Binomial-tree Reduce (spec pap-aware-allreduce-and-reduce.md §8): ceil(log2 p) steps, one
// whole-vector message per step; at step k a rank whose relative rank has bit k set sends its
// partial to the rank 2^k below and is done. Commutative ops: the tree is rooted at the root.
// Non-commutative ops: rooted at rank 0 over rank order (each partial covers a range of
// ranks), then rank 0 hands the result to the root — MPICH's way of keeping the order.

#include "../reduction_steps.hpp"
#include "builders.hpp"

namespace papshim::reduce {

using reduction::add_receive;
using reduction::add_send;

schedule::Schedule build_binomial(const schedule::BuildInput& input) {
    const int p = input.ranks;
    const int rank = input.rank;
    const int root = input.root < 0 ? 0 : input.root;
    const int tree_root = input.commutative ? root : 0;
    schedule::Schedule plan = reduction::empty_schedule(input, 1);
    const int relative = (rank - tree_root + p) % p;
    int tree_steps = 0;
    for (int mask = 1; mask < p; mask <<= 1) ++tree_steps;
    for (int mask = 1; mask < p; mask <<= 1) {
        schedule::Step step;
        if (relative & mask) {
            add_send(step, (relative - mask + tree_root) % p, {0});
            plan.steps.push_back(std::move(step));
            break;
        }
        if (relative + mask < p) {
            // The child's partial covers the ranks above this one's (relative order).
            add_receive(step, (relative + mask + tree_root) % p, {0},
                        input.commutative ? schedule::Combine::received_first : schedule::Combine::local_first);
        }
        plan.steps.push_back(std::move(step));
    }
    if (tree_root != root && (rank == tree_root || rank == root)) {
        plan.steps.resize(static_cast<std::size_t>(tree_steps));
        schedule::Step handover;
        if (rank == tree_root)
            add_send(handover, root, {0});
        else
            add_receive(handover, tree_root, {0}, schedule::Combine::none);
        plan.steps.push_back(std::move(handover));
    }
    return plan;
}

}  // namespace papshim::reduce
