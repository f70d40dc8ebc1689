// Runs the schedules of all p ranks without MPI (DESIGN §4): a data-flow check that proves a
// schedule set correct, and a LogGP-style timing model that projects it to large p.
//
// Pairing rule (the executor relies on it): a step's sends and receives are posted together
// and all complete before the rank's next step. A receive from rank q listed in step s of
// rank r matches a send to r listed in step s of rank q — the same step index on both
// sides. When q sends to r several times in one step, the k-th such send matches r's k-th
// receive from q in that step (MPI's non-overtaking order on one tag). A matched pair must
// list the same blocks in the same order (the blocks are packed in that order) and the same
// piece.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "papshim/schedule.hpp"

namespace papshim::sim {

// The schedules of every rank of one communicator, flattened so that p = 4096 fits (a ring
// there has 16.7 million messages): one record per message, blocks in a shared pool.
class ScheduleSet {
public:
    struct Message {
        int step = 0;
        int peer = 0;
        std::size_t first_block = 0;  // index into the block pool
        std::size_t block_count = 0;
        schedule::Combine combine = schedule::Combine::none;  // receives
        std::uint16_t piece_index = 0;  // schedule::Piece, narrowed to fit the record's padding
        std::uint16_t piece_count = 0;  // 0: whole blocks
        schedule::Piece piece() const { return {piece_index, piece_count}; }
    };

    // Builds the schedule of each rank in turn with `build` and keeps only its flat form.
    static ScheduleSet build(schedule::Builder build, int ranks);
    // The same with every other field of the builder's input taken from `input` (arrivals,
    // root, op commutativity); input.rank is set per rank and input.ranks is `ranks`.
    static ScheduleSet build(schedule::Builder build, int ranks, schedule::BuildInput input);
    // Flattens given schedules; schedules[i] must be rank i's (tests use this for broken ones).
    static ScheduleSet from(std::span<const schedule::Schedule> schedules);

    int ranks() const { return ranks_; }
    int blocks() const { return blocks_; }
    // Steps listed in rank's schedule, including empty ones.
    int step_count(int rank) const { return step_counts_[static_cast<std::size_t>(rank)]; }
    int max_step_count() const;
    std::span<const Message> sends(int rank) const;
    std::span<const Message> recvs(int rank) const;
    std::span<const int> blocks_of(const Message& message) const {
        return {block_pool_.data() + message.first_block, message.block_count};
    }
    std::size_t send_count() const { return sends_.size(); }
    std::size_t recv_count() const { return recvs_.size(); }
    // Every rank's messages in rank order; sends(rank) starts at all_sends()[send_offset(rank)].
    std::span<const Message> all_sends() const { return sends_; }
    std::size_t send_offset(int rank) const { return send_begin_[static_cast<std::size_t>(rank)]; }
    std::size_t recv_offset(int rank) const { return recv_begin_[static_cast<std::size_t>(rank)]; }
    // Blocks rank receives over the whole schedule (p-1 for every correct Allgather).
    std::size_t blocks_received(int rank) const;

private:
    void append(const schedule::Schedule& plan);

