// One communicator's side of prediction and planning (DESIGN §5): the local call-site
// history (predictor.hpp), the exchange of predictions over a second private duplicate of
// the communicator (or, on one node, through its shared-memory board), and what every rank
// derives alike from the exchanged vectors (plan.hpp): the plan for the next call, the
// prediction-quality guard, and whether the per-call exchange is armed.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "papshim/algorithms.hpp"
#include "papshim/node_shared.hpp"
#include "papshim/plan.hpp"
#include "papshim/predictor.hpp"

namespace papshim::plan {

// When a communicator exchanges predictions (identical on every rank: from configuration).
enum class Exchange : std::uint8_t {
    off,      // never (nothing on it can use a plan)
    sampled,  // every Policy::sample_every-th large-enough call to learn the imbalance, every such
              // call while armed (unless resting: ExchangeRest)
    always,   // every call (an algorithm that needs a plan was chosen explicitly)
};

// How often a followed call exchanges (identical on every rank).
enum class Follow : std::uint8_t {
    no,          // not followed: no planner, no exchange
    sampled,     // every Policy::sample_every-th followed call, to learn the imbalance
    every_call,  // every call: a plan must be ready as soon as the imbalance begins
};

struct Policy {
    Exchange exchange = Exchange::off;
    // sampled: the collectives (bit c: collective c) whose calls may be followed, and how
    // often calls of each size do on a communicator of `ranks` ranks and the given NodeLayout
    // (null: every size, sampled): only calls whose algorithm can change with the arrivals.
    // Every call where the exchange costs a small part of the call (auto's Allgather blocks
    // of 256 KiB or more), so that a plan is ready as soon as the imbalance begins.
    std::uint8_t sampled_collectives = 0;
    Follow (*cadence)(std::uint8_t collective, std::uint64_t bytes, int ranks, NodeLayout layout) = nullptr;
    int ranks = 1;
    // Sampled calls: the first `first_sampled` followed calls, so that the guard's window
    // (Guard::kWindow) is full at once, then one in `sample_every`.
    int first_sampled = Guard::kWindow;
    int sample_every = 16;
    // Only auto's reductions are sampled (auto's Allgather(v) exchanges on every call where it
    // may run BDR and nowhere else): a sampled call exchanges on every call while the guard
    // suspects imbalance (Guard::maybe_imbalanced, "armed"), so that its plans come, unless
    // the exchange rests (ExchangeRest).

