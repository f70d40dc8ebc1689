// BDR, Background Disseminated Ring (spec allgather-bdr-bslb-and-clairvoyant.md §2, [AG]
// Listing 2 with the spec's corrections; docs/algorithms/bdr.md). From the predicted arrivals
// a_r and τ (input.step_ns, one segment over one link), rank r may use
// psNo_r = floor((max a − a_r) / τ) pre-steps before the last rank arrives. In pre-step s
// (0 ≤ s < S = max psNo) every rank with psNo_r ≥ S − s that still has receivers left sends
// its own block to r−1−prevSent_r, latest-predicted senders first (ties: lower rank first),
// unless that receiver already receives in step s. A ring phase of exactly p−1 steps
// (i → i+1) then carries each block only to the ranks its pre-steps did not reach.
//
// Steps empty for every rank are dropped (§2.4) and the builder jumps over them instead of
// walking them, so its cost is O(p log p + Σ over non-empty pre-steps of the ranks still
// sending + p), independent of ω/τ; every non-empty pre-step holds at least one of the at
// most p(p−1) pre-step sends. All arithmetic is on the exchanged integers, so every rank
// builds the same global schedule and keeps its own part, which ends at its last message.
//
// Background part: a rank's leading steps before its first send only receive (the blocks
// of earlier ranks). They do not need the rank's own data, so the executor may run them on a
// helper thread while the rank still computes, into staging buffers (§2.3); the first step
// with a send starts the foreground. Nothing in the schedule marks them: "the steps before
// the first send" is the definition.
//
// Tail (papshim's, not the spec's): the spec's ring walks every block the pre-steps left
// around one hop at a time; with one persistently late rank L, only L's block is left and
// the rank before L waits p − 1 steps for it. With that one block left and 3 ≤ p ≤ 64, L
// scatters it in p − 1 pieces and the others exchange them (add_piece_tail, two steps).
// Otherwise, up to 64 ranks, a greedy dissemination (plan_greedy_tail) replaces the ring
// wherever its sum of exits is lower: in the step model for equal blocks, in a timed model of
// the whole schedule for unequal ones (add_best_tail). Above 64 ranks only the one-block
// case changes, to a binomial tree from L where it beats the ring (p ≥ 4).
// build_bdr_spec keeps the ring always: the spec's schedules, for the reference tests.
//
// Balanced form: with no prediction (empty or wrongly sized arrival_ns), step_ns <= 0, p < 2,
// or S = 0 (ω < τ), the schedule is exactly build_ring's.
//
// Allgatherv: correctness never depends on block sizes (the ring's never does). The caller
// passes τ of the largest block, not the spec's mean (§2.9.3): a pre-step sends the sender's
// own block, and with a mean-block τ the large blocks' pre-steps overrun into the ring (up to
// 2x the ring's ē in the simulator). Given the block sizes (input.block_bytes, papshim's), an
// empty block takes no pre-step slot: it reaches every receiver in its owner's first
// pre-step; and with unequal blocks the tail is chosen by time, not by steps (a step that
// moves one large block costs what its block costs). Packing several small blocks into a step
// was measured and left out (docs/algorithms/bdr.md §6 has all three).

#include <algorithm>
#include <bit>
#include <cstdint>
#include <functional>
#include <numeric>
#include <span>
#include <vector>

#include "builders.hpp"

