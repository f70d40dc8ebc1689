// BDR (spec allgather-bdr-bslb-and-clairvoyant.md §2): the Fig. 4 oracle step by step, the
// reference model's schedules and step-model exits (fixture tests/unit/data/bdr_reference.txt,
// made by make_bdr_fixture.py from spec/reference/bdr.py), data flow for p = 1..64 and samples
// to 1024 under random and adversarial PAPs, step compression and build cost, the §2.5/§2.7
// timing claims, the §2.8 mispredictions, Allgatherv, the balanced form and purity.

#include <catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "sanitizer_scale.hpp"
#include "papshim/algorithms.hpp"
#include "papshim/simulator.hpp"
#include "src/algorithms/allgather/builders.hpp"

using papshim::allgather::build_bdr;
using papshim::allgather::build_bdr_spec;
using papshim::allgather::build_ring;
using papshim::schedule::BuildInput;
using papshim::schedule::Schedule;
using papshim::sim::ScheduleSet;
using papshim::sim::TimingModel;
using papshim::sim::TimingResult;
using Arrivals = std::vector<std::int64_t>;

namespace {

BuildInput bdr_input(int p, int rank, const Arrivals& arrival, std::int64_t tau) {
    BuildInput input;
    input.ranks = p;
    input.rank = rank;
    input.arrival_ns = arrival;
    input.step_ns = tau;
    return input;
}

int ranks_of(const Arrivals& arrival) { return static_cast<int>(arrival.size()); }

// Steps of a doubling tree over p ranks.
int ceil_log2(int p) { return static_cast<int>(std::bit_width(static_cast<unsigned>(p - 1))); }

std::vector<Schedule> bdr_plans(const Arrivals& arrival, std::int64_t tau,
                                papshim::schedule::Builder builder = build_bdr) {
    std::vector<Schedule> plans;
    for (int r = 0; r < ranks_of(arrival); ++r) plans.push_back(builder(bdr_input(ranks_of(arrival), r, arrival, tau)));
    return plans;
}

ScheduleSet bdr_set(const Arrivals& arrival, std::int64_t tau, papshim::schedule::Builder builder = build_bdr) {
    return ScheduleSet::build(builder, ranks_of(arrival), bdr_input(ranks_of(arrival), 0, arrival, tau));
}

// An Allgatherv's set: build_bdr given every rank's block bytes.
ScheduleSet sized_bdr_set(const Arrivals& arrival, std::int64_t tau, std::span<const std::uint64_t> block_bytes) {
    BuildInput input = bdr_input(ranks_of(arrival), 0, arrival, tau);
    input.block_bytes = block_bytes;
    return ScheduleSet::build(build_bdr, ranks_of(arrival), input);
}

ScheduleSet ring_set(int p) { return ScheduleSet::build(build_ring, p); }

// Every rank's transfers, step by step: steps separated by '|', each its sends
// "sender>receiver:block" by ascending sender, separated by ';' (the fixture's format).
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
                for (int block : send.blocks) {
                    text += fmt::format("{}{}>{}:{}", first ? "" : ";", plan.rank, send.peer, block);
                    first = false;
                }
            }
        }
    }
    return text;
}

std::string fnv1a64(const std::string& text) {
    std::uint64_t hash = 0xcbf29ce484222325ULL;
    for (unsigned char byte : text) hash = (hash ^ byte) * 0x100000001b3ULL;
    return fmt::format("{:016x}", hash);
}

// Pre-step sends of each rank (prevSent): sends in the steps before the ring's p − 1.
std::vector<std::int64_t> pre_step_sends(const std::vector<Schedule>& plans, std::size_t pre_steps) {
    std::vector<std::int64_t> sent;
    for (const auto& plan : plans) {
        std::int64_t count = 0;
        for (std::size_t s = 0; s < std::min(pre_steps, plan.steps.size()); ++s) count += static_cast<std::int64_t>(plan.steps[s].sends.size());
        sent.push_back(count);
    }
    return sent;
}

// The step model of spec §2.7 expressed in the simulator: a transfer takes τ and starts
// when both ends have entered its step (rendezvous, no per-byte cost), and a rank's leading
// receive-only steps run in the background before it arrives (BDR's helper thread).
TimingResult step_model(const ScheduleSet& set, const std::vector<double>& arrival, double tau) {
    TimingModel model;
    model.latency = tau;
    model.per_byte = 0;
    model.rendezvous_bytes = 0;
    model.background_receives = true;
    return papshim::sim::simulate_timing(set, model, arrival, std::vector<double>(arrival.size(), 1.0));
}

std::vector<double> as_doubles(const Arrivals& arrival) { return {arrival.begin(), arrival.end()}; }

std::vector<double> elapsed(const TimingResult& timing, const std::vector<double>& arrival) {
    std::vector<double> e;
    for (std::size_t i = 0; i < arrival.size(); ++i) e.push_back(timing.exit[i] - arrival[i]);
    return e;
}

std::vector<double> times_tau(std::vector<double> units, double tau) {
    for (double& u : units) u *= tau;
    return units;
}

