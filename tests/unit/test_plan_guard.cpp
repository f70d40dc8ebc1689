// Plan agreement and the prediction-quality guard (DESIGN §5): every rank computes the plan
// and the guard from the same exchanged vector, so they must be pure functions of it, and
// the guard must switch trust exactly where the window of assessed plans says.
// (The guard's imbalance window, observe/maybe_imbalanced, is covered by test_guard.cpp.)
#include <catch.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "papshim/plan.hpp"

namespace {

using papshim::plan::assess;
using papshim::plan::Contribution;
using papshim::plan::Guard;
using papshim::plan::kNoPrediction;
using papshim::plan::Plan;
using papshim::plan::plan_from;
using papshim::plan::Quality;

constexpr std::uint64_t kSignature = 0x5eed'cafe'f00d'0001;
constexpr std::uint64_t kSeq = 41;
constexpr std::int64_t tau_ns = 1000;
// A global clock far from zero, so relative arrivals must be exact integer differences.
constexpr std::int64_t base_ns = 1'700'000'000'000'000'000;

// The vector exchanged at call kSeq: rank i predicts its entry into the next call at
// base + predicted[i], all with the same signature.
std::vector<Contribution> predicting(const std::vector<std::int64_t>& predicted,
                                     std::uint64_t signature = kSignature) {
    std::vector<Contribution> vector(predicted.size());
    for (std::size_t i = 0; i < predicted.size(); ++i) {
        vector[i].next_arrival_ns = base_ns + predicted[i];
        vector[i].arrival_ns = base_ns - 10'000;
        vector[i].next_signature = signature;
        vector[i].seq = kSeq;
    }
    return vector;
}

// The vector exchanged at the next call: rank i actually entered it at start + actual[i].
std::vector<Contribution> arriving(const std::vector<std::int64_t>& actual, std::int64_t start_ns = base_ns) {
    std::vector<Contribution> vector(actual.size());
    for (std::size_t i = 0; i < actual.size(); ++i) {
        vector[i].arrival_ns = start_ns + actual[i];
        vector[i].seq = kSeq + 1;
    }
    return vector;
}

// Every field, so "the same plan" means what every rank relies on.
void require_identical(const Plan& a, const Plan& b) {
    CHECK(a.seq == b.seq);
    CHECK(a.signature == b.signature);
    CHECK(a.arrival_ns == b.arrival_ns);
    CHECK(a.omega_ns == b.omega_ns);
    CHECK(a.last == b.last);
    CHECK(a.usable() == b.usable());
}

// What plan_from gives when it cannot plan: nothing but the call it was for.
void require_no_plan(const Plan& plan) {
    CHECK_FALSE(plan.usable());
    CHECK(plan.seq == kSeq + 1);
    CHECK(plan.signature == 0);
    CHECK(plan.arrival_ns.empty());
    CHECK(plan.omega_ns == 0);
    CHECK(plan.last == -1);
}

Quality with_error(double relative_error, bool last_right = false) {
    Quality q;
    q.relative_error = relative_error;
    q.last_right = last_right;
    return q;
}

void record_good(Guard& guard, int calls) {
    for (int i = 0; i < calls; ++i) guard.record(with_error(0.5));
}

}  // namespace

// ---- plan_from -------------------------------------------------------------------------

TEST_CASE("plan_from: arrivals relative to the earliest, in rank order, with spread and last") {
    const Plan plan = plan_from(predicting({300, 100, 700, 250}), kSeq);
    REQUIRE(plan.usable());
    CHECK(plan.seq == kSeq + 1);  // the plan is for the call after the exchanged one
    CHECK(plan.signature == kSignature);
    CHECK(plan.arrival_ns == std::vector<std::int64_t>{200, 0, 600, 150});
    CHECK(plan.omega_ns == 600);
    CHECK(plan.last == 2);
}

TEST_CASE("plan_from: equal latest predictions name the lowest rank as last") {
    CHECK(plan_from(predicting({700, 100, 700, 700}), kSeq).last == 0);
    CHECK(plan_from(predicting({100, 700, 300, 700}), kSeq).last == 1);
    const Plan all_equal = plan_from(predicting({500, 500, 500, 500}), kSeq);
    CHECK(all_equal.arrival_ns == std::vector<std::int64_t>{0, 0, 0, 0});
    CHECK(all_equal.omega_ns == 0);
    CHECK(all_equal.last == 0);
}

