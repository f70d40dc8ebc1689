// Pipelined binomial-tree Reduce: the binomial tree rooted at the root, with the vector cut
// into pieces of 8-16 KiB that move up the tree one behind the other, as MPI libraries'
// segmented trees do. A rank of subtree height h sends piece t to its parent at
// step t + h, and receives piece t from each child of height c at step t + c, so every link
// carries one piece per step and a piece moves on the step after its last child's arrived.
// Why: with whole vectors, a rank late to the call holds up its whole subtree's data and then
// forwards it hop by hop, one vector's time per hop; in pieces, its data reaches the root in
// about one vector's time plus a piece per hop, and the pieces are small enough that the
// early ranks' data crosses (eagerly, in most MPIs) while the late one is away.
// The piece size was measured (docs/benchmarks.md, "A pipelined binomial Reduce"): over
// Open MPI's TCP, 16 KiB pieces beat its Reduce balanced and under imbalance, while 64 KiB
// pieces (past its eager limit) took 2-3x its time and 4 KiB ones lost balanced
// (reduction::pipeline_pieces).
// Non-commutative ops keep rank order as the whole-vector tree does (binomial.cpp): the tree
// is rooted at rank 0, where a subtree is a range of ranks and each child's range follows its
// parent's, and rank 0 hands each finished piece on to the root. So that children combine in
// rank order, a higher child must never deliver piece t before a lower one (with heights
// truncated at p = 5, child 4 would deliver at step t, before child 2 at t + 1): a rank's
// height is that of its untruncated subtree, so children deliver one step apart in rank
// order. A p that is no power of two pays one step more for it, and the handover one more.

#include <algorithm>
#include <bit>
#include <cstdint>

#include "../reduction_steps.hpp"
#include "builders.hpp"

namespace papshim::reduce {

using reduction::add_receive;
using reduction::add_send;

namespace {

constexpr int kDefaultSegments = 16;  // when the size is not given (the simulator's checks)

// Relative rank r's children in the binomial tree over p ranks: r + 2^j for 2^j below r's
// lowest set bit (every power of two below p for r = 0), within p.
template <typename Visit>
void for_each_child(int relative, int p, Visit visit) {
    const int limit = relative == 0 ? p : relative & -relative;
    for (int mask = 1; mask < limit && relative + mask < p; mask <<= 1) visit(relative + mask);
}

// The steps a piece takes to climb from r's deepest leaf to r: 0 for a leaf. r's subtree is
// the ranks [r, r + lowbit(r)) within p (all p for r = 0), a binomial tree of that many ranks,
// whose height is floor(log2) of its size.
int subtree_height(int relative, int p) {
    const int size = relative == 0 ? p : std::min(relative & -relative, p - relative);
    return std::bit_width(unsigned(size)) - 1;
}

// The ordered tree's heights: relative rank r sends piece t at step t + (trailing zeros of
// r), so its child r + 2^j delivers at t + j, each child at a step of its own; rank 0 has
// its last piece at step t + bit_width(p - 1) - 1 and hands it on the step after.
int untruncated_height(int relative, int p) {
    return relative == 0 ? std::bit_width(unsigned(p - 1)) : std::countr_zero(unsigned(relative));
}

}  // namespace

schedule::Schedule build_pipelined_binomial(const schedule::BuildInput& input) {
    const int p = input.ranks;
    const int segments = input.segments > 0 ? input.segments : kDefaultSegments;
    schedule::Schedule plan = reduction::empty_schedule(input, segments);
    if (p <= 1) return plan;
    const int root = input.root < 0 ? 0 : input.root;
    const bool ordered = !input.commutative;
    const int tree_root = ordered ? 0 : root;
    const int relative = (input.rank - tree_root + p) % p;
    const auto absolute = [&](int rel) { return (rel + tree_root) % p; };
    const auto height_of = [&](int rel) { return ordered ? untruncated_height(rel, p) : subtree_height(rel, p); };
    const int height = height_of(relative);
    // A child's partial covers the ranks after this one's (rank order when ordered).
    const auto combine = ordered ? schedule::Combine::local_first : schedule::Combine::received_first;

    // The last piece reaches the tree's root at step segments - 1 + (its tallest child's
    // height), and the ordered tree's handover takes the step after.
    plan.steps.resize(std::size_t(segments + height_of(0)));
    for_each_child(relative, p, [&](int child) {
        const int child_height = height_of(child);
        for (int t = 0; t < segments; ++t)
            add_receive(plan.steps[std::size_t(t + child_height)], absolute(child), {t}, combine);
    });
    if (relative != 0) {
        // The parent: this rank with its lowest set bit cleared.
        const int parent = relative & (relative - 1);
        for (int t = 0; t < segments; ++t) add_send(plan.steps[std::size_t(t + height)], absolute(parent), {t});
    } else if (tree_root != root) {
        for (int t = 0; t < segments; ++t) add_send(plan.steps[std::size_t(t + height)], root, {t});
    }
    if (input.rank == root && tree_root != root) {
        // The root sent its own piece t at step t + its height, below rank 0's height.
        for (int t = 0; t < segments; ++t)
            add_receive(plan.steps[std::size_t(t + height_of(0))], tree_root, {t}, schedule::Combine::none);
    }
    // Trailing steps in which this rank has nothing to do are left off.
    while (!plan.steps.empty() && plan.steps.back().sends.empty() && plan.steps.back().recvs.empty()) plan.steps.pop_back();
    return plan;
}

}  // namespace papshim::reduce
