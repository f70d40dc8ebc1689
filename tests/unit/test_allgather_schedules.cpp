// Every Allgather builder, run through the simulator's data-flow check for p = 1..64 and a
// sample up to 1024, plus the step/message counts and test vectors of the spec
// (allgather-sparbit-and-baselines.md §2.2, §2.3, §2.7, §3).

#include <catch.hpp>

#include <fmt/format.h>

#include <numeric>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "sanitizer_scale.hpp"
#include "papshim/algorithms.hpp"
#include "papshim/simulator.hpp"
#include "src/algorithms/allgather/builders.hpp"

using papshim::LinkModel;
using papshim::allgather::ceil_log2;
using papshim::allgather::is_power_of_two;
using papshim::schedule::BuildInput;
using papshim::schedule::Schedule;
using papshim::sim::ScheduleSet;

namespace {

std::vector<int> sizes_to_check() {
    std::vector<int> sizes(64);
    std::iota(sizes.begin(), sizes.end(), 1);
    for (int p : {65, 84, 100, 127, 128, 129, 255, 256, 1000, 1024})
        if (!papshim::test::left_to_normal_builds(p)) sizes.push_back(p);
    return sizes;
}

Schedule build(papshim::schedule::Builder builder, int p, int rank) {
    BuildInput input;
    input.ranks = p;
    input.rank = rank;
    return builder(input);
}

// Steps every rank of a correct schedule has, per the spec's formula for each algorithm.
int expected_steps(std::string_view name, int p) {
    const int k = ceil_log2(p);
    if (name == "sparbit" || name == "bruck") return k;
    if (name == "recursive_doubling") return k;  // log2 p, or Bruck's ceil(log2 p) otherwise
    if (name == "ring" || name == "bdr") return p - 1;  // bdr without arrivals: the ring
    if (name == "neighbor_exchange") return p % 2 == 0 ? p / 2 : p - 1;
    if (name == "gather_bcast") return p == 1 ? 0 : 1 + k;
    if (name == "bslb") return p == 1 ? 0 : 3 * p - 4;  // p-1 bodies and p-2 signals in turn, then the ring
    FAIL("no step formula for " << name);
    return -1;
}

// Messages sent by all ranks together.
std::size_t expected_messages(std::string_view name, int p) {
    const auto up = static_cast<std::size_t>(p);
    if (name == "gather_bcast") return 2 * (up - 1);  // p-1 gathered, p-1 tree edges
    if (name == "bslb") return p == 1 ? 0 : 2 * up - 3 + (up - 1) * (up - 1);  // and the ring: p-1 steps of p-1 sends
    return up * static_cast<std::size_t>(expected_steps(name, p));  // one send per rank per step
}

// Number of runs of consecutive block ids, as the executor coalesces them.
int runs(const std::vector<int>& blocks) {
    int count = 0;
    for (std::size_t i = 0; i < blocks.size(); ++i) {
        if (i == 0 || blocks[i] != blocks[i - 1] + 1) ++count;
    }
    return count;
}

// (distance, blocks sent, ignore) per step of Sparbit's rank 0, as in spec §2.3.
std::vector<std::tuple<int, int, int>> sparbit_vector(int p) {
    const Schedule plan = build(papshim::allgather::build_sparbit, p, 0);
    std::vector<std::tuple<int, int, int>> steps;
    int held = 1;
    for (const auto& step : plan.steps) {
        const int sent = static_cast<int>(step.sends.at(0).blocks.size());
        const int ignore = held - sent;
        steps.emplace_back(step.sends.at(0).peer, sent, ignore);
        held = 2 * held - ignore;
    }
    return steps;
}

}  // namespace

TEST_CASE("every allgather algorithm passes the data-flow check", "[allgather][dataflow]") {
    for (const auto& algorithm : papshim::allgather_algorithms()) {
        for (int p : sizes_to_check()) {
            INFO(algorithm.name << " p=" << p);
            const ScheduleSet set = ScheduleSet::build(algorithm.build, p);
            REQUIRE(papshim::sim::check_data_flow(set).empty());
            CHECK(set.send_count() == expected_messages(algorithm.name, p));
            CHECK(set.recv_count() == set.send_count());
            for (int rank = 0; rank < p; ++rank) {
                CHECK(set.blocks_received(rank) == static_cast<std::size_t>(p - 1));
                CHECK(set.step_count(rank) == expected_steps(algorithm.name, p));
            }
        }
    }
}