namespace papshim::allgather {

namespace {

// floor((latest − arrival) / tau) for any int64 arrivals: latest ≥ arrival, so the
// difference fits in 64 unsigned bits and the unsigned division is exact.
std::uint64_t pre_steps(std::int64_t latest, std::int64_t arrival, std::int64_t tau) {
    return (static_cast<std::uint64_t>(latest) - static_cast<std::uint64_t>(arrival)) /
           static_cast<std::uint64_t>(tau);
}

// Whether the spec's ring tail carries `block` in hop j: its pre-steps reached `sent` ranks
// before it, and hop j takes it to the (j + 1)-th rank after its owner.
bool ring_carries(const std::vector<int>& sent, int block, int hop, int p) {
    return sent[static_cast<std::size_t>(block)] + hop < p - 1;
}

// One message of the caller's rank, collected in step order so the schedule is sized once.
struct Message {
    std::size_t step;
    int peer;
    int block;
    bool send;
    schedule::Piece piece{};
};

// This rank's schedule from its messages.
schedule::Schedule schedule_of(const schedule::BuildInput& input, const std::vector<Message>& messages) {
    schedule::Schedule plan = empty_schedule(input);
    if (messages.empty()) return plan;
    plan.steps.resize(messages.back().step + 1);
    for (const Message& m : messages) {
        auto& list = m.send ? plan.steps[m.step].sends : plan.steps[m.step].recvs;
        list.push_back(schedule::Transfer{.peer = m.peer, .blocks = {m.block}, .piece = m.piece});
    }
    return plan;
}

// Up to this many ranks, one block left is finished in pieces (add_piece_tail): every rank
// sends p − 2 pieces in its second step, which above this would cost more in per-message
// overhead than the tree's steps save.
constexpr int kPieceTailMaxRanks = 64;

// The tail when only the latest rank L's block is left, for 3 ≤ p ≤ 64: L cuts it into p − 1
// pieces and sends piece k to rank L + 1 + k (step `first`); then every other rank sends its
// piece to the p − 2 ranks that lack it (step `first` + 1). L's block leaves L once, not
// ceil(log2 p) times along a tree: in an α-β model 2α + (2 − 1/(p − 1))·τ after L arrives
// instead of ceil(log2 p)·(α + τ) (at p = 8: 1.86τ against 3τ).
void add_piece_tail(int p, int me, int late, std::size_t first, std::vector<Message>& mine) {
    const int pieces = p - 1;
    const auto piece_of = [&](int rank) { return wrap_rank(rank - late, p) - 1; };  // rank ≠ late
    if (me == late) {
        for (int k = 0; k < pieces; ++k)
            mine.push_back({first, wrap_rank(late + 1 + k, p), late, true, {k, pieces}});
        return;
    }
    const int own = piece_of(me);
    mine.push_back({first, late, late, false, {own, pieces}});
    for (int d = 1; d < p; ++d) {  // nearest first, as the ring would
        const int to = wrap_rank(me + d, p);
        if (to != late) mine.push_back({first + 1, to, late, true, {own, pieces}});
    }
    for (int d = 1; d < p; ++d) {
        const int from = wrap_rank(me - d, p);
        if (from != late) mine.push_back({first + 1, from, late, false, {piece_of(from), pieces}});
    }
}

// The builder's working arrays (about 100 bytes per rank), kept per thread: allocating and
// freeing them on every call let glibc trim and re-fault the heap top each time, which cost
// 8x the build itself at p = 1024. Every call resets what it uses, so the result is still a
// pure function of the input.
struct Scratch {
    std::vector<std::uint64_t> budget;  // psNo
    std::vector<int> order;             // pa
    std::vector<int> sent;              // prevSent: receivers each rank's block reached so far
    std::vector<std::size_t> receiving; // compressed step in which each rank last received
    std::vector<int> sending;           // eligible ranks with receivers left, lowest priority first
    std::vector<Message> mine;          // p − 1 receives, at most p − 1 pre-step and p − 1 ring sends
};

// Steps, in the step model, until rank v of a binomial broadcast from v = 0 over p ranks has
// made its last transfer: it receives in step floor(log2 v) and sends to v + 2^k in every
// later step k with v + 2^k < p.
int tree_exit(int v, int p) {
    int k = 0;
    if (v > 0)
        while ((2 << k) <= v) ++k;  // the step v receives in
    int last = v > 0 ? k : -1;
    for (int step = v > 0 ? k + 1 : 0; v + (1 << step) < p; ++step) last = step;
    return last + 1;
}

// Whether the tree delivers one block to p − 1 ranks with a lower mean exit than the ring's
// p − 1 hops (the source leaves after step 1, hop j's sender after step j + 1, the last
// receiver after step p − 1). Depends on p only, so every rank decides alike.
bool tree_beats_ring(int p) {
    long long tree = 0, ring = 1 + (p - 1);
    for (int v = 0; v < p; ++v) tree += tree_exit(v, p);
    for (int j = 1; j + 1 < p; ++j) ring += j + 1;
    return tree < ring;
}

// Up to this many ranks the tail is planned greedily (bit masks of one word per block).
constexpr int kGreedyTailMaxRanks = 64;

// One transfer of a block in the tail, in tail steps from 0.
struct Move {
    std::size_t step;
    int from, to, block;
};

// Which unfinished block a greedy tail step serves first.
enum class Priority {
    most_missing,  // the most ranks still missing it (the step model's choice)
    most_work,     // the most time still to deliver (ranks missing it × its cost in the timed model)
};

// The tail as a greedy dissemination of what the pre-steps left, for p ≤ 64: in each step,
// blocks in `priority` order (ties: later predicted arrival, then lower rank), every holder not
// yet sending in the step sends the block to the nearest rank after it that misses it and
// receives nothing else in the step. With per-block weights (the timed model's costs, 0 only
// for an empty block), an empty block is never sent: it reaches every rank missing it in step
// 0, taking no slot; without them every block weighs 1. Writes the moves in step order and
// returns the step model's sum of exits (each rank leaves after its last transfer). Depends
// only on p, `sent`, the arrivals and the weights.
long long plan_greedy_tail(int p, const std::vector<int>& sent, std::span<const std::int64_t> arrival,
                           std::span<const std::uint64_t> weight, Priority priority, std::vector<Move>& moves) {
    using Mask = std::uint64_t;
    const auto bit = [](int rank) { return Mask{1} << rank; };
    const Mask all = p == 64 ? ~Mask{0} : bit(p) - 1;
    const auto at = [](int rank) { return static_cast<std::size_t>(rank); };
    const auto size_of = [&](int block) { return weight.empty() ? std::uint64_t{1} : weight[at(block)]; };
    moves.clear();
    int last[kGreedyTailMaxRanks] = {};
    Mask holders[kGreedyTailMaxRanks];
    for (int b = 0; b < p; ++b) {
        holders[b] = bit(b);  // the pre-steps gave block b to b − 1, …, b − sent_b
        for (int k = 1; k <= sent[at(b)]; ++k) holders[b] |= bit(wrap_rank(b - k, p));
        if (size_of(b) == 0) {
            for (Mask needers = all & ~holders[b]; needers != 0; needers &= needers - 1)
                moves.push_back({0, b, std::countr_zero(needers), b});
            holders[b] = all;
        }
    }
    int blocks[kGreedyTailMaxRanks];
    for (std::size_t step = 0;; ++step) {
        int count = 0;
        for (int b = 0; b < p; ++b)
            if (holders[b] != all) blocks[count++] = b;
        if (count == 0) break;
        std::sort(blocks, blocks + count, [&](int x, int y) {
            const auto mx = static_cast<std::uint64_t>(std::popcount(all & ~holders[x]));
            const auto my = static_cast<std::uint64_t>(std::popcount(all & ~holders[y]));
            const std::uint64_t kx = priority == Priority::most_work ? mx * size_of(x) : mx;
            const std::uint64_t ky = priority == Priority::most_work ? my * size_of(y) : my;
            if (kx != ky) return kx > ky;
            const auto ax = arrival[at(x)], ay = arrival[at(y)];
            return ax != ay ? ax > ay : x < y;
        });
        Mask sending = 0, receiving = 0;
        const std::size_t start = moves.size();
        for (int index = 0; index < count; ++index) {
            const int b = blocks[index];
            for (Mask free = holders[b] & ~sending; free != 0; free &= free - 1) {
                const Mask needers = all & ~holders[b] & ~receiving;
                if (needers == 0) break;
                const int h = std::countr_zero(free);
                const Mask after = h + 1 < 64 ? needers >> (h + 1) : 0;
                const int n = after != 0 ? h + 1 + std::countr_zero(after) : std::countr_zero(needers);
                sending |= bit(h);
                receiving |= bit(n);
                moves.push_back({step, h, n, b});
            }
        }
        for (std::size_t m = start; m < moves.size(); ++m) {  // sends read the step's start
            holders[moves[m].block] |= bit(moves[m].to);
            last[moves[m].from] = last[moves[m].to] = static_cast<int>(step) + 1;
        }
    }
    return std::accumulate(last, last + p, 0LL);
}

// The spec's ring tail as moves: hop j carries block i − j from i to i + 1 while that block
// still has ranks ahead of it that its pre-steps missed. Returns the step model's sum of exits.
long long plan_ring_tail(int p, const std::vector<int>& sent, std::vector<Move>& moves) {
    moves.clear();
    int last[kGreedyTailMaxRanks] = {};
    for (int j = 0; j + 1 < p; ++j)
        for (int i = 0; i < p; ++i)
            if (ring_carries(sent, wrap_rank(i - j, p), j, p)) {
                moves.push_back({static_cast<std::size_t>(j), i, wrap_rank(i + 1, p), wrap_rank(i - j, p)});
                last[i] = last[wrap_rank(i + 1, p)] = j + 1;
            }
    return std::accumulate(last, last + p, 0LL);
}

// A timed model of the schedule for unequal blocks (the step model counts steps alone,
// so a step moving one large block would cost what a small one does): a transfer starts once
// both ends have finished their previous steps (the executor completes a step's messages
// before the next) and, in the pre-steps, its sender has arrived (a rank's receives before its
// first send run in the background from the earliest arrival); it lasts τ × its block's bytes /
// the largest block's, at least one unit. Empty blocks cost nothing and wait for nobody (never
// sent).
struct TimedModel {
    std::uint64_t cost[kGreedyTailMaxRanks];     // per block, in units of τ / 2^16; 0: empty
    std::uint64_t arrived[kGreedyTailMaxRanks];  // after the earliest arrival
    std::uint64_t ready[kGreedyTailMaxRanks];    // when each rank starts the tail
};

// Runs `moves` (in step order) from the times in `done`, which it advances; senders wait for
// `arrived` where given.
void run_timed(int p, const std::vector<Move>& moves, const TimedModel& model, std::uint64_t* done,
               const std::uint64_t* arrived) {
    std::uint64_t next[kGreedyTailMaxRanks];
    for (std::size_t first = 0; first < moves.size();) {
        std::copy(done, done + p, next);
        std::size_t m = first;
        for (; m < moves.size() && moves[m].step == moves[first].step; ++m) {
            const Move& move = moves[m];
            const std::uint64_t cost = model.cost[move.block];
            if (cost == 0) continue;
            std::uint64_t start = std::max(done[move.from], done[move.to]);
            if (arrived) start = std::max(start, arrived[move.from]);
            next[move.from] = std::max(next[move.from], start + cost);
            next[move.to] = std::max(next[move.to], start + cost);
        }
        std::copy(next, next + p, done);
        first = m;
    }
}

// The model from the arrivals, the block sizes and the pre-steps' moves, in integer units of
// τ / 2^16 (no overflow for any input: a block costs at most 2^16, an arrival offset at
// most 2^48).
void model_pre_steps(int p, std::span<const std::int64_t> arrival, std::span<const std::uint64_t> bytes,
                     std::int64_t step_ns, const std::vector<Move>& pre_moves, TimedModel& model) {
    constexpr int kFraction = 16;
    const std::uint64_t largest = *std::max_element(bytes.begin(), bytes.end());
    const int shift = std::max(0, static_cast<int>(std::bit_width(largest)) - 47);
    const std::uint64_t divisor = std::max<std::uint64_t>(1, largest >> shift);
    const std::int64_t earliest = *std::min_element(arrival.begin(), arrival.end());
    const auto tau = static_cast<std::uint64_t>(step_ns);
    for (int r = 0; r < p; ++r) {
        const auto at = static_cast<std::size_t>(r);
        model.cost[r] = bytes[at] == 0 ? 0 : std::max<std::uint64_t>(1, ((bytes[at] >> shift) << kFraction) / divisor);
        const std::uint64_t offset = static_cast<std::uint64_t>(arrival[at]) - static_cast<std::uint64_t>(earliest);
        const std::uint64_t whole = offset / tau, part = offset % tau;
        // part < τ: exact below 2^47 ns, and within 2^-31 of the fraction above.
        const std::uint64_t fraction = tau < (std::uint64_t{1} << 47) ? (part << kFraction) / tau
                                                                        : part / (tau >> kFraction);
        model.arrived[r] = whole >= (std::uint64_t{1} << 32) ? std::uint64_t{1} << 48 : (whole << kFraction) + fraction;
        model.ready[r] = 0;
    }
    run_timed(p, pre_moves, model, model.ready, model.arrived);
    for (int r = 0; r < p; ++r) model.ready[r] = std::max(model.ready[r], model.arrived[r]);
}

// The sum over ranks of when each leaves the tail `moves` in the timed model.
std::uint64_t timed_exit_sum(int p, const std::vector<Move>& moves, const TimedModel& model) {
    std::uint64_t done[kGreedyTailMaxRanks];
    std::copy(model.ready, model.ready + p, done);
    run_timed(p, moves, model, done, nullptr);
    return std::accumulate(done, done + p, std::uint64_t{0});
}

// Appends this rank's part of `moves`, from step `first` on.
void add_tail(int me, std::size_t first, const std::vector<Move>& moves, std::vector<Message>& mine) {
    for (const Move& m : moves) {
        if (m.from == me) mine.push_back({first + m.step, m.to, m.block, true});
        if (m.to == me) mine.push_back({first + m.step, m.from, m.block, false});
    }
}

// The tail for p ≤ 64 where it beats the spec's ring, appended to `mine`; false (nothing
// appended) where the ring stays. Without a timed model (equal or unknown sizes): the greedy
// tail by the most ranks missing a block, where its step model's sum of exits is lower than
// the ring's. With one (unequal sizes): the ring and the greedy tails by either priority in
// the timed model, the lowest sum of exits kept (ties: the ring, then the earlier priority).
bool add_best_tail(int p, int me, std::size_t first, const std::vector<int>& sent,
                   std::span<const std::int64_t> arrival, const TimedModel* model, std::vector<Message>& mine) {
    thread_local std::vector<Move> best, candidate;
    if (!model) {
        const long long greedy = plan_greedy_tail(p, sent, arrival, {}, Priority::most_missing, best);
        if (greedy >= plan_ring_tail(p, sent, candidate)) return false;
        add_tail(me, first, best, mine);
        return true;
    }
    plan_ring_tail(p, sent, best);
    std::uint64_t best_time = timed_exit_sum(p, best, *model);
    bool ring = true;
    for (Priority priority : {Priority::most_missing, Priority::most_work}) {
        plan_greedy_tail(p, sent, arrival, std::span(model->cost, static_cast<std::size_t>(p)), priority, candidate);
        const std::uint64_t time = timed_exit_sum(p, candidate, *model);
        if (time < best_time) {
            best_time = time;
            best.swap(candidate);
            ring = false;
        }
    }
    if (ring) return false;
    add_tail(me, first, best, mine);
    return true;
}

enum class Tail { ring, best };

schedule::Schedule build(const schedule::BuildInput& input, Tail tail);

}  // namespace

schedule::Schedule build_bdr(const schedule::BuildInput& input) { return build(input, Tail::best); }
schedule::Schedule build_bdr_spec(const schedule::BuildInput& input) { return build(input, Tail::ring); }

namespace {

schedule::Schedule build(const schedule::BuildInput& input, Tail tail) {
    const int p = input.ranks;
    const int me = input.rank;
    const auto arrival = input.arrival_ns;
    const auto up = static_cast<std::size_t>(p);
    if (p < 2 || input.step_ns <= 0 || arrival.size() != up) return build_ring(input);

    const std::int64_t latest = *std::max_element(arrival.begin(), arrival.end());
    thread_local Scratch scratch;
    auto& budget = scratch.budget;
    budget.resize(up);
    for (std::size_t r = 0; r < up; ++r) budget[r] = pre_steps(latest, arrival[r], input.step_ns);
    const std::uint64_t pre_step_count = *std::max_element(budget.begin(), budget.end());  // S
    if (pre_step_count == 0) return build_ring(input);

    // pa: latest predicted arrival first, ties by ascending rank (spec §2.9.1). Along it the
    // budgets never decrease, so the ranks eligible in pre-step s (budget ≥ S − s) are a
    // suffix of it, growing towards the front as s advances.
    auto& order = scratch.order;
    order.resize(up);
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int x, int y) {
        const auto ax = arrival[static_cast<std::size_t>(x)], ay = arrival[static_cast<std::size_t>(y)];
        return ax != ay ? ax > ay : x < y;
    });
    auto budget_of = [&](int rank) { return budget[static_cast<std::size_t>(rank)]; };

