// The simulator: the data-flow check catches broken schedule sets, the timing model behaves
// as documented in simulator.hpp, arrival patterns are reproducible, and p = 4096 runs.

#include <catch.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>
#include <limits>
#include <vector>

#include "sanitizer_scale.hpp"
#include "papshim/algorithms.hpp"
#include "papshim/simulator.hpp"
#include "src/algorithms/allgather/builders.hpp"

using papshim::schedule::Schedule;
using papshim::schedule::Step;
using papshim::schedule::Transfer;
using papshim::sim::ScheduleSet;
using papshim::sim::TimingModel;

namespace {

// Schedules written by hand: rank i's steps are given as {sends, recvs}.
Schedule plan(int ranks, int rank, std::vector<Step> steps) {
    return Schedule{.ranks = ranks, .rank = rank, .blocks = ranks, .steps = std::move(steps)};
}

Step step(std::vector<Transfer> sends, std::vector<Transfer> recvs) {
    Step s;
    s.sends = std::move(sends);
    s.recvs = std::move(recvs);
    return s;
}

std::string check(const std::vector<Schedule>& schedules) {
    return papshim::sim::check_data_flow(ScheduleSet::from(schedules));
}

ScheduleSet built(std::string_view algorithm, int p) {
    return ScheduleSet::build(papshim::find_allgather_algorithm(algorithm)->build, p);
}

std::vector<double> same(int n, double value) { return std::vector<double>(static_cast<std::size_t>(n), value); }

TimingModel plain_model() {
    TimingModel model;
    model.latency = 2e-6;
    model.per_byte = 1e-9;
    return model;
}

}  // namespace

TEST_CASE("a correct hand-written exchange passes", "[simulator][dataflow]") {
    CHECK(check({plan(2, 0, {step({{1, {0}}}, {{1, {1}}})}),
                 plan(2, 1, {step({{0, {1}}}, {{0, {0}}})})})
              .empty());
}

TEST_CASE("the data-flow check reports broken schedules", "[simulator][dataflow]") {
    const Schedule ok0 = plan(2, 0, {step({{1, {0}}}, {{1, {1}}})});
    const Schedule ok1 = plan(2, 1, {step({{0, {1}}}, {{0, {0}}})});

    SECTION("a receive in a different step from its send") {
        const auto error = check({ok0, plan(2, 1, {step({{0, {1}}}, {}), step({}, {{0, {0}}})})});
        CHECK(error.find("no matching") != std::string::npos);
    }
    SECTION("a send nobody receives") {
        const auto error = check({plan(2, 0, {step({{1, {0}}, {1, {0}}}, {{1, {1}}})}), ok1});
        CHECK(error.find("has no matching receive") != std::string::npos);
    }
    SECTION("different blocks on the two sides") {
        const auto error = check({ok0, plan(2, 1, {step({{0, {1}}}, {{0, {1}}})})});
        CHECK(error.find("does not list the blocks") != std::string::npos);
    }
    SECTION("a block sent before it is held") {
        const auto error = check({plan(3, 0, {step({{1, {2}}}, {{2, {2}}}), step({}, {{1, {1}}})}),
                                  plan(3, 1, {step({}, {{0, {2}}}), step({{0, {1}}}, {})}),
                                  plan(3, 2, {step({{0, {2}}}, {})})});
        CHECK(error == "rank 0 sends block 2 to 1 in step 0 before it holds it");
    }
    SECTION("a block received twice") {
        const auto error = check({plan(2, 0, {step({{1, {0}}}, {{1, {1}}}), step({{1, {0}}}, {})}),
                                  plan(2, 1, {step({{0, {1}}}, {{0, {0}}}), step({}, {{0, {0}}})})});
        CHECK(error == "rank 1 receives block 0 from 0 in step 1 but already holds it");
    }
    SECTION("a block listed twice in one message") {
        const auto error = check({plan(2, 0, {step({{1, {0, 0}}}, {{1, {1}}})}),
                                  plan(2, 1, {step({{0, {1}}}, {{0, {0, 0}}})})});
        CHECK(error == "rank 0 lists block 0 twice in its send to 1 in step 0");
    }
    SECTION("a rank left without a block") {
        const auto error = check({plan(2, 0, {step({{1, {0}}}, {})}), plan(2, 1, {step({}, {{0, {0}}})})});
        CHECK(error == "rank 0 ends without block 1");
    }
    SECTION("a message to itself or outside the communicator") {
        CHECK(check({plan(2, 0, {step({{0, {0}}}, {{0, {0}}})}), ok1}).find("invalid peer 0") !=
              std::string::npos);
        CHECK(check({plan(2, 0, {step({{2, {0}}}, {})}), ok1}).find("invalid peer 2") != std::string::npos);
    }
}

