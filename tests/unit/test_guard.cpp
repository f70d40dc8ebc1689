// The prediction guard's imbalance window: `imbalanced` (majority of the recent exchanges,
// what auto switches on) and `maybe_imbalanced` (any of them, what arms the per-call exchange
// so the window fills at every call instead of every 16th); and which calls a sampled policy
// exchanges on (SampledCadence), armed, and resting where plans go unused (ExchangeRest).
#include <catch.hpp>

#include <vector>

#include "papshim/plan.hpp"
#include "papshim/planner.hpp"

namespace {

using papshim::plan::Contribution;
using papshim::plan::ExchangeRest;
using papshim::plan::Guard;
using papshim::plan::Quality;
using papshim::plan::Policy;
using papshim::plan::SampledCadence;

// The calls (0-based, among `calls` eligible ones) on which a cadence exchanges, with the
// armed and resting states fixed.
std::vector<int> exchanging_calls(const Policy& policy, bool armed, bool resting, int calls = 40) {
    SampledCadence cadence;
    std::vector<int> out;
    for (int call = 0; call < calls; ++call)
        if (cadence.next(policy, armed, resting)) out.push_back(call);
    return out;
}

Policy sampled_policy() {
    Policy policy;
    policy.exchange = papshim::plan::Exchange::sampled;
    return policy;  // first_sampled 4, sample_every 16
}

constexpr std::int64_t tau_ns = 1000;
constexpr std::int64_t threshold_ns = Guard::kImbalanceFactor * tau_ns;
// The rest's key of a call (ExchangeRest::call_key).
std::uint64_t key(papshim::Collective collective, std::uint64_t bytes) {
    return ExchangeRest::call_key(std::uint8_t(collective), bytes);
}
const std::uint64_t kCall = key(papshim::Collective::allreduce, 256 << 10);  // a 256 KiB Allreduce

// A vector of `ranks` contributions whose arrivals spread over `omega_ns`.
std::vector<Contribution> spread(std::int64_t omega_ns, int ranks = 4) {
    std::vector<Contribution> contributions(static_cast<std::size_t>(ranks));
    for (int i = 0; i < ranks; ++i)
        contributions[static_cast<std::size_t>(i)].arrival_ns = 5000 + (i == ranks - 1 ? omega_ns : 0);
    return contributions;
}

}  // namespace

TEST_CASE("a fresh guard sees no imbalance") {
    const Guard guard;
    CHECK_FALSE(guard.imbalanced());
    CHECK_FALSE(guard.maybe_imbalanced());
}

TEST_CASE("one imbalanced exchange arms, a majority switches") {
    Guard guard;
    guard.observe(spread(0), tau_ns);
    guard.observe(spread(0), tau_ns);
    guard.observe(spread(threshold_ns + tau_ns), tau_ns);
    CHECK(guard.maybe_imbalanced());  // exchange on every call from now on
    CHECK_FALSE(guard.imbalanced());  // 1 of 3: not yet a reason to change algorithm
    guard.observe(spread(threshold_ns + tau_ns), tau_ns);
    CHECK_FALSE(guard.imbalanced());  // 2 of 4: a tie is not a majority
    guard.observe(spread(threshold_ns + tau_ns), tau_ns);
    CHECK(guard.imbalanced());  // 3 of the last 4
}

TEST_CASE("omega equal to the threshold counts as imbalanced; just below does not") {
    Guard at;
    at.observe(spread(threshold_ns), tau_ns);
    CHECK(at.imbalanced());
    Guard below;
    below.observe(spread(threshold_ns - 1), tau_ns);
    CHECK_FALSE(below.maybe_imbalanced());
    Guard noise;  // the spread of balanced calls on a shared-memory node
    noise.observe(spread(tau_ns), tau_ns);
    CHECK_FALSE(noise.maybe_imbalanced());
}