TEST_CASE("plan_from: a single rank plans to arrive at 0 and is its own last") {
    const Plan plan = plan_from(predicting({12345}), kSeq);
    REQUIRE(plan.usable());
    CHECK(plan.arrival_ns == std::vector<std::int64_t>{0});
    CHECK(plan.omega_ns == 0);
    CHECK(plan.last == 0);
}

TEST_CASE("plan_from: relative arrivals are exact integers far from clock zero and below it") {
    // base_ns + 1 is not representable as a double (its ulp is 256): any floating-point
    // detour shows.
    const Plan plan = plan_from(predicting({1, 0, 3}), kSeq);
    CHECK(plan.arrival_ns == std::vector<std::int64_t>{1, 0, 3});
    auto negative = predicting({1, 0, 3});
    for (Contribution& c : negative) c.next_arrival_ns -= 2 * base_ns;  // clocks may be offset below 0
    const Plan shifted = plan_from(negative, kSeq);
    require_identical(plan, shifted);
}

TEST_CASE("plan_from: the same vector gives the same plan, whatever was planned in between") {
    const auto vector = predicting({300, 100, 700, 700});
    const auto unrelated = predicting({9, 8, 7, 6000}, kSignature + 1);
    const Plan first = plan_from(vector, kSeq);
    const Plan other_before = plan_from(unrelated, kSeq + 5);
    const Plan again = plan_from(vector, kSeq);
    require_identical(first, again);
    require_identical(other_before, plan_from(unrelated, kSeq + 5));
    // And from a copy: only the contents matter, not where they live.
    const std::vector<Contribution> copy(vector);
    require_identical(first, plan_from(copy, kSeq));
}

TEST_CASE("plan_from: a permuted vector gives the plan its own contents imply") {
    // Ranks 0..3 predict 300, 100, 700, 700; the permutations are different vectors.
    const Plan reversed = plan_from(predicting({700, 700, 100, 300}), kSeq);
    CHECK(reversed.arrival_ns == std::vector<std::int64_t>{600, 600, 0, 200});
    CHECK(reversed.omega_ns == 600);
    CHECK(reversed.last == 0);  // the tie goes to the lowest position, not to the old rank 2
    const Plan rotated = plan_from(predicting({100, 700, 700, 300}), kSeq);
    CHECK(rotated.arrival_ns == std::vector<std::int64_t>{0, 600, 600, 200});
    CHECK(rotated.last == 1);
}

TEST_CASE("plan_from: the contributions' own seq fields do not change the plan") {
    // The caller's seq decides which call the plan is for; every rank passes the same one.
    auto vector = predicting({300, 100});
    const Plan plan = plan_from(vector, kSeq);
    vector[1].seq = 999;
    require_identical(plan, plan_from(vector, kSeq));
}

TEST_CASE("plan_from: no plan when any rank has no prediction, wherever it sits") {
    for (std::size_t missing = 0; missing < 4; ++missing) {
        auto vector = predicting({300, 100, 700, 250});
        vector[missing].next_arrival_ns = kNoPrediction;
        const Plan plan = plan_from(vector, kSeq);
        require_no_plan(plan);
        require_identical(plan, plan_from(vector, kSeq));
    }
}

TEST_CASE("plan_from: no plan when a rank predicts no signature, even with an arrival") {
    for (std::size_t missing = 0; missing < 3; ++missing) {
        auto vector = predicting({300, 100, 700});
        vector[missing].next_signature = 0;
        require_no_plan(plan_from(vector, kSeq));
    }
    require_no_plan(plan_from(predicting({300, 100, 700}, 0), kSeq));  // nobody predicted one
}

TEST_CASE("plan_from: no plan when ranks predict different next signatures") {
    for (std::size_t odd = 0; odd < 4; ++odd) {
        auto vector = predicting({300, 100, 700, 250});
        vector[odd].next_signature = kSignature ^ 1;
        const Plan plan = plan_from(vector, kSeq);
        require_no_plan(plan);
        require_identical(plan, plan_from(vector, kSeq));
    }
}