    // How calls of this collective and size go through the planner (calls not followed cost
    // nothing beyond the native call: nothing on them can use a plan or the guard).
    // `layout()` gives the communicator's NodeLayout; it is asked only when the answer
    // depends on it (a first ask may split the communicator by node: every rank asks at the
    // same call, as the sizes of a collective agree).
    template <class Layout>
    Follow follow(std::uint8_t collective, std::uint64_t bytes, Layout&& layout) const {
        if (exchange == Exchange::always) return Follow::every_call;
        if (exchange != Exchange::sampled || (sampled_collectives >> collective & 1) == 0) return Follow::no;
        if (!cadence) return Follow::sampled;
        const Follow one_node = cadence(collective, bytes, ranks, NodeLayout::one_node);
        if (one_node == cadence(collective, bytes, ranks, NodeLayout::one_rank_per_node) &&
            one_node == cadence(collective, bytes, ranks, NodeLayout::mixed))
            return one_node;
        return cadence(collective, bytes, ranks, layout());
    }
};

// Which calls a sampled policy (Follow::sampled) exchanges on, in the order they come:
// identical on every rank, as its inputs are (the policy, and the armed and resting states,
// which come from exchanged data and from decisions every rank takes alike).
class SampledCadence {
public:
    // Whether the next eligible call exchanges: one of the first `first_sampled`, or one in
    // `sample_every`; or every call while armed, unless resting.
    // While resting, a sampled call's successor exchanges too, so that the plan made from the
    // sampled call's vector is assessed against its arrivals (Planner::note_plan_use).
    bool next(const Policy& policy, bool armed, bool resting) {
        const bool sampled = eligible_ < std::uint64_t(policy.first_sampled) ||
                             eligible_ % std::uint64_t(policy.sample_every) == 0;
        const bool exchange = sampled || probe_next_ || (armed && !resting);
        probe_next_ = sampled && resting;
        ++eligible_;
        return exchange;
    }

private:
    // Calls found eligible so far (the same on every rank): sampling counts these, not
    // sequence numbers, which eligible calls could all miss (a Reduce and an Allreduce
    // alternating, only one of them eligible).
    std::uint64_t eligible_ = 0;
    bool probe_next_ = false;
};

// When an armed policy stops exchanging on every call (identical on every rank: its inputs
// are). After kRestAfter calls in a row that could have run a plan and did not (the guard
// distrusted the predictions, or `auto` declined the plan) it rests: the exchange on every
// call cost `auto`'s Reduce/Allreduce 1-14% under fresh random delays and declined staircases
// and brought nothing (docs/benchmarks.md, "`auto` rests its exchange where its plans go
// unused"). While it rests only each sampled call and the call after it exchange
// (SampledCadence), so one plan in Policy::sample_every calls is assessed. The rest ends at
// the first plan that runs; at the first good assessment while the guard distrusted the
// predictions (they may have become predictable, and the guard's window fills in a few calls
// only if every call exchanges: one probe per 16 calls took ~50 calls to trust a staircase);
// when no recent exchange shows imbalance; or at a followed call of another collective or
// size than those whose plans went unused (a different call: the unused plans said nothing
// of its arrivals, and resting there kept `auto` from its plan for up to 16 calls after a
// phase of fresh random delays at another size: docs/benchmarks.md, "The rest per call").
// 8 calls: longer than a new call site's warm-up (2 samples, then the guard's window of 4
// assessed plans), so a pattern still being learnt does not rest. 16 (one sampling period)
// cost `auto`'s Allreduce ~0.4% of native's time under fresh random delays against the
// chain, 1.1% after a predictable phase (each chance good assessment re-armed the exchange
// for 16 calls); with 8 it is level, and no plan came later (docs/benchmarks.md, "The
// exchange rests after 8 unused plans").
class ExchangeRest {
public:
    static constexpr int kRestAfter = 8;
    // Calls (collective and size: call_key) remembered as having had unused plans: a loop's
    // few sizes, or a rotating root's calls, which share a key.
    static constexpr int kRememberedCalls = 8;
    // The key of a followed call's collective and size (the root and op left out: a Reduce
    // whose root rotates is one call here).
    static std::uint64_t call_key(std::uint8_t collective, std::uint64_t bytes) {
        return bytes * 8 + collective;  // collectives < 8; sizes far below 2^61
    }
    // After a followed call of `call` (call_key) that could have run a plan: whether it did.
    void note_plan_use(bool ran, std::uint64_t call) {
        if (ran) {
            forget();
            return;
        }
        unused_plans_ = std::min(unused_plans_ + 1, kRestAfter);
        if (!remembered(call)) unused_calls_[std::size_t(next_call_++ % kRememberedCalls)] = call;
    }
    // At each followed call's entry, with the guard as the exchanges so far left it. No recent
    // exchange showing imbalance also ends the rest: the pattern whose plans went unused is
    // gone, and when imbalance comes back the armed exchange must see it at once, as it did
    // before any rest (otherwise the guard's window would fill one sample pair per 16 calls).
    void observe(const Guard& guard) {
        if (resting() && ((!trusted_ && guard.good() > good_) || !guard.maybe_imbalanced())) forget();
        good_ = guard.good();
        trusted_ = guard.trusted();
    }
    // At each followed call's entry, with its call_key: a call none of the unused plans were
    // for ends the rest.
    void observe_call(std::uint64_t call) {
        if (resting() && !remembered(call)) forget();
    }
    bool resting() const { return unused_plans_ >= kRestAfter; }
    // A new algorithm choice (papshim_set_algorithm, collective): what went unused was another's.
    void reset() { *this = ExchangeRest{}; }

private:
    bool remembered(std::uint64_t call) const { return std::ranges::find(unused_calls_, call) != unused_calls_.end(); }
    void forget() {
        unused_plans_ = 0;
        unused_calls_.fill(0);
    }
    int unused_plans_ = 0;  // calls in a row whose plan could have run and did not
    // Their call_keys, the latest kRememberedCalls distinct ones (0: none; a followed call
    // has bytes, so its key is never 0).
    std::array<std::uint64_t, kRememberedCalls> unused_calls_{};
    std::uint64_t next_call_ = 0;
    long good_ = 0;         // the guard's good assessments when last observed
    bool trusted_ = false;  // ... and whether it trusted the predictions then
};

// Converts this rank's clock ticks to global-clock nanoseconds (identical meaning on every rank).
using ToGlobalNs = std::function<std::int64_t(std::uint64_t ticks)>;

// The board (node::Segment's BoardCells): on a communicator whose ranks share one node, a call
// that can complete on a rank only once every rank has entered it (a non-empty Allreduce) can
// exchange without a message. Each rank stores its Contribution in the slot
// of the call at entry; the next followed call reads the slot, whose cells are written by
// then, as the call that wrote them has completed here. That costs a store and p loads (no
// Iallgather, no helper thread, no synchronisation at the next entry); which calls exchange
// is Policy's decision as before. Plans it brings get no background work (as with no helper
// thread).
class Planner {
public:
    // Exchanges go over a duplicate of `priv`, made at the first exchange (collectively).
    Planner(MPI_Comm priv, predict::Settings settings, ToGlobalNs to_global);
    // Collective too (the context's delete callback, MPI_Finalize): completes an exchange in
    // flight (every rank posted it) and frees the duplicate.
    ~Planner();
    Planner(const Planner&) = delete;
    Planner& operator=(const Planner&) = delete;