TEST_CASE("a single noisy exchange disarms once it leaves the window") {
    Guard guard;
    guard.observe(spread(2 * threshold_ns), tau_ns);
    CHECK(guard.maybe_imbalanced());
    for (int i = 0; i < Guard::kWindow - 1; ++i) {
        guard.observe(spread(0), tau_ns);
        CHECK(guard.maybe_imbalanced());
    }
    guard.observe(spread(0), tau_ns);
    CHECK_FALSE(guard.maybe_imbalanced());
    CHECK_FALSE(guard.imbalanced());
}

TEST_CASE("a sampled cadence: the first calls, one in 16, every call while armed") {
    CHECK(exchanging_calls(sampled_policy(), false, false) == std::vector<int>{0, 1, 2, 3, 16, 32});
    CHECK(exchanging_calls(sampled_policy(), true, false).size() == 40);
}

TEST_CASE("a resting cadence exchanges on sampled calls and the call after each") {
    // Armed but resting: no exchange on every call, a pair per sample so a plan is assessed.
    CHECK(exchanging_calls(sampled_policy(), true, true) == std::vector<int>{0, 1, 2, 3, 4, 16, 17, 32, 33});
}

TEST_CASE("a cadence leaving its rest exchanges on every call again") {
    const Policy policy = sampled_policy();
    SampledCadence cadence;
    std::vector<int> out;
    for (int call = 0; call < 24; ++call)
        if (cadence.next(policy, true, call < 17)) out.push_back(call);  // a plan ran at call 16
    CHECK(out == std::vector<int>{0, 1, 2, 3, 4, 16, 17, 18, 19, 20, 21, 22, 23});
}

namespace {
Quality quality(bool good) {
    Quality q;
    q.relative_error = good ? 0.1 : 2.0;
    return q;
}

// A guard that saw one imbalanced exchange and nothing else.
Guard guard_seeing_imbalance() {
    Guard guard;
    guard.observe(spread(threshold_ns), tau_ns);
    return guard;
}

// A guard that saw one imbalanced exchange and a full window of plans, all good or all bad.
Guard imbalanced_guard(bool good_plans) {
    Guard guard = guard_seeing_imbalance();
    for (int i = 0; i < Guard::kWindow; ++i) guard.record(quality(good_plans));
    return guard;
}

// A rest begun under `guard`: observed once, then kRestAfter calls whose plan went unused.
ExchangeRest rest_under(const Guard& guard) {
    ExchangeRest rest;
    rest.observe(guard);
    for (int call = 0; call < ExchangeRest::kRestAfter; ++call) rest.note_plan_use(false, kCall);
    return rest;
}
}  // namespace

TEST_CASE("the exchange rests after 8 calls in a row whose plan went unused") {
    ExchangeRest rest;
    for (int call = 0; call < ExchangeRest::kRestAfter - 1; ++call) rest.note_plan_use(false, kCall);
    CHECK_FALSE(rest.resting());
    rest.note_plan_use(true, kCall);  // a plan ran: count again from zero
    for (int call = 0; call < ExchangeRest::kRestAfter - 1; ++call) rest.note_plan_use(false, kCall);
    CHECK_FALSE(rest.resting());
    rest.note_plan_use(false, kCall);
    CHECK(rest.resting());
    // However long it rests, one plan that runs ends it (the count does not grow without bound).
    for (long call = 0; call < 100000; ++call) rest.note_plan_use(false, kCall);
    CHECK(rest.resting());
    rest.note_plan_use(true, kCall);
    CHECK_FALSE(rest.resting());
}

TEST_CASE("a new algorithm choice ends the rest and forgets the unused plans") {
    Guard guard = guard_seeing_imbalance();
    ExchangeRest rest = rest_under(guard);
    REQUIRE(rest.resting());
    rest.reset();
    CHECK_FALSE(rest.resting());
    for (int call = 0; call < ExchangeRest::kRestAfter - 1; ++call) rest.note_plan_use(false, kCall);
    CHECK_FALSE(rest.resting());  // counted from zero again
}

