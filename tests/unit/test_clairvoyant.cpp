// Clairvoyant (src/algorithms/reduce/clairvoyant.hpp): the spec's §4.11 oracles, both
// schedulers against the Python models' plans (tests/unit/data/clairvoyant_cases.txt, made
// by make_clairvoyant_cases.py from the spec's reference models) and against each other on
// thousands of random integer arrival patterns, purity, ties, the window's half-open edge,
// huge and tiny round lengths, and the reduction data-flow check of every schedule built
// from a plan (Reduce and both Allreduce forms) for many p, roots and patterns.

#include <catch.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "sanitizer_scale.hpp"
#include "papshim/algorithms.hpp"
#include "papshim/simulator.hpp"
#include "src/algorithms/reduce/clairvoyant.hpp"
#include "src/algorithms/reduction_steps.hpp"

namespace clv = papshim::clairvoyant;
using papshim::Collective;
using papshim::schedule::BuildInput;
using papshim::schedule::Schedule;
using papshim::sim::ScheduleSet;
using papshim::sim::check_reduction_flow;

namespace {

clv::Problem problem(const std::vector<std::int64_t>& a, std::int64_t d, int root, int segments) {
    return {.ranks = int(a.size()), .arrival_ns = a, .round_ns = d, .root = root, .segments = segments};
}

// (round, from, to, segment) of every move, sorted: the Python fixture's order.
using Flat = std::vector<std::tuple<std::int64_t, int, int, int>>;
Flat flat(const clv::Plan& plan) {
    Flat out;
    for (const auto& m : plan.moves) out.emplace_back(m.round, m.from, m.to, m.segment);
    std::sort(out.begin(), out.end());
    return out;
}

std::string describe(const clv::Plan& plan) {
    std::string out = fmt::format("{} rounds:", plan.rounds);
    for (const auto& m : plan.moves)
        out += fmt::format(" r{}:p{}->p{} s{}{}", m.round, m.from, m.to, m.segment, m.combine ? "" : "(take back)");
    return out;
}

// The three schedulers, which must agree move for move (order of service and combine flags
// too).
clv::Plan both(const clv::Problem& pr) {
    const clv::Plan reference = clv::schedule_reference(pr);
    const clv::Plan tree = clv::schedule_segment_tree(pr);
    const clv::Plan queues = clv::schedule_segment_queues(pr);
    INFO(fmt::format("a=[{}] d={} root={} N={}\nreference {}\nsegment tree {}\nsegment queues {}",
                     fmt::join(pr.arrival_ns, ","), pr.round_ns, pr.root, pr.segments, describe(reference),
                     describe(tree), describe(queues)));
    REQUIRE(reference == tree);
    REQUIRE(reference == queues);
    return tree;
}

// The plan's moves of a round as "pZ->pI sJ", in receiver order.
std::vector<std::string> round_moves(const clv::Plan& plan, std::int64_t round) {
    std::vector<std::pair<int, std::string>> moves;
    for (const auto& m : plan.moves)
        if (m.round == round) moves.emplace_back(m.to, fmt::format("p{}->p{} s{}", m.from, m.to, m.segment));
    std::sort(moves.begin(), moves.end());
    std::vector<std::string> out;
    for (auto& [to, text] : moves) out.push_back(text);
    return out;
}

using Strings = std::vector<std::string>;

// Replays a plan's data flow directly (independent of the simulator): every rank holds each
// of its segments until it sends it; the root ends with every contribution to every
// segment exactly once; a rank moves at most one message each way per round and never
// sends in a round what it received in it.
void replay(const clv::Plan& plan, int p, int n, int root) {
    // The contributions in each rank's partial of each segment.
    auto table = std::vector<std::vector<int>>(std::size_t(p) * std::size_t(n));
    auto has = [&](int r, int j) -> std::vector<int>& { return table[std::size_t(r) * std::size_t(n) + std::size_t(j)]; };
    for (int r = 0; r < p; ++r)
        for (int j = 0; j < n; ++j) has(r, j) = {r};
    for (std::size_t i = 0; i < plan.moves.size();) {
        std::size_t end = i;
        std::vector<int> senders, receivers;
        while (end < plan.moves.size() && plan.moves[end].round == plan.moves[i].round) {
            senders.push_back(plan.moves[end].from);
            receivers.push_back(plan.moves[end].to);
            ++end;
        }
        auto unique = [](std::vector<int> v) {
            std::sort(v.begin(), v.end());
            return std::adjacent_find(v.begin(), v.end()) == v.end();
        };
        REQUIRE(unique(senders));
        REQUIRE(unique(receivers));
        std::vector<std::vector<int>> carried;
        for (std::size_t k = i; k < end; ++k) {
            const auto& m = plan.moves[k];
            auto& data = has(m.from, m.segment);
            REQUIRE(!data.empty());  // sends only what it holds at the round's start
            for (std::size_t q = i; q < end; ++q)  // not received in this round
                REQUIRE(!(plan.moves[q].to == m.from && plan.moves[q].segment == m.segment));
            carried.push_back(std::move(data));
            data.clear();
        }
        for (std::size_t k = i; k < end; ++k) {
            const auto& m = plan.moves[k];
            auto& data = has(m.to, m.segment);
            REQUIRE(m.combine == !data.empty());
            data.insert(data.end(), carried[k - i].begin(), carried[k - i].end());
        }
        i = end;
    }
    for (int r = 0; r < p; ++r)
        for (int j = 0; j < n; ++j) {
            auto data = has(r, j);
            std::sort(data.begin(), data.end());
            if (r != root) {
                REQUIRE(data.empty());
                continue;
            }
            REQUIRE(int(data.size()) == p);
            for (int q = 0; q < p; ++q) REQUIRE(data[std::size_t(q)] == q);
        }
}

std::filesystem::path data_file(const char* name) {
    return std::filesystem::path(__FILE__).parent_path() / "data" / name;
}

// Arrival patterns for the randomised tests: ties, clusters, spreads far beyond d, one late
// rank, a staircase, a reversed staircase.
std::vector<std::int64_t> random_arrivals(std::mt19937_64& rng, int p, std::int64_t d) {
    auto a = std::vector<std::int64_t>(std::size_t(p));
    const int kind = int(rng() % 6);
    auto uniform = [&](std::int64_t hi) { return std::int64_t(rng() % std::uint64_t(hi + 1)); };
    for (int i = 0; i < p; ++i) {
        std::int64_t& x = a[std::size_t(i)];
        switch (kind) {
            case 0: x = uniform(3) * d; break;                               // exact multiples of d: edge ties
            case 1: x = uniform(4 * d); break;                               // within a few rounds
            case 2: x = uniform(std::int64_t(p) * d * 20); break;            // spread, many idle rounds
            case 3: x = i == int(rng() % std::uint64_t(p)) ? 7 * d + 3 : 0; break;  // one late
            case 4: x = std::int64_t(i) * (d / 2 + 1); break;                // staircase
            default: x = std::int64_t(p - i) * d + uniform(1); break;        // reversed
        }
    }
    return a;
}

// A Reduce input with arrivals (kept alive by the caller's vector).
BuildInput input_with(const std::vector<std::int64_t>& a, std::int64_t d, int root) {
    BuildInput in;
    in.ranks = int(a.size());
    in.arrival_ns = a;
    in.step_ns = d;
    in.root = root;
    return in;
}

const papshim::ReductionAlgorithm& algorithm(Collective c, std::string_view name) {
    const auto* a = papshim::find_reduction_algorithm(c, name);
    REQUIRE(a != nullptr);
    return *a;
}

}  // namespace