namespace {

// A piece transfer: piece `index` of `count` of `block`, to or from `peer`.
Transfer piece(int peer, int block, int index, int count) {
    return Transfer{.peer = peer, .blocks = {block}, .piece = {index, count}};
}

// p = 3: rank 0 holds block 0 whole and hands its two halves to 1 and 2, which swap them;
// blocks 1 and 2 go around whole. `broken` swaps one of those pieces for another.
std::vector<Schedule> halves(int rank2_forward_index = 1) {
    return {plan(3, 0, {step({piece(1, 0, 0, 2), piece(2, 0, 1, 2)}, {{1, {1}}, {2, {2}}})}),
            plan(3, 1, {step({{0, {1}}, {2, {1}}}, {piece(0, 0, 0, 2), {2, {2}}}),
                        step({piece(2, 0, 0, 2)}, {piece(2, 0, 1, 2)})}),
            plan(3, 2, {step({{0, {2}}, {1, {2}}}, {piece(0, 0, 1, 2), {1, {1}}}),
                        step({piece(1, 0, rank2_forward_index, 2)}, {piece(1, 0, 0, 2)})})};
}

}  // namespace

TEST_CASE("the data-flow check follows pieces of a block", "[simulator][dataflow][pieces]") {
    CHECK(check(halves()) == "");
    SECTION("a piece sent before it is held") {
        CHECK(check(halves(0)).find("does not list the blocks") != std::string::npos);
        // Rank 1 forwards piece 0 in the step it receives it; rank 2 returns piece 1 later.
        const std::vector<Schedule> early{
            plan(3, 0, {step({piece(1, 0, 0, 2), piece(2, 0, 1, 2)}, {{1, {1}}, {2, {2}}})}),
            plan(3, 1, {step({{0, {1}}, {2, {1}}, piece(2, 0, 0, 2)}, {piece(0, 0, 0, 2), {2, {2}}}),
                        step({}, {piece(2, 0, 1, 2)})}),
            plan(3, 2, {step({{0, {2}}, {1, {2}}}, {piece(0, 0, 1, 2), {1, {1}}, piece(1, 0, 0, 2)}),
                        step({piece(1, 0, 1, 2)}, {})})};
        CHECK(check(early) == "rank 1 sends piece 0 of block 0 to 2 in step 0 before it holds it");
    }
    SECTION("a piece received twice, or a piece of a block already held") {
        auto plans = halves();
        plans[1].steps[1].recvs[0].piece.index = 0;
        plans[2].steps[1].sends[0].piece.index = 0;
        plans[2].steps[0].recvs[0].piece.index = 0;
        plans[0].steps[0].sends[1].piece.index = 0;
        CHECK(check(plans).find("but already holds it") != std::string::npos);
        auto whole = halves();
        whole[0].steps[0].sends[0] = Transfer{.peer = 1, .blocks = {0}};
        whole[1].steps[0].recvs[0] = Transfer{.peer = 0, .blocks = {0}};
        CHECK(check(whole) == "rank 1 receives piece 1 of block 0 from 2 in step 1 but already holds it");
    }
    SECTION("a block cut two ways, a piece of two blocks, an index outside the count") {
        auto cut = halves();
        cut[1].steps[1].recvs[0].piece.count = 3;
        cut[2].steps[1].sends[0].piece.count = 3;
        CHECK(check(cut).find("cuts block 0 in 3 pieces, earlier in 2") != std::string::npos);
        auto two = halves();
        two[1].steps[1].recvs[0].blocks = {0, 1};
        two[2].steps[1].sends[0].blocks = {0, 1};
        CHECK(check(two).find("moves a piece of 2 blocks") != std::string::npos);
        auto outside = halves();
        outside[1].steps[1].recvs[0].piece = {2, 2};
        outside[2].steps[1].sends[0].piece = {2, 2};
        CHECK(check(outside).find("moves piece 2 of 2") != std::string::npos);
    }
    SECTION("a rank that misses a piece ends without the block") {
        auto plans = halves();
        plans[2].steps[1].sends.clear();  // rank 2 keeps piece 1 to itself
        plans[1].steps[1].recvs.clear();
        CHECK(check(plans) == "rank 1 ends without block 0");
    }
    SECTION("reductions take no pieces") {
        auto plans = halves();
        CHECK(papshim::sim::check_reduction_flow(ScheduleSet::from(plans), -1, true).find("moves a piece") !=
              std::string::npos);
    }
    SECTION("timing: a piece carries its share of the block's bytes") {
        const TimingModel model = plain_model();
        const std::vector<double> block_bytes{1001.0, 0.0, 0.0};
        const auto timing = papshim::sim::simulate_timing(ScheduleSet::from(halves()), model, same(3, 0.0), block_bytes);
        // Step 0 sends 501 bytes to rank 1 and 500 to rank 2 (near-equal, the first longer);
        // rank 1 then waits for rank 2's 500 bytes, which rank 2 forwards once its own arrived.
        CHECK(timing.exit[1] == Approx(2 * model.latency + 1000 * model.per_byte));
    }
    SECTION("to_string names the piece") {
        CHECK(papshim::sim::to_string(halves()[1]) ==
              "rank 1 of 3 (2 steps)\n  step 0: send [1] -> 0; send [1] -> 2; recv [0] piece 0 of 2 <- 0; recv [2] <- 2;\n"
              "  step 1: send [0] piece 0 of 2 -> 2; recv [0] piece 1 of 2 <- 2;\n");
    }
}