    // At entry into the next call it follows: numbers it (seq(); the calls of the
    // communicator that it does not follow are not counted, so that a plan made at one
    // followed call is for the next followed one, whatever smaller calls come between),
    // records the arrival, completes the previous exchange and derives this call's plan from
    // it, and posts this call's contribution if `policy` says so for a call of `bytes` bytes.
    // `tau_ns` is the unit the guard measures errors and imbalance in.
    // `block_bytes`: an Allgatherv's per-rank block bytes (signature.blocks is their hash),
    // kept so that a later plan for a call of that layout can size its background receives.
    // `board`: where this call may exchange without a message, or null (see "The board").
    void enter(const void* site, const predict::Signature& signature, std::uint64_t arrival_ticks,
               std::int64_t tau_ns, const Policy& policy, Follow follow,
               std::span<const std::uint64_t> block_bytes = {},
               node::Segment* board = nullptr);
    void leave(std::uint64_t exit_ticks);
    // The number of the call entered last among the calls followed on this communicator
    // (0, 1, ...: the same on every rank, as following is decided alike everywhere). Plans,
    // their background slots and their messages' tags are numbered by it.
    std::uint64_t seq() const { return seq_; }

    // This call's plan, if the previous call exchanged and every rank predicted this call
    // alike; the caller still checks the real signature against plan.signature.
    const Plan* plan() const { return now_.plan.usable() && now_.plan.seq == seq_ ? &now_.plan : nullptr; }
    // The prediction this rank made for the current call (ticks), for the trace.
    std::optional<std::uint64_t> expected_arrival() const { return expected_; }
    const Guard& guard() const { return now_.guard; }
    bool armed() const { return now_.armed; }

    // Whether the call that could have run a plan did (ExchangeRest::note_plan_use; the
    // caller decides from exchanged data and arguments MPI requires to match, so every rank
    // reports alike).
    void note_plan_use(bool ran) { rest_.note_plan_use(ran, call_key_); }
    bool resting() const { return rest_.resting(); }
    void reset_rest() { rest_.reset(); }
    long exchanges() const { return now_.exchanges; }
    long board_exchanges() const { return now_.board_exchanges; }
    // What this rank predicted for the next call when it last contributed (valid when that
    // call's plan is usable: then every rank predicted the same).
    const predict::Signature& predicted_signature() const { return predicted_signature_; }
    // The block bytes of the predicted call's layout (predicted_signature().blocks), if a call
    // of that layout was seen; null otherwise. Read where predicted_signature() is.
    const std::vector<std::uint64_t>* predicted_blocks() const;
    // Whether `block_bytes` is the layout kept for hash `blocks` (true without a layout).
    // A plan is used only by a call of the layout its background receives were sized from,
    // so a hash collision costs a plan, never a truncated message. On the calling thread.
    bool same_layout(std::uint64_t blocks, std::span<const std::uint64_t> block_bytes) const;