TEST_CASE("§4.11: the [CLV] §4.2 example, P' fix, 6 rounds") {
    const clv::Plan plan = both(problem({0, 0, 0, 11}, 10, 0, 4));
    CHECK(plan.rounds == 6);
    CHECK(round_moves(plan, 0) == Strings{"p1->p0 s0", "p0->p1 s1"});
    CHECK(round_moves(plan, 1) == Strings{"p2->p0 s0", "p3->p1 s1", "p0->p2 s2", "p1->p3 s2"});
    CHECK(round_moves(plan, 2) == Strings{"p3->p0 s0", "p2->p1 s1", "p0->p2 s3", "p1->p3 s3"});
    CHECK(round_moves(plan, 3) == Strings{"p1->p0 s1", "p3->p2 s2", "p2->p3 s3"});
    CHECK(round_moves(plan, 4) == Strings{"p2->p0 s2"});
    CHECK(round_moves(plan, 5) == Strings{"p3->p0 s3"});
    replay(plan, 4, 4, 0);
}

TEST_CASE("§4.11: one late process; the root sends s1 away and takes it back") {
    const clv::Plan plan = both(problem({0, 0, 0, 0, 40}, 10, 0, 2));
    CHECK(round_moves(plan, 0) == Strings{"p1->p0 s0", "p0->p1 s1", "p3->p2 s0", "p2->p3 s1"});
    CHECK(round_moves(plan, 1) == Strings{"p2->p0 s0", "p3->p1 s1"});
    CHECK(round_moves(plan, 2) == Strings{"p1->p0 s1"});
    CHECK(round_moves(plan, 3).empty());  // idle, skipped
    CHECK(round_moves(plan, 4) == Strings{"p4->p0 s0", "p0->p4 s1"});
    CHECK(round_moves(plan, 5) == Strings{"p4->p0 s1"});
    CHECK(plan.rounds == 6);
    // Only the sink takes back (stores, not reduces) a segment it gave away: s1, twice.
    Flat take_backs;
    for (const auto& m : plan.moves)
        if (!m.combine) take_backs.emplace_back(m.round, m.from, m.to, m.segment);
    CHECK(take_backs == Flat{{2, 1, 0, 1}, {5, 4, 0, 1}});
    replay(plan, 5, 2, 0);
}

TEST_CASE("§4.11: idle rounds are skipped, not scheduled one by one") {
    const clv::Plan plan = both(problem({0, 1000, 2000, 3000}, 1, 0, 1));
    CHECK(flat(plan) == Flat{{1000, 1, 0, 0}, {2000, 2, 0, 0}, {3000, 3, 0, 0}});
    CHECK(plan.rounds == 3001);
    // Three steps in the schedule, one per round that moves anything.
    CHECK(clv::reduce_schedule(plan, 4, 0, 1).steps.size() == 3);
}

