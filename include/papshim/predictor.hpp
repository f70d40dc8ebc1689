// Arrival-time prediction from call-site history (DESIGN §5, spec
// allgather-bdr-bslb-and-clairvoyant.md §1.5): per communicator and call site, the series of
// compute intervals c(k) = a(k) - f(k-1) (entry minus the previous exit on the same
// communicator) and of elapsed times e(k) = f(k) - a(k), smoothed by EMA, SMA or the last
// value; the next call's site and signature from the sites seen so far. Rank-local: nothing
// here communicates, and nothing here may feed a decision by itself (DESIGN §3) — only
// through the exchanged vectors (plan.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace papshim::predict {

enum class Method : std::uint8_t { ema, sma, last };
// PAPSHIM_PREDICTOR's names.
const char* method_name(Method method);
std::optional<Method> parse_method(std::string_view name);

struct Settings {
    Method method = Method::ema;
    double alpha = 0.25;  // EMA weight of the newest sample, 0 < alpha <= 1
    int window = 8;       // SMA samples, 1..1024
};

// Samples needed before a series predicts (warm-up).
inline constexpr int kMinSamples = 2;

// Misses of a prediction, smoothed (EMA of weight kWeight from the first miss): a series'
// own error, and each site's two ways of predicting its arrivals (CommHistory::Site).
class SmoothedMiss {
public:
    static constexpr double kWeight = 0.25;
    void add(double miss) { value_ = count_++ == 0 ? miss : kWeight * miss + (1 - kWeight) * value_; }
    bool ready() const { return count_ >= kMinSamples; }
    double value() const { return value_; }  // 0 before the first miss

private:
    double value_ = 0;
    long count_ = 0;
};

// One key's smoothed series of durations (in clock ticks).
class Series {
public:
    void add(double sample, const Settings& settings);
    bool ready() const { return count_ >= kMinSamples; }
    double value() const { return value_; }
    long count() const { return count_; }
    // How far each new sample fell from the value before it, smoothed (SmoothedMiss): the
    // series' own prediction error. 0 until the second sample.
    double error() const { return error_.value(); }

private:
    double value_ = 0;
    SmoothedMiss error_;
    long count_ = 0;
    std::vector<double> window_;  // SMA: the last `window` samples, circular
    std::size_t next_ = 0;
    double sum_ = 0;
};

// What MPI requires to match on every rank for one call: the plan for a call is only used
// when the call's real signature equals the planned one.
struct Signature {
    std::uint8_t collective = 0;
    std::int16_t op = -1;    // runtime::op_index
    std::int32_t root = -1;
    std::uint64_t bytes = 0;  // total bytes of the collective
    // Allgatherv: a hash of every rank's block bytes (block_hash), so that a plan whose
    // background receives were sized for one layout is never used for another; 0 otherwise.
    std::uint64_t blocks = 0;
    bool operator==(const Signature&) const = default;
    std::uint64_t hash() const;  // never 0
};

// The hash of per-rank block bytes for Signature::blocks (never 0).
std::uint64_t block_hash(std::span<const std::uint64_t> block_bytes);

// A rank's guess at its next call on a communicator.
struct Prediction {
    Signature signature;
    std::uint64_t arrival = 0;  // clock ticks, this rank's clock
};

// The roots of a sequence of rooted calls on a communicator of `ranks` ranks, and how many
// times in a row the root last moved by the same step (mod the size; a constant root is step
// 0). A rotation that repeated its step often enough is predicted one more step on;
// otherwise the last root repeats.
struct Rotation {
    std::int32_t last_root = -1;  // -1: none yet
    std::int32_t last_step = -1;  // between the last two roots (-1: none yet)
    int repeats = 0;              // consecutive moves by last_step
    // A call's root; a negative root (no root, an intercommunicator's MPI_ROOT) or an unknown
    // size (ranks 0) starts over.
    void add(std::int32_t root, int ranks);
    bool follows_step(int min_repeats) const { return last_step >= 0 && repeats >= min_repeats; }
    std::int32_t next(int ranks, int min_repeats) const {
        return follows_step(min_repeats) ? std::int32_t((last_root + last_step) % ranks) : last_root;
    }
};