    // Planned calls' point-to-point traffic goes over the exchange's communicator, which
    // carries no other point-to-point message (the exchange is a collective, which MPI never
    // matches with them), so receives posted ahead of a call meet nothing else.
    MPI_Comm data_comm() const { return comm_; }
    // The MPI error that kept the exchange's communicator from being made (the same on every
    // rank), or MPI_SUCCESS: with one, this planner exchanges nothing.
    int failure() const { return failure_; }

    // Background work for a planned call (DESIGN §5): receives posted before this rank enters
    // the call, by the hook below on the helper thread, as soon as the plan is known.
    struct Background {
        std::uint64_t seq = 0;
        schedule::Builder build = nullptr;  // the algorithm they belong to
        schedule::Schedule schedule;        // its schedule for the planned call
        Prefetch prefetch;
        std::atomic<bool> done{true};
        std::atomic<bool> cancel{false};
        bool active = false;
    };
    // Runs right after each plan is derived (on the helper thread when there is one): it may
    // post background receives for the planned call into background().
    using PlanHook = std::function<void(Planner&, const Plan&, const Guard&)>;
    void set_plan_hook(PlanHook hook) { hook_ = std::move(hook); }
    bool has_plan_hook() const { return bool(hook_); }
    // Two slots by sequence parity: the hook prepares call k+1's while call k uses its own.
    Background& background(std::uint64_t seq) { return background_[seq & 1]; }
    // Drops the background receives of a call that does not use them (every rank sees the
    // same mismatch, so nobody sends them): cancelled on the helper thread, then waited for.
    void discard_background(std::uint64_t seq);

private:
    // comm_, at the first exchange; false (and failure_ set) where MPI could not.
    bool make_communicator();
    // What the exchanged vectors taught so far. The main thread reads `now_` during a call
    // while the helper thread may already digest that call's exchange: it digests into
    // `next_`, which becomes `now_` at the next entry.
    struct Learned {
        Guard guard;
        Plan plan;      // for call plan.seq
        Plan assessed;  // the plan of the call whose arrivals the next vector brings
        bool armed = false;
        long exchanges = 0;
        long board_exchanges = 0;  // of which through the node's shared memory
    };
    void complete_exchange();  // waits for the exchange in flight; `now_` learns from it
    void read_board();         // the vector of an exchange posted on the board, into all_
    static void digest(Learned& learned, const std::vector<Contribution>& vector, std::uint64_t seq,
                       std::int64_t tau_ns);

    MPI_Comm priv_ = MPI_COMM_NULL;
    MPI_Comm comm_ = MPI_COMM_NULL;  // the exchange's and planned calls' duplicate, from the first exchange on
    int failure_ = MPI_SUCCESS;      // why comm_ could not be made (failure())
    int size_ = 1;
    predict::Settings settings_;
    ToGlobalNs to_global_;
    predict::CommHistory history_;
    Learned now_, next_;
    std::uint64_t seq_ = ~std::uint64_t(0);  // the followed call entered last (none yet: the first is 0)
    SampledCadence cadence_;
    ExchangeRest rest_;
    std::uint64_t call_key_ = 0;  // ExchangeRest::call_key of the call entered last
    std::int64_t tau_ns_ = 1;
    std::optional<std::uint64_t> expected_;

    PlanHook hook_;
    Background background_[2];
    predict::Signature predicted_signature_;
    // Allgatherv layouts seen, by their hash (the last kKnownLayouts). Written in enter()
    // between completing the previous exchange and posting the next, so never while the
    // helper thread's plan hook may read it.
    static constexpr std::size_t kKnownLayouts = 4;
    std::vector<std::pair<std::uint64_t, std::vector<std::uint64_t>>> known_blocks_;
    const std::vector<std::uint64_t>* layout(std::uint64_t blocks) const;

    // The exchange in flight.
    bool posted_ = false;
    std::uint64_t posted_seq_ = 0;
    std::int64_t posted_tau_ns_ = 1;
    Contribution mine_;
    std::vector<Contribution> all_;
    MPI_Request request_ = MPI_REQUEST_NULL;
    std::atomic<bool> done_{false};
    bool watched_ = false;  // handed to the helper thread
    // An exchange through shared memory: its segment and slot (null: over comm_).
    node::Segment* posted_board_ = nullptr;
    int posted_slot_ = 0;
    int rank_ = 0;
    std::uint64_t board_calls_ = 0;  // exchanges on the board so far: the slot's index, alike everywhere
};

}  // namespace papshim::plan