TEST_CASE("§4.11: balanced arrivals take ceil(log2 P) + N - 1 rounds") {
    auto rounds = [](int p, int n) { return both(problem(std::vector<std::int64_t>(std::size_t(p), 0), 1, 0, n)).rounds; };
    for (int p : {4, 8, 16, 32, 64})
        for (int n : {1, 4, 16}) {
            INFO(fmt::format("P={} N={}", p, n));
            CHECK(rounds(p, n) == std::bit_width(unsigned(p - 1)) + n - 1);
        }
    for (int p : {3, 5, 6, 7, 12, 48})
        for (int n : {1, 4}) {
            INFO(fmt::format("P={} N={}", p, n));
            CHECK(rounds(p, n) == std::bit_width(unsigned(p - 1)) + n - 1);
        }
}

TEST_CASE("both schedulers reproduce the Python models' plans") {
    std::ifstream in(data_file("clairvoyant_cases.txt"));
    REQUIRE(in);
    std::string line, word;
    int cases = 0;
    std::getline(in, line);
    while (in && line.starts_with("case")) {
        int p = 0, n = 0, root = 0;
        std::int64_t d = 0, rounds = 0;
        std::istringstream(line) >> word >> p >> n >> d >> root >> rounds;
        std::getline(in, line);
        std::istringstream list(line);
        list >> word;
        auto a = std::vector<std::int64_t>(std::size_t(p));
        for (auto& x : a) list >> x;
        Flat expected;
        while (std::getline(in, line) && line.starts_with("m ")) {
            std::int64_t r = 0;
            int from = 0, to = 0, segment = 0;
            std::istringstream(line) >> word >> r >> from >> to >> segment;
            expected.emplace_back(r, from, to, segment);
        }
        const clv::Plan plan = both(problem(a, d, root, n));
        INFO(fmt::format("case {}: a=[{}] d={} root={} N={}", cases, fmt::join(a, ","), d, root, n));
        CHECK(flat(plan) == expected);
        CHECK(plan.rounds == rounds);
        ++cases;
    }
    CHECK(cases == 627);
}

TEST_CASE("the segment tree and the segment queues equal the reference on thousands of random integer patterns") {
    std::mt19937_64 rng(9);
    for (int t = 0; t < 5000; t += papshim::test::sample_stride) {
        const int p = 1 + int(rng() % (t < 4000 ? 24 : 90));
        const int n = 1 + int(rng() % (t % 10 == 0 ? 140 : 12));  // some need several words
        const std::int64_t d = 1 + std::int64_t(rng() % (t % 3 == 0 ? 5 : 1000));
        const auto a = random_arrivals(rng, p, d);
        const int root = int(rng() % std::uint64_t(p));
        const clv::Plan plan = both(problem(a, d, root, n));
        if (t % 10 == 0) replay(plan, p, n, root);
    }
}

TEST_CASE("plans are pure: the same input gives the same plan and schedules, whatever the origin of time") {
    std::mt19937_64 rng(3);
    for (int t = 0; t < 200; ++t) {
        const int p = 2 + int(rng() % 40);
        const std::int64_t d = 1 + std::int64_t(rng() % 500);
        const auto a = random_arrivals(rng, p, d);
        const int root = int(rng() % std::uint64_t(p));
        const int n = clv::segments_for(p);
        const clv::Plan plan = clv::schedule_segment_tree(problem(a, d, root, n));
        CHECK(clv::schedule_segment_tree(problem(a, d, root, n)) == plan);
        auto shifted = a;
        for (auto& x : shifted) x += 123456789;
        CHECK(clv::schedule_segment_tree(problem(shifted, d, root, n)) == plan);
        // Every rank builds its own schedule; each equals its part of the one plan, and a
        // second build is identical.
        const auto all = clv::reduce_schedules(plan, p, n);
        const auto in = input_with(a, d, root);
        for (int r = 0; r < p; ++r) {
            BuildInput mine = in;
            mine.rank = r;
            const auto first = algorithm(Collective::reduce, "clairvoyant").build(mine);
            const auto again = algorithm(Collective::reduce, "clairvoyant").build(mine);
            CHECK(papshim::sim::to_string(first) == papshim::sim::to_string(all[std::size_t(r)]));
            CHECK(papshim::sim::to_string(again) == papshim::sim::to_string(first));
        }
    }
}

TEST_CASE("ties go to the lower rank, and the window is half-open") {
    SECTION("equal arrivals: the sink takes from the lowest other rank") {
        const clv::Plan plan = both(problem({5, 5, 5, 5}, 10, 2, 1));
        CHECK(round_moves(plan, 0) == Strings{"p3->p1 s0", "p0->p2 s0"});
    }
    SECTION("of two ranks arriving together, the lower serves first; a rank outside the window waits") {
        const clv::Plan plan = both(problem({0, 7, 7, 20}, 10, 0, 1));
        CHECK(round_moves(plan, 0) == Strings{"p1->p0 s0"});
    }
    SECTION("a rank exactly d after the head waits a round") {
        CHECK(round_moves(both(problem({0, 10}, 10, 0, 1)), 0).empty());
        CHECK(round_moves(both(problem({0, 10}, 10, 0, 1)), 1) == Strings{"p1->p0 s0"});
        CHECK(round_moves(both(problem({0, 9}, 10, 0, 1)), 0) == Strings{"p1->p0 s0"});
    }
    SECTION("ties modulo d keep the window order (the segment tree's leaf order)") {
        for (int root = 0; root < 6; ++root) both(problem({0, 10, 20, 10, 0, 30}, 10, root, 3));
    }
}