// Random and adversarial PAPs for p ranks, in units of tau (integer ns).
std::vector<std::pair<std::string, Arrivals>> paps(int p, std::int64_t tau, std::mt19937_64& rng, bool large) {
    std::vector<std::pair<std::string, Arrivals>> out;
    const auto up = static_cast<std::size_t>(p);
    auto one_late = [&](int late, std::int64_t delay) {
        Arrivals a(up, 0);
        a[static_cast<std::size_t>(late)] = delay;
        return a;
    };
    auto staircase = [&](std::int64_t step, bool down) {
        Arrivals a(up);
        for (int i = 0; i < p; ++i) a[static_cast<std::size_t>(i)] = step * (down ? p - 1 - i : i);
        return a;
    };
    auto uniform = [&](std::int64_t span) {
        Arrivals a(up);
        for (auto& x : a) x = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(span));
        return a;
    };
    out.emplace_back("one-late first", one_late(0, 3 * tau));
    out.emplace_back("one-late last, ω/τ 1e7", one_late(p - 1, 10'000'000 * tau));
    out.emplace_back("staircase", staircase(tau, false));
    out.emplace_back("uniform ω/τ 20", uniform(20 * tau + 1));
    if (large) return out;
    out.emplace_back("one-late middle, ω/τ just below 5", one_late(p / 2, 5 * tau - 1));
    out.emplace_back("one-late middle, ω/τ just above 5", one_late(p / 2, 5 * tau + 1));
    out.emplace_back("reversed staircase, 1.5τ", staircase(tau + tau / 2, true));
    out.emplace_back("staircase just below τ", staircase(tau - 1, false));
    out.emplace_back("staircase huge steps", staircase(10'000'000 * tau, false));
    out.emplace_back("uniform ω/τ 3p", uniform(3 * p * tau + 1));
    out.emplace_back("uniform ω/τ 1e7", uniform(10'000'000 * tau));
    Arrivals ties(up);
    for (auto& x : ties) x = static_cast<std::int64_t>(rng() % 3) * 2 * tau;
    out.emplace_back("ties", ties);
    Arrivals near(up);
    for (auto& x : near) x = static_cast<std::int64_t>(rng() % 8) * tau + static_cast<std::int64_t>(rng() % 3) - 1;
    const auto low = *std::min_element(near.begin(), near.end());
    for (auto& x : near) x -= low;
    out.emplace_back("ω/τ near integers", near);
    return out;
}

std::vector<std::int64_t> parse_list(const std::string& text) {
    std::vector<std::int64_t> values;
    std::stringstream in(text);
    for (std::string item; std::getline(in, item, ',');) values.push_back(std::stoll(item));
    return values;
}

std::filesystem::path fixture_path() {
    return std::filesystem::path(__FILE__).parent_path() / "data" / "bdr_reference.txt";
}

}  // namespace

TEST_CASE("BDR reproduces the spec's Fig. 4 example step by step (§2.6)", "[bdr][oracle]") {
    const std::int64_t tau = 1000;
    const Arrivals a{2 * tau, 0, 0, 0};
    const auto plans = bdr_plans(a, tau, build_bdr_spec);  // the spec's ring tail; build_bdr's below
    // step 0 (pre) 1→0:1, 2→1:2, 3→2:3; step 1 (pre) 1→3:1, 2→0:2, 3→1:3;
    // step 2 (ring) 0→1:0, 1→2:1, 2→3:2, 3→0:3; step 3 1→2:0; step 4 2→3:0.
    CHECK(canonical(plans) == "1>0:1;2>1:2;3>2:3|1>3:1;2>0:2;3>1:3|0>1:0;1>2:1;2>3:2;3>0:3|1>2:0|2>3:0");
    CHECK(pre_step_sends(plans, 2) == std::vector<std::int64_t>{0, 2, 2, 2});
    // Each rank's receives mirror the sends, and its schedule ends at its last message.
    CHECK(papshim::sim::to_string(plans[0]) ==
          "rank 0 of 4 (3 steps)\n  step 0: recv [1] <- 1;\n  step 1: recv [2] <- 2;\n"
          "  step 2: send [0] -> 1; recv [3] <- 3;\n");
    CHECK(plans[1].steps.size() == 4);
    CHECK(plans[2].steps.size() == 5);
    CHECK(plans[3].steps.size() == 5);

    // §2.6/§2.7: f = (3, 4, 5, 5)τ, e = (1, 4, 5, 5)τ, ē = 3.75τ; ring e = (3, 5, 5, 5)τ, ē = 4.5τ.
    const auto arrival = as_doubles(a);
    const auto bdr = step_model(bdr_set(a, tau, build_bdr_spec), arrival, tau);
    CHECK(bdr.exit == times_tau({3, 4, 5, 5}, tau));
    CHECK(elapsed(bdr, arrival) == times_tau({1, 4, 5, 5}, tau));
    CHECK(bdr.mean_elapsed == 3.75 * tau);
    const auto ring = step_model(ring_set(4), arrival, tau);
    CHECK(elapsed(ring, arrival) == times_tau({3, 5, 5, 5}, tau));
    CHECK(ring.mean_elapsed == 4.5 * tau);
    CHECK(bdr.run_time == ring.run_time);  // §2.4: BDR improves ē, not r

    // build_bdr: the same pre-steps, then the greedy tail in two steps instead of the ring's
    // three: 0→1:0, 1→2:1, 2→3:2, 3→0:3 | 0→2:0, 1→3:0. e = (1, 3, 4, 4)τ, ē = 3.5τ.
    const auto ours = bdr_plans(a, tau);
    CHECK(pre_step_sends(ours, 2) == std::vector<std::int64_t>{0, 2, 2, 2});
    const auto greedy = step_model(ScheduleSet::from(ours), arrival, tau);
    CHECK(greedy.mean_elapsed < bdr.mean_elapsed);
    CHECK(greedy.run_time < bdr.run_time);
    INFO(canonical(ours));
    CHECK(canonical(ours) == "1>0:1;2>1:2;3>2:3|1>3:1;2>0:2;3>1:3|0>1:0;1>2:1;2>3:2;3>0:3|0>2:0;1>3:0");
    CHECK(greedy.mean_elapsed == 3.5 * tau);
}

