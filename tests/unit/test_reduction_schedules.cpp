// Every Reduce and Allreduce schedule builder through the simulator's reduction data-flow
// check (each contribution reduced exactly once, in rank order where the algorithm keeps it,
// the result where it is due) for p = 1..64 and every root, and a sample up to 1024; the
// checker itself against broken schedules; message counts the algorithms promise.

#include <catch.hpp>

#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <span>
#include <vector>

#include "sanitizer_scale.hpp"
#include "papshim/algorithms.hpp"
#include "papshim/config.hpp"
#include "papshim/simulator.hpp"
#include "src/algorithms/reduce/clairvoyant.hpp"

using papshim::Collective;
using papshim::ReductionAlgorithm;
using papshim::schedule::BuildInput;
using papshim::schedule::Combine;
using papshim::schedule::Schedule;
using papshim::sim::ScheduleSet;
using papshim::sim::check_reduction_flow;

namespace {

std::vector<int> small_sizes() {
    std::vector<int> sizes(64);
    std::iota(sizes.begin(), sizes.end(), 1);
    return sizes;
}

// Roots to try at p: all of them for small p, a spread otherwise.
std::vector<int> roots_for(int p) {
    if (p <= 12) {
        std::vector<int> all(static_cast<std::size_t>(p));
        std::iota(all.begin(), all.end(), 0);
        return all;
    }
    return {0, 1, p / 2, p - 2, p - 1};
}

// segments: BuildInput::segments (0: the builder's default).
ScheduleSet build_set(const ReductionAlgorithm& a, int p, int root, bool commutative, int segments = 0) {
    BuildInput input;
    input.root = root;
    input.commutative = commutative;
    input.segments = segments;
    return ScheduleSet::build(a.build, p, input);
}

void check(const ReductionAlgorithm& a, Collective collective, int p, int root, bool commutative, int segments = 0) {
    const ScheduleSet set = build_set(a, p, root, commutative, segments);
    const std::string error = check_reduction_flow(set, collective == Collective::reduce ? root : -1, commutative);
    INFO(fmt::format("{} {} p={} root={} {} segments={}", papshim::collective_name(collective), a.name, p, root,
                     commutative ? "commutative" : "non-commutative", segments));
    CHECK(error == "");
    // No piece larger than the size asked for, or the whole vector where nothing overlaps.
    if (segments > 0 && set.blocks() > 1) CHECK(set.blocks() >= segments);
}

}  // namespace

TEST_CASE("every Reduce schedule reduces each contribution once into the root, p = 1..64, every root") {
    for (const auto& a : papshim::reduction_algorithms(Collective::reduce))
        for (int p : a.build ? small_sizes() : std::vector<int>{})
            for (int root : roots_for(p)) {
                check(a, Collective::reduce, p, root, true);
                if (a.keeps_rank_order) check(a, Collective::reduce, p, root, false);
            }
}

TEST_CASE("every Allreduce schedule leaves the whole result on every rank, p = 1..64") {
    for (const auto& a : papshim::reduction_algorithms(Collective::allreduce))
        for (int p : a.build ? small_sizes() : std::vector<int>{}) {
            check(a, Collective::allreduce, p, -1, true);
            if (a.keeps_rank_order) check(a, Collective::allreduce, p, -1, false);
        }
}

TEST_CASE("reduction schedules at larger p") {
    for (Collective c : {Collective::reduce, Collective::allreduce})
        for (const auto& a : papshim::reduction_algorithms(c))
            for (int p : {65, 100, 127, 128, 129, 255, 256, 1000, 1024}) {
                if (a.build == nullptr || papshim::test::left_to_normal_builds(p)) continue;
                // p blocks of p-bit contribution sets: keep the p-block ring and the scatter (p² messages)
                // to 256 ranks, 40 s of CI otherwise; test_clairvoyant checks the planned scatter at p = 1000.
                if ((a.name == "ring" || a.name == "predicted_scatter") && p > 256) continue;
                const int root = c == Collective::reduce ? p / 3 : -1;
                check(a, c, p, root, true);
                if (a.keeps_rank_order) check(a, c, p, root, false);
            }
}