TEST_CASE("huge and tiny round lengths") {
    std::mt19937_64 rng(17);
    for (int t = 0; t < 100; ++t) {
        const int p = 2 + int(rng() % 30);
        auto a = std::vector<std::int64_t>(std::size_t(p));
        for (auto& x : a) x = std::int64_t(rng() % 1000000000);  // up to a second
        const int root = int(rng() % std::uint64_t(p));
        const int n = 1 + int(rng() % 5);
        // d far beyond the spread: one window throughout, the same plan as d = spread + 1.
        const std::int64_t spread = *std::max_element(a.begin(), a.end()) - *std::min_element(a.begin(), a.end());
        const clv::Plan huge = both(problem(a, std::int64_t(1) << 50, root, n));
        CHECK(huge == both(problem(a, spread + 1, root, n)));
        CHECK(huge.rounds == std::bit_width(unsigned(p - 1)) + n - 1);
        // d = 1 ns against a second of spread: about a billion rounds, nearly all skipped.
        const clv::Plan tiny = both(problem(a, 1, root, n));
        replay(tiny, p, n, root);
        std::vector<std::int64_t> rounds;
        for (const auto& m : tiny.moves) rounds.push_back(m.round);
        rounds.erase(std::unique(rounds.begin(), rounds.end()), rounds.end());
        const auto steps = clv::reduce_schedules(tiny, p, n);
        std::size_t longest = 0;
        for (const auto& s : steps) longest = std::max(longest, s.steps.size());
        CHECK(longest <= rounds.size());
        CHECK(check_reduction_flow(ScheduleSet::from(steps), root, true) == "");
    }
    // The largest spread taken, and one beyond it refused.
    CHECK_NOTHROW(both(problem({0, std::int64_t(1) << 40}, 3, 0, 2)));
    CHECK_THROWS_AS(clv::schedule_segment_tree(problem({0, (std::int64_t(1) << 40) + 1}, 3, 0, 2)), std::invalid_argument);
    CHECK_THROWS_AS(clv::schedule_segment_queues(problem({0, (std::int64_t(1) << 40) + 1}, 3, 0, 2)), std::invalid_argument);
}

TEST_CASE("the segment queues count their operations: a rank leaves every queue when it sends") {
    clv::QueueOperations ops;
    // One rank: no window of two, nothing queued.
    clv::schedule_segment_queues(problem({0}, 1, 0, 4), &ops);
    CHECK(ops.inserts == 0);
    CHECK(ops.erases == 0);
    // Two ranks at once, N = 3, root 0. Round 0: both join all 3 queues (6 inserts); rank 1
    // sends s0 to the root and leaves its 3 queues, the root leaves queue 0 (P'), then sends
    // s1 to rank 1 and leaves queue 2 and queue 1 (6 erases). Round 1: both rejoin the queues
    // of what they hold, 2 each; rank 1 hands s1 back (2 erases), the root sends s2 (2 erases,
    // not s1's queue: P'). Round 2: the root rejoins 2 queues, rank 1 one; rank 1 sends s2
    // (1 erase) and leaves; the root, which did not send, goes back into queue 2 at the end.
    const clv::Plan plan = clv::schedule_segment_queues(problem({0, 0}, 1, 0, 3), &ops);
    CHECK(round_moves(plan, 0) == Strings{"p1->p0 s0", "p0->p1 s1"});
    CHECK(round_moves(plan, 1) == Strings{"p1->p0 s1", "p0->p1 s2"});
    CHECK(round_moves(plan, 2) == Strings{"p1->p0 s2"});
    CHECK(plan.rounds == 3);
    CHECK(ops.inserts == 6 + 4 + 3 + 1);
    CHECK(ops.erases == 6 + 4 + 1);
}

TEST_CASE("the builders' balanced form: no usable arrivals means every rank at once") {
    const auto& reduce = algorithm(Collective::reduce, "clairvoyant");
    for (int p : {1, 2, 3, 7, 8, 33}) {
        const int n = clv::segments_for(p);
        const clv::Plan balanced =
            clv::schedule_segment_tree(problem(std::vector<std::int64_t>(std::size_t(p), 0), 1, p / 2, n));
        const std::vector<std::int64_t> wrong_size(std::size_t(p) + 1, 5), some(std::size_t(p), 9);
        for (int r = 0; r < p; ++r) {
            const std::string expected = papshim::sim::to_string(clv::reduce_schedule(balanced, p, r, n));
            BuildInput in;
            in.ranks = p;
            in.rank = r;
            in.root = p / 2;
            CHECK(papshim::sim::to_string(reduce.build(in)) == expected);  // no arrivals
            in.arrival_ns = wrong_size;
            in.step_ns = 10;
            CHECK(papshim::sim::to_string(reduce.build(in)) == expected);  // not one per rank
            in.arrival_ns = some;
            in.step_ns = 0;
            CHECK(papshim::sim::to_string(reduce.build(in)) == expected);  // no round length
        }
    }
    CHECK(clv::segments_for(1) == 1);
    CHECK(clv::segments_for(2) == 1);
    CHECK(clv::segments_for(3) == 2);
    CHECK(clv::segments_for(8) == 3);
    CHECK(clv::segments_for(9) == 4);
    CHECK(clv::segments_for(4096) == 12);
}