TEST_CASE("BDR equals the reference model on thousands of PAPs (fixture)", "[bdr][reference]") {
    std::ifstream file(fixture_path());
    REQUIRE(file.good());
    int cases = 0, with_steps = 0, mispredicted = 0, max_p = 0;
    for (std::string line; std::getline(file, line);) {
        if (line.empty() || line[0] == '#') continue;
        std::map<std::string, std::string> field;
        std::stringstream words(line);
        for (std::string word; words >> word;) {
            const auto eq = word.find('=');
            field[word.substr(0, eq)] = word.substr(eq + 1);
        }
        INFO(line);
        const int p = std::stoi(field.at("p"));
        const std::int64_t tau = std::stoll(field.at("tau"));
        const Arrivals a = parse_list(field.at("a"));
        const Arrivals actual = field.contains("actual") ? parse_list(field.at("actual")) : a;
        REQUIRE(ranks_of(a) == p);
        const auto pre_steps = static_cast<std::size_t>(std::stoll(field.at("k")));

        const auto plans = bdr_plans(a, tau, build_bdr_spec);  // the spec's ring tail
        const std::string text = canonical(plans);
        if (field.contains("steps")) {
            CHECK(text == field.at("steps"));
            ++with_steps;
        }
        CHECK(fnv1a64(text) == field.at("hash"));
        CHECK(pre_step_sends(plans, pre_steps) == parse_list(field.at("sent")));
        std::size_t steps = 0;
        for (const auto& plan : plans) steps = std::max(steps, plan.steps.size());
        CHECK(steps == pre_steps + static_cast<std::size_t>(p - 1));

        // The reference's step-model exits, under the real arrivals.
        const auto timing = step_model(ScheduleSet::from(plans), as_doubles(actual), static_cast<double>(tau));
        CHECK(timing.exit == as_doubles(parse_list(field.at("f"))));
        ++cases;
        mispredicted += field.contains("actual") ? 1 : 0;
        max_p = std::max(max_p, p);
    }
    CHECK(cases >= 2000);
    CHECK(with_steps >= 100);
    CHECK(mispredicted >= 100);
    CHECK(max_p >= 40);
}

TEST_CASE("BDR passes the data-flow check for p = 1..64 and samples to 1024", "[bdr][dataflow]") {
    std::vector<int> sizes;
    for (int p = 1; p <= 64; p += papshim::test::under_sanitizer ? 7 : 1) sizes.push_back(p);
    for (int p : {65, 100, 127, 128, 129, 255, 256, 1000, 1024})
        if (!papshim::test::left_to_normal_builds(p)) sizes.push_back(p);
    std::mt19937_64 rng(11);
    for (int p : sizes) {
        for (std::int64_t tau : {std::int64_t{1}, std::int64_t{977}}) {
            if (p > 64 && tau == 1) continue;
            for (const auto& [name, a] : paps(p, tau, rng, p > 128)) {
                // At p ~ 1000 a one-late or staircase build is ~p² per rank: keep the cheap ones.
                if (p >= 1000 && (name.find("1e7") != std::string::npos || name == "staircase")) continue;
                INFO("p=" << p << " tau=" << tau << " " << name);
                const ScheduleSet set = bdr_set(a, tau);
                REQUIRE(papshim::sim::check_data_flow(set) == "");
                // Each block reaches each other rank once: whole, or (the one block left to
                // the piece tail) in p − 1 pieces that leave its owner once and then go to
                // the p − 2 ranks missing each.
                const auto pieces = static_cast<std::size_t>(std::count_if(
                    set.all_sends().begin(), set.all_sends().end(), [](const auto& m) { return m.piece_count > 0; }));
                const auto up = static_cast<std::size_t>(p);
                CHECK((pieces == 0 || pieces == (up - 1) * (up - 1)));
                CHECK(set.send_count() - pieces == up * (up - 1) - (pieces == 0 ? 0 : up - 1));
                // One block per message; at most one whole-block send and one receive per rank
                // and step; pieces only in the last two steps.
                std::vector<int> sends_in(static_cast<std::size_t>(set.max_step_count()), 0);
                for (int r = 0; r < p; ++r) {
                    int last_send = -1, last_recv = -1;
                    for (const auto& m : set.sends(r)) {
                        CHECK(m.block_count == 1);
                        ++sends_in[static_cast<std::size_t>(m.step)];
                        if (m.piece_count > 0) {
                            CHECK(m.step + 2 >= set.max_step_count());
                            continue;
                        }
                        CHECK(m.step > last_send);
                        last_send = m.step;
                    }
                    for (const auto& m : set.recvs(r)) {
                        if (m.piece_count > 0) continue;
                        CHECK(m.step > last_recv);
                        last_recv = m.step;
                    }
                    if (pieces == 0)  // a rank's schedule ends at its last message
                        CHECK(set.step_count(r) == std::max(last_send, last_recv) + 1);
                }
                // Compression: no step is empty for every rank.
                CHECK(std::count(sends_in.begin(), sends_in.end(), 0) == 0);
            }
        }
    }
}