TEST_CASE("plan_from: no plan from an empty vector") {
    require_no_plan(plan_from(std::vector<Contribution>{}, kSeq));
}

// ---- assess ----------------------------------------------------------------------------

TEST_CASE("assess: a plan whose shape matches is exact, whatever the clock offset") {
    const Plan plan = plan_from(predicting({300, 100, 700, 250}), kSeq);
    // Everyone 5 µs later than predicted: the plan is about relative arrivals only.
    const Quality q = assess(plan, arriving({300, 100, 700, 250}, base_ns + 5000), tau_ns);
    CHECK(q.relative_error == 0);
    CHECK(q.last_right);
    CHECK(q.actual_omega_ns == 600);
}

TEST_CASE("assess: the bound is the actual spread when it is the largest, half of it allowed") {
    const std::int64_t omega = 6 * tau_ns;
    const auto actual = arriving({0, 0, 0, omega});
    // Rank 3 predicted omega/2 late instead of omega: an error of exactly half the bound.
    const Quality at = assess(plan_from(predicting({0, 0, 0, omega / 2}), kSeq), actual, tau_ns);
    CHECK(at.actual_omega_ns == omega);
    CHECK(at.relative_error == 0.5);
    CHECK(at.relative_error <= Guard::kMaxError);
    const Quality outside = assess(plan_from(predicting({0, 0, 0, omega / 2 - 1}), kSeq), actual, tau_ns);
    CHECK(outside.relative_error == double(omega / 2 + 1) / double(omega));
    CHECK(outside.relative_error > Guard::kMaxError);
}

TEST_CASE("assess: the bound is the predicted spread when it is the largest") {
    const std::int64_t omega = 6 * tau_ns;
    const auto actual = arriving({0, 0, 0, omega});
    const Quality at = assess(plan_from(predicting({0, 0, 0, 2 * omega}), kSeq), actual, tau_ns);
    CHECK(at.relative_error == 0.5);  // omega off, over a predicted 2·omega
    const Quality outside = assess(plan_from(predicting({0, 0, 0, 2 * omega + 2}), kSeq), actual, tau_ns);
    CHECK(outside.relative_error == double(omega + 2) / double(2 * omega + 2));
    CHECK(outside.relative_error > Guard::kMaxError);
}

TEST_CASE("assess: the bound is tau when both spreads are smaller") {
    const auto balanced = arriving({0, 0, 0, 0});
    const Quality at = assess(plan_from(predicting({0, tau_ns / 2, 0, 0}), kSeq), balanced, tau_ns);
    CHECK(at.actual_omega_ns == 0);
    CHECK(at.relative_error == 0.5);
    CHECK(at.relative_error <= Guard::kMaxError);
    const Quality outside = assess(plan_from(predicting({0, tau_ns / 2 + 1, 0, 0}), kSeq), balanced, tau_ns);
    CHECK(outside.relative_error > Guard::kMaxError);
}

TEST_CASE("assess: the worst rank decides, in either direction") {
    // Rank 1 predicted early by 400, rank 2 late by 900, over the predicted spread 1500.
    const auto actual = arriving({0, 500, 600, 100});
    const Quality q = assess(plan_from(predicting({0, 100, 1500, 100}), kSeq), actual, tau_ns);
    CHECK(q.relative_error == Approx(900.0 / 1500.0));
    // Errors are measured from each side's own earliest: a wrongly predicted earliest
    // shifts every other rank.
    const Quality shifted = assess(plan_from(predicting({0, 2000, 2000, 2000}), kSeq),
                                   arriving({1000, 0, 0, 0}), tau_ns);
    CHECK(shifted.relative_error == Approx(1.0));
}

// The score lies in [0, 1] (no error exceeds the larger spread); the 1 ns floor only keeps
// 0/0 away when both spreads and tau are 0.
TEST_CASE("assess: a tau of zero or less leaves the spreads as the bound, never 0/0") {
    const auto balanced = arriving({0, 0, 0});
    const Quality exact = assess(plan_from(predicting({0, 0, 0}), kSeq), balanced, 0);
    CHECK(exact.relative_error == 0);
    const Quality off = assess(plan_from(predicting({0, 3, 0}), kSeq), balanced, -5);
    CHECK(std::isfinite(off.relative_error));
    CHECK(off.relative_error == 1.0);
}