TEST_CASE("the registry finds, lists and chooses algorithms", "[allgather][registry]") {
    std::set<std::string_view> names;
    for (const auto& algorithm : papshim::allgather_algorithms()) {
        CHECK(names.insert(algorithm.name).second);
        CHECK(papshim::find_allgather_algorithm(algorithm.name) == &algorithm);
    }
    CHECK(names == std::set<std::string_view>{"sparbit", "bruck", "recursive_doubling",
                                              "neighbor_exchange", "ring", "gather_bcast", "bdr", "bslb"});
    CHECK(papshim::find_allgather_algorithm("native") == nullptr);
    CHECK(papshim::find_allgather_algorithm("") == nullptr);

}

TEST_CASE("cost models match the simulator on balanced arrivals", "[allgather][cost]") {
    papshim::sim::TimingModel model;
    model.latency = 3e-6;
    model.per_byte = 2e-9;
    model.contention = true;  // the α-β models are single-port
    const LinkModel link{.alpha = model.latency, .beta = model.per_byte};
    for (const auto& algorithm : papshim::allgather_algorithms()) {
        for (int p : {1, 2, 5, 8, 12, 33, 64, 100}) {
            for (double bytes : {1.0, 4096.0}) {
                INFO(algorithm.name << " p=" << p << " bytes=" << bytes);
                const ScheduleSet set = ScheduleSet::build(algorithm.build, p);
                const std::vector<double> arrival(static_cast<std::size_t>(p), 0.0);
                const std::vector<double> sizes(static_cast<std::size_t>(p), bytes);
                const auto timing = papshim::sim::simulate_timing(set, model, arrival, sizes);
                const double cost = algorithm.cost(p, bytes, link);
                if (algorithm.name == "gather_bcast" || algorithm.name == "bslb") {
                    // The simulator overlaps the gathered messages' latencies (bslb: a signal
                    // leaves once the eager body is injected); Hockney does not.
                    CHECK(timing.run_time <= cost * (1 + 1e-12));
                } else {
                    CHECK(timing.run_time == Approx(cost).margin(1e-15));
                }
            }
        }
    }
}

TEST_CASE("Sparbit matches the spec's test vectors", "[allgather][sparbit]") {
    using V = std::vector<std::tuple<int, int, int>>;
    CHECK(sparbit_vector(2) == V{{1, 1, 0}});
    CHECK(sparbit_vector(3) == V{{2, 1, 0}, {1, 1, 1}});
    CHECK(sparbit_vector(5) == V{{4, 1, 0}, {2, 1, 1}, {1, 2, 1}});
    CHECK(sparbit_vector(6) == V{{4, 1, 0}, {2, 1, 1}, {1, 3, 0}});
    CHECK(sparbit_vector(7) == V{{4, 1, 0}, {2, 2, 0}, {1, 3, 1}});
    CHECK(sparbit_vector(12) == V{{8, 1, 0}, {4, 1, 1}, {2, 3, 0}, {1, 6, 0}});
    CHECK(sparbit_vector(16) == V{{8, 1, 0}, {4, 2, 0}, {2, 4, 0}, {1, 8, 0}});
    CHECK(sparbit_vector(21) == V{{16, 1, 0}, {8, 1, 1}, {4, 3, 0}, {2, 5, 1}, {1, 10, 1}});
    CHECK(sparbit_vector(31) == V{{16, 1, 0}, {8, 2, 0}, {4, 4, 0}, {2, 8, 0}, {1, 15, 1}});
    CHECK(sparbit_vector(66) ==
          V{{64, 1, 0}, {32, 1, 1}, {16, 2, 1}, {8, 4, 1}, {4, 8, 1}, {2, 16, 1}, {1, 33, 0}});
    CHECK(sparbit_vector(84) ==
          V{{64, 1, 0}, {32, 1, 1}, {16, 3, 0}, {8, 5, 1}, {4, 10, 1}, {2, 21, 0}, {1, 42, 0}});
    CHECK(sparbit_vector(100) ==
          V{{64, 1, 0}, {32, 2, 0}, {16, 3, 1}, {8, 6, 1}, {4, 12, 1}, {2, 25, 0}, {1, 50, 0}});

    // Rank 0's block lists for p = 6 and p = 8 (spec §2.3).
    const Schedule p6 = build(papshim::allgather::build_sparbit, 6, 0);
    REQUIRE(p6.steps.size() == 3);
    CHECK(p6.steps[0].sends[0].blocks == std::vector<int>{0});
    CHECK(p6.steps[1].sends[0].blocks == std::vector<int>{0});
    CHECK(p6.steps[2].sends[0].blocks == std::vector<int>{0, 4, 2});
    CHECK(p6.steps[0].recvs[0].blocks == std::vector<int>{2});
    CHECK(p6.steps[1].recvs[0].blocks == std::vector<int>{4});
    CHECK(p6.steps[2].recvs[0].blocks == std::vector<int>{5, 3, 1});
    const Schedule p8 = build(papshim::allgather::build_sparbit, 8, 0);
    REQUIRE(p8.steps.size() == 3);
    CHECK(p8.steps[1].sends[0].blocks == std::vector<int>{0, 4});
    CHECK(p8.steps[2].sends[0].blocks == std::vector<int>{0, 6, 4, 2});
    CHECK(p8.steps[0].recvs[0].blocks == std::vector<int>{4});
    CHECK(p8.steps[1].recvs[0].blocks == std::vector<int>{6, 2});
    CHECK(p8.steps[2].recvs[0].blocks == std::vector<int>{7, 5, 3, 1});
}