TEST_CASE("BDR with empty blocks: data flow, and an empty block leaves in one pre-step", "[bdr][dataflow][allgatherv]") {
    std::mt19937_64 rng(23);
    for (int p = 1; p <= 40; p += papshim::test::under_sanitizer ? 5 : 1) {
        const std::int64_t tau = 977;
        const auto up = static_cast<std::size_t>(p);
        for (const auto& [name, a] : paps(p, tau, rng, true)) {
            std::vector<std::uint64_t> bytes(up);
            for (auto& b : bytes) b = rng() % 3 == 0 ? 0 : 1 + rng() % 4096;
            INFO("p=" << p << " " << name);
            const ScheduleSet set = sized_bdr_set(a, tau, bytes);
            REQUIRE(papshim::sim::check_data_flow(set) == "");
            // Equal sizes change nothing; wrongly sized, they are ignored.
            const std::vector<std::uint64_t> full(up, 7), short_sizes(up - 1, 0);
            for (int rank = 0; rank < p; ++rank) {
                BuildInput input = bdr_input(p, rank, a, tau);
                const std::string plain = papshim::sim::to_string(build_bdr(input));
                input.block_bytes = full;
                CHECK(papshim::sim::to_string(build_bdr(input)) == plain);
                input.block_bytes = short_sizes;
                CHECK(papshim::sim::to_string(build_bdr(input)) == plain);
            }
            // Per rank and step at most one receive of a non-empty whole block (the single-port
            // step), and an empty block that leaves in a pre-step leaves in one step.
            for (int r = 0; r < p; ++r) {
                std::map<int, int> sized_recvs;
                for (const auto& m : set.recvs(r))
                    if (m.piece_count == 0 && bytes[static_cast<std::size_t>(set.blocks_of(m)[0])] > 0)
                        CHECK(++sized_recvs[m.step] == 1);
                // An empty block with a pre-step budget (a rank at least τ ahead of the last)
                // reaches everybody in its first pre-step.
                if (bytes[static_cast<std::size_t>(r)] == 0 && p > 1 &&
                    *std::max_element(a.begin(), a.end()) - a[static_cast<std::size_t>(r)] >= tau) {
                    std::set<int> steps;
                    for (const auto& m : set.sends(r))
                        if (set.blocks_of(m)[0] == r) steps.insert(m.step);
                    CHECK(steps.size() == 1);
                }
            }
        }
    }
}