TEST_CASE("assess: the last arriver is right when it was (one of) the actual last") {
    const Plan plan = plan_from(predicting({0, 900, 100, 300}), kSeq);  // rank 1 last
    CHECK(assess(plan, arriving({0, 800, 100, 300}), tau_ns).last_right);
    CHECK(assess(plan, arriving({0, 800, 800, 300}), tau_ns).last_right);  // tied for last
    CHECK_FALSE(assess(plan, arriving({0, 800, 801, 300}), tau_ns).last_right);
    // A tied prediction names the lowest rank; only that rank counts.
    const Plan tied = plan_from(predicting({900, 0, 900}), kSeq);
    CHECK_FALSE(assess(tied, arriving({0, 0, 900}), tau_ns).last_right);
    CHECK(assess(tied, arriving({900, 0, 0}), tau_ns).last_right);
}

// The mispredictions that make BDR several ring-lengths slower (docs/algorithms/bdr.md §7)
// each score 1 over the larger spread. Spec §1.5's bound (the predicted spread, error above
// 1) passes the phantom and the reversed order (1) and flags the missed spread (10); the
// actual spread as the bound passes the missed spread and the reversed order.
TEST_CASE("assess: a missed spread, a phantom one and a reversed order are all errors") {
    const auto imbalanced = arriving({0, 10 * tau_ns, 3 * tau_ns, 7 * tau_ns});
    const Quality missed = assess(plan_from(predicting({0, 0, 0, 0}), kSeq), imbalanced, tau_ns);
    CHECK(missed.relative_error == Approx(1.0));
    CHECK(missed.relative_error > Guard::kMaxError);
    const Quality reversed =
        assess(plan_from(predicting({10 * tau_ns, 0, 7 * tau_ns, 3 * tau_ns}), kSeq), imbalanced, tau_ns);
    CHECK(reversed.relative_error == Approx(1.0));
    CHECK(reversed.relative_error > Guard::kMaxError);
    CHECK_FALSE(reversed.last_right);
    const Quality phantom = assess(plan_from(predicting({0, 10 * tau_ns, 0, 0}), kSeq), arriving({0, 0, 0, 0}), tau_ns);
    CHECK(phantom.relative_error == Approx(1.0));
    CHECK(phantom.relative_error > Guard::kMaxError);
    // Two neighbours of a staircase swapped: a small part of the spread, still trusted.
    const Quality neighbours = assess(plan_from(predicting({0, 3 * tau_ns, 2 * tau_ns, 4 * tau_ns}), kSeq),
                                      arriving({0, 2 * tau_ns, 3 * tau_ns, 4 * tau_ns}), tau_ns);
    CHECK(neighbours.relative_error == Approx(0.25));
}

TEST_CASE("assess: same inputs, bit-identical quality") {
    const Plan plan = plan_from(predicting({0, 333, 1000, 7}), kSeq);
    const auto actual = arriving({13, 0, 2900, 400});
    const Quality a = assess(plan, actual, tau_ns);
    (void)assess(plan_from(predicting({5, 4, 3, 2}), kSeq), arriving({1, 2, 3, 4}), 17);
    const Quality b = assess(plan, actual, tau_ns);
    CHECK(std::bit_cast<std::uint64_t>(a.relative_error) == std::bit_cast<std::uint64_t>(b.relative_error));
    CHECK(a.last_right == b.last_right);
    CHECK(a.actual_omega_ns == b.actual_omega_ns);
}

TEST_CASE("assess: nothing to judge without a usable plan of the vector's size") {
    // The default Quality, which reads as "perfect": the planner only assesses usable plans
    // for the right call (planner.cpp), so these never reach the guard.
    const auto spread = arriving({0, 5000, 0, 0});
    const Quality none = assess(Plan{}, spread, tau_ns);
    CHECK(none.relative_error == 0);
    CHECK_FALSE(none.last_right);
    CHECK(none.actual_omega_ns == 0);  // not computed either
    const Plan three_ranks = plan_from(predicting({0, 100, 200}), kSeq);
    const Quality mismatch = assess(three_ranks, spread, tau_ns);
    CHECK(mismatch.relative_error == 0);
    CHECK_FALSE(mismatch.last_right);
    CHECK(assess(three_ranks, std::vector<Contribution>{}, tau_ns).relative_error == 0);
}