// A slot-sized algorithm hands larger vectors to the algorithm it names (interpose): that one
// must exist in the same collective, take every call (no slot of its own) and the same ops.
// It may combine in arrival order where the first does not (the symmetric Allreduce hands on
// to hierarchical): the dispatcher then asks again whether PAPSHIM_REPRODUCIBLE allows it.
TEST_CASE("a slot-sized algorithm names a same-collective algorithm for vectors beyond the slot") {
    int slot_sized = 0;
    for (Collective c : {Collective::reduce, Collective::allreduce})
        for (const auto& a : papshim::reduction_algorithms(c)) {
            if (a.beyond_slot.empty()) continue;
            ++slot_sized;
            INFO(fmt::format("{} {} -> {}", papshim::collective_name(c), a.name, a.beyond_slot));
            const auto* next = papshim::find_reduction_algorithm(c, a.beyond_slot);
            REQUIRE(next != nullptr);
            CHECK(next->beyond_slot.empty());
            CHECK(next->keeps_rank_order == a.keeps_rank_order);
            if (a.arrival_ordered) CHECK(next->arrival_ordered);
            CHECK((a.largest_bytes == 0) == (a.name == "dynamic_leader"));
        }
    CHECK(slot_sized == 3);  // the dynamic leader's Reduce and Allreduce, the symmetric Allreduce
}

// The runtime plans a round-based algorithm with d of bytes / round_pieces (reduction_round_ns):
// that must be the part of the vector a rank moves in a round, or the plan misjudges how many
// rounds fit before a late arrival. The Reduce and the Reduce-and-broadcast move one of their
// blocks; the reduce-scatter form one block of each of its pieces.
TEST_CASE("a planner's round pieces are the parts of the vector its schedules move in a round") {
    int planners = 0;
    for (Collective c : {Collective::reduce, Collective::allreduce})
        for (const auto& a : papshim::reduction_algorithms(c)) {
            if (!a.round_pieces) continue;
            ++planners;
            const bool scatter = c == Collective::allreduce && a.name == "clairvoyant";
            for (int p : {1, 2, 3, 4, 5, 8, 9, 16, 33, 64, 65, 100, 200})
                for (int segments : {0, 1, 7, 22, 100}) {
                    if (segments > 0 && !a.segments_for_bytes) continue;
                    INFO(fmt::format("{} {} p={} segments={}", papshim::collective_name(c), a.name, p, segments));
                    BuildInput input;
                    input.ranks = p;
                    input.root = c == Collective::reduce ? 0 : -1;
                    input.segments = segments;
                    const std::vector<std::int64_t> arrivals(std::size_t(p), 0);
                    for (bool planned : {false, true}) {
                        input.arrival_ns = planned ? std::span<const std::int64_t>(arrivals) : std::span<const std::int64_t>();
                        input.step_ns = planned ? 1000 : 0;
                        const int parallel = scatter ? papshim::clairvoyant::reduce_scatter_pieces(p) : 1;
                        CHECK(a.build(input).blocks == a.round_pieces(p, segments) * parallel);
                    }
                }
        }
    CHECK(planners == 3);  // Clairvoyant's Reduce and both Allreduce forms
}

TEST_CASE("Clairvoyant's round: one piece over one link and its reduction, at least 1 ns") {
    const papshim::LinkModel link{.alpha = 50e-6, .beta = 8e-9, .gamma = 2.5e-10};
    const double piece = 1048576.0 / 3;
    CHECK(papshim::clairvoyant_round_ns(link, piece) == std::llround((50e-6 + piece * (8e-9 + 2.5e-10)) * 1e9));
    CHECK(papshim::clairvoyant_round_ns(link, 0) == 50000);
    CHECK(papshim::clairvoyant_round_ns({.alpha = 0, .beta = 0, .gamma = 0}, 1e6) == 1);
}

TEST_CASE("message counts: binomial p-1, recursive doubling p'log p' plus the fold, ring 2p(p-1)") {
    auto messages = [](Collective c, std::string_view name, int p) {
        return build_set(*papshim::find_reduction_algorithm(c, name), p, 0, true).send_count();
    };
    for (int p : {1, 2, 3, 5, 8, 13, 16}) {
        CHECK(messages(Collective::reduce, "binomial", p) == std::size_t(p - 1));
        const int pof2 = int(std::bit_floor(unsigned(p)));
        const int log = std::bit_width(unsigned(pof2)) - 1;
        CHECK(messages(Collective::allreduce, "recursive_doubling", p) == std::size_t(pof2 * log + 2 * (p - pof2)));
        CHECK(messages(Collective::allreduce, "ring", p) == std::size_t(2 * p * (p - 1)));
    }
}

