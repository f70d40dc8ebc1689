// Predicted-chain Reduce (issue 9; docs/algorithms/predicted-chain.md): the ranks other than
// the root and the rank L predicted to arrive last reduce along a pipelined chain in their
// predicted arrival order, ending at the root, while L is still away; L then sends its data
// straight to the root, so one hop and one reduction are left when it arrives. When the
// root is the one predicted last, the others' chain ends at the latest of them, which hands
// the partial to the root. Commutative ops.

#include <algorithm>

#include "../reduction_steps.hpp"
#include "builders.hpp"

namespace papshim::reduce {

schedule::Schedule build_predicted_chain(const schedule::BuildInput& input) {
    schedule::Schedule plan =
        reduction::empty_schedule(input, input.segments > 0 ? input.segments : reduction::kChainBlocks);
    if (input.ranks <= 1) return plan;
    const int root = input.root < 0 ? 0 : input.root;
    std::vector<int> chain = predicted_order(input);
    const bool root_last = chain.back() == root;
    std::erase(chain, root);
    const int handing = chain.back();  // sends to the root last: L, or the chain's end
    if (!root_last) {
        chain.pop_back();
        chain.push_back(root);
    }
    const int reduced = reduction::add_chain(plan, chain, 0, int(chain.size()));
    const int final_hop[] = {handing, root};
    reduction::add_chain(plan, final_hop, reduced, 1);
    return plan;
}

}  // namespace papshim::reduce