// One communicator's history on this rank. Not thread-safe: a communicator is used by one
// thread at a time (MPI's rule for collectives on one communicator).
class CommHistory {
public:
    // `ranks`: the communicator's size, which a rotating root's prediction wraps around
    // (0: unknown, and a root is predicted to repeat).
    explicit CommHistory(int ranks = 0) : ranks_(ranks) {}
    // The call now starting: its site (the return address of the MPI call: local only), its
    // signature, this rank's arrival, and whether this rank is the call's root (a rooted
    // collective's root leaves last, its other ranks may leave early: the time inside is
    // learnt per role, so that a site whose root rotates predicts each rank's exit from the
    // calls where it had the same role). Returns the prediction made for it, if any.
    std::optional<Prediction> enter(const void* site, const Signature& signature, std::uint64_t arrival,
                                    const Settings& settings, bool at_root = false);
    // The call now ending.
    void leave(std::uint64_t exit, const Settings& settings);
    // The next call's prediction, made at enter(): this call's entry + the site's smoothed
    // time inside + the next site's smoothed compute interval (after a root call, the one
    // learnt after root calls where compute_series allows it). That is the spec's f + s with
    // the exit predicted, because the exchange leaves at entry (DESIGN §5). Where that has
    // missed the next site's arrivals by more than this call's entry + the next site's
    // smoothed time between entries has, the latter (Site::from_entry_miss). leave() does not
    // refine it with the real exit, so the prediction exchanged, planned from, traced and
    // reported is one and the same. nullopt while any series it needs warms up.
    std::optional<Prediction> next() const { return next_; }

private:
    struct Site {
        Series compute;       // ticks from the previous exit on this communicator to entry here
        // The same, only where that previous call had this rank as its root. Where the next
        // call's entry does not follow this rank's exit (a barrier or an unintercepted
        // collective in between: the others' exits set it), the root, which leaves last,
        // computes for less time after it. Used after a root call only where it and the time
        // between entries err by less than what it corrects (compute_series): where the time
        // between calls swings alike on every rank (papshim-bench's rotated order), the other
        // ranks' predictions share that error, and the root's must too. `compute` keeps
        // every sample, so that every rank's is fed at the same calls.
        Series compute_after_root;
        Series between;       // ticks from the previous entry on this communicator to entry here
        Series elapsed;       // ticks inside the calls where this rank was not the root
        Series elapsed_root;  // ... where it was (a root falls back to `elapsed` until it is ready)
        Signature signature;
        // How far this site's arrivals fell from the two ways of predicting them (smoothed):
        // from the previous call's exit (its entry +
        // time inside + `compute`) and from its entry (+ `between`). The exit's is the rule;
        // the entry's is used where it missed by less: where the ranks
        // leave a call at times that change from call to call but restart together (a
        // barrier after a Reduce whose plan or root moves, as in papshim-bench), the time
        // from the exit swings with the exit, the time between entries does not.
        SmoothedMiss from_exit_miss, from_entry_miss;
        const void* successor = nullptr;  // the site that followed this one last time
        // The roots of this site's calls: a loop that reduces to each rank in turn then plans
        // every call, not none.
        Rotation rotation;
    };
    // The communicator's calls of one rooted signature (the root aside), whichever site made
    // them. MPI orders a communicator's collectives alike on every rank, but a rank may make
    // the same call from another site when it is the root (`if (rank == root)
    // MPI_Reduce(MPI_IN_PLACE, ...) else MPI_Reduce(...)`): each of its sites then sees a
    // broken rotation, a different one on every rank, while the stream sees the whole one.
    // The stream is trusted from three equal steps in a row, a site from two: two sites of
    // one signature with roots of their own (one rotating, one fixed) interleave into a
    // stream whose steps alternate and may coincide twice, never three times.
    // Where the stream's rotation is trusted, this rank's root call is learnt as a call of
    // the site it makes the others from (`loop_site`): its own root site is entered once in
    // p calls, so its series would warm up only after 2p calls, and the sites around it
    // would learn a successor that changes every time.
    struct RootStream {
        std::uint64_t key = 0;  // the signature's hash with root -1
        Rotation rotation;
        std::uint64_t last_call = 0;  // calls_ at its last call (the oldest stream is replaced)
        const void* loop_site = nullptr;  // this rank's last site of the signature as a non-root
    };
    static constexpr std::size_t kRootStreams = 4;
    static constexpr int kSiteRepeats = 2;
    static constexpr int kStreamRepeats = 3;
    RootStream& stream_for(const Signature& signature);
    const RootStream* find_stream(const Signature& signature) const;
    // The site this call is learnt as (a root call of a trusted rotation: loop_site).
    const void* stream_site(RootStream& stream, const void* site, std::int32_t root, bool at_root) const;
    Signature predicted_signature(const Site& site) const;
    static const Series* compute_series(const Site& next, bool after_root);
    // The next call's prediction at the entry of `current` (`arrival`), this rank's time
    // inside it being `inside`; records both candidates in `pending_`.
    std::optional<Prediction> predict_after(const Site& current, std::uint64_t arrival, const Series& inside);

    int ranks_ = 0;
    std::unordered_map<const void*, Site> sites_;
    std::vector<RootStream> streams_;  // at most kRootStreams
    std::uint64_t calls_ = 0;
    const void* current_ = nullptr;
    std::uint64_t current_arrival_ = 0;
    bool current_at_root_ = false;
    std::uint64_t last_exit_ = 0;
    bool have_exit_ = false;
    std::optional<Prediction> next_;
    // Both candidate arrivals made for the next call, judged at its entry (Site::from_exit_miss, from_entry_miss).
    struct Candidates {
        const void* site = nullptr;
        std::optional<std::uint64_t> from_exit, from_entry;
    } pending_;
};

}  // namespace papshim::predict