namespace {

// The reduction data-flow check of one algorithm's schedules for one arrival pattern.
void check_flow(Collective c, std::string_view name, const std::vector<std::int64_t>& a, std::int64_t d, int root,
                int segments = 0, std::uint64_t early_send_bytes = 0) {
    const int p = int(a.size());
    BuildInput in = input_with(a, d, c == Collective::reduce ? root : -1);
    in.segments = segments;
    in.early_send_bytes = early_send_bytes;
    const ScheduleSet set = ScheduleSet::build(algorithm(c, name).build, p, in);
    INFO(fmt::format("{} {} p={} root={} d={} segments={} a=[{}]", papshim::collective_name(c), name, p, root, d,
                     segments, fmt::join(a, ",")));
    CHECK(check_reduction_flow(set, c == Collective::reduce ? root : -1, true) == "");
}

}  // namespace

TEST_CASE("every Clairvoyant schedule reduces each contribution once, for many p, roots and patterns") {
    std::mt19937_64 rng(23);
    for (int p = 1; p <= 40; ++p) {
        const std::int64_t d = 1 + std::int64_t(rng() % 100);
        for (int pattern = 0; pattern < 4; ++pattern) {
            const auto a = p == 1 ? std::vector<std::int64_t>{0} : random_arrivals(rng, p, d);
            for (int root = 0; root < p; root += (p <= 12 ? 1 : p / 5)) {
                check_flow(Collective::reduce, "clairvoyant", a, d, root);
                check_flow(Collective::reduce, "predicted_chain", a, d, root);
            }
            for (const char* name : {"clairvoyant", "clairvoyant_bcast", "predicted_chain", "predicted_scatter"})
                check_flow(Collective::allreduce, name, a, d, -1);
            // The reduce-scatter form as the runtime runs it: vectors cut by size, S > 1.
            for (int segments : {7, 22, 100}) check_flow(Collective::allreduce, "clairvoyant", a, d, -1, segments);
            // ... each segment in 3 or 14 messages where only 16 or 3.5 KiB sends are buffered
            // (to 24 ranks: the sanitizer jobs' time).
            if (p <= 24)
                for (std::uint64_t early_bytes : {std::uint64_t(16 << 10), std::uint64_t(3584)})
                    check_flow(Collective::allreduce, "clairvoyant", a, d, -1, 22, early_bytes);
            // The predicted scatter pushes the partials to L up to 22 segments (86 at p = 3 and
            // 4, any at p = 2) where early sends are buffered, swaps beyond or elsewhere; in 3,
            // 7 or 14 messages a chunk where only smaller sends are buffered.
            for (int segments : {7, 22, 50, 100}) {
                if (segments == 50 && p > 4) continue;  // pushed at 2 to 4 ranks only (100 at 2)
                check_flow(Collective::allreduce, "predicted_scatter", a, d, -1, segments, 0);
                for (std::uint64_t early_bytes : papshim::kEarlySendBytes)
                    check_flow(Collective::allreduce, "predicted_scatter", a, d, -1, segments, early_bytes);
            }
        }
    }
    for (int p : {64, 100, 129, 256, 1000}) {
        if (papshim::test::left_to_normal_builds(p)) continue;
        const std::int64_t d = 1000;
        const auto a = random_arrivals(rng, p, d);
        check_flow(Collective::reduce, "clairvoyant", a, d, p / 3);
        check_flow(Collective::reduce, "predicted_chain", a, d, p / 3);
        for (const char* name : {"clairvoyant", "clairvoyant_bcast", "predicted_chain", "predicted_scatter"})
            check_flow(Collective::allreduce, name, a, d, -1);
        // Beyond 65 ranks the reduce-scatter form's 64 roots pass each segment down a tree.
        check_flow(Collective::allreduce, "clairvoyant", a, d, -1, 100);
    }
}

namespace {

// Blocks rank `rank` sends and receives in steps [from, to) of its schedule.
struct Traffic {
    std::size_t sent = 0, received = 0;
    int first_step = -1;  // the first step that moves anything; -1 for none
};
Traffic traffic(const Schedule& plan, std::size_t from = 0) {
    Traffic t;
    for (std::size_t s = from; s < plan.steps.size(); ++s) {
        for (const auto& x : plan.steps[s].sends) t.sent += x.blocks.size();
        for (const auto& x : plan.steps[s].recvs) t.received += x.blocks.size();
        if (t.first_step < 0 && (!plan.steps[s].sends.empty() || !plan.steps[s].recvs.empty())) t.first_step = int(s);
    }
    return t;
}

}  // namespace