TEST_CASE("Sparbit follows the closed form and the holding invariant", "[allgather][sparbit]") {
    auto ceil_div = [](int a, int b) { return (a + b - 1) / b; };
    for (int p = 2; p <= 300; ++p) {
        INFO("p=" << p);
        for (int rank : {0, p / 2, p - 1}) {
            const Schedule plan = build(papshim::allgather::build_sparbit, p, rank);
            std::set<int> held{rank};
            int d = 1 << (ceil_log2(p) - 1);
            int sent_total = 0;
            for (const auto& step : plan.steps) {
                const int sent = static_cast<int>(step.sends[0].blocks.size());
                CHECK(sent == ceil_div(p, d) - ceil_div(p, 2 * d));
                CHECK(sent >= 1);
                CHECK(step.sends[0].peer == (rank + d) % p);
                CHECK(step.recvs[0].peer == (rank - d + p) % p);
                sent_total += sent;
                held.insert(step.recvs[0].blocks.begin(), step.recvs[0].blocks.end());
                // After distance d: exactly {rank - u*d : u < ceil(p/d)}.
                std::set<int> expected;
                for (int u = 0; u < ceil_div(p, d); ++u) expected.insert(((rank - u * d) % p + p) % p);
                CHECK(held == expected);
                d /= 2;
            }
            CHECK(sent_total == p - 1);
        }
    }
}

TEST_CASE("baselines keep their shape and fall back where the spec says", "[allgather][baselines]") {
    using namespace papshim::allgather;
    for (int p : sizes_to_check()) {
        INFO("p=" << p);
        for (int rank : {0, p / 3, p - 1}) {
            const Schedule bruck = build(build_bruck, p, rank);
            const Schedule rd = build(build_recursive_doubling, p, rank);
            const Schedule ne = build(build_neighbor_exchange, p, rank);
            const Schedule ring = build(build_ring, p, rank);
            const Schedule gb = build(build_gather_bcast, p, rank);
            // Bruck's blocks wrap at most once; the last step of a non-power-of-two p moves
            // p - 2^floor(log2 p) blocks (spec §3.4).
            for (const auto& step : bruck.steps) CHECK(runs(step.sends[0].blocks) <= 2);
            if (p > 1) {
                const auto last = bruck.steps.back().sends[0].blocks.size();
                CHECK(last == static_cast<std::size_t>(p - (1 << (ceil_log2(p) - 1))));
            }
            if (is_power_of_two(p)) {
                // Pairwise, one contiguous run each way, doubling.
                std::size_t expected = 1;
                for (const auto& step : rd.steps) {
                    CHECK(step.sends[0].peer == step.recvs[0].peer);
                    CHECK(runs(step.sends[0].blocks) == 1);
                    CHECK(runs(step.recvs[0].blocks) == 1);
                    CHECK(step.sends[0].blocks.size() == expected);
                    expected *= 2;
                }
            } else {
                CHECK(papshim::sim::to_string(rd) == papshim::sim::to_string(bruck));
            }
            if (p % 2 == 0) {
                for (std::size_t s = 0; s < ne.steps.size(); ++s) {
                    CHECK(ne.steps[s].sends[0].peer == ne.steps[s].recvs[0].peer);
                    CHECK(ne.steps[s].sends[0].blocks.size() == (s == 0 ? 1U : 2U));
                    CHECK(runs(ne.steps[s].recvs[0].blocks) == 1);
                }
            } else {
                CHECK(papshim::sim::to_string(ne) == papshim::sim::to_string(ring));
            }
            for (const auto& step : gb.steps) {
                for (const auto& t : step.sends) CHECK(runs(t.blocks) <= 2);
            }
        }
    }
}

TEST_CASE("p = 1 has nothing to do", "[allgather]") {
    for (const auto& algorithm : papshim::allgather_algorithms()) {
        const Schedule plan = build(algorithm.build, 1, 0);
        CHECK(plan.steps.empty());
        CHECK(plan.blocks == 1);
        CHECK(algorithm.cost(1, 1024, LinkModel{}) == 0.0);
    }
}
