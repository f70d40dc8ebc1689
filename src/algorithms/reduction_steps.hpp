// Pieces shared by the Reduce and Allreduce schedule builders (spec
// pap-aware-allreduce-and-reduce.md §8): the fold of a non-power-of-two communicator onto a
// power of two, and appending steps. Blocks are element ranges (schedule::reduction_block).
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <numeric>
#include <span>
#include <vector>

#include "arrival_order.hpp"
#include "papshim/algorithms.hpp"
#include "papshim/schedule.hpp"

namespace papshim::reduction {

// p ranks folded onto the largest power of two p' <= p (MPICH's scheme): among the first
// 2r ranks (r = p - p') each even rank hands its data to the odd rank above it and sits
// out; the others take new ranks 0..p'-1 in rank order, so a range of new ranks covers a
// range of old ranks (rank order survives, as non-commutative ops need).
class Fold {
public:
    explicit Fold(int ranks)
        : ranks_(ranks), pof2_(ranks > 0 ? int(std::bit_floor(unsigned(ranks))) : 0), extra_(ranks - pof2_) {}
    int pof2() const { return pof2_; }
    // Whether `rank` hands its data over and waits for the result.
    bool sits_out(int rank) const { return rank < 2 * extra_ && rank % 2 == 0; }
    // The new rank of a rank that does not sit out.
    int new_rank(int rank) const { return rank < 2 * extra_ ? rank / 2 : rank - extra_; }
    int old_rank(int new_rank) const { return new_rank < extra_ ? 2 * new_rank + 1 : new_rank + extra_; }
    bool folds(int rank) const { return rank < 2 * extra_; }

private:
    int ranks_;
    int pof2_;
    int extra_;
};

// The blocks first, first+1, ..., first+count-1.
inline std::vector<int> block_range(int first, int count) {
    std::vector<int> blocks(static_cast<std::size_t>(count));
    std::iota(blocks.begin(), blocks.end(), first);
    return blocks;
}

inline schedule::Schedule empty_schedule(const schedule::BuildInput& input, int blocks) {
    return schedule::Schedule{.ranks = input.ranks, .rank = input.rank, .blocks = blocks, .steps = {}};
}

inline void add_send(schedule::Step& step, int to, std::vector<int> blocks) {
    step.sends.push_back(schedule::Transfer{.peer = to, .blocks = std::move(blocks)});
}
inline void add_receive(schedule::Step& step, int from, std::vector<int> blocks, schedule::Combine combine) {
    step.recvs.push_back(schedule::Transfer{.peer = from, .blocks = std::move(blocks), .combine = combine});
}

// The fold's first step (step 0 on every rank, empty for ranks outside it): even ranks
// below 2r send everything to rank + 1, which reduces it in (their data comes first).
inline void add_fold_in(schedule::Schedule& plan, const Fold& fold) {
    schedule::Step step;
    if (fold.folds(plan.rank)) {
        if (fold.sits_out(plan.rank))
            add_send(step, plan.rank + 1, block_range(0, plan.blocks));
        else
            add_receive(step, plan.rank - 1, block_range(0, plan.blocks), schedule::Combine::received_first);
    }
    plan.steps.push_back(std::move(step));
}

// The fold's last step: the odd ranks below 2r hand the finished result back.
inline void add_fold_out(schedule::Schedule& plan, const Fold& fold) {
    schedule::Step step;
    if (fold.folds(plan.rank)) {
        if (fold.sits_out(plan.rank))
            add_receive(step, plan.rank + 1, block_range(0, plan.blocks), schedule::Combine::none);
        else
            add_send(step, plan.rank - 1, block_range(0, plan.blocks));
    }
    plan.steps.push_back(std::move(step));
}

// Combine direction for a partner covering lower or higher ranks (non-commutative ops).
inline schedule::Combine order_with(int partner, int self) {
    return partner < self ? schedule::Combine::received_first : schedule::Combine::local_first;
}

// Reduce-scatter by recursive halving over new ranks (p' blocks): at distance p'/2, p'/4, ...
// each pair swaps halves of its current range of blocks and reduces the half it keeps, so
// new rank `self` ends with block `self` fully reduced.
inline void add_halving_steps(schedule::Schedule& plan, const Fold& fold, int self) {
    int first = 0, count = fold.pof2();
    for (int mask = fold.pof2() / 2; mask >= 1; mask /= 2) {
        const int partner = fold.old_rank(self ^ mask);
        const int half = count / 2;
        schedule::Step step;
        const bool lower = (self & mask) == 0;
        add_send(step, partner, block_range(lower ? first + half : first, half));
        add_receive(step, partner, block_range(lower ? first : first + half, half), schedule::Combine::received_first);
        if (!lower) first += half;
        count = half;
        plan.steps.push_back(std::move(step));
    }
}

// Allgather by recursive doubling over new ranks: at distance 1, 2, 4, ... each pair swaps
// the aligned ranges of finished blocks it holds (the inverse of add_halving_steps).
inline void add_doubling_steps(schedule::Schedule& plan, const Fold& fold, int self) {
    for (int mask = 1; mask < fold.pof2(); mask *= 2) {
        const int partner = self ^ mask;
        schedule::Step step;
        add_send(step, fold.old_rank(partner), block_range(self / mask * mask, mask));
        add_receive(step, fold.old_rank(partner), block_range(partner / mask * mask, mask), schedule::Combine::none);
        plan.steps.push_back(std::move(step));
    }
}

// Binomial broadcast from input.root, as a schedule of overwriting receives (one block): at
// distances 2^(L-1), ..., 2, 1 every rank holding the data (relative rank a multiple of
// twice the distance) passes it on. Run by execute_reduction with the data in place.
inline schedule::Schedule build_binomial_bcast(const schedule::BuildInput& input) {
    const int p = input.ranks;
    const int root = input.root < 0 ? 0 : input.root;
    const int relative = (input.rank - root + p) % p;
    schedule::Schedule plan = empty_schedule(input, 1);
    int top = 1;
    while (top < p) top <<= 1;
    for (int mask = top >> 1; mask >= 1; mask >>= 1) {
        schedule::Step step;
        if (relative % (2 * mask) == 0 && relative + mask < p)
            add_send(step, (relative + mask + root) % p, {0});
        else if (relative % (2 * mask) == mask)
            add_receive(step, (relative - mask + root) % p, {0}, schedule::Combine::none);
        plan.steps.push_back(std::move(step));
    }
    return plan;
}

// Blocks of the predicted chain Allreduce, and of the Reduce when the size is not given
// (BuildInput::segments 0: the simulator's checks); the Reduce's calls cut the vector by
// pipeline_pieces (the Allreduce in 16 KiB pieces lost: docs/algorithms/predicted-chain.md).
constexpr int kChainBlocks = 16;

// The pieces a pipelined schedule cuts a vector of `bytes` into (ReductionAlgorithm::
// segments_for_bytes): a power of two, so that few schedules serve every size, of at most
// 16 KiB (8-16 KiB; 16 KiB at the powers of two), 1024 at most (larger vectors take larger
// pieces). Measured over Open MPI's TCP on the emulated 1 Gbit/s network (docs/benchmarks.md,
// "A pipelined binomial Reduce"): 16 KiB pieces go eagerly and keep a pipeline's fill small;
// 64 KiB pieces (past the eager limit) wait for their receives step by step and took 2-3x
// native's time in a tree, 4 KiB ones paid per-step costs.
inline int pipeline_pieces(std::uint64_t bytes) {
    constexpr std::uint64_t piece_bytes = 16 << 10;
    constexpr int most = 1024;
    const std::uint64_t pieces = bytes / piece_bytes + (bytes % piece_bytes != 0 ? 1 : 0);
    if (pieces >= std::uint64_t(most)) return most;
    return int(std::bit_ceil(std::max<std::uint64_t>(pieces, 1)));
}

// A pipelined chain along chain[0] -> chain[1] -> ... from step `first_step` on: block t
// crosses hop h at step first_step + t + h, so every hop carries one block per step and a
// block moves on the step after it arrived. The first `combining_hops` hops reduce into the
// receiver's partial, later ones overwrite (they carry the finished result). A single hop
// moves all blocks in one message: it has nothing to overlap. Adds this rank's transfers (a
// rank may appear twice) and returns the step after the chain's last.
inline int add_chain(schedule::Schedule& plan, std::span<const int> chain, int first_step, int combining_hops) {
    const int hops = int(chain.size()) - 1;
    if (hops <= 0) return first_step;
    const int blocks = plan.blocks;
    const int end = hops == 1 ? first_step + 1 : first_step + blocks + hops - 1;
    if (plan.steps.size() < std::size_t(end)) plan.steps.resize(std::size_t(end));
    for (int h = 0; h < hops; ++h) {
        const int from = chain[std::size_t(h)], to = chain[std::size_t(h) + 1];
        if (plan.rank != from && plan.rank != to) continue;
        const auto combine = h < combining_hops ? schedule::Combine::received_first : schedule::Combine::none;
        for (int t = 0; t < (hops == 1 ? 1 : blocks); ++t) {
            schedule::Step& step = plan.steps[std::size_t(first_step + t + h)];
            const auto moved = hops == 1 ? block_range(0, blocks) : std::vector<int>{t};
            if (plan.rank == from) add_send(step, to, moved);
            if (plan.rank == to) add_receive(step, from, moved, combine);
        }
    }
    return end;
}

inline int log2_floor(int ranks) { return ranks > 1 ? std::bit_width(unsigned(ranks)) - 1 : 0; }

// Hockney + γ costs (bytes: the whole vector), for the node leaders' choice between
// Rabenseifner and recursive doubling (node_steps.cpp), on the folded power of two: a
// reduce-scatter by halving, or an allgather by doubling (also what a binomial gather of
// the scattered blocks costs).
inline double halving_cost(int ranks, double bytes, const LinkModel& link) {
    const int pof2 = ranks > 0 ? int(std::bit_floor(unsigned(ranks))) : 1;
    return log2_floor(pof2) * link.alpha + double(pof2 - 1) / pof2 * bytes * (link.beta + link.gamma);
}
inline double doubling_cost(int ranks, double bytes, const LinkModel& link) {
    const int pof2 = ranks > 0 ? int(std::bit_floor(unsigned(ranks))) : 1;
    return log2_floor(pof2) * link.alpha + double(pof2 - 1) / pof2 * bytes * link.beta;
}
// The fold's extra whole-vector hops (in, and out again for the all-collectives).
inline double fold_cost(int ranks, double bytes, const LinkModel& link, bool and_back) {
    if (ranks <= 1 || std::has_single_bit(unsigned(ranks))) return 0.0;
    return (link.alpha + bytes * (link.beta + link.gamma)) + (and_back ? link.alpha + bytes * link.beta : 0.0);
}

}  // namespace papshim::reduction