TEST_CASE("predicted chain: the predicted-last rank moves one vector each way, after the others have reduced") {
    const std::vector<std::int64_t> a{0, 50, 10, 50, 5, 20};  // ranks 1 and 3 tie last: rank 3 (order by rank)
    BuildInput in = input_with(a, 10, -1);
    const int blocks = papshim::reduction::kChainBlocks;
    const int early_chain_steps = blocks + 5 - 2;  // 5 early ranks: 4 hops
    for (int r = 0; r < 6; ++r) {
        in.rank = r;
        const Schedule plan = algorithm(Collective::allreduce, "predicted_chain").build(in);
        const Traffic all = traffic(plan), after = traffic(plan, std::size_t(early_chain_steps));
        INFO("rank " << r);
        if (r == 3) {
            CHECK(all.first_step == early_chain_steps);  // nothing to wait for before the others are done
            CHECK(all.sent == std::size_t(blocks));
            CHECK(all.received == std::size_t(blocks));
        } else {
            // After the last arrives, each early rank takes in one vector and passes on at most one.
            CHECK(after.received == std::size_t(blocks));
            CHECK(after.sent <= std::size_t(blocks));
        }
    }
    SECTION("Reduce: the predicted-last rank's data goes straight to the root, whole") {
        for (int root : {0, 3, 4}) {
            in.root = root;
            const int last = root == 3 ? 1 : 3;  // the latest rank other than the root
            for (int r = 0; r < 6; ++r) {
                in.rank = r;
                const Schedule plan = algorithm(Collective::reduce, "predicted_chain").build(in);
                INFO("root " << root << " rank " << r);
                if (r != last) continue;
                const Traffic t = traffic(plan);
                if (root != 3) CHECK(t.received == 0);  // else it ends the others' chain
                CHECK(t.sent == std::size_t(blocks));
                REQUIRE(plan.steps.back().sends.size() == 1);
                CHECK(plan.steps.back().sends[0].peer == root);
            }
        }
    }
    SECTION("without a prediction: rank order, the highest rank last") {
        in.arrival_ns = {};
        in.rank = 5;
        CHECK(traffic(algorithm(Collective::allreduce, "predicted_chain").build(in)).first_step == early_chain_steps);
    }
}

TEST_CASE("Clairvoyant's reduce-scatter form moves each segment in messages the MPI buffers") {
    const std::vector<std::int64_t> a{0, 50, 10, 50, 5, 20};
    BuildInput in = input_with(a, 10, -1);
    in.segments = 22;  // 1 MiB in 48 KiB segments
    // Whole segments where 48 KiB sends are buffered or none are; else 3, 7 or 14 blocks a
    // segment, one message each.
    for (const auto& [early_bytes, split] : {std::pair{std::uint64_t(48 << 10), 1}, std::pair{std::uint64_t(0), 1},
                                             std::pair{std::uint64_t(16 << 10), 3}, std::pair{std::uint64_t(7680), 7},
                                             std::pair{std::uint64_t(3584), 14}}) {
        in.early_send_bytes = early_bytes;
        in.rank = 0;
        const int whole_blocks = [&] {
            BuildInput plain = in;
            plain.early_send_bytes = 0;
            return algorithm(Collective::allreduce, "clairvoyant").build(plain).blocks;
        }();
        for (int r = 0; r < 6; ++r) {
            in.rank = r;
            const Schedule plan = algorithm(Collective::allreduce, "clairvoyant").build(in);
            INFO("early sends " << early_bytes << ", rank " << r);
            CHECK(plan.blocks == whole_blocks * split);
            if (split == 1) continue;
            for (const auto& step : plan.steps) {
                for (const auto& x : step.sends) CHECK(x.blocks.size() == 1);
                for (const auto& x : step.recvs) CHECK(x.blocks.size() == 1);
            }
        }
    }
}

TEST_CASE("predicted scatter: after the predicted-last rank arrives, it moves one vector each way in K steps") {
    const std::vector<std::int64_t> a{0, 50, 10, 50, 5, 20};  // ranks 1 and 3 tie last: rank 3 (order by rank)
    BuildInput in = input_with(a, 10, -1);
    const int early = 5, last = 3;
    // 1 MiB (22 segments) where early sends are buffered: the owners push their partials to
    // L in step 1; 4 MiB (86), or where none are: swaps. Where only 16 KiB sends are
    // buffered, every chunk moves in thirds, pushed or swapped; in 7 messages where 7.5 KiB
    // sends are, in 14 where 3.5 KiB are.
    constexpr std::uint64_t whole = 48 << 10, third = 16 << 10, seventh = 7680, fourteenth = 3584;
    for (const auto& [segments, early_bytes] :
         {std::pair{0, whole}, std::pair{22, whole}, std::pair{22, third}, std::pair{22, std::uint64_t(0)},
          std::pair{86, whole}, std::pair{86, third}, std::pair{22, seventh}, std::pair{86, fourteenth}}) {
        in.segments = segments;
        in.early_send_bytes = early_bytes;
        const bool pushed = segments == 22 && early_bytes > 0;
        const int split = early_bytes == third ? 3 : early_bytes == seventh ? 7 : early_bytes == fourteenth ? 14 : 1;
        for (int r = 0; r < 6; ++r) {
            in.rank = r;
            const Schedule plan = algorithm(Collective::allreduce, "predicted_scatter").build(in);
            const int blocks = plan.blocks, chunks = blocks / (early * split);  // K chunks of each early rank's piece
            REQUIRE(blocks == early * chunks * split);
            REQUIRE(plan.steps.size() == std::size_t(chunks + 2));
            const Traffic after = traffic(plan, 1);
            INFO("rank " << r << ", segments " << segments);
            if (r == last) {
                CHECK(traffic(plan).first_step == 1);  // nothing before it arrives
                CHECK(after.sent == std::size_t(blocks));
                CHECK(after.received == std::size_t(blocks));
                CHECK(plan.steps.back().sends.empty());  // it has the result after K steps
                // Pushed: every partial comes in step 1; swapped: one chunk of each a step.
                std::size_t in_step_1 = 0;
                for (const auto& x : plan.steps[1].recvs) in_step_1 += x.blocks.size();
                CHECK(in_step_1 == std::size_t(pushed ? blocks : early * split));
            } else {
                // Its piece from L, and every other early rank's finished piece.
                CHECK(after.received == std::size_t(blocks));
                CHECK(after.sent == std::size_t(chunks * split * early));  // its piece to L and to the 4 others
                std::size_t to_last_in_step_1 = 0, messages_to_last_in_step_1 = 0;
                for (const auto& x : plan.steps[1].sends)
                    if (x.peer == last) {
                        to_last_in_step_1 += x.blocks.size();
                        ++messages_to_last_in_step_1;
                    }
                CHECK(to_last_in_step_1 == std::size_t(pushed ? chunks * split : split));
                // In thirds: one message a block, each within the buffered size.
                CHECK(messages_to_last_in_step_1 == std::size_t(pushed ? chunks * split : split));
            }
        }
    }
    in.segments = 0;
    in.early_send_bytes = 0;
    SECTION("two ranks: one swap") {
        const std::vector<std::int64_t> two{30, 0};
        BuildInput pair = input_with(two, 10, -1);
        pair.rank = 0;
        const Schedule plan = algorithm(Collective::allreduce, "predicted_scatter").build(pair);
        CHECK(plan.blocks == 1);
        CHECK(traffic(plan).sent == 1);
        CHECK(traffic(plan).received == 1);
    }
}