TEST_CASE("BDR with unequal blocks: the timed tail passes the data-flow check at any scale", "[bdr][dataflow][allgatherv][tail]") {
    // Unequal sizes choose the tail in a timed model (integer units of τ / 2^16): blocks from
    // 1 byte to 2^62 bytes and arrivals up to 2^61 ns apart must neither overflow it nor
    // break the data flow, and every rank must build its part of one schedule.
    std::mt19937_64 rng(29);
    for (int p = 2; p <= 64; p += papshim::test::under_sanitizer ? 9 : p < 16 ? 1 : 4) {
        const auto up = static_cast<std::size_t>(p);
        for (std::int64_t tau : {std::int64_t{977}, std::int64_t{100'000}, std::int64_t{1} << 40}) {
            for (const auto& [name, a] : paps(p, tau, rng, true)) {
                std::vector<std::uint64_t> bytes(up);
                const int scale = static_cast<int>(rng() % 62);
                for (auto& b : bytes) b = 1 + (rng() >> (63 - scale));
                INFO("p=" << p << " tau=" << tau << " " << name << " sizes up to 2^" << scale);
                const ScheduleSet set = sized_bdr_set(a, tau, bytes);
                REQUIRE(papshim::sim::check_data_flow(set) == "");
            }
        }
        Arrivals spread(up, 0);
        spread.back() = std::int64_t{1} << 61;
        spread.front() = -(std::int64_t{1} << 61);
        const std::vector<std::uint64_t> huge(up, std::uint64_t{1} << 62), mixed = [&] {
            std::vector<std::uint64_t> sizes(up, 1);
            sizes.front() = std::uint64_t{1} << 62;
            return sizes;
        }();
        for (const auto& bytes : {huge, mixed}) {
            INFO("p=" << p << " arrivals 2^62 apart");
            REQUIRE(papshim::sim::check_data_flow(sized_bdr_set(spread, 3, bytes)) == "");
        }
    }
}

TEST_CASE("BDR drops globally empty steps and builds fast at huge ω/τ (§2.4)", "[bdr][compression]") {
    SECTION("one late rank: p − 1 pre-steps whatever ω/τ") {
        for (std::int64_t units : {std::int64_t{40}, std::int64_t{10'000'000}, std::int64_t{1} << 61}) {
            const Arrivals a{0, 0, 0, 0, 0, 0, 0, units};
            const auto plans = bdr_plans(a, 1);
            // Ranks 0..6 each reach all 7 others in 7 pre-steps, rotating receivers.
            CHECK(pre_step_sends(plans, 7) == std::vector<std::int64_t>{7, 7, 7, 7, 7, 7, 7, 0});
            for (const auto& plan : plans) CHECK(plan.steps.size() <= 7 + 7);
            CHECK(papshim::sim::check_data_flow(bdr_set(a, 1)) == "");
        }
    }
    SECTION("the most extreme int64 arrivals") {
        const Arrivals a{std::numeric_limits<std::int64_t>::min(), 0, std::numeric_limits<std::int64_t>::max(), 5};
        CHECK(papshim::sim::check_data_flow(bdr_set(a, 1)) == "");
    }
    SECTION("a staircase 1e7 τ apart, p = 64: every step non-empty, built in milliseconds") {
        Arrivals a(64);
        for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<std::int64_t>(i) * 10'000'000'000LL;
        const auto start = std::chrono::steady_clock::now();
        const Schedule plan = build_bdr(bdr_input(64, 63, a, 1000));
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        // Each of ranks 0..62 sends alone until done, except where the next admission
        // overlaps: far fewer steps than S = 6.3e8, at most p(p−1) + p − 1.
        CHECK(plan.steps.size() <= 64 * 63 + 63);
        CHECK(seconds < 0.5);  // walking 6.3e8 empty steps would take seconds
        CHECK(papshim::sim::check_data_flow(bdr_set(a, 1000)) == "");
    }
}

TEST_CASE("BDR's balanced form is exactly the ring", "[bdr][balanced]") {
    for (int p = 1; p <= 40; ++p) {
        INFO("p=" << p);
        const Arrivals zero(static_cast<std::size_t>(p), 0);
        Arrivals under_tau(static_cast<std::size_t>(p), 0);
        under_tau[0] = 999;  // ω < τ: S = 0
        const Arrivals wrong_size(static_cast<std::size_t>(p + 1), 5000);
        for (int rank = 0; rank < p; ++rank) {
            BuildInput plain;
            plain.ranks = p;
            plain.rank = rank;
            const std::string ring = papshim::sim::to_string(build_ring(plain));
            CHECK(papshim::sim::to_string(build_bdr(plain)) == ring);                             // no prediction
            CHECK(papshim::sim::to_string(build_bdr(bdr_input(p, rank, zero, 1000))) == ring);    // balanced
            CHECK(papshim::sim::to_string(build_bdr(bdr_input(p, rank, under_tau, 1000))) == ring);
            CHECK(papshim::sim::to_string(build_bdr(bdr_input(p, rank, wrong_size, 1000))) == ring);
            Arrivals late = zero;
            late[0] = 5000;
            CHECK(papshim::sim::to_string(build_bdr(bdr_input(p, rank, late, 0))) == ring);       // τ unknown
            CHECK(papshim::sim::to_string(build_bdr(bdr_input(p, rank, late, -3))) == ring);
        }
    }
}

TEST_CASE("with correct predictions BDR's ē is never worse than the ring's (§2.5, §2.7)", "[bdr][timing]") {
    std::mt19937_64 rng(5);
    int better = 0, cases = 0;
    int tail_better = 0, tail_worse = 0;  // build_bdr against the spec's ring tail
    double tail_ratio_sum = 0;
    for (int p = 2; p <= 40; ++p) {
        for (int trial = 0; trial < 60; trial += papshim::test::sample_stride) {
            const std::int64_t tau = trial % 2 == 0 ? 1000 : 997;
            for (const auto& [name, a] : paps(p, tau, rng, true)) {
                if (name.find("1e7") != std::string::npos) continue;  // same shape as one-late first
                INFO("p=" << p << " " << name);
                const auto arrival = as_doubles(a);
                const auto bdr = step_model(bdr_set(a, tau), arrival, static_cast<double>(tau));
                const auto ring = step_model(ring_set(p), arrival, static_cast<double>(tau));
                CHECK(bdr.mean_elapsed <= ring.mean_elapsed);
                better += bdr.mean_elapsed < ring.mean_elapsed ? 1 : 0;
                ++cases;
                const auto spec = step_model(bdr_set(a, tau, build_bdr_spec), arrival, static_cast<double>(tau));
                tail_better += bdr.mean_elapsed < spec.mean_elapsed ? 1 : 0;
                tail_worse += bdr.mean_elapsed > spec.mean_elapsed ? 1 : 0;
                tail_ratio_sum += bdr.mean_elapsed / spec.mean_elapsed;
            }
        }
    }
    CHECK(better > cases / 2);  // and usually strictly better
    // The greedy tail decides on a model where everyone starts the tail together; with real
    // (predicted) arrivals it is still better than the spec's ring tail in most cases
    // (measured: 6,597 better, none worse of 7,020; mean ē 0.89× the spec's).
    INFO("greedy tail: better " << tail_better << ", worse " << tail_worse << " of " << cases
                                << ", mean ē ratio " << tail_ratio_sum / cases);
    CHECK(tail_better > cases / 2);
    CHECK(tail_worse * 20 < cases);
}

TEST_CASE("mispredicted arrivals cost BDR more than the ring (§2.8: why the guard)", "[bdr][timing][mispredicted]") {
    const double tau = 1000;
    SECTION("fully reversed order, the spec's P = 4 example") {
        const Arrivals plan{8000, 5000, 0, 2000};
        const std::vector<double> actual{0, 3000, 8000, 6000};
        // The spec's numbers are for its ring tail (here one block is left, so build_bdr's
        // tree tail would change them; the section below covers build_bdr).
        const auto bdr = step_model(bdr_set(plan, 1000, build_bdr_spec), actual, tau);
        CHECK(elapsed(bdr, actual) == times_tau({17, 15, 11, 13}, tau));
        const auto ring = step_model(ring_set(4), actual, tau);
        CHECK(elapsed(ring, actual) == times_tau({11, 8, 3, 5}, tau));
        CHECK(bdr.mean_elapsed - ring.mean_elapsed == 7.25 * tau);
    }
    SECTION("the late rank predicted earliest: every rank loses (p − 1)τ") {
        for (int p : {4, 8, 12}) {
            for (int late = 0; late < p; ++late) {
                INFO("p=" << p << " late=" << late);
                Arrivals plan(static_cast<std::size_t>(p), 2 * p * 1000);
                plan[static_cast<std::size_t>(late)] = 0;
                std::vector<double> actual(static_cast<std::size_t>(p), 0.0);
                actual[static_cast<std::size_t>(late)] = 2 * p * tau;
                const auto bdr = step_model(bdr_set(plan, 1000, build_bdr_spec), actual, tau);
                const auto ring = step_model(ring_set(p), actual, tau);
                CHECK(bdr.mean_elapsed - ring.mean_elapsed == (p - 1) * tau);
                // build_bdr's greedy tail loses as much or a little less.
                const auto ours = step_model(bdr_set(plan, 1000), actual, tau);
                CHECK(ours.mean_elapsed - ring.mean_elapsed <= (p - 1) * tau);
            }
        }
    }
}

TEST_CASE("Allgatherv: τ of the largest block; empty blocks take no pre-step slot", "[bdr][allgatherv]") {
    // The step is τ of the largest block (docs/algorithms/bdr.md §6): no pre-step then
    // outlasts τ, and BDR stays near the ring or better, where a mean-block τ loses up to 2x.
    // Given the block sizes (block_bytes), an empty block takes no pre-step slot; without
    // them every layout runs the same schedule. Data flow holds with zero-size blocks (the
    // executor skips their messages on both ends).
    TimingModel model;
    model.latency = 50e-6;
    model.per_byte = 8e-9;
    model.contention = true;
    TimingModel background = model;
    background.background_receives = true;
    const int p = 16;
    const auto up = static_cast<std::size_t>(p);
    const double c = 65536;
    std::vector<double> equal(up, c), decreasing, half_full(up, 0.0), spike(up, std::floor(p * c / (p - 1))), geometric,
        broadcast(up, 0.0);
    for (int i = 0; i < p; ++i) decreasing.push_back(std::floor(2 * c * (p - 1 - i) / (p - 1)));
    for (std::size_t i = 0; i < up; i += 2) half_full[i] = 2 * c;
    spike[0] = p * c;
    for (int i = 0; i < p; ++i) geometric.push_back(std::floor(p * c / ((i + 1.5) * std::log(p))));
    broadcast[0] = c;
    const ScheduleSet ring = ring_set(p);
    double mean_tau_worst = 0;
    for (const auto& sizes : {equal, decreasing, half_full, spike, geometric, broadcast}) {
        INFO("first block " << sizes[0]);
        double mean = 0;
        for (double b : sizes) mean += b / p;
        const double tau_mean = model.latency + mean * model.per_byte;
        const double tau_max = model.latency + *std::max_element(sizes.begin(), sizes.end()) * model.per_byte;
        double worst = 0, sum = 0, sized_worst = 0, sized_sum = 0;
        int cases = 0;
        for (double units : {2.0, 8.0, 30.0}) {  // ω/τ at the mean block
            std::vector<std::vector<double>> patterns;
            for (int late : {0, p / 3, p - 1}) {
                patterns.emplace_back(up, 0.0);
                patterns.back()[static_cast<std::size_t>(late)] = units * tau_mean;
            }
            for (std::uint64_t seed : {1, 2, 3})
                patterns.push_back(papshim::sim::make_arrivals({papshim::sim::ArrivalPattern::Kind::uniform, units * tau_mean}, p, seed));
            patterns.push_back(papshim::sim::make_arrivals({papshim::sim::ArrivalPattern::Kind::staircase, units * tau_mean / (p - 1)}, p, 1));
            for (const auto& arrival : patterns) {
                const double earliest = *std::min_element(arrival.begin(), arrival.end());
                Arrivals a;
                for (double x : arrival) a.push_back(std::llround((x - earliest) * 1e9));
                const double ring_elapsed = papshim::sim::simulate_timing(ring, model, arrival, sizes).mean_elapsed;
                std::vector<std::uint64_t> block_bytes;
                for (double b : sizes) block_bytes.push_back(static_cast<std::uint64_t>(b));
                auto ratio = [&](double tau, bool sized = false) {
                    const std::int64_t tau_ns = std::llround(tau * 1e9);
                    const ScheduleSet set = sized ? sized_bdr_set(a, tau_ns, block_bytes) : bdr_set(a, tau_ns);
                    REQUIRE(papshim::sim::check_data_flow(set) == "");
                    return papshim::sim::simulate_timing(set, background, arrival, sizes).mean_elapsed / ring_elapsed;
                };
                const double plain = ratio(tau_max);
                worst = std::max(worst, plain);
                sum += plain;
                const double sized = ratio(tau_max, true);
                sized_worst = std::max(sized_worst, sized);
                sized_sum += sized;
                mean_tau_worst = std::max(mean_tau_worst, ratio(tau_mean));
                ++cases;
            }
        }
        CHECK(worst < 1.2);
        CHECK(sum / cases < 1.01);
        // With sizes (P = 16, worst / mean, unsized → sized): empty blocks take no pre-step
        // slot and unequal blocks choose their tail in the timed model. Half-full 1.00 / 0.81
        // → 1.00 / 0.60, broadcast 1.00 / 0.86 → 1.00 / 0.69, decreasing 1.10 / 0.895 → 1.01 /
        // 0.84, spike 1.15 / 0.90 → 1.00 / 0.78, geometric 1.05 / 0.91 → 1.04 / 0.85; equal
        // blocks unchanged.
        CHECK(sized_worst <= worst + 1e-9);
        CHECK(sized_sum <= sum + 1e-9 * cases);
        if (sizes != equal) CHECK(sized_sum < sum - 0.04 * cases);
    }
    CHECK(mean_tau_worst > 1.5);  // why not the mean block: its pre-steps overrun
}

TEST_CASE("BDR is a pure function of its input, the same on every rank", "[bdr][purity]") {
    std::mt19937_64 rng(3);
    for (int p : {2, 3, 7, 16, 33}) {
        for (const auto& [name, a] : paps(p, 1000, rng, false)) {
            INFO("p=" << p << " " << name);
            Arrivals copy = a;  // another buffer, the same values
            Arrivals shifted = a;
            for (auto& x : shifted) x += 123'456'789;  // only differences matter
            for (int rank = 0; rank < p; ++rank) {
                const std::string once = papshim::sim::to_string(build_bdr(bdr_input(p, rank, a, 1000)));
                CHECK(papshim::sim::to_string(build_bdr(bdr_input(p, rank, a, 1000))) == once);
                CHECK(papshim::sim::to_string(build_bdr(bdr_input(p, rank, copy, 1000))) == once);
                CHECK(papshim::sim::to_string(build_bdr(bdr_input(p, rank, shifted, 1000))) == once);
            }
        }
    }
}

TEST_CASE("the latest rank receives its pre-step blocks before its first send", "[bdr][background]") {
    // What the executor's background part runs: for the latest rank, all its pre-step
    // receives; an early rank starts sending at once.
    std::mt19937_64 rng(9);
    for (int p = 2; p <= 48; ++p) {
        for (const auto& [name, a] : paps(p, 1000, rng, true)) {
            INFO("p=" << p << " " << name);
            const auto latest = static_cast<int>(std::max_element(a.begin(), a.end()) - a.begin());
            const auto earliest = static_cast<int>(std::min_element(a.begin(), a.end()) - a.begin());
            const auto plans = bdr_plans(a, 1000);
            const auto spec = bdr_plans(a, 1000, build_bdr_spec);
            const auto& late = plans[static_cast<std::size_t>(latest)];
            std::size_t first_send = 0, background = 0, total = 0;
            while (first_send < late.steps.size() && late.steps[first_send].sends.empty()) ++first_send;
            for (std::size_t s = 0; s < late.steps.size(); ++s) {
                (s < first_send ? background : total) += late.steps[s].recvs.size();
            }
            std::size_t spec_steps = 0;  // the pre-steps and the ring's p − 1
            for (const auto& plan : spec) spec_steps = std::max(spec_steps, plan.steps.size());
            CHECK(first_send == spec_steps - static_cast<std::size_t>(p - 1));  // its first send is the tail's first step
            CHECK(background + total == static_cast<std::size_t>(p - 1));
            if (a[static_cast<std::size_t>(earliest)] < a[static_cast<std::size_t>(latest)] - 1000) {
                CHECK_FALSE(plans[static_cast<std::size_t>(earliest)].steps[0].sends.empty());
            }
        }
    }
}

TEST_CASE("BDR build cost per rank", "[.bench][bdr]") {
    std::mt19937_64 rng(1);
    const std::int64_t tau = 50'000;  // 1 GbE, 6 KB segments
    fmt::print("{:>6} {:>12} {:>10} {:>12} {:>14}\n", "p", "pattern", "ω/τ", "rank steps", "µs per build");
    for (int p : {8, 64, 1024}) {
        // Unequal blocks (an Allgatherv's, decreasing) also time their tail candidates.
        std::vector<std::uint64_t> decreasing;
        for (int r = 0; r < p; ++r) decreasing.push_back(static_cast<std::uint64_t>(2 * (p - r)));
        for (int units : {0, 2, 10, 100, 1000}) {
            for (int kind = 0; kind < 3; ++kind) {
                const bool one_late = kind == 1, sized = kind == 2;
                Arrivals a(static_cast<std::size_t>(p), 0);
                if (one_late) {
                    a[static_cast<std::size_t>(p / 3)] = units * tau;
                } else {
                    for (auto& x : a) x = units == 0 ? 0 : static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(units * tau));
                }
                // The best of 5 batches after a warm-up: the machine is shared, and the first
                // builds also pay for growing the heap.
                const int repeats = p >= 1024 ? 50 : 2000;
                const auto input = [&](int rank) {
                    BuildInput in = bdr_input(p, rank, a, tau);
                    if (sized) in.block_bytes = decreasing;
                    return in;
                };
                std::size_t steps = build_bdr(input(0)).steps.size();
                double us = std::numeric_limits<double>::infinity();
                for (int batch = 0; batch < 5; ++batch) {
                    const auto start = std::chrono::steady_clock::now();
                    for (int i = 0; i < repeats; ++i) steps = build_bdr(input(i % p)).steps.size();
                    us = std::min(us, std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() / repeats);
                }
                fmt::print("{:>6} {:>12} {:>10} {:>12} {:>14.1f}\n", p, one_late ? "one-late" : sized ? "uniform, sized" : "uniform",
                           units, steps, us);
            }
        }
    }
}

TEST_CASE("one block left: in pieces up to 64 ranks, a tree above, the spec's ring at p = 2", "[bdr][tail]") {
    // One persistently late rank, far later than the pre-steps need: every other block is
    // finished before it arrives. Up to 64 ranks it scatters its own block in p − 1 pieces
    // and the others exchange them; above, the block goes out along a binomial tree.
    std::vector<int> sizes;
    for (int p = 2; p <= 64; ++p) sizes.push_back(p);
    for (int p : {65, 100, 129}) sizes.push_back(p);
    for (int p : sizes) {
        for (int late = 0; late < p; late += std::max(1, p / 5)) {
            INFO("p=" << p << " late=" << late);
            Arrivals a(static_cast<std::size_t>(p), 0);
            a[static_cast<std::size_t>(late)] = 1000 * 4 * p;
            const auto ours = bdr_plans(a, 1000);
            const auto spec = bdr_plans(a, 1000, build_bdr_spec);
            std::size_t ours_steps = 0, spec_steps = 0;
            for (const auto& plan : ours) ours_steps = std::max(ours_steps, plan.steps.size());
            for (const auto& plan : spec) spec_steps = std::max(spec_steps, plan.steps.size());
            const std::size_t pre = spec_steps - static_cast<std::size_t>(p - 1);
            if (p < 3) {  // nothing to split: the spec's schedule
                CHECK(canonical(ours) == canonical(spec));
                continue;
            }
            CHECK(papshim::sim::check_data_flow(ScheduleSet::from(ours)) == "");
            // The pre-steps are the spec's, step for step.
            for (int r = 0; r < p; ++r) {
                const auto& o = ours[static_cast<std::size_t>(r)];
                const auto& q = spec[static_cast<std::size_t>(r)];
                for (std::size_t step = 0; step < pre; ++step) {
                    const bool in_o = step < o.steps.size(), in_q = step < q.steps.size();
                    REQUIRE(in_o == in_q);
                    if (in_o) CHECK(papshim::sim::to_string(Schedule{p, r, p, {o.steps[step]}}) ==
                                    papshim::sim::to_string(Schedule{p, r, p, {q.steps[step]}}));
                }
            }
            // The tail moves only the late rank's block: in p − 1 pieces, which leave the late
            // rank once each and reach the p − 2 others in one more step; whole, along a tree.
            const bool pieces = p <= 64;
            const int log2p = ceil_log2(p);
            CHECK(ours_steps == pre + static_cast<std::size_t>(pieces ? 2 : log2p));
            int tail_messages = 0;
            for (const auto& plan : ours)
                for (std::size_t step = pre; step < plan.steps.size(); ++step)
                    for (const auto& t : plan.steps[step].sends) {
                        CHECK(t.blocks == std::vector<int>{late});
                        CHECK(t.piece.count == (pieces ? p - 1 : 0));
                        ++tail_messages;
                    }
            CHECK(tail_messages == (pieces ? (p - 1) * (p - 1) : p - 1));
            const auto arrival = as_doubles(a);
            const auto tail = step_model(ScheduleSet::from(ours), arrival, 1000);
            const auto ring = step_model(ScheduleSet::from(spec), arrival, 1000);
            if (p == 3)  // two steps either way; the pieces carry half the bytes (the next test)
                CHECK(tail.mean_elapsed == ring.mean_elapsed);
            else
                CHECK(tail.mean_elapsed < ring.mean_elapsed);
            if (pieces) {  // the late rank leaves after its scatter, the others one step later
                for (int r = 0; r < p; ++r)
                    CHECK(tail.exit[static_cast<std::size_t>(r)] == arrival[static_cast<std::size_t>(late)] + (r == late ? 1000 : 2000));
            }
        }
    }
}

TEST_CASE("the piece tail beats a whole-block tree where bandwidth counts", "[bdr][tail][timing]") {
    // An α-β network with one port per rank (contention): 1 MiB blocks at 1 Gbit/s, 50 µs.
    // The late rank's block leaves it once in pieces (about (2 − 1/(p − 1))·β·n after it
    // arrives) instead of ceil(log2 p) times whole; the tree is what build_bdr ran up to
    // 64 ranks before, and what it runs above.
    TimingModel model;
    model.latency = 50e-6;
    model.per_byte = 8e-9;
    model.contention = true;
    model.background_receives = true;
    const double block = 1 << 20;
    for (int p : {4, 8, 16}) {
        INFO("p=" << p);
        Arrivals a(static_cast<std::size_t>(p), 0);
        const auto late = static_cast<std::size_t>(p / 2);
        a[late] = std::int64_t{1000} * 1000 * 1000;  // 1 s: every pre-step is done
        const auto arrival = std::vector<double>(a.size(), 0.0);
        auto seconds = arrival;
        seconds[late] = 1.0;
        const auto ours = papshim::sim::simulate_timing(bdr_set(a, 8'400'000), model, seconds,
                                                        std::vector<double>(a.size(), block));
        const double after_late = *std::max_element(ours.exit.begin(), ours.exit.end()) - 1.0;
        const int log2p = ceil_log2(p);
        const double wire = block * model.per_byte;
        CHECK(after_late < 2 * wire + 2 * model.latency + 1e-9);
        CHECK(after_late < log2p * (wire + model.latency));
    }
}