    auto& sent = scratch.sent;
    sent.assign(up, 0);
    const bool sized = input.block_bytes.size() == up;  // else sizes unknown: no block is empty
    const auto& bytes = input.block_bytes;
    // Unequal blocks choose their tail in the timed model, from the pre-steps' moves.
    const bool timed = tail == Tail::best && sized && p <= kGreedyTailMaxRanks &&
                       std::adjacent_find(bytes.begin(), bytes.end(), std::not_equal_to<>()) != bytes.end();
    thread_local std::vector<Move> pre_moves;
    pre_moves.clear();
    auto& receiving = scratch.receiving;  // no receiver takes two blocks in one step
    receiving.assign(up, SIZE_MAX);
    // Later-admitted ranks arrive later, so they outrank every rank already sending: they go
    // to the back, and each step walks the list from the back.
    auto& sending = scratch.sending;
    sending.clear();
    auto& mine = scratch.mine;
    mine.clear();
    std::size_t waiting = up;  // order[0, waiting) is not eligible yet
    std::size_t step = 0;      // compressed index of the current pre-step
    for (std::uint64_t s = 0; s < pre_step_count;) {
        while (waiting > 0 && budget_of(order[waiting - 1]) >= pre_step_count - s) {
            sending.push_back(order[--waiting]);
        }
        if (sending.empty()) {
            // An empty step for everybody: jump to the next admission, if any comes before
            // the ring (the latest rank's budget is 0, so it never sends here).
            if (waiting == 0 || budget_of(order[waiting - 1]) == 0) break;
            s = pre_step_count - budget_of(order[waiting - 1]);
            continue;
        }
        // Non-empty: the first sender always finds its receiver free.
        for (std::size_t k = sending.size(); k-- > 0;) {
            const int r = sending[k];
            if (sized && input.block_bytes[static_cast<std::size_t>(r)] == 0) {
                // An empty block is never sent (the executor skips empty messages at both
                // ends): it reaches every receiver in its owner's first pre-step (it sent
                // nothing before), taking no slot. Only this rank's messages are listed.
                if (r == me) {
                    for (int d = 1; d < p; ++d) mine.push_back({step, wrap_rank(r - d, p), r, true});
                } else {
                    mine.push_back({step, r, r, false});
                }
                sent[static_cast<std::size_t>(r)] = p - 1;
                continue;
            }
            int to = r - 1 - sent[static_cast<std::size_t>(r)];  // in (−p, p): no division on the hot path
            if (to < 0) to += p;
            if (receiving[static_cast<std::size_t>(to)] == step) continue;  // greedy: try nothing else
            receiving[static_cast<std::size_t>(to)] = step;
            ++sent[static_cast<std::size_t>(r)];
            if (timed) pre_moves.push_back({step, r, to, r});
            if (r == me) mine.push_back({step, to, r, true});
            if (to == me) mine.push_back({step, r, r, false});
        }
        std::erase_if(sending, [&](int r) { return sent[static_cast<std::size_t>(r)] == p - 1; });
        ++s;
        ++step;
    }