TEST_CASE("predicted scatter: as few chunks a piece as keep each within 48 KiB") {
    const auto segments = [](std::uint64_t bytes) {
        return algorithm(Collective::allreduce, "predicted_scatter").segments_for_bytes(bytes);
    };
    // Blocks of each early rank's piece, one rank predicted last, with early sends buffered up
    // to `early_bytes` (0: none).
    const auto blocks_a_piece = [](int ranks, int cut, std::uint64_t early_bytes = 0) {
        std::vector<std::int64_t> a(std::size_t(ranks), 0);
        a.back() = 1000;
        BuildInput in = input_with(a, 10, -1);
        in.segments = cut;
        in.early_send_bytes = early_bytes;
        return algorithm(Collective::allreduce, "predicted_scatter").build(in).blocks / (ranks - 1);
    };
    const auto chunks_of = [&](int ranks, int cut) { return blocks_a_piece(ranks, cut); };
    CHECK(segments(128 << 10) == 3);
    CHECK(chunks_of(8, segments(128 << 10)) == 1);   // 128 KiB: 19 KiB pieces
    CHECK(chunks_of(8, segments(256 << 10)) == 1);   // 37 KiB
    CHECK(chunks_of(8, segments(384 << 10)) == 2);   // 55 KiB: 48 KiB at most
    CHECK(chunks_of(8, segments(1 << 20)) == 4);     // 146 KiB
    CHECK(chunks_of(8, segments(4 << 20)) == 13);    // 48 KiB each
    CHECK(chunks_of(4, segments(128 << 10)) == 1);   // 43 KiB
    CHECK(chunks_of(4, segments(256 << 10)) == 2);   // 85 KiB
    CHECK(chunks_of(4, segments(384 << 10)) == 3);   // 128 KiB
    CHECK(chunks_of(4, segments(1 << 20)) == 8);
    CHECK(chunks_of(2, segments(1 << 20)) == 1);     // one piece: one swap
    // Where early sends are buffered the pushed piece keeps its chunks under the eager limit,
    // at p = 2 too (at any size there; up to 4 MiB at 3 and 4 ranks); beyond, the swap.
    constexpr std::uint64_t whole = 48 << 10, third = 16 << 10;
    CHECK(blocks_a_piece(2, segments(1 << 20), whole) == 22);
    CHECK(blocks_a_piece(2, segments(4 << 20), whole) == 86);
    CHECK(blocks_a_piece(2, segments(8 << 20), whole) == 171);
    CHECK(blocks_a_piece(4, segments(8 << 20), whole) == 57);  // swapped: 171 segments in 3 pieces
    CHECK(blocks_a_piece(8, segments(1 << 20), whole) == 4);
    // Where only 16 KiB sends are buffered, three blocks a chunk (each 16 KiB at most).
    CHECK(blocks_a_piece(2, segments(1 << 20), third) == 66);
    CHECK(blocks_a_piece(4, segments(1 << 20), third) == 24);
    CHECK(blocks_a_piece(4, segments(4 << 20), third) == 87);  // swapped, in thirds too
    // Under smaller eager limits, 7 and 14 blocks a chunk (each within 7.5 and 3.5 KiB).
    CHECK(blocks_a_piece(4, segments(1 << 20), 7680) == 56);
    CHECK(blocks_a_piece(4, segments(1 << 20), 3584) == 112);
}

