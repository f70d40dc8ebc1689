// Plans that every rank agrees on (DESIGN §3, §5): at its entry into call k each rank
// contributes a Contribution; the vector of all of them, exchanged over a private
// communicator, is bit-identical on every rank, and everything here is a pure function of
// it (and of configuration that is identical everywhere). So every rank derives the same
// plan for call k+1, the same arming decision and the same prediction-quality guard.
#pragma once

#include <cstdint>
#include <deque>
#include <span>
#include <type_traits>
#include <vector>

namespace papshim::plan {

inline constexpr std::int64_t kNoPrediction = INT64_MIN;

// One rank's record for the exchange at its entry into call `seq` (plain data, exchanged as bytes).
struct Contribution {
    std::int64_t next_arrival_ns = kNoPrediction;  // predicted entry into call seq+1, global clock
    std::int64_t arrival_ns = 0;                   // actual entry into call seq, global clock
    std::uint64_t next_signature = 0;              // predicted signature hash of call seq+1 (0: none)
    std::uint64_t seq = 0;
};
static_assert(sizeof(Contribution) == 32 && std::is_trivially_copyable_v<Contribution>);

// The plan for one call, or no plan (signature == 0).
struct Plan {
    std::uint64_t seq = 0;                  // the call it is for
    std::uint64_t signature = 0;            // the call's predicted signature hash; 0: no plan
    std::vector<std::int64_t> arrival_ns;   // predicted arrivals relative to the earliest
    std::int64_t omega_ns = 0;              // max - min of arrival_ns
    int last = -1;                          // the rank predicted to arrive last (lowest on ties)
    bool usable() const { return signature != 0; }
};

// The plan for call seq+1 from the vector exchanged at call seq: usable when every rank
// predicted, and all predicted the same signature.
Plan plan_from(std::span<const Contribution> vector, std::uint64_t seq);

// How well the plan for a call matched what happened (arrivals exchanged one call later).
struct Quality {
    // max_i |predicted_i - actual_i| / max(predicted omega, actual omega, tau), offsets
    // removed (docs/algorithms/bdr.md §7). Spec §1.5 divides by the predicted omega and
    // disables above 1, which passes a predicted late rank that does not come (score 1);
    // dividing by the actual omega passes one that comes unpredicted; and neither flags a
    // mirror-image order at the same spread (score 1). Over the larger spread, with
    // Guard::kMaxError = 1/2, all three score 1, while noise below half the spread passes.
    double relative_error = 0;
    bool last_right = false;     // the predicted last arriver was (one of) the actual last
    std::int64_t actual_omega_ns = 0;
};
Quality assess(const Plan& plan, std::span<const Contribution> vector, std::int64_t tau_ns);

// Per-communicator state every rank keeps identically: the recent prediction quality and
// whether PAP-aware algorithms that degrade under misprediction may be planned (spec §1.5
// item 2, §2.8), and whether the per-call exchange is armed (DESIGN §5: only where the
// exchanged data show imbalance that a PAP-aware algorithm can use).
class Guard {
public:
    static constexpr int kWindow = 4;       // calls whose quality decides
    static constexpr double kMaxError = 0.5;  // relative error above it disables (Quality says why not 1)
    // Arrival spread, in units of τ, from which a call counts as imbalanced. The arrival-aware
    // Reduce/Allreduce win from a maximum imbalance factor of about 10 (spec
    // pap-aware-allreduce-and-reduce.md §10.5), ω/τ ≈ 6 at p = 4 (§1.6); measured here, the
    // spread of barrier-synchronised calls on shared memory reaches ω/τ ≈ 1 from noise alone.
    static constexpr std::int64_t kImbalanceFactor = 6;

    // What every exchanged vector shows: the call's actual arrival spread.
    void observe(std::span<const Contribution> vector, std::int64_t tau_ns);
    // How the plan made for an exchanged call did.
    void record(const Quality& q);
    // Predictions were good on the last kWindow assessed calls (and there were that many).
    bool trusted() const;
    // Trust for a plan that depends on nothing but who arrives last (the predicted scatter):
    // `rank`, the plan's last arriver, was the real last arriver of at least kLastWindow - 2
    // of the last kLastWindow exchanged calls (all of them at p = 2, where chance makes it one
    // in two). After a one-off stall of another rank X the predictions echo it: the plan for
    // the next call has X last (its stalled entry carried into its predicted next one); the
    // two calls' errors put trusted() off for 4-6 calls, and trusting the plans' own last
    // arriver where right on 3 of the last 4 (tried) lost 4. Here the echo alone is refused
    // and the call after it is planned again (docs/benchmarks.md, "One-off stalls and the
    // last arriver"). Under fresh random delays chance passes it on under 2% of calls at p = 4.
    bool last_established(int rank, int ranks) const;
    static constexpr int kLastWindow = 8;
    // Most recent calls showed omega >= kImbalanceFactor·tau (imbalance a PAP-aware
    // algorithm can use).
    bool imbalanced() const;
    // At least one recent call did: reason enough to exchange on every call until the window
    // says which way it goes (sampling alone would take ~3 samples of 16 calls to decide).
    bool maybe_imbalanced() const;
    long assessed() const { return assessed_; }
    long good() const { return good_; }
    long last_right() const { return last_right_; }

private:
    std::deque<Quality> recent_;
    std::deque<bool> imbalanced_;
    std::deque<int> last_arrivers_;  // of the last kLastWindow exchanged calls (lowest rank on ties)
    long assessed_ = 0, good_ = 0, last_right_ = 0;
};

}  // namespace papshim::plan
