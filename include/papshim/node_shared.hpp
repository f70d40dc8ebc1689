// What papshim's node-level algorithms (spec pap-aware-allreduce-and-reduce.md §5.5, §6.5,
// §7) see of a communicator: its nodes, the node's shared-memory segment of epoch-tagged
// flags and slots, and the communicators for point-to-point data inside and between nodes.
// The runtime creates a NodeView lazily (runtime::node_view, collective over the
// communicator); the algorithms in src/algorithms/ are state machines over it.
#pragma once

#include <mpi.h>
#include <sched.h>

#include "papshim/waiting.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <ctime>
#include <vector>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace papshim::node {

// Flags sit in lines of their own: 128 bytes also keeps adjacent-line prefetch from pairing them.
inline constexpr std::size_t kLine = 128;
// Control slots of the arrival chain: a Reduce lets early ranks leave and start later calls,
// so consecutive calls must not share one slot (spec §6.4 item 4).
inline constexpr int kChainSlots = 4;
// Slots of the prediction board (plan::Planner's exchange through shared memory): a rank
// reads the previous board call's slot while a faster one writes at most the next call's.
inline constexpr int kBoardSlots = 4;

// One rank's prediction record on the board: plan::Contribution's four words, `seq` stored
// last (release), so a reader that sees the expected seq sees the rest.
struct BoardCell {
    std::atomic<std::uint64_t> next_arrival_ns;
    std::atomic<std::uint64_t> arrival_ns;
    std::atomic<std::uint64_t> next_signature;
    std::atomic<std::uint64_t> seq;  // kBoardEmpty until the first write
};
inline constexpr std::uint64_t kBoardEmpty = ~std::uint64_t(0);
static_assert(sizeof(BoardCell) == 32);

// The symmetric Allreduce's cells (symmetric_reduce in src/algorithms/node_steps.hpp): each
// rank's deposit for even and odd calls, an epoch word and then up to this many bytes of the
// vector, in one cache line for a small one. Two cells per rank, because a rank that has
// left call s may write its next deposit while a slower one still reads call s's.
inline constexpr std::size_t kSymmetricBytes = 1024;
inline constexpr std::size_t kSymmetricHeader = 16;  // the epoch, and every type's alignment

// Set in a rank's ready line by the leader that has reduced the deposit: the slot may be
// written again (a rank that left a Reduce early may be back before the leader got to it).
inline constexpr std::uint64_t kDepositTaken = std::uint64_t{1} << 63;

static_assert(std::atomic<std::uint64_t>::is_always_lock_free, "shared-memory flags need lock-free atomics");
static_assert(std::atomic<std::uint32_t>::is_always_lock_free, "shared-memory flags need lock-free atomics");

// The segment, laid out from its base (every offset a multiple of kLine):
//   header lines: leader_epoch, partial_epoch, bcast_epoch
//   ready[local_size]                 one line each: epoch of the last deposit of that rank,
//                                     with kDepositTaken once the leader has reduced it
//   chain slot [kChainSlots]          epoch, ticket, departed lines + order[local_size] cells
//   board[kBoardSlots][local_size]    BoardCell each (32 bytes), each slot from a line
//   symmetric[2][local_size]          epoch (kSymmetricHeader bytes) + kSymmetricBytes each
//   data[local_size][slot_bytes]      deposits of the dynamic leader
//   result[slot_bytes]                a node partial or a result to copy out
class Segment {
public:
    Segment() = default;
    Segment(std::byte* base, int local_size, std::size_t slot_bytes)
        : base_(base), local_size_(local_size), slot_bytes_(slot_bytes) {}

    static std::size_t bytes_for(int local_size, std::size_t slot_bytes) {
        return data_offset(local_size) + (std::size_t(local_size) + 1) * round_up(slot_bytes);
    }
    std::size_t slot_bytes() const { return slot_bytes_; }

    std::atomic<std::uint64_t>& leader_epoch() { return line(0); }
    std::atomic<std::uint64_t>& partial_epoch() { return line(1); }
    std::atomic<std::uint64_t>& bcast_epoch() { return line(2); }
    std::atomic<std::uint64_t>& ready(int local_rank) { return line(std::size_t(kHeaderLines + local_rank)); }