TEST_CASE("predicted scatter: pushed up to 1 MiB, up to 4 MiB at 3 and 4 ranks, at any size at 2") {
    // Whether L, predicted last, receives every partial in step 1 (pushed) or one chunk a
    // piece (swapped).
    const auto pushed = [](int ranks, std::uint64_t bytes, std::uint64_t early_bytes) {
        std::vector<std::int64_t> a(std::size_t(ranks), 0);
        a.back() = 1000;
        BuildInput in = input_with(a, 10, -1);
        in.segments = algorithm(Collective::allreduce, "predicted_scatter").segments_for_bytes(bytes);
        in.early_send_bytes = early_bytes;
        in.rank = ranks - 1;
        const Schedule plan = algorithm(Collective::allreduce, "predicted_scatter").build(in);
        std::size_t in_step_1 = 0;
        for (const auto& x : plan.steps[1].recvs) in_step_1 += x.blocks.size();
        return in_step_1 == std::size_t(plan.blocks) && plan.blocks > ranks - 1;
    };
    for (const std::uint64_t early_bytes : papshim::kEarlySendBytes) {
        for (const int ranks : {3, 4}) {
            CHECK(pushed(ranks, 4 << 20, early_bytes));
            CHECK_FALSE(pushed(ranks, 8 << 20, early_bytes));
        }
        CHECK(pushed(2, 8 << 20, early_bytes));
        CHECK(pushed(2, 64 << 20, early_bytes));
        for (const int ranks : {5, 8}) {
            CHECK(pushed(ranks, 1 << 20, early_bytes));
            CHECK_FALSE(pushed(ranks, 2 << 20, early_bytes));
        }
    }
    CHECK_FALSE(pushed(4, 1 << 20, 0));  // nothing buffered: swapped
    CHECK_FALSE(pushed(2, 1 << 20, 0));
}

TEST_CASE("Clairvoyant Allreduce: the predicted-last rank owns no piece and moves one vector each way") {
    const std::vector<std::int64_t> a{0, 500, 10, 20, 5, 30};  // rank 1 last, far behind
    BuildInput in = input_with(a, 10, -1);
    in.segments = 12;  // 5 pieces (one per early rank) of 3 segments
    const int blocks = 15;
    CHECK(check_reduction_flow(ScheduleSet::build(algorithm(Collective::allreduce, "clairvoyant").build, 6, in), -1, true) ==
          "");
    std::vector<Traffic> per_rank;
    for (int r = 0; r < 6; ++r) {
        in.rank = r;
        const Schedule plan = algorithm(Collective::allreduce, "clairvoyant").build(in);
        REQUIRE(plan.blocks == blocks);
        per_rank.push_back(traffic(plan));
    }
    // L's data leave it once and the result comes in once, whatever the plan's take-backs
    // (the root's partial combined at L and sent back whole is not sent to L again).
    CHECK(per_rank[1].sent == std::size_t(blocks));
    CHECK(per_rank[1].received == std::size_t(blocks));
    // Nothing of L's before the early ranks have begun (they reduce while it is away).
    for (int r : {0, 2, 3, 4, 5}) CHECK(per_rank[std::size_t(r)].first_step < per_rank[1].first_step);
    SECTION("without a prediction: p - 1 pieces, rank 0 owning none") {
        in.arrival_ns = {};
        in.rank = 0;
        const Schedule plan = algorithm(Collective::allreduce, "clairvoyant").build(in);
        CHECK(plan.blocks == blocks);
        CHECK(traffic(plan).sent == std::size_t(blocks));
    }
}

TEST_CASE("Clairvoyant Allreduce beyond 65 ranks: 64 roots, and the others relay their segments") {
    for (int p : {66, 129, 300}) {
        const std::int64_t d = 1000;
        std::vector<std::int64_t> a(std::size_t(p), 0);
        a[std::size_t(p / 2)] = 100 * d;  // one late rank, as the runtime plans
        BuildInput in = input_with(a, d, -1);
        in.segments = 256;
        const ScheduleSet set = ScheduleSet::build(algorithm(Collective::allreduce, "clairvoyant").build, p, in);
        INFO("p=" << p);
        CHECK(set.blocks() == 64 * clv::scatter_round_segments(p, 256));
        CHECK(check_reduction_flow(set, -1, true) == "");
        std::size_t most = 0;
        for (int r = 0; r < p; ++r) {
            std::size_t sent = 0;
            for (const auto& message : set.sends(r)) sent += message.block_count;
            most = std::max(most, sent);
        }
        // Its share of the reduction and of the relays; a root sending each of its segments to
        // all p - 2 others would send (p - 2) / 64 vectors in the allgather alone (4.6 at p = 300).
        CHECK(most <= std::size_t(3 * set.blocks()));
    }
}

TEST_CASE("Allreduce: the Reduce goes to the last predicted arrival, which then broadcasts") {
    const std::vector<std::int64_t> a{0, 50, 10, 50, 5};  // ranks 1 and 3 tie last: rank 1
    BuildInput in = input_with(a, 10, -1);
    CHECK(clv::last_arrival(in) == 1);
    const int broadcast_steps = 3;  // ceil(log2 5)
    for (int r = 0; r < 5; ++r) {
        in.rank = r;
        const auto plan = algorithm(Collective::allreduce, "clairvoyant_bcast").build(in);
        REQUIRE(plan.steps.size() >= std::size_t(broadcast_steps));
        std::size_t receives = 0, sends = 0;
        for (auto s = plan.steps.end() - broadcast_steps; s != plan.steps.end(); ++s) {
            receives += s->recvs.size();
            sends += s->sends.size();
        }
        CHECK(receives == (r == 1 ? 0U : 1U));
        if (r == 1) CHECK(sends > 0);
    }
    in.arrival_ns = {};
    CHECK(clv::last_arrival(in) == 0);
}
