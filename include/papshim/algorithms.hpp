// Registry of papshim's own algorithms. Adding an algorithm = one file under
// src/algorithms/<collective>/ plus one line in that collective's registry table.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>
#include <string_view>

#include "papshim/config.hpp"
#include "papshim/schedule.hpp"

namespace papshim {

// Cost-model inputs measured at init (Hockney α-β): seconds per message, seconds per byte.
// γ: seconds per byte to reduce one vector into another (PMPI_Reduce_local on doubles).
struct LinkModel {
    double alpha = 2e-6;
    double beta = 1e-9;
    double gamma = 2.5e-10;
    // The largest of kEarlySendBytes whose send completes before its receiver has posted the
    // receive (schedule::BuildInput::early_send_bytes); 0: none of them, or unmeasured.
    // Measured with α and β.
    std::uint64_t early_send_bytes = 0;
};

// The largest piece a schedule sends ahead to a rank still away (the predicted scatter's
// chunk, under Open MPI TCP's 64 KiB eager limit).
inline constexpr std::uint64_t kPushedChunkBytes = 48 << 10;
// The message sizes clock::measure_link tries, largest first, to learn
// LinkModel::early_send_bytes, so a schedule can move a chunk as several messages where a whole
// one would wait for its receiver: the chunk; a third of it, under the eager limit of MPICH over
// UCX's TCP (between 16 and 24 KiB here: docs/benchmarks.md, "The predicted scatter's chunks
// under the MPI's eager limit"); and sizes under eager limits of 8 and 4 KiB (UCX's and Open
// MPI TCP's limits count the MPI's header, so 8 KiB itself waits under an 8 KiB limit).
inline constexpr std::uint64_t kEarlySendBytes[] = {kPushedChunkBytes, kPushedChunkBytes / 3, 7680, 3584};

// Where a communicator's ranks sit, as auto's choices depend on it
// (identical on every rank).
enum class NodeLayout : std::uint8_t {
    one_node,           // shared memory between every pair
    one_rank_per_node,  // nothing can go through shared memory
    mixed,              // several nodes, some of them with several ranks
};
constexpr NodeLayout node_layout(int node_count, int ranks) {
    return node_count <= 1 ? NodeLayout::one_node
                           : node_count == ranks ? NodeLayout::one_rank_per_node : NodeLayout::mixed;
}

struct AllgatherAlgorithm {
    std::string_view name;
    schedule::Builder build;
    // Predicted time of one call on a balanced arrival pattern (α-β; the simulator checks it).
    double (*cost)(int ranks, double bytes_per_rank, const LinkModel& link);
    // Builds its schedule from the exchanged predicted arrivals (a plan; its balanced form without one).
    bool plans = false;
};

// Every Allgather/Allgatherv algorithm of papshim's own (not "native" nor "auto").
std::span<const AllgatherAlgorithm> allgather_algorithms();
const AllgatherAlgorithm* find_allgather_algorithm(std::string_view name);
// `auto`'s Allgather(v), measured on the emulated 1 Gbit/s network at p = 4 and 8, one and
// two ranks per node (docs/benchmarks.md, "`auto`'s Allgather across nodes: the ring, and
// BDR from 256 KiB per rank"):
// - on one node, and below kAutoClassicMinBlockBytes per rank, native;
// - between that and kAutoOwnMinBlockBytes across nodes, from kAutoClassicMinRanks ranks,
//   a classic algorithm whatever the arrivals (auto_allgather_runs_classic): with one rank per
//   node Sparbit (for an Allgatherv with far-from-equal blocks the model's pick below): at p = 8 it took
//   0.80-1.01 of native's time at 64 and 128 KiB in every pattern, balanced and imbalanced,
//   of two runs on 2026-12-01 (Allgather and Allgatherv), where the ring took 0.76-1.65
//   (the Allgather's 1.05-1.65 at 64 KiB) and the ring-while-imbalanced rule this replaces
//   left auto at 0.89-1.19 (its sampled exchanges learnt the spread late and kept the ring
//   up to ~48 calls after it ended); at p = 4 Sparbit took up to 1.32 of native's time
//   balanced, so auto stays native there; with several ranks per node Sparbit too, and from
//   kAutoMixedRingMinBlockBytes the ring for near-equal blocks up to kAutoMixedRingMaxRanks
//   ranks, as from kAutoOwnMinBlockBytes:
//   at p = 8, two ranks per node (six runs on 2026-12-01, balanced, one late rank and fresh
//   random delays), native's time was 1.28-2.18x the best classic's (auto, which ran native
//   there until then, 1.22-2.17x); the Allgather's Sparbit took 0.68-0.85 of native's time at 64 KiB where the ring took
//   0.72-0.98, and at 128 KiB 0.65-0.80 where the ring took 0.55-0.79 (0.55-0.66 balanced);
//   with four ranks per node at p = 8 the same rule took 0.41-0.81 of native's time (the ring
//   won balanced at 64 KiB, Sparbit under 10τ); with several ranks per node from
//   kAutoMixedClassicMinRanks ranks up to kAutoClassicMinRanks the ring and the weighed
//   blocks only (see there);
// - from there across nodes, the ring where the blocks are near-equal: 0.75-0.92 of native's
//   time where Sparbit took 0.84-1.05 (p = 8 and 4), 0.49-0.66 where Sparbit took 0.57-0.80
//   (two ranks per node); for an Allgatherv whose largest block is above 1.25 times the mean
//   (the ring's every step waits for the largest block), Sparbit or Bruck (with several
//   ranks per node the ring too) as the simulator's model of its blocks says
//   (fastest_classic_allgatherv; decreasing blocks at 1 MiB: Sparbit
//   0.81-0.83 of native's time, Bruck 1.00; half-full: Sparbit 1.12-1.43, Bruck 1.00-1.01)
//   (auto_allgather_classic);
// - BDR instead with one rank per node, under a predictable imbalance, with its background
//   receives (the helper thread), where an Allgatherv's largest block is at most 2.25 times
//   the mean (BDR's tail timed by the sizes beat Sparbit with decreasing and half-full blocks;
//   geometric and spike blocks lost to it). At 64 KiB the per-call exchange that follows these calls
//   cost 5-8% of native's time under fresh random delays, more than BDR gained; with two
//   ranks per node BDR took 1.09 of native's time under a late rank at 1 MiB, the ring 0.58.
inline constexpr std::uint64_t kAutoOwnMinBlockBytes = 256 << 10;
inline constexpr std::uint64_t kAutoClassicMinBlockBytes = 64 << 10;
inline constexpr std::uint64_t kAutoMixedRingMinBlockBytes = 128 << 10;
inline constexpr int kAutoClassicMinRanks = 8;
// With several ranks per node, from this many ranks up to kAutoClassicMinRanks: the ring from
// kAutoMixedRingMinBlockBytes, and an Allgatherv of far-from-equal blocks the model's pick from
// kAutoClassicMinBlockBytes. At p = 4, two ranks per node (two runs on 2026-12-01), the ring
// took 0.70-0.93 of native's time at 128 KiB at every point (Sparbit 0.78-1.08), and with
// decreasing Allgatherv blocks 0.45-0.95 at 64 and 128 KiB (the model's pick); at 64 KiB the
// Allgather's ring took 1.01-1.12 under 10τ and Sparbit 0.95-1.13, so native stays there.
inline constexpr int kAutoMixedClassicMinRanks = 4;
// With several ranks per node, the ring for near-equal blocks from kAutoMixedRingMinBlockBytes
// below kAutoOwnMinBlockBytes per rank only up to this many ranks, and as a candidate of
// fastest_classic_allgatherv's two-level model up to this many ranks at any size, above it only
// where the blocks' mean exceeds kAutoMixedRingMinBlockBytes: at p = 16, two
// ranks per node (two runs on 2026-12-01, 16 processes on 2 cores), it lost to Sparbit,
// 1.12-1.36x the best classic algorithm's time for the Allgather at 128 KiB and 1.16-1.35x
// for decreasing Allgatherv blocks at 64 KiB, where Sparbit took 0.59-0.74 of native's time.
// From kAutoOwnMinBlockBytes it won there (one run): at 256 KiB and 1 MiB the ring took
// 0.50-0.63 of native's time for the Allgather (Sparbit 0.64-0.78), 0.98-1.04 for decreasing
// Allgatherv blocks (Sparbit 1.11-1.25), so the two-level model weighs it above 128 KiB.
inline constexpr int kAutoMixedRingMaxRanks = 8;
// Whether `auto` runs auto_allgather_classic (Sparbit or the ring, or the model's pick for an
// Allgatherv of far-from-equal blocks) instead of native for an Allgather(v) of `bytes` in all
// (largest block `largest`) over `ranks` laid out as `layout` below kAutoOwnMinBlockBytes per
// rank, whatever the arrivals: no exchange follows these calls (unless a named planned
// algorithm makes every call exchange). Where it is false with layout `mixed` it is false
// with every layout.
bool auto_allgather_runs_classic(int ranks, std::uint64_t bytes, std::uint64_t largest, NodeLayout layout);
// The classic algorithm `auto` runs across nodes where it does not run native or BDR: the
// ring for near-equal blocks from kAutoOwnMinBlockBytes per rank, and with several ranks per
// node (`layout` mixed) from kAutoMixedRingMinBlockBytes; else Sparbit. `largest`: the
// largest block in bytes.
const AllgatherAlgorithm& auto_allgather_classic(int ranks, std::uint64_t bytes, std::uint64_t largest, NodeLayout layout);
// Whether an Allgatherv of these blocks gets fastest_classic_allgatherv instead: its blocks
// far from equal, on up to kClassicModelMaxRanks ranks.
bool auto_allgather_weighs_blocks(int ranks, std::uint64_t bytes, std::uint64_t largest);
// Where a communicator's ranks sit, as the classic model sees them: nodes of `ranks_per_node`
// ranks, consecutive (node = rank / ranks_per_node, the last node possibly smaller) or
// `cyclic` (node = rank % nodes). ranks_per_node 0: one rank per node, or an arrangement
// neither consecutive nor cyclic, which the model sees as one link per pair of ranks alike.
struct NodeShape {
    int ranks_per_node = 0;
    bool cyclic = false;
};
// The NodeShape of `node_of` (communicator rank -> node index, nodes numbered by their lowest
// rank, as node::NodeView's), over `node_count` nodes.
NodeShape node_shape(std::span<const int> node_of, int node_count);
// A message between two ranks of one node, for the classic model: papshim-sim's shared-memory
// α, β at 8 ranks on this 2-core machine (docs/simulator.md, "Model against measurement").
inline constexpr LinkModel kSharedMemoryLink{1.63e-6, 7.15e-11};
// The same for an Allgatherv with every rank's block bytes (`block_bytes`, `ranks` long), the
// communicator's link model across nodes and its NodeShape: fastest_classic_allgatherv where
// auto_allgather_weighs_blocks.
const AllgatherAlgorithm& auto_allgather_classic(int ranks, std::uint64_t bytes, std::uint64_t largest, NodeLayout layout,
                                                 std::span<const std::uint64_t> block_bytes, const LinkModel& link,
                                                 NodeShape nodes);
// Sparbit or Bruck (with several ranks per node `nodes`, the ring too: below) for an
// Allgatherv of these blocks, whichever the simulator's single-port
// model (papshim-sim --contention) finishes first on balanced arrivals over `link`: Bruck
// only if at least kClassicModelMargin faster in ē. Both take ceil(log2 p) steps, but where
// the large blocks sit decides what a step carries: with the large blocks on alternate ranks
// (half-full) every Sparbit step carries one, while Bruck pairs large with empty ones
// (modelled 1.75x Bruck's ē at p = 8; measured 1.12-1.43x native's ē, Bruck 1.00-1.01x, as
// Open MPI's own); with decreasing blocks Bruck's steps carry the large ones together
// (modelled 1.12x Sparbit's ē, measured 1.20-1.24x). With one rank per node recursive
// doubling, neighbour exchange and the ring were measured too and beat neither on any
// layout (the model ties neighbour exchange with Bruck on half-full blocks, where it
// measured 1.16-1.28x native's ē). A pure function of its arguments (identical on every
// rank); 0.02 ms at 8 ranks, 0.16 ms at 64 (the unit test tagged [.bench]), so callers
// cache it.
//
// With several ranks per node (`nodes`) the model is two-level: `link` between nodes, whose
// ports the node's ranks share fairly, kSharedMemoryLink inside; and the ring is weighed too,
// as its consecutive ranks keep all but one of a node's messages per step off the network
// (above kAutoMixedRingMaxRanks ranks only where the blocks' mean exceeds
// kAutoMixedRingMinBlockBytes).
// Measured at p = 8, two ranks per node, 64 KiB and 1 MiB (docs/benchmarks.md, "`auto`'s
// Allgatherv with several ranks per node"): decreasing and geometric blocks, the ring
// 0.43-0.77 of native's time where Sparbit, the one-level pick, took 0.50-0.78; half-full,
// Sparbit 0.33-0.65 where Bruck, the one-level pick, took 0.98-1.05 (Bruck's long steps cross
// nodes from both ranks of a node); a spike, Sparbit (the ring tied at 1 MiB and lost by
// 1-16% at 64 KiB; the model gives the ring 1.10x, under the margin).
const AllgatherAlgorithm& fastest_classic_allgatherv(std::span<const std::uint64_t> block_bytes, const LinkModel& link,
                                                     NodeShape nodes = {});
inline constexpr int kClassicModelMaxRanks = 64;
inline constexpr double kClassicModelMargin = 0.10;
// Messages from this size wait for their receiver in the model (TCP's eager limit).
inline constexpr std::uint64_t kClassicModelRendezvousBytes = 64 << 10;
// Whether `auto` may ever run BDR for an Allgather(v) of `bytes` in all over `ranks` laid out
// as `layout` (so the planner follows such calls).
bool auto_allgather_may_plan(int ranks, std::uint64_t bytes, NodeLayout layout);
// What decides whether `auto` runs BDR on one call; every field is identical on every rank
// (the call's arguments, the node layout, and the guard's state from the exchanged vectors).
struct AutoBdrCall {
    int ranks = 0;
    std::uint64_t bytes = 0;          // the whole gathered vector
    std::uint64_t largest_block = 0;  // an Allgatherv's largest block (an Allgather's block)
    NodeLayout layout = NodeLayout::one_node;
    bool trusted = false;             // Guard::trusted(): recent predictions were right
    bool imbalanced = false;          // Guard::imbalanced(): recent spreads were >= 6 tau (an
                                      // Allgatherv's tau: of its mean block)
};
bool auto_allgather_runs_bdr(const AutoBdrCall& call);

// Buffers of one Allgather or Allgatherv call. `recvcounts`/`displs` (elements of
// recvtype) are null for Allgather, which uses `recvcount` for every block. Displacements
// are MPI_Aint, as MPI_Allgatherv_c's: each rank chooses its own, so a rank whose
// displacements exceed an int must still run what the others run.
struct AllgatherBuffers {
    const void* sendbuf = nullptr;  // may be MPI_IN_PLACE
    int sendcount = 0;
    MPI_Datatype sendtype = MPI_DATATYPE_NULL;
    void* recvbuf = nullptr;
    int recvcount = 0;
    const int* recvcounts = nullptr;
    const MPI_Aint* displs = nullptr;
    MPI_Datatype recvtype = MPI_DATATYPE_NULL;
};

// Blocks of an Allgather schedule received before its rank enters the call (DESIGN §5:
// BDR's pre-step receives, posted by the helper thread while the rank still computes): the
// receives of the schedule's leading receive-only steps, as bytes into staging.
struct Prefetch {
    std::size_t steps = 0;          // leading steps covered
    std::vector<int> blocks;        // block blocks[i] lands at staging[offsets[i]] ...
    std::vector<std::size_t> offsets;
    std::vector<std::size_t> sizes;  // ... and is sizes[i] bytes long
    // Kept from call to call, never shrinking, until its communicator goes: allocated afresh,
    // up to (p - 1) blocks were zero-filled on every planned call only to be overwritten by
    // the receives (6 MiB at p = 8 with 1 MiB blocks; glibc reused the pages, so no mmap).
    std::unique_ptr<std::byte[]> staging;
    std::size_t staging_bytes = 0;
    std::vector<MPI_Request> requests;
    // Forgets the receives and their blocks, keeps the staging buffer for the next call.
    void clear() {
        steps = 0;
        blocks.clear();
        offsets.clear();
        sizes.clear();
        requests.clear();
    }
};
// Posts those receives on `comm` with the step tags of `tag_base`, block b being
// block_bytes[b] bytes (the call's: an Allgather's are all alike, an Allgatherv's come from
// the planned layout); an empty Prefetch when the schedule starts with a send. A transfer of
// empty blocks only posts nothing, as its sender sends nothing. Returns an MPI error code.
int post_prefetch(const schedule::Schedule& plan, std::span<const std::uint64_t> block_bytes, int tag_base,
                  MPI_Comm comm, Prefetch& prefetch);

// Where and how a schedule runs: `comm` must be a private duplicate of the user's
// communicator; planned calls run on their own, in the tag span of their algorithm and
// sequence parity (`tag_base`, schedule::planned_tag_base);
// `prefetched` (completed) supplies the blocks of the steps it covers, which are skipped.
struct AllgatherRun {
    MPI_Comm comm = MPI_COMM_NULL;
    int tag_base = 0x2000;
    const Prefetch* prefetched = nullptr;
};

// Runs `plan` (built for this rank) on `buffers`. Returns an MPI error code.
int execute_allgather(const schedule::Schedule& plan, const AllgatherBuffers& buffers, const AllgatherRun& run);
// MPI_ERR_TRUNCATE where this rank's send data exceed its own block (every rank's check before
// any message; execute_allgather makes it too), else MPI_SUCCESS.
int check_own_block(const AllgatherBuffers& buffers, int rank);

// --- Reduce and Allreduce ---------------------------------------------------------------

// Buffers of one Reduce (root >= 0) or Allreduce (root = -1) call, already checked valid.
struct ReductionBuffers {
    const void* sendbuf = nullptr;  // may be MPI_IN_PLACE (Allreduce; Reduce at the root)
    void* recvbuf = nullptr;        // significant at the root only for Reduce
    int count = 0;
    MPI_Datatype type = MPI_DATATYPE_NULL;
    MPI_Op op = MPI_OP_NULL;
    int root = -1;
    bool commutative = true;
    // A predefined op: MPI then requires the same datatype on every rank, so decisions taken
    // from the type (a named type, its extent) come out alike everywhere. A user op needs only
    // equal type signatures: MPI_INT on one rank and a duplicate of it on another.
    bool same_type_everywhere = false;
};

namespace node {
struct NodeView;
}

struct ReductionAlgorithm {
    std::string_view name;
    schedule::Builder build;  // the schedule, run by execute_reduction; or null and:
    // a node-level state machine (shared-memory signalling, src/algorithms/node_steps.hpp)
    int (*run)(node::NodeView& view, const ReductionBuffers& buffers, MPI_Comm comm);
    bool keeps_rank_order;  // partials are combined in rank order: non-commutative ops may use it
    bool arrival_ordered;   // the reduction order follows arrivals: results vary in the last bits
    // Slot-sized: takes only predefined types whose vector fits a shared-memory slot
    // (PAPSHIM_SHM_SLOT), and names the algorithm of its family that runs the other calls;
    // empty: takes every call it is given.
    std::string_view beyond_slot;
    // Plans in rounds in each of which a rank moves at most one of this many near-equal
    // parts of the vector (Clairvoyant's segments N; the reduce-scatter form's segments per
    // piece, one of every piece a round), so its round length d is one part over one link and
    // its reduction: α + (bytes / N)·(β + γ) (spec §4.8, reduction_round_ns). `segments`: the
    // call's BuildInput::segments (0 where the algorithm cuts nothing by size). Null: no rounds.
    int (*round_pieces)(int ranks, int segments);
    // Builds its schedule from the exchanged predicted arrivals (a plan; its balanced form without one).
    bool plans = false;
    // Cuts the vector into this many pieces for a vector of `bytes` (BuildInput::segments), or
    // into more where its structure asks (the predicted scatter: whole chunks per rank's
    // piece), never into larger ones but one whole vector where nothing overlaps (the
    // predicted scatter at p = 2); null: the schedule does not depend on the size.
    int (*segments_for_bytes)(std::uint64_t bytes) = nullptr;
    // Slot-sized ones: the largest vector it takes where that is less than a slot (the
    // symmetric Allreduce's cell); 0: PAPSHIM_SHM_SLOT.
    std::uint64_t largest_bytes = 0;
    // Its plan depends on nothing but the predicted last arriver, so the guard's trust in who
    // arrives last is enough (plan::Guard::last_established; the predicted scatter).
    bool plans_by_last = false;
};

// Every Reduce (collective reduce) or Allreduce algorithm of papshim's own.
std::span<const ReductionAlgorithm> reduction_algorithms(Collective collective);
const ReductionAlgorithm* find_reduction_algorithm(Collective collective, std::string_view name);

// The algorithm `auto` runs for a Reduce/Allreduce of `bytes` once the arrivals are
// imbalanced, before the per-call checks (op, datatype). Empty: nothing that follows the
// arrivals at this size and layout (auto_reduction_classic's algorithm, or native).
// `cores_shared`: this node runs more ranks than the CPUs they may use (NodeLoad, measured in
// MPI_Init: the same on every rank of a node), where the node algorithms win at larger sizes.
// `ranks`: the communicator's size.
std::string_view auto_reduction_candidate(Collective collective, std::uint64_t bytes, std::uint64_t shm_slot,
                                          NodeLayout layout, bool cores_shared, int ranks);
// The algorithm `auto` runs for an Allreduce of `bytes` (at least one element) below the
// sizes it follows, whatever the arrivals, or empty (native): `symmetric_shm` up to
// kAutoSmallMaxBytes on one node whose cores its ranks share. Asked where a communicator's
// layout becomes known (CommContext::own_up_to) and for each call within that window.
std::string_view auto_reduction_small(Collective collective, std::uint64_t bytes, NodeLayout layout,
                                      bool cores_shared);
inline constexpr std::uint64_t kAutoSmallMaxBytes = 1024;
// Such calls on a communicator without its node view yet go to MPI until this many have: the
// view (a node split, a shared window and several collectives) cost a first call 0.4 ms on
// Open MPI and 140 ms on MPICH (4 ranks on 2 cores; docs/benchmarks.md, "`auto`'s small
// Allreduce on one node"), more than a short job's small calls gain.
inline constexpr std::uint64_t kAutoSmallCallsBeforeView = 64;
// The largest vector auto gives the dynamic leader on a node whose ranks each have a CPU
// (docs/benchmarks.md, "Issue 8 at one build", its part "A core per rank").
inline constexpr std::uint64_t kAutoLeaderOwnCoresMaxBytes = 512 << 10;
// Whose native collectives `auto`'s classic rules across nodes were measured against
// (auto_reduction_classic): Open MPI 4 (4.1.4 here) or MPICH 4 (4.0.2 here). Under another
// MPI, Open MPI 5, MPICH 3 or a derivative of MPICH with collectives of its own (MVAPICH2,
// Intel MPI, Cray MPICH), `auto` runs none of them there: native.
enum class NativeMpi : std::uint8_t { open_mpi_4, mpich, unmeasured };
// This build's MPI.
inline constexpr NativeMpi kBuiltNativeMpi =
#if defined(OPEN_MPI) && OMPI_MAJOR_VERSION == 4
    NativeMpi::open_mpi_4;
#elif defined(MPICH_NUMVERSION) && MPICH_NUMVERSION >= 40000000 && MPICH_NUMVERSION < 50000000 && \
    !defined(MVAPICH2_VERSION) && !defined(I_MPI_VERSION) && !defined(CRAY_MPICH_VERSION)
    NativeMpi::mpich;
#else
    NativeMpi::unmeasured;
#endif
// The algorithm of papshim's own `auto` runs for a Reduce/Allreduce of `bytes` over `ranks`
// laid out as `layout` wherever it runs no plan (balanced arrivals, a call it does not
// follow, no trusted plan): across nodes, from kAutoReductionClassicMinRanks ranks the
// binomial tree for a Reduce from kAutoReduceTreeMinBytes (pipelined in pieces of 8-16 KiB
// since 2026-12-03: 0.22-0.95x native's mean time at p = 4-8, balanced or not, where the
// whole-vector tree lost up to 1.2x at p = 8 under imbalance; in rank order for a
// non-commutative op since 2026-12-03, later: at p = 8 0.39-0.93x native's with root 0,
// 0.59-0.76x with a rotating root, but 1.19-1.32x with a rotating root and the last rank
// late, Open MPI's in-order tree being rooted at that rank), and with one rank per node from
// kAutoAllreduceRingMinRanks the ring for an Allreduce from auto_allreduce_ring_min_bytes
// (kAutoAllreduceRingMinBytes over a power of two of ranks; since 2026-12-06 less over others,
// and from 3 ranks, not 4), with several ranks on some node from kAutoAllreduceRingMinBytes
// where the ranks are not a power of two (since 2026-12-06: at p = 6, 9, 10, 12 of 2 or 3 ranks
// a node, 1-2 MiB, 0.49-0.72x native's time balanced and 0.57-0.73x its excess under fresh
// random delays of 10 tau; at 512 KiB 0.51-1.05x and 0.60-1.08x; docs/benchmarks.md, "The ring
// where p is not a power of two"). Measured on the emulated 1 Gbit/s network against Open MPI
// 4.1's own (docs/benchmarks.md, "`auto`'s Reduce and Allreduce across nodes: the binomial
// tree and the ring where no plan runs"), in mean time in the call: the tree 0.32-0.67 of
// native's balanced at p = 4..8 from 256 KiB to 4 MiB (0.90-1.08 at p = 3), 0.42-0.81 under
// fresh random delays of 2τ, 0.65-1.02 of 10τ; the ring 0.66-0.88 balanced at p = 4 and 8
// from 1 MiB (0.44-0.52 at p = 6), 0.84-0.94 at 2τ, 0.92-0.97 at 10τ (at 512 KiB, p = 8,
// 1.08-1.10). With two ranks per node (p = 4 and 8) the tree took 0.23-0.39 of native's time
// balanced and 0.72-0.89 at 10τ; the ring lost there below 4 MiB (1.01-1.35 at p = 4,
// 0.97-1.19 at p = 8). Empty: native. The tree from 64 KiB since 2026-12-05 (256 KiB before,
// from the whole-vector tree's 0.98-1.28 at 64 KiB; docs/benchmarks.md, "The pipelined Reduce
// tree from 64 KiB"): pipelined, it took 0.35-0.83 of native's time at 64 and 128 KiB,
// p = 4..8, one or two ranks per node, balanced or under 10τ of fresh random delays (0.96-0.97
// at p = 4, two per node, 128 KiB balanced), but lost up to 2.2x at 16-32 KiB.
// All that against Open MPI 4's native collectives (`native`). Against MPICH's (since
// 2026-12-07) only the pipelined tree for a Reduce from kAutoReduceTreeMinBytes across nodes
// from kAutoMpichReduceTreeMinRanks ranks, any layout: MPICH 4.0.2's own Reduce lost to it
// there at every size measured, 64 KiB-4 MiB (docs/benchmarks.md, "`auto`'s Reduce on MPICH
// across nodes"; median calls, ē the ranks' mean time in the call): at p = 2 with one rank per
// node (a core per rank) the tree took 0.39-0.49x native's ē balanced and 0.05-0.25x under
// fresh random delays of 10τ, at p = 3 and 4 0.00-0.35x (ranks sharing the 2 cores), with two
// ranks a node at p = 4 and 6 0.00-0.37x, where papshim's whole-vector binomial tree and chain
// took 0.40-1.45x with one rank per node and 0.22-0.97x with two. Other layouts (uneven, many
// ranks a node) follow from those, not timed. At 16-32 KiB, p = 2, the tree tied MPICH's
// balanced (0.94-0.98x). MPICH's Allreduce tied papshim's with a core per rank (0.92-1.02x):
// native. Against another MPI's nothing (not measured: README.md, `auto`'s Reduce/Allreduce rules).
std::string_view auto_reduction_classic(Collective collective, int ranks, std::uint64_t bytes, NodeLayout layout,
                                        NativeMpi native);
inline constexpr int kAutoReductionClassicMinRanks = 4;
inline constexpr int kAutoMpichReduceTreeMinRanks = 2;
inline constexpr int kAutoAllreduceRingMinRanks = 3;
inline constexpr std::uint64_t kAutoReduceTreeMinBytes = 64 << 10;
inline constexpr std::uint64_t kAutoAllreduceRingMinBytes = 1 << 20;
inline constexpr std::uint64_t kAutoAllreduceRingUnevenMinBytes = 256 << 10;
inline constexpr std::uint64_t kAutoAllreduceRingPieceMinBytes = 40 << 10;
// Beyond 8 ranks (p = 16) the ring lost at 1 MiB (1.25-1.41x native's time) and won at 2 MiB
// (0.69-0.90x); beyond 20 ranks (p = 24) it lost at 1 MiB (up to 1.30x) and tied at 2 MiB
// (0.93-1.07x), so none there (since 2026-12-06; until then the ring from 1 MiB at any p from
// 4, measured at p = 4-8 only). All with p ranks on this machine's 2 cores, where each of the
// ring's 2(p-1) steps waits for every rank to be scheduled: docs/benchmarks.md, "The ring
// where p is not a power of two", its part "Larger p".
inline constexpr std::uint64_t kAutoAllreduceRingWideMinBytes = 2 << 20;
inline constexpr int kAutoAllreduceRingWideRanks = 16;
inline constexpr int kAutoAllreduceRingMaxRanks = 20;
// The smallest Allreduce `auto` gives the ring where it runs no plan, one rank per node:
// kAutoAllreduceRingMinBytes over a power of two of ranks (kAutoAllreduceRingWideMinBytes from
// kAutoAllreduceRingWideRanks); otherwise from 256 KiB and pieces
// (the vector over the ranks: the ring sends 2(p-1) of them in turn) of 40 KiB, capped at
// kAutoAllreduceRingMinBytes. At p = 3, 5-7 and 9-14 Open MPI 4.1's own Allreduce is the slow
// one (docs/benchmarks.md, "The ring where p is not a power of two"): where this gives it the
// ring, it took 0.43-0.67x native's time balanced (one run each at p = 9 and 11: 1.12, 0.95) and
// 0.45-0.99x native's excess under fresh random delays of 10 tau; with pieces of 21-37 KiB at
// p = 9-14 it still won balanced but lost under those delays (0.97-1.22x). Under one late rank
// or a staircase before a plan runs it lost at p = 9 and 12 (1.0-1.5x), not at p = 3 and 6.
constexpr std::uint64_t auto_allreduce_ring_min_bytes(int ranks) {
    if (ranks <= 0 || std::has_single_bit(unsigned(ranks)))
        return ranks >= kAutoAllreduceRingWideRanks ? kAutoAllreduceRingWideMinBytes : kAutoAllreduceRingMinBytes;
    return std::min(kAutoAllreduceRingMinBytes,
                    std::max(kAutoAllreduceRingUnevenMinBytes, kAutoAllreduceRingPieceMinBytes * std::uint64_t(ranks)));
}
// auto_reduction_classic's Reduce: whether it is the pipelined binomial tree (else native).
constexpr bool auto_reduce_runs_tree(int ranks, std::uint64_t bytes, NodeLayout layout, NativeMpi native) {
    if (bytes < kAutoReduceTreeMinBytes || layout == NodeLayout::one_node) return false;
    if (native == NativeMpi::open_mpi_4) return ranks >= kAutoReductionClassicMinRanks;
    return native == NativeMpi::mpich && ranks >= kAutoMpichReduceTreeMinRanks;
}
// auto_reduction_classic's Allreduce: whether it is the ring (else native); against Open MPI 4
// only. With several ranks on some node, where p is a power of two, the ring lost below 4 MiB.
constexpr bool auto_allreduce_runs_ring(int ranks, std::uint64_t bytes, NodeLayout layout, NativeMpi native) {
    if (native != NativeMpi::open_mpi_4) return false;
    if (ranks < kAutoAllreduceRingMinRanks || ranks > kAutoAllreduceRingMaxRanks) return false;
    if (layout == NodeLayout::one_rank_per_node) return bytes >= auto_allreduce_ring_min_bytes(ranks);
    return layout == NodeLayout::mixed && !std::has_single_bit(unsigned(ranks)) &&
           ranks >= kAutoReductionClassicMinRanks && bytes >= kAutoAllreduceRingMinBytes;
}
// Whether `auto` runs a planner in rounds (Clairvoyant's Allreduce since 2026-12-05, its
// Reduce until 2026-12-03) on these predicted arrivals
// (the exchanged vector, any order), with round length `round_ns` and `pieces` pieces per
// vector: only where every arrival comes within one round of the one before it (the
// scheduler's window) or at least `pieces` rounds after it (the earlier ranks have time to
// send all their pieces before it comes). Between the two the plan hands pieces along the
// arrival order, each rank holding one until the next arrives: under such staircases at
// p = 8 the plan took up to 1.55x native's mean time in the call at 4 MiB
// (docs/benchmarks.md, "Clairvoyant's round length, and where auto runs its Reduce"). A pure
// function of identical inputs.
bool auto_runs_round_planner(std::span<const std::int64_t> arrival_ns, std::int64_t round_ns, int pieces);
// Whether `auto` runs a trusted plan of `collective` for `bytes` on these predicted arrivals
// (the exchanged vector, any order): a Reduce's predicted chain below
// kAutoReduceChainMinBytes (one rank per node, from kAutoReductionClassicMinRanks ranks and
// kAutoSmallChainMinRankBytes a rank, where else the pipelined tree runs) only where the
// predicted spread is at least kAutoSmallChainMinSpread times `vector_ns`, the time of one
// vector over a link (τ of the whole vector). Measured at p = 4 and 8, 64 and 128 KiB, one late
// rank and staircases of 2-10 vector times (docs/benchmarks.md, "The predicted chain Reduce
// below 256 KiB"): from 6 the chain took 0.29-0.80x native's mean time in the call where the
// tree took 0.33-1.02x (behind it once, 0.62 against 0.54); at 2 and 4 it lost to the tree
// by up to 2.5x (p = 8, 64 KiB staircases). Under `auto`, four rounds: one late rank of 10
// vector times 0.43-0.60x the tree's time, a staircase 0.82-0.92x (64 KiB at p = 8, not
// planned since, 1.01x). An Allreduce's plan over 2 ranks only where the link buffers early
// sends (`early_sends_buffered`: LinkModel::early_send_bytes > 0): one early rank can reduce
// nothing ahead, and the predicted scatter gains only by pushing its partials to the late rank
// before it comes (0.55-0.62x native's excess on both MPIs over TCP; 1.02-1.16x on MPICH
// while its pushed sends waited; docs/benchmarks.md, "An Allreduce plan over two ranks only
// where early sends are buffered").
// Every other plan: true. A pure function of identical inputs.
bool auto_takes_plan(Collective collective, std::uint64_t bytes, std::span<const std::int64_t> arrival_ns,
                     std::int64_t vector_ns, bool early_sends_buffered);
inline constexpr std::uint64_t kAutoReduceChainMinBytes = 256 << 10;
inline constexpr std::uint64_t kAutoSmallChainMinBytes = 64 << 10;
inline constexpr std::uint64_t kAutoSmallChainMinRankBytes = 16 << 10;
inline constexpr std::int64_t kAutoSmallChainMinSpread = 6;
// Clairvoyant's round length d for pieces of `piece_bytes` over `link`: one piece over one
// link and its reduction, α + piece_bytes·(β + γ) (spec §4.8), in ns, at least 1.
std::int64_t clairvoyant_round_ns(const LinkModel& link, double piece_bytes);

// Runs `plan` (built for this rank of `comm`, the private duplicate) on `buffers`: the
// executor of every Reduce/Allreduce schedule, reducing with PMPI_Reduce_local. Returns an
// MPI error code.
int execute_reduction(const schedule::Schedule& plan, const ReductionBuffers& buffers, MPI_Comm comm);

// Whether `name` for `collective` plans from predicted arrivals (so its communicator
// exchanges predictions every call).
bool uses_plans(Collective collective, std::string_view name);

// Whether `name` for `collective` plans only with papshim's helper thread running: its plans
// start with receives posted in the background while the rank still computes (BDR, BSLB).
// Without the thread it runs its balanced form: BDR planned in the foreground took 1.2-2.0x
// the ring's excess (docs/benchmarks.md, "What the helper thread is for"). The reduction
// algorithms that plan need only the prediction exchange, which completes inside MPI calls:
// the thread gained them nothing, so they neither start it nor raise the thread level.
bool needs_helper_thread(Collective collective, std::string_view name);

// Every algorithm name of papshim's own, per collective (configuration checks, help).
AlgorithmNames algorithm_names();

}  // namespace papshim
