// BSLB (spec allgather-bdr-bslb-and-clairvoyant.md §3; docs/algorithms/bslb.md): the
// gather's protocol and order step by step, the root and tie rules, data flow for
// p = 1..64 under random PAPs, the balanced form, the background part (the root's gather is
// receive-only), Allgatherv's zero-size blocks, timing claims in the simulator, and purity.

#include <catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "papshim/algorithms.hpp"
#include "papshim/simulator.hpp"
#include "src/algorithms/allgather/builders.hpp"

using papshim::allgather::build_bslb;
using papshim::allgather::build_gather_bcast;
using papshim::schedule::BuildInput;
using papshim::schedule::Schedule;
using papshim::sim::ScheduleSet;
using papshim::sim::TimingModel;
using Arrivals = std::vector<std::int64_t>;

namespace {

BuildInput bslb_input(int p, int rank, const Arrivals& arrival, std::int64_t step_ns = 0) {
    BuildInput input;
    input.ranks = p;
    input.rank = rank;
    input.arrival_ns = arrival;
    input.step_ns = step_ns;
    return input;
}

std::vector<Schedule> bslb_plans(int p, const Arrivals& arrival) {
    std::vector<Schedule> plans;
    for (int r = 0; r < p; ++r) plans.push_back(build_bslb(bslb_input(p, r, arrival)));
    return plans;
}

ScheduleSet bslb_set(int p, const Arrivals& arrival) {
    return ScheduleSet::build(build_bslb, p, bslb_input(p, 0, arrival));
}

// Every rank's sends, step by step: steps separated by '|', each "sender>receiver:blocks"
// by ascending sender, blocks joined by ',' and a signal written '-'.
std::string canonical(const std::vector<Schedule>& plans) {
    std::size_t steps = 0;
    for (const auto& plan : plans) steps = std::max(steps, plan.steps.size());
    std::string text;
    for (std::size_t s = 0; s < steps; ++s) {
        if (s > 0) text += '|';
        bool first = true;
        for (const auto& plan : plans) {
            if (s >= plan.steps.size()) continue;
            for (const auto& send : plan.steps[s].sends) {
                const std::string blocks = send.blocks.empty() ? "-" : fmt::format("{}", fmt::join(send.blocks, ","));
                text += fmt::format("{}{}>{}:{}", first ? "" : ";", plan.rank, send.peer, blocks);
                first = false;
            }
        }
    }
    return text;
}

// Random PAPs of p ranks: uniform, with ties, one late, staircase up and down, extremes.
std::vector<std::pair<std::string, Arrivals>> paps(int p, std::mt19937_64& rng) {
    std::vector<std::pair<std::string, Arrivals>> out;
    const auto up = static_cast<std::size_t>(p);
    Arrivals a(up);
    std::uniform_int_distribution<std::int64_t> wide(0, 1'000'000'000), narrow(0, 3);
    for (auto& x : a) x = wide(rng);
    out.emplace_back("uniform", a);
    for (auto& x : a) x = narrow(rng);
    out.emplace_back("ties", a);
    std::fill(a.begin(), a.end(), 0);
    a[static_cast<std::size_t>(std::uniform_int_distribution<int>(0, p - 1)(rng))] = 5'000'000;
    out.emplace_back("one-late", a);
    for (std::size_t i = 0; i < up; ++i) a[i] = static_cast<std::int64_t>(i) * 1000;
    out.emplace_back("staircase", a);
    for (std::size_t i = 0; i < up; ++i) a[i] = static_cast<std::int64_t>(up - i) * 1000;
    out.emplace_back("reversed", a);
    for (std::size_t i = 0; i < up; ++i)
        a[i] = i % 2 ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::min();
    out.emplace_back("extremes", a);
    return out;
}

}  // namespace

TEST_CASE("BSLB's gather: signal, body, in predicted order, to the latest rank (§3.3)", "[bslb][protocol]") {
    // P = 4, rank 0 predicted last: it is the root; 1, 3, 2 send in arrival order, each after
    // the previous one's signal, then the ring from 0 (positions = ranks), with nothing
    // sent into the root.
    const Arrivals a{30, 0, 20, 10};
    CHECK(canonical(bslb_plans(4, a)) ==
          "1>0:1|1>3:-|3>0:3|3>2:-|2>0:2|"
          "0>1:0;1>2:1;2>3:2|0>1:3;1>2:0;2>3:1|0>1:2;1>2:3;2>3:0");
    const auto plans = bslb_plans(4, a);
    // Rank 3 receives the turn from 1 in step 1, after rank 1's body in step 0.
    REQUIRE(plans[3].steps[1].recvs.size() == 1);
    CHECK(plans[3].steps[1].recvs[0].peer == 1);
    CHECK(plans[3].steps[1].recvs[0].blocks.empty());
    // The root's gather: one receive per step, in arrival order; nothing to send.
    std::vector<int> from;
    for (std::size_t s = 0; s < 5; ++s) {
        CHECK(plans[0].steps[s].sends.empty());
        for (const auto& r : plans[0].steps[s].recvs) from.push_back(r.peer);
    }
    CHECK(from == std::vector<int>{1, 3, 2});
}

TEST_CASE("BSLB's root and ties", "[bslb][protocol]") {
    SECTION("ties at the latest arrival: the lowest of them is the root") {
        const Arrivals a{0, 9, 5, 9, 9};
        // Root 1; senders 0 (0), 2 (5), 3 (9), 4 (9).
        CHECK(canonical(bslb_plans(5, a)).starts_with("0>1:0|0>2:-|2>1:2|2>3:-|3>1:3|3>4:-|4>1:4|"));
    }
    SECTION("a root in the middle: the ring runs over ranks relative to it") {
        const Arrivals a{0, 0, 7, 0};
        CHECK(canonical(bslb_plans(4, a)) ==
              "0>2:0|0>1:-|1>2:1|1>3:-|3>2:3|"
              "0>1:0;2>3:2;3>0:3|0>1:3;2>3:1;3>0:2|0>1:2;2>3:0;3>0:1");
    }
    SECTION("p = 2: one body, then the root's block back") {
        CHECK(canonical(bslb_plans(2, Arrivals{5, 0})) == "1>0:1|0>1:0");
        CHECK(canonical(bslb_plans(2, Arrivals{})) == "1>0:1|0>1:0");
    }
    SECTION("p = 1: nothing to do") {
        CHECK(build_bslb(bslb_input(1, 0, Arrivals{42})).steps.empty());
    }
}

TEST_CASE("BSLB passes the data-flow check for p = 1..64 under random PAPs", "[bslb][dataflow]") {
    std::mt19937_64 rng(17);
    for (int p = 1; p <= 64; ++p) {
        for (const auto& [name, a] : paps(p, rng)) {
            INFO("p=" << p << " " << name);
            const ScheduleSet set = bslb_set(p, a);
            REQUIRE(papshim::sim::check_data_flow(set) == "");
            if (p < 2) continue;
            // p − 1 bodies, p − 2 signals, p − 1 ring steps of p − 1 messages.
            CHECK(set.send_count() == static_cast<std::size_t>(2 * p - 3 + (p - 1) * (p - 1)));
            for (int r = 0; r < p; ++r) CHECK(set.blocks_received(r) == static_cast<std::size_t>(p - 1));
        }
    }
}

TEST_CASE("BSLB's balanced form: root 0, senders in rank order", "[bslb][balanced]") {
    for (int p : {2, 3, 5, 8, 13}) {
        INFO("p=" << p);
        const std::string balanced = canonical(bslb_plans(p, Arrivals{}));
        CHECK(canonical(bslb_plans(p, Arrivals(static_cast<std::size_t>(p), 77))) == balanced);
        CHECK(canonical(bslb_plans(p, Arrivals(static_cast<std::size_t>(p + 1), 0))) == balanced);  // wrong size
        std::string gather;
        for (int k = 1; k < p; ++k) {
            gather += fmt::format("{}>0:{}|", k, k);
            if (k + 1 < p) gather += fmt::format("{}>{}:-|", k, k + 1);
        }
        CHECK(balanced.starts_with(gather));
        CHECK(papshim::sim::check_data_flow(ScheduleSet::build(build_bslb, p)) == "");
    }
}

TEST_CASE("BSLB's root gathers in the background: receive-only steps", "[bslb][background]") {
    std::mt19937_64 rng(5);
    for (int p = 2; p <= 32; ++p) {
        for (const auto& [name, a] : paps(p, rng)) {
            INFO("p=" << p << " " << name);
            const auto plans = bslb_plans(p, a);
            std::size_t root = 0;
            for (std::size_t r = 0; r < plans.size(); ++r)
                if (a[r] > a[root]) root = r;
            const Schedule& plan = plans[root];
            std::size_t first_send = 0, background = 0;
            while (first_send < plan.steps.size() && plan.steps[first_send].sends.empty()) {
                background += plan.steps[first_send].recvs.size();
                ++first_send;
            }
            CHECK(background == static_cast<std::size_t>(p - 1));  // every other block
            CHECK(first_send == static_cast<std::size_t>(2 * p - 3));
        }
    }
}

TEST_CASE("BSLB in the simulator: the late root leaves after the broadcast alone", "[bslb][timing]") {
    TimingModel m;
    m.latency = 1e-6;
    m.per_byte = 1e-9;
    m.contention = true;
    m.rendezvous_bytes = 65536;
    m.background_receives = true;
    for (int p : {4, 8, 16}) {
        INFO("p=" << p);
        const std::vector<double> block(static_cast<std::size_t>(p), 1 << 20);
        // One rank 100 ms late: everything else is gathered while it computes.
        std::vector<double> arrival(static_cast<std::size_t>(p), 0.0);
        arrival[2] = 0.1;
        Arrivals a(static_cast<std::size_t>(p), 0);
        a[2] = 100'000'000;
        const auto timing = papshim::sim::simulate_timing(bslb_set(p, a), m, arrival, block);
        // The root's p − 1 ring sends, one block each (a rendezvous costs a few latencies),
        // against ⌈log₂p⌉ sends of the whole vector along a binomial tree's longest path.
        const double whole = (p - 1) * double(1 << 20) * m.per_byte;
        const double ring = whole + (p - 1) * 4 * m.latency;
        const double tree = papshim::allgather::ceil_log2(p) * (whole + m.latency);
        UNSCOPED_INFO("root's time after its arrival " << timing.exit[2] - arrival[2] << " s, ring bound " << ring);
        CHECK(timing.exit[2] - arrival[2] <= ring);
        CHECK(ring < tree);
        // Without the background part the late root would first take every block itself.
        auto foreground = m;
        foreground.background_receives = false;
        const auto late = papshim::sim::simulate_timing(bslb_set(p, a), foreground, arrival, block);
        CHECK(late.exit[2] - arrival[2] > timing.exit[2] - arrival[2] + whole * 0.9);
        // And gather + broadcast to rank 0 in the foreground: the whole gather after the late rank.
        const auto gb = papshim::sim::simulate_timing(ScheduleSet::build(build_gather_bcast, p), m, arrival, block);
        CHECK(timing.mean_elapsed < gb.mean_elapsed);
    }
}

TEST_CASE("Allgatherv: zero-size blocks skip their bodies, not the signals", "[bslb][allgatherv]") {
    TimingModel m;
    m.latency = 1e-6;
    m.per_byte = 1e-9;
    const int p = 6;
    const Arrivals a{50, 0, 10, 20, 30, 40};
    const ScheduleSet set = bslb_set(p, a);
    REQUIRE(papshim::sim::check_data_flow(set) == "");
    // Rank 0 (the root) last; senders 1..5 in order; rank 3 contributes nothing. The signals
    // still chain 1 → 2 → 3 → 4 → 5: five bodies' worth of latency plus four signals.
    const std::vector<double> sizes{1000, 1000, 1000, 0, 1000, 1000};
    const std::vector<double> balanced(static_cast<std::size_t>(p), 0.0);
    const auto timing = papshim::sim::simulate_timing(set, m, balanced, sizes);
    CHECK(timing.mean_elapsed > 0);
    const std::vector<double> nothing(static_cast<std::size_t>(p), 0.0);
    const auto empty = papshim::sim::simulate_timing(set, m, balanced, nothing);
    // Only the four signals move: the last sender waits for them in turn.
    CHECK(empty.exit[5] == Approx(4 * m.latency));
}

TEST_CASE("signals (transfers with no blocks) are BSLB's alone among the Allgather builders", "[bslb][signals]") {
    // The executor sends a block-less transfer as a zero-byte message; the other builders
    // must never list one (their empty messages come only from zero-size blocks).
    std::mt19937_64 rng(1);
    for (const auto& algorithm : papshim::allgather_algorithms()) {
        if (algorithm.name == "bslb") continue;
        for (int p = 1; p <= 20; ++p) {
            for (const auto& [name, a] : paps(p, rng)) {
                for (int r = 0; r < p; ++r) {
                    const Schedule plan = algorithm.build(bslb_input(p, r, a, 1000));
                    for (const auto& step : plan.steps) {
                        for (const auto& t : step.sends) CHECK_FALSE(t.blocks.empty());
                        for (const auto& t : step.recvs) CHECK_FALSE(t.blocks.empty());
                    }
                }
            }
        }
    }
}

TEST_CASE("BSLB is a pure function of its input and ignores step_ns", "[bslb][purity]") {
    std::mt19937_64 rng(3);
    for (int p : {2, 3, 7, 16, 33}) {
        for (const auto& [name, a] : paps(p, rng)) {
            INFO("p=" << p << " " << name);
            const Arrivals copy = a;
            for (int rank = 0; rank < p; ++rank) {
                const std::string once = papshim::sim::to_string(build_bslb(bslb_input(p, rank, a)));
                CHECK(papshim::sim::to_string(build_bslb(bslb_input(p, rank, a))) == once);
                CHECK(papshim::sim::to_string(build_bslb(bslb_input(p, rank, copy, 123456))) == once);
            }
        }
    }
}