    int ranks_ = 0;
    int blocks_ = 0;
    int pending_blocks_ = 0;  // blocks of the schedule appended last
    std::vector<int> step_counts_;
    std::vector<std::size_t> send_begin_{0}, recv_begin_{0};  // per rank, CSR style
    std::vector<Message> sends_, recvs_;
    std::vector<int> block_pool_;
};

// Empty when the set is correct, otherwise a description of the first problem found:
// - a send and a receive break the pairing rule above, or list different blocks or pieces;
// - a rank sends a block it does not hold at the start of that step (own block, or received
//   in an earlier step), or lists a block twice in one message;
// - a piece transfer lists other than one block, or a piece count above 64 or unlike an
//   earlier piece of that block, or an index outside it; a rank sends a piece it does not
//   hold (the whole block, or that piece received earlier);
// - a rank receives a block it already holds (a piece of it: any part of it), or two
//   messages bring the same block or piece;
// - a rank ends without some block (a block is held once all its pieces are).
// Block ids must be in [0, blocks) and peers in [0, ranks), not the rank itself.
std::string check_data_flow(const ScheduleSet& set);

// The data-flow check of a Reduce (root >= 0) or Allreduce (root = -1) schedule set. Every
// rank starts with its own contribution to every block; a message carries the sender's
// current partial result of its blocks; a receive with Combine::none replaces the local
// partial, the others reduce it in. Empty when correct, otherwise the first problem:
// - the pairing rule is broken, or a message moves a piece, or lists no blocks, or blocks that are not
//   consecutive ascending, or a block twice in one step's receives unless every one of them
//   combines (they reduce in one after another, in the order listed, as the executor does);
// - a combine reduces a contribution in twice (each is reduced exactly once);
// - `commutative` false: a combine joins partials that are not adjacent ranges of ranks in
//   the order its Combine says (rank order must be kept for non-commutative ops);
// - the root (Reduce) or some rank (Allreduce) ends without every contribution to a block.
std::string check_reduction_flow(const ScheduleSet& set, int root, bool commutative);

// LogGP-style costs. A message of B bytes is injected by its sender, then arrives
// `latency + B * per_byte` later. Each message costs `overhead` of the CPU at both ends
// (sends issued one after another when the step starts; receives processed in arrival
// order). With `contention`, a rank's link carries one message at a time in each direction:
// sends in one step are injected back to back (B * per_byte each) and arrivals are taken
// one at a time (the single-port model of spec §2.7). Messages of at least
// `rendezvous_bytes` cannot start before the receiver has entered that step, and their send
// completes only on arrival. Messages whose blocks are all empty are skipped, as the
// executor skips them; a message that lists no blocks (a signal) costs latency and overhead.
//
// Optional two-level machine (spec §2.8), when ranks_per_node > 0: rank r sits on node
// r / ranks_per_node (sequential mapping) or r % nodes (cyclic). A message of B bytes between
// nodes costs `inter_latency + S * inter_per_byte` instead, where S sums min(B, B_k) over the
// non-empty inter-node messages k with the same step index that leave the sender's node (or
// enter the receiver's node, whichever sum is more; the message itself included): the node's
// one network port is shared fairly among them, so k equal messages take k times one, and a
// small message beside a large one finishes at the small one's pace (since 2026-12-01; before,
// every message took B times their number). Messages inside a node keep latency/per_byte.
struct TimingModel {
    double latency = 2e-6;    // α
    double per_byte = 1e-9;   // β (G)
    double overhead = 0.0;    // o
    bool contention = false;
    double rendezvous_bytes = std::numeric_limits<double>::infinity();
    int ranks_per_node = 0;  // 0: every pair of ranks alike
    bool cyclic_mapping = false;
    double inter_latency = 2e-6;
    double inter_per_byte = 1e-9;
    // γ: CPU seconds per byte to reduce a received partial into the local one (combining
    // receives only), spent by the receiver after the message arrived.
    double reduce_per_byte = 0.0;
    // BDR's background part (spec allgather-bdr-bslb-and-clairvoyant.md §2.3, §2.7): a rank's
    // steps before its first send run on a helper thread from the earliest arrival on, before
    // the rank itself arrives; its steps from the first send on wait for its arrival, and it
    // exits no earlier than it arrived.
    bool background_receives = false;
    // Eager messages (below rendezvous_bytes) pass through socket buffers at both ends, as
    // over TCP: a send completes once issued (the kernel drains it onto the link), and the
    // receiver's port takes messages off the wire as they come, whether or not the receiver
    // has entered the step, so a rank that arrives late finds them taken in. The buffers are
    // unbounded here. Off: an eager send completes when it is on the wire, and the port takes
    // a step's messages from the step's start. papshim-sim --early-sends sets it
    // (docs/simulator.md, "The predicted scatter's push").
    bool socket_buffers = false;
};

struct TimingResult {
    std::vector<double> exit;  // f_i
    double mean_elapsed = 0;   // ē = mean(f_i − a_i)
    double run_time = 0;       // r = max f − min a
};

// `arrival[i]` is a_i; `block_bytes[b]` the size of block b. Throws std::invalid_argument
// if the sizes do not fit the set or its messages do not pair up.
TimingResult simulate_timing(const ScheduleSet& set, const TimingModel& model,
                             std::span<const double> arrival, std::span<const double> block_bytes);
// ē and r of the exits `exit` (one per rank, none before its arrival) after `arrival`.
TimingResult timing_of_exits(std::span<const double> arrival, std::vector<double> exit);

// The shared-memory dynamic-leader Allreduce (spec pap-aware-allreduce-and-reduce.md §5.5,
// src/algorithms/allreduce/dynamic_leader.cpp) on one node of `arrival.size()` ranks, for a
// vector of `bytes`. It sends no messages, so it has its own model, in the terms of a
// message through shared memory (latency + bytes * per_byte, two copies): a copy of the
// vector costs `overhead + bytes * per_byte / 2`, reducing one deposit into the partial
// `overhead + bytes * (per_byte / 2 + reduce_per_byte)`, and a flag stored on one core is
// seen on another `latency` later. Not in place (the leader copies its own vector first), and
// at any size, where papshim runs it only up to PAPSHIM_SHM_SLOT bytes. The first arriver
// leads: it copies its vector, reduces every other rank's deposit once its flag is seen
// (arrival order), and copies the result into the shared slot; every other rank deposits its
// vector, waits for the result's flag and copies it out. Throws std::invalid_argument for
// no ranks or several nodes (ranks_per_node below the ranks; simulate_node_reduction models
// it across nodes).
TimingResult simulate_dynamic_leader(std::span<const double> arrival, double bytes, const TimingModel& model);

// papshim's node algorithms that are not one schedule (src/algorithms/{reduce,allreduce}/
// arrival_chain.cpp, allreduce/hierarchical.cpp), on nodes of model.ranks_per_node
// consecutive ranks (0: one node), as PAPSHIM_NODE_SIZE makes them: inside each node the
// arrival-ordered chain (pieces of node::kChainPieceBytes and the remainder, eager messages
// at latency/per_byte) or, for hierarchical below `slot_bytes`, the dynamic leader (its
// shared-memory costs above); the node leaders (local rank 0) combine by messages at
// inter_latency/inter_per_byte (binomial Reduce; recursive doubling or Rabenseifner as the
// runtime picks); a broadcast inside each node (the slot below `slot_bytes`, else a binomial
// tree). Each phase starts from the previous one's exits. `root`: the Reduce root. Throws
// std::invalid_argument for no ranks, a root out of range, or what check_node_reduction_model
// throws.
// allreduce_dynamic_leader: hierarchical's slot path at any size (papshim runs it up to
// the slot), one node or several. reduce_dynamic_leader: the leader phase in each node at
// any size (papshim runs the chain above the slot), the others leaving once deposited, then
// the chain's phases among nodes; it leaves out the wait of a rank whose previous deposit
// the leader has not yet taken (calls back to back) and the slots' first mapping.
// allreduce_symmetric: the symmetric Allreduce (allreduce/symmetric_shm.cpp) at any size
// (papshim runs it up to node::kSymmetricBytes, hierarchical above): every rank deposits
// its vector (a copy), waits for each other deposit's flag in local rank order from the
// highest, copies the first and reduces each next into its sum, and copies the sum out;
// across nodes only local rank 0 combines, then the leaders' and the node's broadcast phases.
enum class NodeReduction {
    reduce_arrival_chain,
    reduce_dynamic_leader,
    allreduce_arrival_chain,
    allreduce_hierarchical,
    allreduce_dynamic_leader,
    allreduce_symmetric
};
TimingResult simulate_node_reduction(NodeReduction algorithm, std::span<const double> arrival, double bytes, int root,
                                     double slot_bytes, const TimingModel& model);
// Throws std::invalid_argument unless the model's nodes are consecutive ranks (ranks_per_node
// >= 0, block mapping) and its messages eager (no rendezvous_bytes).
void check_node_reduction_model(const TimingModel& model);

// Per-rank arrival times for the simulator and benchmarks, reproducible from a seed: rank i's
// random draw depends only on (seed, i).
struct ArrivalPattern {
    enum class Kind { balanced, uniform, one_late, staircase, list };
    ArrivalPattern() = default;
    ArrivalPattern(Kind kind_, double seconds_) : kind(kind_), seconds(seconds_) {}
    Kind kind = Kind::balanced;
    double seconds = 0;  // uniform: max delay; one_late: the delay; staircase: delay per rank
    std::vector<double> times;  // list: rank i's arrival, e.g. replayed from a trace
};

// Parses "balanced", "uniform:MAX_S", "one-late:D_S", "staircase:STEP_S" or
// "list:A0,A1,..." (finite seconds, one per rank); nullopt if bad.
std::optional<ArrivalPattern> parse_arrival_pattern(std::string_view text);
// uniform: a_i ~ U[0, MAX); one_late: one rank (chosen by the seed) arrives D after the rest;
// staircase: a_i = i * STEP; list: the given times (the caller sizes the communicator to it).
std::vector<double> make_arrivals(const ArrivalPattern& pattern, int ranks, std::uint64_t seed);

// Human-readable dump of one schedule, for debugging and test failure messages.
std::string to_string(const schedule::Schedule& plan);

}  // namespace papshim::sim