    std::atomic<std::uint64_t>& chain_epoch(int slot) { return *at<std::uint64_t>(chain_offset(slot)); }
    std::atomic<std::uint32_t>& chain_ticket(int slot) {
        return *reinterpret_cast<std::atomic<std::uint32_t>*>(base_ + chain_offset(slot) + kLine);
    }
    std::atomic<std::uint32_t>& chain_departed(int slot) {
        return *reinterpret_cast<std::atomic<std::uint32_t>*>(base_ + chain_offset(slot) + 2 * kLine);
    }
    // Cell k of the arrival order: (epoch << 24) | (local rank + 1), 0 = empty.
    std::atomic<std::uint64_t>& chain_order(int slot, int k) {
        return *at<std::uint64_t>(chain_offset(slot) + 3 * kLine + std::size_t(k) * 8);
    }

    // Local rank `local_rank`'s symmetric deposit for calls of parity `parity`: its epoch,
    // stored last (release), and the vector at symmetric_data.
    std::atomic<std::uint64_t>& symmetric_epoch(int parity, int local_rank) {
        return *at<std::uint64_t>(symmetric_offset(local_size_, parity, local_rank));
    }
    std::byte* symmetric_data(int parity, int local_rank) {
        return base_ + symmetric_offset(local_size_, parity, local_rank) + kSymmetricHeader;
    }

    BoardCell& board_cell(int slot, int local_rank) {
        return *reinterpret_cast<BoardCell*>(base_ + board_offset(local_size_, slot) + std::size_t(local_rank) * sizeof(BoardCell));
    }

    // Slots start a line apart whatever PAPSHIM_SHM_SLOT is (1025 is allowed): every type's
    // elements stay aligned in them as in the caller's buffers, and no two slots share a line.
    std::byte* data(int local_rank) {
        return base_ + data_offset(local_size_) + std::size_t(local_rank) * round_up(slot_bytes_);
    }
    std::byte* result() { return data(local_size_); }

    // Local rank 0 constructs every flag before the others look (they wait in a barrier).
    void initialise();

private:
    static constexpr std::size_t kHeaderLines = 3;
    static std::size_t round_up(std::size_t n) { return (n + kLine - 1) / kLine * kLine; }
    static std::size_t chain_slot_bytes(int local_size) { return 3 * kLine + round_up(std::size_t(local_size) * 8); }
    std::size_t chain_offset(int slot) const {
        return (kHeaderLines + std::size_t(local_size_)) * kLine + std::size_t(slot) * chain_slot_bytes(local_size_);
    }
    static std::size_t board_slot_bytes(int local_size) { return round_up(std::size_t(local_size) * sizeof(BoardCell)); }
    static std::size_t board_offset(int local_size, int slot) {
        return (kHeaderLines + std::size_t(local_size)) * kLine + kChainSlots * chain_slot_bytes(local_size) +
               std::size_t(slot) * board_slot_bytes(local_size);
    }
    static constexpr std::size_t kSymmetricCell = (kSymmetricHeader + kSymmetricBytes + kLine - 1) / kLine * kLine;
    static std::size_t symmetric_offset(int local_size, int parity, int local_rank) {
        return board_offset(local_size, kBoardSlots) +
               (std::size_t(parity) * std::size_t(local_size) + std::size_t(local_rank)) * kSymmetricCell;
    }
    static std::size_t data_offset(int local_size) {
        const std::size_t flags = symmetric_offset(local_size, 2, 0);
        return (flags + 4095) / 4096 * 4096;
    }
    template <class T>
    std::atomic<T>* at(std::size_t offset) { return reinterpret_cast<std::atomic<T>*>(base_ + offset); }
    std::atomic<std::uint64_t>& line(std::size_t index) { return *at<std::uint64_t>(index * kLine); }

    std::byte* base_ = nullptr;
    int local_size_ = 0;
    std::size_t slot_bytes_ = 0;
};

inline void Segment::initialise() {
    for (std::size_t i = 0; i < kHeaderLines + std::size_t(local_size_); ++i) new (&line(i)) std::atomic<std::uint64_t>(0);
    for (int j = 0; j < kChainSlots; ++j) {
        new (&chain_epoch(j)) std::atomic<std::uint64_t>(std::uint64_t(j));  // slot j serves epoch j first
        new (&chain_ticket(j)) std::atomic<std::uint32_t>(0);
        new (&chain_departed(j)) std::atomic<std::uint32_t>(0);
        for (int k = 0; k < local_size_; ++k) new (&chain_order(j, k)) std::atomic<std::uint64_t>(0);
    }
    for (int j = 0; j < kBoardSlots; ++j)
        for (int k = 0; k < local_size_; ++k) {
            new (&board_cell(j, k)) BoardCell{{0}, {0}, {0}, {kBoardEmpty}};
        }
    for (int parity = 0; parity < 2; ++parity)
        for (int k = 0; k < local_size_; ++k) new (&symmetric_epoch(parity, k)) std::atomic<std::uint64_t>(0);
}

