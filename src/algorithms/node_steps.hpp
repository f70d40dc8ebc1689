// The building blocks of papshim's node-level reductions (spec pap-aware-allreduce-and-reduce.md
// §5.5 dynamic leader, §6.5-6.6 arrival chain, §6.8 and §7 broadcast and node leaders): state
// machines over a NodeView's shared segment, with data moving by point-to-point on the
// view's private communicators. Every function is called by every rank of the node (or of
// the leaders) in the same order, which is what keeps their epoch counters in step.
#pragma once

#include <cstdint>
#include <vector>

#include "../schedule/type_shape.hpp"
#include "papshim/algorithms.hpp"
#include "papshim/node_shared.hpp"

namespace papshim::node {

// One Reduce/Allreduce call as the node steps see it.
struct Call {
    const void* own = nullptr;  // this rank's contribution (recvbuf when in place)
    void* out = nullptr;        // where this rank's result goes (null: none is due here)
    int count = 0;
    MPI_Datatype type = MPI_DATATYPE_NULL;
    MPI_Op op = MPI_OP_NULL;
    schedule::TypeShape shape;
    std::size_t bytes = 0;  // count * type size
    bool predefined = false;  // a named type under a predefined op: the same type on every rank

    // count * extent: what the vector takes in a slot, copied as bytes.
    std::size_t extent_bytes() const { return std::size_t(count) * std::size_t(shape.extent); }

    static int make(const ReductionBuffers& b, Call& call);
};

// The vector fits a slot of the segment and may be copied as bytes (a predefined type, whose
// extent every rank agrees on): what the dynamic leader and the slot broadcast need.
bool fits_slots(const NodeView& view, const Call& call);

// Copies a slot-sized vector between a caller's buffer, a slot or scratch, all laid out alike:
// only the bytes its elements span, from the type's true lower bound (a predefined pair type
// such as MPI_LONG_DOUBLE_INT has padding after its last field, where a caller's buffer may end).
void copy_vector(void* to, const void* from, const Call& call);

// A private buffer for a slot-sized vector: count * extent bytes, as the slots copy it (a
// predefined type's true extent can be less than its extent, e.g. MPI_SHORT_INT's).
void* slot_scratch(std::vector<std::byte>& scratch, const Call& call);

// Dynamic leader (spec §5.5): the first rank of the node to arrive leads and reduces every
// other rank's deposit as it appears into `partial` (null: scratch of its own), then, where
// `publish` (or `partial` is null), publishes the node's partial in the result slot
// (partial_epoch). Others deposit and return at once; `led` says which. A rank that returns
// may come back for the next call before the leader has taken its deposit (a Reduce lets it
// leave): it waits until the leader marks the deposit taken before writing its slot again.
int leader_reduce(NodeView& view, const Call& call, void* partial, bool publish, bool& led);
// Waits for the node partial of the last leader_reduce and copies it to `to`.
void copy_partial(NodeView& view, const Call& call, void* to);

// Symmetric reduction (no leader): every rank of the node deposits its vector in its
// symmetric cell and, where `combine`, waits for every other deposit and combines them all
// into `to` itself, in local rank order, so every rank computes the same bits whatever the
// arrivals. The last rank to arrive waits for nobody; the others for its one deposit. For
// vectors that fit a cell (fits_symmetric). A rank that does not combine must not come back
// before one that does has read its deposit (a collective step in between, as a broadcast).
bool fits_symmetric(const Call& call);
int symmetric_reduce(NodeView& view, const Call& call, void* to, bool combine);

// Chain messages are cut into pieces of about this many bytes so that a rank can pass on the
// start of the partial while the rest still arrives (spec §6.6): measured on Open MPI shared
// memory, 1 MiB Reduce at p = 4 (docs/benchmarks.md). Fixed: every rank must cut alike (an
// experiment's PAPSHIM_CHAIN_PIECE, which the configuration check refuses, is gone).
// papshim-sim's model of the chain cuts alike.
constexpr std::int64_t kChainPieceBytes = std::int64_t{256} * 1024;

// Arrival chain (spec §6.5, chunked §6.6): the node's ranks reduce in the order they arrive,
// over point-to-point on view.node; each passes the running partial to the next arriver and
// leaves. The result goes to local rank `target`'s `result`, or with target = -1 stays with
// the last arriver (in its `result`). `last` returns the last arriver's local rank on the
// ranks that must know it (target = -1: all), else -1.
int chain_reduce(NodeView& view, const Call& call, int target, void* result, int& last);

// `count` elements at `buffer` from local rank `root` to every rank of the node: through the
// result slot when the vector fits it, else a binomial tree over view.node.
int node_bcast(NodeView& view, const Call& call, void* buffer, int root);

// Local rank `from` passes `count` elements at `buffer` to local rank `to` (others: nothing).
int node_handover(NodeView& view, const Call& call, void* buffer, int from, int to);

// Among node leaders (local rank 0 of every node), in place in `buffer`: Allreduce, or
// Reduce to the leader of node `root_node`.
int leaders_allreduce(NodeView& view, const Call& call, void* buffer);
int leaders_reduce(NodeView& view, const Call& call, void* buffer, int root_node);

// The end of a Reduce over several nodes, once each node's partial is in `partial` on its
// local rank 0: the leaders reduce to the root's node, whose leader hands the result to
// communicator rank `root` (into its `call.out`).
int leaders_reduce_to_root(NodeView& view, const Call& call, void* partial, int root);

}  // namespace papshim::node