TEST_CASE("ring at p = 2 takes one message time", "[simulator][timing]") {
    const TimingModel model = plain_model();
    const auto timing =
        papshim::sim::simulate_timing(built("ring", 2), model, same(2, 0.0), same(2, 1000.0));
    const double one_message = model.latency + 1000 * model.per_byte;
    CHECK(timing.exit[0] == Approx(one_message));
    CHECK(timing.exit[1] == Approx(one_message));
    CHECK(timing.mean_elapsed == Approx(one_message));
    CHECK(timing.run_time == Approx(one_message));
}

TEST_CASE("a late rank delays everybody's exit", "[simulator][timing]") {
    const TimingModel model = plain_model();
    const double delay = 1e-3;
    for (const auto& algorithm : papshim::allgather_algorithms()) {
        INFO(algorithm.name);
        const auto set = ScheduleSet::build(algorithm.build, 12);
        const auto balanced = papshim::sim::simulate_timing(set, model, same(12, 0.0), same(12, 64.0));
        auto arrival = same(12, 0.0);
        arrival[5] = delay;
        const auto late = papshim::sim::simulate_timing(set, model, arrival, same(12, 64.0));
        // Nobody can leave before the late rank's block exists.
        for (double f : late.exit) CHECK(f > delay);
        CHECK(late.mean_elapsed > balanced.mean_elapsed);
        CHECK(late.run_time > balanced.run_time);
    }
}

TEST_CASE("zero-byte blocks cost nothing, as the executor skips them", "[simulator][timing]") {
    const TimingModel model = plain_model();
    SECTION("all blocks empty") {
        const auto arrival = papshim::sim::make_arrivals({papshim::sim::ArrivalPattern::Kind::uniform, 1e-4}, 16, 7);
        const auto timing = papshim::sim::simulate_timing(built("sparbit", 16), model, arrival, same(16, 0.0));
        CHECK(timing.exit == arrival);
        CHECK(timing.mean_elapsed == 0.0);
    }
    SECTION("only block 0 non-empty: Sparbit becomes a binomial broadcast") {
        auto sizes = same(8, 0.0);
        sizes[0] = 4096;
        const auto timing = papshim::sim::simulate_timing(built("sparbit", 8), model, same(8, 0.0), sizes);
        const double wire = 4096 * model.per_byte;
        const double hop = model.latency + wire;
        CHECK(timing.exit[0] == Approx(3 * wire));        // only sends block 0, eagerly
        CHECK(timing.exit[4] == Approx(hop + 2 * wire));  // gets it at d = 4, forwards it twice
        CHECK(timing.exit[7] == Approx(3 * hop));         // 0 -> 4 -> 6 -> 7
        CHECK(timing.run_time == Approx(3 * hop));
    }
}

TEST_CASE("contention, overhead and rendezvous", "[simulator][timing]") {
    // Rank 0 sends one block to each of ranks 1..3 in one step (timing needs pairing only).
    std::vector<Schedule> fan_out{plan(4, 0, {step({{1, {0}}, {2, {0}}, {3, {0}}}, {})})};
    for (int r = 1; r < 4; ++r) fan_out.push_back(plan(4, r, {step({}, {{0, {0}}})}));
    const auto set = ScheduleSet::from(fan_out);
    const double bytes = 1000;
    TimingModel model = plain_model();
    const double wire = bytes * model.per_byte;

    const auto free_links = papshim::sim::simulate_timing(set, model, same(4, 0.0), same(4, bytes));
    CHECK(free_links.exit[3] == Approx(model.latency + wire));

    model.contention = true;
    const auto single_port = papshim::sim::simulate_timing(set, model, same(4, 0.0), same(4, bytes));
    CHECK(single_port.exit[1] == Approx(model.latency + wire));
    CHECK(single_port.exit[3] == Approx(model.latency + 3 * wire));
    CHECK(single_port.exit[0] == Approx(3 * wire));  // eager: done once injected

    model.contention = false;
    model.overhead = 1e-6;
    const auto with_overhead = papshim::sim::simulate_timing(set, model, same(4, 0.0), same(4, bytes));
    // The third send is issued after three overheads and received with one more.
    CHECK(with_overhead.exit[3] == Approx(3e-6 + wire + model.latency + 1e-6));

    model.overhead = 0;
    model.rendezvous_bytes = 1;
    auto arrival = same(4, 0.0);
    arrival[2] = 1e-3;
    const auto rendezvous = papshim::sim::simulate_timing(set, model, arrival, same(4, bytes));
    // Rank 0 waits until rank 2 posts its receive, then until the data arrived.
    CHECK(rendezvous.exit[0] == Approx(1e-3 + wire + model.latency));
    CHECK(rendezvous.exit[1] == Approx(model.latency + wire));
}