    // One block left (L's: the latest rank never sends in a pre-step, so it is always left):
    // up to 64 ranks, in pieces.
    const auto missing_someone = [p](int reached) { return reached < p - 1; };
    const auto unfinished = std::count_if(sent.begin(), sent.end(), missing_someone);
    const int late = static_cast<int>(std::find_if(sent.begin(), sent.end(), missing_someone) - sent.begin());
    if (tail == Tail::best && unfinished == 1 && p >= 3 && p <= kPieceTailMaxRanks) {
        add_piece_tail(p, me, late, step, mine);
        return schedule_of(input, mine);
    }
    // Up to 64 ranks, the greedy tail where it beats the ring (unequal blocks: timed).
    if (tail == Tail::best && p <= kGreedyTailMaxRanks) {
        thread_local TimedModel model;
        if (timed) model_pre_steps(p, arrival, bytes, input.step_ns, pre_moves, model);
        if (add_best_tail(p, me, step, sent, arrival, timed ? &model : nullptr, mine))
            return schedule_of(input, mine);
    }
    // Above, with one block left, the binomial tree from L where it beats the ring.
    if (tail == Tail::best && p > kPieceTailMaxRanks && unfinished == 1 && tree_beats_ring(p)) {
        const int v = wrap_rank(me - late, p);
        for (int k = 0; (1 << k) < p; ++k) {
            const int span = 1 << k;
            if (v < span && v + span < p) mine.push_back({step + static_cast<std::size_t>(k), wrap_rank(me + span, p), late, true});
            if (v >= span && v < 2 * span) mine.push_back({step + static_cast<std::size_t>(k), wrap_rank(me - span, p), late, false});
        }
        return schedule_of(input, mine);
    }

    // Ring: hop j carries block i − j from i to i + 1 while that block still has ranks ahead
    // of it that its pre-steps missed. Every hop moves the latest rank's block (it sent
    // nothing before), so none of these p − 1 steps is empty.
    const int next = wrap_rank(me + 1, p), prev = wrap_rank(me - 1, p);
    for (int j = 0; j + 1 < p; ++j) {
        const int out = wrap_rank(me - j, p), in = wrap_rank(me - 1 - j, p);
        const std::size_t hop = step + static_cast<std::size_t>(j);
        if (ring_carries(sent, out, j, p)) mine.push_back({hop, next, out, true});
        if (ring_carries(sent, in, j, p)) mine.push_back({hop, prev, in, false});
    }
    return schedule_of(input, mine);
}

}  // namespace

}  // namespace papshim::allgather