TEST_CASE("the rest ends when no recent exchange shows imbalance") {
    // Plans declined under a staircase, then the arrivals balance: once the guard's window
    // holds no imbalanced exchange, the rest ends, so that imbalance coming back arms the
    // exchange on every call at once.
    Guard guard = guard_seeing_imbalance();
    ExchangeRest rest = rest_under(guard);
    rest.observe(guard);
    REQUIRE(rest.resting());
    for (int i = 0; i < Guard::kWindow - 1; ++i) {
        guard.observe(spread(0), tau_ns);
        rest.observe(guard);
        CHECK(rest.resting());  // the imbalanced exchange is still in the window
    }
    guard.observe(spread(0), tau_ns);
    rest.observe(guard);
    CHECK_FALSE(rest.resting());
}

TEST_CASE("a good assessment ends the rest only while the guard distrusted the predictions") {
    // Distrusted (fresh random delays): a probe that came right may mean the arrivals became
    // predictable, so every call exchanges again until the guard's window decides.
    Guard distrusted = imbalanced_guard(false);
    ExchangeRest rest = rest_under(distrusted);
    REQUIRE(rest.resting());
    distrusted.record(quality(false));
    rest.observe(distrusted);
    CHECK(rest.resting());
    distrusted.record(quality(true));
    rest.observe(distrusted);
    CHECK_FALSE(rest.resting());

    // Trusted (plans declined by auto's rule): good probes are the normal case; the rest
    // holds until a plan runs.
    Guard trusted = imbalanced_guard(true);
    ExchangeRest declined = rest_under(trusted);
    trusted.record(quality(true));
    declined.observe(trusted);
    CHECK(declined.resting());
}

TEST_CASE("a call of another collective or size ends the rest; the calls whose plans went unused keep it") {
    // A phase of fresh random delays at one size, then a persistently late rank at another:
    // the unused plans said nothing of the new call's arrivals, so its calls exchange at once.
    Guard guard = guard_seeing_imbalance();
    ExchangeRest rest = rest_under(guard);
    rest.observe_call(kCall);
    CHECK(rest.resting());
    rest.observe_call(key(papshim::Collective::allreduce, 512 << 10));
    CHECK_FALSE(rest.resting());
    // Counted from zero, and the 256 KiB call forgotten with the rest.
    for (int call = 0; call < ExchangeRest::kRestAfter - 1; ++call) rest.note_plan_use(false, kCall);
    CHECK_FALSE(rest.resting());
    rest.note_plan_use(false, kCall);
    CHECK(rest.resting());
    // A Reduce of the same size is another call.
    rest.observe_call(key(papshim::Collective::reduce, 256 << 10));
    CHECK_FALSE(rest.resting());
}

TEST_CASE("the rest holds across the calls of a loop whose plans all go unused") {
    // A loop of several sizes under fresh random delays (a rotating root's Reduces share a
    // key): every size had an unused plan, so none of them ends the rest.
    std::vector<std::uint64_t> calls;
    for (int i = 0; i < ExchangeRest::kRememberedCalls; ++i)
        calls.push_back(key(papshim::Collective::allreduce, (64u << 10) * (i + 1)));
    ExchangeRest rest;
    for (int call = 0; call < 3 * ExchangeRest::kRestAfter; ++call) {
        rest.observe_call(calls[std::size_t(call) % calls.size()]);
        rest.note_plan_use(false, calls[std::size_t(call) % calls.size()]);
    }
    REQUIRE(rest.resting());
    for (const std::uint64_t call : calls) {
        rest.observe_call(call);
        CHECK(rest.resting());
    }
    // One size more than it remembers: the oldest is forgotten, and its next call ends the rest.
    const std::uint64_t another = key(papshim::Collective::allreduce, 4u << 20);
    rest.note_plan_use(false, another);
    rest.observe_call(another);
    CHECK(rest.resting());
    rest.observe_call(calls.front());
    CHECK_FALSE(rest.resting());
}