TEST_CASE("socket buffers: eager sends complete when issued and wait for a late receiver", "[simulator][timing]") {
    // Rank 0 sends one block to each of ranks 1..3 in step 0 and one more to rank 3 in step 1;
    // rank 3 arrives 1 ms late.
    std::vector<Schedule> fan_out{plan(4, 0, {step({{1, {0}}, {2, {0}}, {3, {0}}}, {}), step({{3, {0}}}, {})})};
    for (int r = 1; r < 3; ++r) fan_out.push_back(plan(4, r, {step({}, {{0, {0}}})}));
    fan_out.push_back(plan(4, 3, {step({}, {{0, {0}}}), step({}, {{0, {0}}})}));
    const auto set = ScheduleSet::from(fan_out);
    const double bytes = 1000;
    TimingModel model = plain_model();
    model.contention = true;
    const double wire = bytes * model.per_byte;
    auto arrival = same(4, 0.0);
    arrival[3] = 1e-3;

    const auto on_the_wire = papshim::sim::simulate_timing(set, model, arrival, same(4, bytes));
    CHECK(on_the_wire.exit[0] == Approx(4 * wire));          // each send done once on the wire
    CHECK(on_the_wire.exit[3] == Approx(1e-3 + 2 * wire));  // its port takes both after it came

    model.socket_buffers = true;
    const auto buffered = papshim::sim::simulate_timing(set, model, arrival, same(4, bytes));
    CHECK(buffered.exit[0] == Approx(0.0));  // every send handed to the kernel at once
    CHECK(buffered.exit[1] == Approx(model.latency + wire));
    // The step-1 message leaves after the step-0 ones have drained, and both are in before
    // rank 3 comes.
    CHECK(buffered.exit[3] == Approx(1e-3));
    arrival[3] = 0;
    const auto in_time = papshim::sim::simulate_timing(set, model, arrival, same(4, bytes));
    CHECK(in_time.exit[3] == Approx(4 * wire + model.latency));
}

TEST_CASE("inter-node messages share their node's port", "[simulator][timing][nodes]") {
    // Rank 0 sends one block to each of ranks 1..3; two ranks per node: 1 is local, 2 and 3
    // sit on the other node and share its port.
    std::vector<Schedule> fan_out{plan(4, 0, {step({{1, {0}}, {2, {0}}, {3, {0}}}, {})})};
    for (int r = 1; r < 4; ++r) fan_out.push_back(plan(4, r, {step({}, {{0, {0}}})}));
    TimingModel model = plain_model();
    model.ranks_per_node = 2;
    model.inter_latency = 10e-6;
    model.inter_per_byte = 4e-9;
    const double bytes = 1000;
    const auto sequential = papshim::sim::simulate_timing(ScheduleSet::from(fan_out), model, same(4, 0.0), same(4, bytes));
    CHECK(sequential.exit[1] == Approx(model.latency + bytes * model.per_byte));
    CHECK(sequential.exit[2] == Approx(model.inter_latency + 2 * bytes * model.inter_per_byte));
    CHECK(sequential.exit[3] == Approx(sequential.exit[2]));
    model.cyclic_mapping = true;  // nodes {0, 2} and {1, 3}
    const auto cyclic = papshim::sim::simulate_timing(ScheduleSet::from(fan_out), model, same(4, 0.0), same(4, bytes));
    CHECK(cyclic.exit[2] == Approx(model.latency + bytes * model.per_byte));
    CHECK(cyclic.exit[1] == Approx(model.inter_latency + 2 * bytes * model.inter_per_byte));

    // Unequal messages share the port fairly: ranks 0 and 1 send 1 and 5 units to the other
    // node at once; the small one is not slowed to the large one's pace, the large one takes
    // the small one's bytes on top of its own.
    model.cyclic_mapping = false;
    std::vector<Schedule> unequal{plan(4, 0, {step({{2, {0}}}, {})}), plan(4, 1, {step({{3, {1}}}, {})}),
                                  plan(4, 2, {step({}, {{0, {0}}})}), plan(4, 3, {step({}, {{1, {1}}})})};
    const std::vector<double> sizes{bytes, 5 * bytes, 0, 0};
    const auto fair = papshim::sim::simulate_timing(ScheduleSet::from(unequal), model, same(4, 0.0), sizes);
    CHECK(fair.exit[2] == Approx(model.inter_latency + 2 * bytes * model.inter_per_byte));
    CHECK(fair.exit[3] == Approx(model.inter_latency + 6 * bytes * model.inter_per_byte));
}

TEST_CASE("mapping decides Sparbit against Bruck (spec §2.8)", "[simulator][timing][nodes]") {
    TimingModel model = plain_model();
    model.latency = 1e-6;
    model.per_byte = 0.2e-9;
    model.inter_latency = 20e-6;
    model.inter_per_byte = 2e-9;
    model.ranks_per_node = 8;  // 64 ranks on 8 nodes: a power-of-two node count
    model.contention = true;
    const auto sparbit = built("sparbit", 64);
    const auto bruck = built("bruck", 64);
    auto run_time = [&](const ScheduleSet& set) {
        return papshim::sim::simulate_timing(set, model, same(64, 0.0), same(64, 65536.0)).run_time;
    };
    // Sequential: Sparbit's heavy last steps stay inside nodes, Bruck's cross them.
    CHECK(run_time(sparbit) < run_time(bruck));
    // Cyclic with power-of-two M: Bruck's heavy long-distance steps become node-local.
    model.cyclic_mapping = true;
    CHECK(run_time(bruck) < run_time(sparbit));
}