TEST_CASE("the reduction check rejects broken schedules") {
    auto two_ranks = [](Combine combine) {
        std::vector<Schedule> plans(2);
        for (int r = 0; r < 2; ++r) plans[std::size_t(r)] = Schedule{.ranks = 2, .rank = r, .blocks = 1, .steps = {{}}};
        plans[1].steps[0].sends.push_back({.peer = 0, .blocks = {0}});
        plans[0].steps[0].recvs.push_back({.peer = 1, .blocks = {0}, .combine = combine});
        return plans;
    };
    SECTION("a correct one passes") {
        const auto plans = two_ranks(Combine::local_first);
        CHECK(check_reduction_flow(ScheduleSet::from(plans), 0, false) == "");
    }
    SECTION("rank order broken for a non-commutative op") {
        const auto plans = two_ranks(Combine::received_first);  // rank 1's data before rank 0's
        CHECK(check_reduction_flow(ScheduleSet::from(plans), 0, true) == "");
        CHECK_THAT(check_reduction_flow(ScheduleSet::from(plans), 0, false), Catch::Contains("out of rank order"));
    }
    SECTION("an overwrite loses the root's own contribution") {
        const auto plans = two_ranks(Combine::none);
        CHECK_THAT(check_reduction_flow(ScheduleSet::from(plans), 0, true), Catch::Contains("ends with 1 of 2"));
    }
    SECTION("a contribution reduced twice") {
        auto plans = two_ranks(Combine::received_first);
        plans[0].steps.push_back({});
        plans[1].steps.push_back({});
        plans[1].steps[1].sends.push_back({.peer = 0, .blocks = {0}});
        plans[0].steps[1].recvs.push_back({.peer = 1, .blocks = {0}, .combine = Combine::received_first});
        CHECK_THAT(check_reduction_flow(ScheduleSet::from(plans), 0, true), Catch::Contains("already has"));
    }
    SECTION("Allreduce: a rank without the result") {
        const auto plans = two_ranks(Combine::received_first);
        CHECK_THAT(check_reduction_flow(ScheduleSet::from(plans), -1, true), Catch::Contains("rank 1 ends with 1 of 2"));
    }
}

TEST_CASE("reduction blocks cover the vector exactly") {
    for (std::int64_t total : {0, 1, 7, 64, 1000})
        for (int blocks : {1, 2, 3, 8, 13}) {
            std::int64_t next = 0;
            for (int b = 0; b < blocks; ++b) {
                const auto range = papshim::schedule::reduction_block(total, blocks, b);
                CHECK(range.first == next);
                next += range.count;
            }
            CHECK(next == total);
            CHECK(papshim::schedule::reduction_blocks(total, blocks, 0, blocks).count == total);
        }
}

// An algorithm that cuts the vector by its size: the pieces are what the schedule moves, and
// every count of them keeps the data flow. The pipelined ones cut a power of two of about
// 16 KiB each up to a cap; the scatter forms (the predicted scatter, Clairvoyant's Allreduce)
// chunks of at most 48 KiB.
TEST_CASE("a size-cut schedule moves the pieces its size asks for, each reduced once") {
    int cut = 0;
    for (Collective c : {Collective::reduce, Collective::allreduce})
        for (const auto& a : papshim::reduction_algorithms(c)) {
            if (!a.segments_for_bytes) continue;
            ++cut;
            const bool pipelined = a.name != "predicted_scatter" && a.name != "clairvoyant";
            const double largest = pipelined ? 16 << 10 : 48 << 10;
            for (std::uint64_t bytes : {std::uint64_t(0), std::uint64_t(1), std::uint64_t(8), std::uint64_t(16 << 10),
                                        std::uint64_t((16 << 10) + 1), std::uint64_t(256 << 10), std::uint64_t(1 << 20),
                                        std::uint64_t(4 << 20), std::uint64_t(1) << 40, ~std::uint64_t(0)}) {
                const int segments = a.segments_for_bytes(bytes);
                INFO(fmt::format("{} {} bytes={} segments={}", papshim::collective_name(c), a.name, bytes, segments));
                CHECK(segments >= 1);
                CHECK(segments <= 4096);
                if (bytes > 0 && bytes <= (16u << 20)) CHECK(double(bytes) / segments <= largest);
                if (pipelined) {
                    CHECK(std::has_single_bit(unsigned(segments)));
                    CHECK(segments <= 1024);
                    if (bytes >= (32u << 10) && bytes <= (16u << 20)) CHECK(double(bytes) / segments > 8 << 10);
                }
            }
            CHECK(a.segments_for_bytes(1 << 20) == (pipelined ? 64 : 22));
            // Roots 0, p/2 and p - 1: in rank order (the balanced form) the predicted chain's
            // last rank is p - 1, which sends to another root in one message or is the root.
            for (int segments : {1, 2, 5, 64, 1024})
                for (int p : {1, 2, 3, 7, 8, 9, 33})
                    for (int root : c == Collective::reduce ? std::vector<int>{0, p / 2, p - 1} : std::vector<int>{-1}) {
                        check(a, c, p, root, true, segments);
                        if (a.keeps_rank_order) check(a, c, p, root, false, segments);
                    }
        }
    CHECK(cut == 4);  // the pipelined binomial Reduce, the predicted chain Reduce, the two scatter forms
}
