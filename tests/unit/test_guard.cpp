// The prediction guard's imbalance window: `imbalanced` (majority of the recent exchanges,
// what auto switches on) and `maybe_imbalanced` (any of them, what arms the per-call exchange
// so the window fills at every call instead of every 16th).
#include <catch.hpp>

#include <vector>

#include "papshim/plan.hpp"

namespace {

using papshim::plan::Contribution;
using papshim::plan::Guard;

constexpr std::int64_t tau_ns = 1000;
constexpr std::int64_t threshold_ns = Guard::kImbalanceFactor * tau_ns;

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