TEST_CASE("timing rejects sizes that do not fit", "[simulator][timing]") {
    const auto set = built("ring", 4);
    CHECK_THROWS_AS(papshim::sim::simulate_timing(set, plain_model(), same(3, 0.0), same(4, 1.0)),
                    std::invalid_argument);
    CHECK_THROWS_AS(papshim::sim::simulate_timing(set, plain_model(), same(4, 0.0), same(5, 1.0)),
                    std::invalid_argument);
    const auto broken = ScheduleSet::from(std::vector<Schedule>{plan(2, 0, {step({{1, {0}}}, {})}), plan(2, 1, {})});
    CHECK_THROWS_AS(papshim::sim::simulate_timing(broken, plain_model(), same(2, 0.0), same(2, 1.0)),
                    std::invalid_argument);
}

TEST_CASE("arrival patterns parse and reproduce", "[simulator][arrivals]") {
    using Kind = papshim::sim::ArrivalPattern::Kind;
    CHECK(papshim::sim::parse_arrival_pattern("balanced")->kind == Kind::balanced);
    const auto uniform = papshim::sim::parse_arrival_pattern("uniform:0.5");
    REQUIRE(uniform);
    CHECK(uniform->kind == Kind::uniform);
    CHECK(uniform->seconds == 0.5);
    CHECK(papshim::sim::parse_arrival_pattern("one-late:1e-3")->kind == Kind::one_late);
    CHECK(papshim::sim::parse_arrival_pattern("staircase:2e-6")->seconds == 2e-6);
    for (const char* bad : {"", "uniform", "uniform:", "uniform:x", "uniform:-1", "late:1", "balanced:1",
                            "staircase:1s"}) {
        INFO(bad);
        CHECK_FALSE(papshim::sim::parse_arrival_pattern(bad));
    }

    const auto a = papshim::sim::make_arrivals(*uniform, 20, 42);
    CHECK(a == papshim::sim::make_arrivals(*uniform, 20, 42));
    CHECK(a != papshim::sim::make_arrivals(*uniform, 20, 43));
    // Seeded per rank: the first ranks draw the same whatever p is.
    const auto fewer = papshim::sim::make_arrivals(*uniform, 10, 42);
    CHECK(std::equal(fewer.begin(), fewer.end(), a.begin()));
    for (double t : a) CHECK((t >= 0 && t < 0.5));

    const auto late = papshim::sim::make_arrivals({Kind::one_late, 1.0}, 50, 3);
    CHECK(std::count(late.begin(), late.end(), 1.0) == 1);
    CHECK(std::count(late.begin(), late.end(), 0.0) == 49);
    const auto stairs = papshim::sim::make_arrivals({Kind::staircase, 2.0}, 4, 0);
    CHECK(stairs == std::vector<double>{0, 2, 4, 6});

    // A list replays measured arrivals (e.g. a trace's arrival_s), negative and fractional too.
    const auto listed = papshim::sim::parse_arrival_pattern("list:0.5,-1,2e-3");
    REQUIRE(listed);
    CHECK(listed->kind == Kind::list);
    CHECK(papshim::sim::make_arrivals(*listed, 3, 9) == std::vector<double>{0.5, -1, 2e-3});
    for (const char* bad : {"list:", "list:1,", "list:,1", "list:1,,2", "list:1;2", "list:nan", "list:inf", "list:1 "})
        CHECK_FALSE(papshim::sim::parse_arrival_pattern(bad));
}

TEST_CASE("the simulator handles p = 4096", "[simulator][scale]") {
    const int p = papshim::test::under_sanitizer ? 512 : 4096;
    const auto arrival = papshim::sim::make_arrivals({papshim::sim::ArrivalPattern::Kind::uniform, 1e-4}, p, 1);
    for (const char* name : {"sparbit", "bruck"}) {
        INFO(name);
        const auto set = built(name, p);
        CHECK(set.send_count() == static_cast<std::size_t>(p) * static_cast<std::size_t>(std::bit_width(unsigned(p)) - 1));
        CHECK(papshim::sim::check_data_flow(set).empty());
        const auto timing = papshim::sim::simulate_timing(set, plain_model(), arrival, same(p, 1024.0));
        CHECK(timing.exit.size() == static_cast<std::size_t>(p));
        CHECK(std::isfinite(timing.mean_elapsed));
        CHECK(timing.run_time >= timing.mean_elapsed);
    }
}

TEST_CASE("to_string shows a schedule step by step", "[simulator]") {
    papshim::schedule::BuildInput input;
    input.ranks = 5;
    const auto text = papshim::sim::to_string(papshim::allgather::build_sparbit(input));
    CHECK(text == "rank 0 of 5 (3 steps)\n"
                  "  step 0: send [0] -> 4; recv [1] <- 1;\n"
                  "  step 1: send [0] -> 2; recv [3] <- 3;\n"
                  "  step 2: send [0,3] -> 1; recv [4,2] <- 4;\n");
}

