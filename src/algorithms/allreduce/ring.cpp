// Ring Allreduce (spec pap-aware-allreduce-and-reduce.md §8): the vector in p blocks; p-1
// reduce-scatter steps (rank r passes its partial of block r-i to r+1 and reduces in block
// r-i-1 from r-1, ending with block r+1 complete), then p-1 allgather steps passing the
// complete blocks on. Bandwidth-optimal; commutative ops only (the ring wraps past rank 0).

#include "../reduction_steps.hpp"
#include "builders.hpp"

namespace papshim::allreduce {

namespace {
int wrap(int value, int ranks) { return ((value % ranks) + ranks) % ranks; }
}  // namespace

schedule::Schedule build_ring(const schedule::BuildInput& input) {
    const int p = input.ranks;
    const int r = input.rank;
    schedule::Schedule plan = reduction::empty_schedule(input, p);
    const int right = wrap(r + 1, p), left = wrap(r - 1, p);
    for (int i = 0; i + 1 < p; ++i) {
        schedule::Step step;
        reduction::add_send(step, right, {wrap(r - i, p)});
        reduction::add_receive(step, left, {wrap(r - i - 1, p)}, schedule::Combine::received_first);
        plan.steps.push_back(std::move(step));
    }
    for (int i = 0; i + 1 < p; ++i) {
        schedule::Step step;
        reduction::add_send(step, right, {wrap(r + 1 - i, p)});
        reduction::add_receive(step, left, {wrap(r - i, p)}, schedule::Combine::none);
        plan.steps.push_back(std::move(step));
    }
    return plan;
}

}  // namespace papshim::allreduce
