// Pipelined binomial-tree Reduce (commutative ops): the binomial tree rooted at the root, with
// the vector cut into pieces of 8-16 KiB that move up the tree one behind the other, as MPI
// libraries' segmented trees do. A rank of subtree height h sends piece t to its parent at
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

}  // namespace

schedule::Schedule build_pipelined_binomial(const schedule::BuildInput& input) {
    const int p = input.ranks;
    const int segments = input.segments > 0 ? input.segments : kDefaultSegments;
    schedule::Schedule plan = reduction::empty_schedule(input, segments);
    if (p <= 1) return plan;
    const int root = input.root < 0 ? 0 : input.root;
    const int relative = (input.rank - root + p) % p;
    const auto absolute = [&](int rel) { return (rel + root) % p; };
    const int height = subtree_height(relative, p);

    // The root's last piece arrives at step segments - 1 + (its tallest child's height).
    plan.steps.resize(std::size_t(segments + subtree_height(0, p) - 1));
    for_each_child(relative, p, [&](int child) {
        const int child_height = subtree_height(child, p);
        for (int t = 0; t < segments; ++t)
            add_receive(plan.steps[std::size_t(t + child_height)], absolute(child), {t},
                        schedule::Combine::received_first);
    });
    if (relative != 0) {
        // The parent: this rank with its lowest set bit cleared.
        const int parent = relative & (relative - 1);
        for (int t = 0; t < segments; ++t) add_send(plan.steps[std::size_t(t + height)], absolute(parent), {t});
    }
    // Trailing steps in which this rank has nothing to do are left off.
    while (!plan.steps.empty() && plan.steps.back().sends.empty() && plan.steps.back().recvs.empty()) plan.steps.pop_back();
    return plan;
}

}  // namespace papshim::reduce