TEST_CASE("the symmetric Allreduce's model: every rank combines, the last arriver waits for nobody",
          "[simulator][timing][shm]") {
    using papshim::sim::NodeReduction;
    TimingModel model;
    model.latency = 1e-7;
    model.per_byte = 2e-10;
    model.overhead = 0;
    const double bytes = 1000, unit = 1e-7, slot = 65536;  // one copy, one reduction, one flag: a unit each
    SECTION("balanced: a deposit, the others' flags, a copy and three reductions, the copy out") {
        const auto timing = simulate_node_reduction(NodeReduction::allreduce_symmetric, same(4, 0.0), bytes, -1, slot, model);
        for (int r = 0; r < 3; ++r) CHECK(timing.exit[std::size_t(r)] == Approx(7 * unit));
        CHECK(timing.exit[3] == Approx(6 * unit));  // the highest rank starts from its own vector: no flag
    }
    SECTION("one late rank: one flag after its deposit for the others, none for it") {
        auto arrival = same(4, 0.0);
        arrival[3] = 1e-5;
        const auto timing = simulate_node_reduction(NodeReduction::allreduce_symmetric, arrival, bytes, -1, slot, model);
        CHECK(timing.exit[3] - arrival[3] == Approx(6 * unit));  // deposit, copy, three reductions, copy out
        CHECK(timing.exit[0] - arrival[3] == Approx(7 * unit));  // its deposit seen first
        // Its combining is all after the late deposit here (the highest rank's comes first): at
        // 1000 bytes the leader, one reduction and two flags after it, is ahead; at 8 bytes,
        // where a reduction is next to nothing, one flag against two.
        CHECK(timing.mean_elapsed > papshim::sim::simulate_dynamic_leader(arrival, bytes, model).mean_elapsed);
        const auto small = simulate_node_reduction(NodeReduction::allreduce_symmetric, arrival, 8, -1, slot, model);
        CHECK(small.mean_elapsed < papshim::sim::simulate_dynamic_leader(arrival, 8, model).mean_elapsed);
    }
    SECTION("across nodes only local rank 0 combines; the others leave once the node's broadcast is in") {
        model.ranks_per_node = 2;
        auto arrival = same(6, 0.0);
        arrival[4] = 2e-5;
        const auto timing = simulate_node_reduction(NodeReduction::allreduce_symmetric, arrival, 8, -1, slot, model);
        for (std::size_t r = 0; r < 6; ++r) CHECK(timing.exit[r] > arrival[4]);
    }
}

TEST_CASE("the dynamic leader's model: the first arriver reduces as deposits appear", "[simulator][timing][shm]") {
    TimingModel model;
    model.latency = 1e-7;     // a flag seen across cores
    model.per_byte = 2e-10;   // a message's: two copies
    model.overhead = 0;
    const double bytes = 1000, unit = 1e-7;  // one copy, one reduction, one flag: 1e-7 s each
    SECTION("balanced: the leader reduces three deposits one after another") {
        const auto timing = papshim::sim::simulate_dynamic_leader(same(4, 0.0), bytes, model);
        // Leader (rank 0): own copy, three deposits seen at 2 units and reduced, the result copied out.
        CHECK(timing.exit[0] == Approx(6 * unit));
        for (int r = 1; r < 4; ++r) CHECK(timing.exit[std::size_t(r)] == Approx(8 * unit));
        CHECK(timing.run_time == Approx(8 * unit));
        CHECK(timing.mean_elapsed == Approx((6 + 3 * 8) * unit / 4));
    }
    SECTION("one late rank: only its own deposit's reduction is left when it arrives") {
        auto arrival = same(4, 0.0);
        arrival[3] = 1e-5;
        const auto timing = papshim::sim::simulate_dynamic_leader(arrival, bytes, model);
        // Its copy, the flag, the reduction, the result's copy, the flag, its copy out.
        CHECK(timing.exit[3] - arrival[3] == Approx(6 * unit));
        CHECK(timing.exit[0] == Approx(1e-5 + 4 * unit));
        // The leader is the first arriver, not rank 0.
        arrival = {2e-6, 1e-6, 3e-6, 4e-6};
        const auto shifted = papshim::sim::simulate_dynamic_leader(arrival, bytes, model);
        CHECK(shifted.exit[1] < shifted.exit[0]);
        CHECK(shifted.exit[0] == Approx(shifted.exit[2]));
    }
    SECTION("a late rank: the others wait for one reduction, not for the tree's last steps") {
        auto arrival = same(8, 0.0);
        arrival[7] = 1e-4;
        const auto leader = papshim::sim::simulate_dynamic_leader(arrival, bytes, model);
        const auto set = ScheduleSet::build(
            papshim::find_reduction_algorithm(papshim::Collective::allreduce, "recursive_doubling")->build, 8);
        const auto tree = papshim::sim::simulate_timing(set, model, arrival, same(set.blocks(), bytes / set.blocks()));
        CHECK(leader.mean_elapsed < tree.mean_elapsed);
    }
    SECTION("one node only") {
        model.ranks_per_node = 2;
        CHECK_THROWS_AS(papshim::sim::simulate_dynamic_leader(same(4, 0.0), bytes, model), std::invalid_argument);
    }
    SECTION("the Reduce: the others deposit and leave, the root takes the partial") {
        using papshim::sim::NodeReduction;
        // Balanced: rank 0 leads; the root (rank 2) deposits, and copies the partial out of the
        // result slot as the Allreduce's ranks do; ranks 1 and 3 leave once deposited.
        const auto reduce = papshim::sim::simulate_node_reduction(NodeReduction::reduce_dynamic_leader, same(4, 0.0),
                                                                  bytes, 2, 1e9, model);
        const auto allreduce = papshim::sim::simulate_dynamic_leader(same(4, 0.0), bytes, model);
        CHECK(reduce.exit[2] == Approx(allreduce.exit[2]));
        for (std::size_t r : {1, 3}) CHECK(reduce.exit[r] == Approx(unit));
        CHECK(reduce.exit[0] == Approx(allreduce.exit[0]));  // it led and published
        // The root leads: it keeps the partial, no copy into the result slot.
        const auto own = papshim::sim::simulate_node_reduction(NodeReduction::reduce_dynamic_leader, same(4, 0.0), bytes,
                                                               0, 1e9, model);
        CHECK(own.exit[0] == Approx(5 * unit));
    }
}