// ---- Guard: trust window and counters ---------------------------------------------------

TEST_CASE("guard: not trusted before kWindow assessed plans, trusted after kWindow good ones") {
    Guard guard;
    CHECK_FALSE(guard.trusted());
    CHECK(guard.assessed() == 0);
    for (int i = 1; i < Guard::kWindow; ++i) {
        guard.record(with_error(0));
        CHECK_FALSE(guard.trusted());  // perfect, but too few to decide
    }
    guard.record(with_error(0));
    CHECK(guard.trusted());
    CHECK(guard.assessed() == Guard::kWindow);
}

TEST_CASE("guard: one bad plan withdraws trust until kWindow good ones follow it") {
    Guard guard;
    record_good(guard, Guard::kWindow + 3);
    REQUIRE(guard.trusted());
    guard.record(with_error(1.5));
    CHECK_FALSE(guard.trusted());
    for (int i = 1; i < Guard::kWindow; ++i) {
        guard.record(with_error(0));
        CHECK_FALSE(guard.trusted());  // the bad one is still in the window
    }
    guard.record(with_error(0));
    CHECK(guard.trusted());
}

TEST_CASE("guard: a bad plan among the first kWindow keeps it untrusted until it leaves") {
    Guard guard;
    guard.record(with_error(2));
    record_good(guard, Guard::kWindow - 1);
    CHECK_FALSE(guard.trusted());
    guard.record(with_error(0));
    CHECK(guard.trusted());
}

TEST_CASE("guard: an error of exactly kMaxError is good; the next double up is bad") {
    Guard at;
    for (int i = 0; i < Guard::kWindow; ++i) at.record(with_error(Guard::kMaxError));
    CHECK(at.trusted());
    CHECK(at.good() == Guard::kWindow);
    Guard above;
    record_good(above, Guard::kWindow - 1);
    above.record(with_error(std::nextafter(Guard::kMaxError, 2.0)));
    CHECK_FALSE(above.trusted());
    CHECK(above.good() == Guard::kWindow - 1);
}

TEST_CASE("guard: trust follows the error, not whether the last arriver was right") {
    Guard guard;
    for (int i = 0; i < Guard::kWindow; ++i) guard.record(with_error(0.2, false));
    CHECK(guard.trusted());
    CHECK(guard.last_right() == 0);
    Guard right_but_wrong;
    for (int i = 0; i < Guard::kWindow; ++i) right_but_wrong.record(with_error(3, true));
    CHECK_FALSE(right_but_wrong.trusted());
    CHECK(right_but_wrong.last_right() == Guard::kWindow);
}

TEST_CASE("guard: a last arriver is established by kLastWindow - 2 of the last kLastWindow calls, all at p = 2") {
    Guard guard;
    const auto call = [&](int late) {
        std::vector<std::int64_t> offsets(4, 0);
        offsets[std::size_t(late)] = 9000;
        guard.observe(arriving(offsets), tau_ns);
    };
    for (int i = 1; i < Guard::kLastWindow; ++i) call(3);
    CHECK_FALSE(guard.last_established(3, 4));  // too few to decide
    call(3);
    CHECK(guard.last_established(3, 4));
    CHECK(guard.last_established(3, 2));
    CHECK_FALSE(guard.last_established(1, 4));
    CHECK(guard.assessed() == 0);  // it needs no assessed plan, only the exchanged arrivals
    // A one-off stall of rank 1: 3 stays established; the echo (a plan with 1 last) is not.
    call(1);
    CHECK(guard.last_established(3, 4));
    CHECK_FALSE(guard.last_established(1, 4));
    CHECK_FALSE(guard.last_established(3, 2));  // at two ranks every miss counts
    call(3);
    call(2);
    CHECK(guard.last_established(3, 8));  // two misses in the window
    call(0);
    CHECK_FALSE(guard.last_established(3, 8));  // three
    // A lasting change to rank 0: established once it holds kLastWindow - 2 of the window.
    for (int i = 0; i < Guard::kLastWindow - 3; ++i) {
        CHECK_FALSE(guard.last_established(0, 4));
        call(0);
    }
    CHECK(guard.last_established(0, 4));
    CHECK_FALSE(guard.last_established(3, 4));
}