// Waits without stealing a core: a short spin (a peer on another core answers within
// microseconds), then yields, then sleeps briefly (ranks oversubscribed on few cores).
// Asked to (own_core_spin: a short call on a rank with a core of its own, spin_on_own_core()),
// it spins for up to kOwnCoreSpinNs first, as MPI's own wait does there: a yield puts a
// syscall on the path of the wake-up it waits for. Only for short calls: from 16 KiB the
// spinning waiter slowed the rank it waited for (docs/benchmarks.md, "Duplicates of the
// world, and the node algorithms' wait with a core per rank"). The clock is read only once the short spin is over.
class Backoff {
public:
    static constexpr unsigned kSpinRounds = 64;
    static constexpr std::int64_t kOwnCoreSpinNs = 1'000'000;

    explicit Backoff(bool own_core_spin = false) : own_core_spin_(own_core_spin) {}

    void pause() {
        ++rounds_;
        if (rounds_ < kSpinRounds) return relax();
        if (rounds_ == kSpinRounds)
            own_core_until_ns_ = own_core_spin_ ? now_ns() + kOwnCoreSpinNs : 0;
        if (own_core_until_ns_ != 0) {
            // The clock every 64 rounds: a few ns a round (vDSO), no syscall.
            if (rounds_ % kSpinRounds != 0 || now_ns() < own_core_until_ns_) return relax();
            own_core_until_ns_ = 0;
            rounds_ = kSpinRounds + 1;
        }
        if (rounds_ < 2048) {
            sched_yield();
        } else {
            const timespec nap{0, 20'000};
            nanosleep(&nap, nullptr);
        }
    }
    void reset() {
        rounds_ = 0;
        own_core_until_ns_ = 0;
    }
    // Past the short spin and still spinning on a core of its own.
    bool own_core_spin() const { return own_core_until_ns_ != 0; }

private:
    static void relax() {
#if defined(__x86_64__) || defined(__i386__)
        _mm_pause();
#endif
    }
    static std::int64_t now_ns() {
        timespec t{};
        clock_gettime(CLOCK_MONOTONIC, &t);
        return std::int64_t(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
    }

    bool own_core_spin_ = false;
    unsigned rounds_ = 0;
    std::int64_t own_core_until_ns_ = 0;  // armed at the last short-spin round; 0: yield now
};

// The largest call whose waits spin on a core of their own (Backoff's own_core_spin).
inline constexpr std::size_t kOwnCoreSpinMaxBytes = 1024;
inline bool short_wait(std::size_t call_bytes) { return call_bytes <= kOwnCoreSpinMaxBytes && spin_on_own_core(); }

template <class Ready>
void wait_until(Ready&& ready, bool own_core_spin = false) {
    Backoff backoff(own_core_spin);
    while (!ready()) backoff.pause();
}

// A communicator seen node by node; identical on every rank where the docs say so.
struct NodeView {
    MPI_Comm node = MPI_COMM_NULL;     // this node's ranks (a split of the private communicator)
    MPI_Comm leaders = MPI_COMM_NULL;  // local rank 0 of every node; MPI_COMM_NULL elsewhere
    int local_rank = 0;
    int local_size = 1;
    int node_index = 0;                 // this node's rank in `leaders` (its position by lowest rank)
    int node_count = 1;                 // identical everywhere
    std::vector<int> node_of;           // communicator rank -> node index, identical everywhere
    std::vector<int> local_rank_of;     // communicator rank -> local rank on its node, identical everywhere
    MPI_Win window = MPI_WIN_NULL;
    Segment segment;
    // Per-algorithm call counters: every rank of a node runs the same calls in the same order.
    std::uint64_t leader_calls = 0;  // dynamic-leader reductions (epochs from 1)
    std::uint64_t chain_calls = 0;   // arrival chains (epochs from 0)
    std::uint64_t bcast_calls = 0;   // broadcasts through the result slot (epochs from 1)
    std::uint64_t symmetric_calls = 0;  // symmetric reductions (epochs from 1)
    // The first bytes of the deposit slots and of the result slot this process has mapped
    // (node_steps.cpp, map_slots): its own page tables, so each rank keeps its own.
    std::size_t mapped_deposit_bytes = 0;
    std::size_t mapped_result_bytes = 0;
    // Per-communicator scratch, grown on demand: running partials of the chain, and a node's
    // result on its leader when it is not due there.
    std::vector<std::byte> scratch;
    std::vector<std::byte> leader_scratch;
};

}  // namespace papshim::node