TEST_CASE("the node algorithms' model: phases inside nodes, among leaders, inside nodes again", "[simulator][timing][shm]") {
    using papshim::sim::NodeReduction;
    using papshim::sim::simulate_node_reduction;
    TimingModel model;
    model.latency = 1e-6;
    model.per_byte = 1e-9;
    model.inter_latency = 5e-5;
    model.inter_per_byte = 8e-9;
    model.overhead = 0;
    const double slot = 65536;
    SECTION("one rank: nothing to wait for") {
        for (auto algorithm : {NodeReduction::reduce_arrival_chain, NodeReduction::reduce_dynamic_leader,
                               NodeReduction::allreduce_arrival_chain, NodeReduction::allreduce_hierarchical})
            CHECK(simulate_node_reduction(algorithm, same(1, 2e-6), 1e6, 0, slot, model).exit[0] == Approx(2e-6));
    }
    SECTION("a Reduce of two ranks to the first arriver: up the chain and back") {
        // Rank 0 arrives first, so once it sees rank 1's ticket it passes its vector to rank 1,
        // which reduces it and, being the last arriver, relays the result to the root: a flag
        // and two messages of one piece.
        const double bytes = 1000, message = model.latency + bytes * model.per_byte;
        const auto timing = simulate_node_reduction(NodeReduction::reduce_arrival_chain, same(2, 0.0), bytes, 0, slot, model);
        CHECK(timing.exit[0] == Approx(model.latency + 2 * message));
    }
    SECTION("pieces of kChainPieceBytes and the remainder, as the runtime cuts them") {
        // 257 KiB to the last arriver: a piece of 256 KiB and one of 1 KiB leave rank 0 at once
        // (once rank 1's ticket is seen); the root has both when the larger one arrived.
        const double bytes = 257.0 * 1024;
        const auto timing = simulate_node_reduction(NodeReduction::reduce_arrival_chain, same(2, 0.0), bytes, 1, slot, model);
        CHECK(timing.exit[1] == Approx(2 * model.latency + 256.0 * 1024 * model.per_byte));
    }
    SECTION("overhead is paid on every piece's send and receive") {
        const auto without = simulate_node_reduction(NodeReduction::reduce_arrival_chain, same(3, 0.0), 1e6, 2, slot, model);
        model.overhead = 1e-6;
        const auto with = simulate_node_reduction(NodeReduction::reduce_arrival_chain, same(3, 0.0), 1e6, 2, slot, model);
        // Four pieces, two hops: at least one send and one receive per piece on the root's path.
        CHECK(with.exit[2] - without.exit[2] >= 2 * model.overhead);
    }
    SECTION("a Reduce root in the middle of the chain passes its part on, then gets the result") {
        const std::vector<double> arrival{0, 1e-5, 2e-5};  // the root, rank 1, arrives second
        const auto timing = simulate_node_reduction(NodeReduction::reduce_arrival_chain, arrival, 1000, 1, slot, model);
        const double message = model.latency + 1000 * model.per_byte;
        // Rank 1 passes its partial on only once rank 2's ticket is seen; rank 2 reduces it
        // and sends the result back.
        CHECK(timing.exit[1] == Approx(2e-5 + model.latency + 2 * message));
        CHECK(timing.exit[0] < timing.exit[1]);
    }
    SECTION("the chain is cut in pieces of kChainPieceBytes, so a long vector streams through it") {
        // Balanced, one node of 4, each sender's pieces one after another on its link: the
        // root's wait is the chain's fill plus the vector once, far below three whole-vector hops.
        model.contention = true;
        const double bytes = 4.0 * 1024 * 1024, hop = model.latency + bytes * model.per_byte;
        const auto timing = simulate_node_reduction(NodeReduction::reduce_arrival_chain, same(4, 0.0), bytes, 3, slot, model);
        CHECK(timing.exit[3] < 2 * hop);
        CHECK(timing.exit[3] > hop);
    }
    SECTION("hierarchical on one node below the slot is the dynamic leader") {
        auto arrival = same(4, 0.0);
        arrival[2] = 3e-5;
        const auto node = simulate_node_reduction(NodeReduction::allreduce_hierarchical, arrival, 8, -1, slot, model);
        const auto leader = papshim::sim::simulate_dynamic_leader(arrival, 8, model);
        for (std::size_t r = 0; r < 4; ++r) CHECK(node.exit[r] == Approx(leader.exit[r]));
    }
    SECTION("dynamic_leader across nodes is hierarchical's slot path, at any size") {
        model.ranks_per_node = 2;
        auto arrival = same(6, 0.0);
        arrival[4] = 2e-5;
        const auto leader = simulate_node_reduction(NodeReduction::allreduce_dynamic_leader, arrival, 8, -1, slot, model);
        const auto hierarchical = simulate_node_reduction(NodeReduction::allreduce_hierarchical, arrival, 8, -1, slot, model);
        for (std::size_t r = 0; r < 6; ++r) CHECK(leader.exit[r] == Approx(hierarchical.exit[r]));
        // Above the slot hierarchical runs the chain; dynamic_leader still leads.
        const auto large = simulate_node_reduction(NodeReduction::allreduce_dynamic_leader, arrival, 1e6, -1, slot, model);
        const auto chained = simulate_node_reduction(NodeReduction::allreduce_hierarchical, arrival, 1e6, -1, slot, model);
        CHECK(large.mean_elapsed != Approx(chained.mean_elapsed));
    }
    SECTION("above the slot, across nodes, hierarchical and arrival_chain run the same phases") {
        model.ranks_per_node = 3;  // nodes {0,1,2}, {3,4,5}, {6}
        const auto arrival = papshim::sim::make_arrivals(papshim::sim::ArrivalPattern(papshim::sim::ArrivalPattern::Kind::uniform, 1e-3), 7, 5);
        const auto chain = simulate_node_reduction(NodeReduction::allreduce_arrival_chain, arrival, 1e6, -1, slot, model);
        const auto hierarchical = simulate_node_reduction(NodeReduction::allreduce_hierarchical, arrival, 1e6, -1, slot, model);
        for (std::size_t r = 0; r < 7; ++r) {
            CHECK(chain.exit[r] == Approx(hierarchical.exit[r]));
            CHECK(chain.exit[r] > arrival[r]);
        }
    }
    SECTION("across nodes below the slot, a node whose first arriver is not local rank 0") {
        model.ranks_per_node = 2;
        const std::vector<double> arrival{1e-5, 0, 0, 0};  // node 0's rank 1 leads
        const auto timing = simulate_node_reduction(NodeReduction::allreduce_hierarchical, arrival, 8, -1, slot, model);
        // Local rank 0 deposits and copies the partial rank 1 led out before the leaders'
        // step: node 1 has node 0's partial no earlier than rank 0's arrival and a network
        // latency; node 0's leader gets the result from local rank 0.
        for (std::size_t r : {2, 3}) CHECK(timing.exit[r] > arrival[0] + model.inter_latency);
        CHECK(timing.exit[1] >= timing.exit[0]);
    }
    SECTION("across nodes, the late rank finds the other node's partial already sent") {
        model.ranks_per_node = 2;
        auto arrival = same(4, 0.0);
        arrival[3] = 1e-3;  // node 1's second rank
        const auto timing = simulate_node_reduction(NodeReduction::allreduce_hierarchical, arrival, 8, -1, slot, model);
        // Node 0 waits for node 1's partial to cross the network; the late rank's node had
        // node 0's partial before it arrived, so it waits for no network latency.
        for (std::size_t r : {0, 1}) CHECK(timing.exit[r] > 1e-3 + model.inter_latency);
        CHECK(timing.exit[3] - arrival[3] < model.inter_latency);
    }
    SECTION("a root off its node's leader gets the result by a hand-over") {
        model.ranks_per_node = 2;
        for (auto algorithm : {NodeReduction::reduce_arrival_chain, NodeReduction::reduce_dynamic_leader}) {
            const auto timing = simulate_node_reduction(algorithm, same(4, 0.0), 1000, 3, slot, model);
            CHECK(timing.exit[3] > timing.exit[2]);
            CHECK(timing.exit[3] > timing.exit[0]);
        }
    }
    SECTION("bad input") {
        CHECK_THROWS_AS(simulate_node_reduction(NodeReduction::reduce_arrival_chain, same(4, 0.0), 8, 4, slot, model),
                        std::invalid_argument);
        CHECK_THROWS_AS(simulate_node_reduction(NodeReduction::allreduce_hierarchical, {}, 8, -1, slot, model),
                        std::invalid_argument);
        model.rendezvous_bytes = 4096;  // the chain is modelled eager only
        CHECK_THROWS_AS(simulate_node_reduction(NodeReduction::allreduce_arrival_chain, same(4, 0.0), 8, -1, slot, model),
                        std::invalid_argument);
        model.rendezvous_bytes = std::numeric_limits<double>::infinity();
        model.ranks_per_node = 2;
        model.cyclic_mapping = true;
        CHECK_THROWS_AS(simulate_node_reduction(NodeReduction::allreduce_arrival_chain, same(4, 0.0), 8, -1, slot, model),
                        std::invalid_argument);
    }
}