TEST_CASE("guard: the last arriver among equal arrivals is the lowest rank, as the plan's") {
    Guard guard;
    for (int i = 0; i < Guard::kLastWindow; ++i) guard.observe(arriving({0, 7000, 0, 7000}), tau_ns);
    CHECK(guard.last_established(1, 4));
    CHECK_FALSE(guard.last_established(3, 4));
    CHECK(plan_from(predicting({0, 7000, 0, 7000}), kSeq).last == 1);
}

TEST_CASE("guard: counters count every assessed plan, beyond the window") {
    Guard guard;
    const Quality sequence[] = {with_error(0.1, true), with_error(4, true),  with_error(0.5, false),
                                with_error(7, false),  with_error(0, true),  with_error(0.45, false),
                                with_error(0.51, true)};
    for (const Quality& q : sequence) guard.record(q);
    CHECK(guard.assessed() == 7);
    CHECK(guard.good() == 4);        // 0.1, 0.5, 0, 0.45
    CHECK(guard.last_right() == 4);  // independent of good
    CHECK_FALSE(guard.trusted());    // 0.51 is in the last kWindow
}

TEST_CASE("guard: observing exchanged vectors does not count as assessing plans") {
    Guard guard;
    for (int i = 0; i < 2 * Guard::kWindow; ++i) guard.observe(arriving({0, 0, 0, 0}), tau_ns);
    CHECK(guard.assessed() == 0);
    CHECK_FALSE(guard.trusted());
}

TEST_CASE("guard: the same sequence of qualities gives the same decisions on every rank") {
    const Quality sequence[] = {with_error(0.3, true), with_error(0.2), with_error(1.2, true),
                                with_error(0.1),       with_error(0.1), with_error(0.1),
                                with_error(0.1, true), with_error(0.4)};
    Guard rank_a, rank_b;
    for (const Quality& q : sequence) {
        rank_a.record(q);
        rank_b.record(q);
        CHECK(rank_a.trusted() == rank_b.trusted());
    }
    CHECK(rank_a.assessed() == rank_b.assessed());
    CHECK(rank_a.good() == rank_b.good());
    CHECK(rank_a.last_right() == rank_b.last_right());
}

// ---- end to end: the planner's sequence -----------------------------------------------

TEST_CASE("plan then assess then record: a steady pattern earns trust, a change withdraws it") {
    Guard guard;
    const std::vector<std::int64_t> pattern = {0, 2000, 400, 8000};
    for (int call = 0; call < Guard::kWindow; ++call) {
        const Plan plan = plan_from(predicting(pattern), kSeq);
        guard.record(assess(plan, arriving(pattern, base_ns + call * 1'000'000), tau_ns));
    }
    CHECK(guard.trusted());
    CHECK(guard.last_right() == Guard::kWindow);
    // The slow rank becomes the fast one at the same spread.
    const Plan plan = plan_from(predicting(pattern), kSeq);
    const Quality q = assess(plan, arriving({8000, 2000, 400, 0}), tau_ns);
    CHECK(q.relative_error == Approx(1.0));  // |0 - 8000| / 8000 on both swapped ranks
    CHECK_FALSE(q.last_right);
    guard.record(q);
    CHECK_FALSE(guard.trusted());  // a swap of the extremes at the same spread
    // Trust comes back after kWindow good plans in a row.
    for (int call = 0; call < Guard::kWindow; ++call)
        guard.record(assess(plan, arriving(pattern, base_ns + call * 1'000'000), tau_ns));
    CHECK(guard.trusted());
    // The imbalance vanishes: the plan over-predicts the spread fourfold.
    guard.record(assess(plan, arriving({0, 1000, 400, 2000}), tau_ns));
    CHECK_FALSE(guard.trusted());
}
