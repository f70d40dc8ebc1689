// The predictor's maths (spec allgather-bdr-bslb-and-clairvoyant.md §1.5, DESIGN §5): the
// EMA, SMA and last-value series, the warm-up, and the per-communicator history that predicts
// the next call's signature and arrival from the call-site sequence.

#include <catch.hpp>

#include <cstdint>
#include <optional>
#include <vector>

#include "papshim/predictor.hpp"

using namespace papshim::predict;

namespace {

Settings with(Method method, double alpha = 0.25, int window = 8) {
    Settings s;
    s.method = method;
    s.alpha = alpha;
    s.window = window;
    return s;
}

// Distinct call sites: the history keys them by address only.
const int site_storage[3] = {};
const void* site(int i) { return &site_storage[i]; }

Signature signature_of(std::uint64_t bytes, std::uint8_t collective = 0) {
    Signature s;
    s.collective = collective;
    s.bytes = bytes;
    return s;
}

// `calls` calls of site 0 from `now` on, 1000 ticks apart with 100 inside, call k of
// bytes(k) bytes.
template <class Bytes>
void call_site_0(CommHistory& history, std::uint64_t& now, int calls, Bytes bytes, const Settings& s) {
    for (int k = 0; k < calls; ++k) {
        now += 1'000;
        history.enter(site(0), signature_of(std::uint64_t(bytes(k))), now, s);
        now += 100;
        history.leave(now, s);
    }
}

}  // namespace

TEST_CASE("EMA: the first sample, then alpha times the newest plus the rest") {
    const Settings s = with(Method::ema, 0.25);
    Series series;
    series.add(100, s);
    CHECK(series.value() == 100);
    CHECK_FALSE(series.ready());
    series.add(200, s);
    CHECK(series.value() == Approx(125));  // 0.25·200 + 0.75·100
    CHECK(series.ready());
    series.add(0, s);
    CHECK(series.value() == Approx(93.75));
    CHECK(series.count() == 3);
}

TEST_CASE("SMA: the mean of the available samples until the window fills, then of the window") {
    const Settings s = with(Method::sma, 0.25, 3);
    Series series;
    for (double x : {3.0, 6.0}) series.add(x, s);
    CHECK(series.value() == Approx(4.5));
    series.add(9, s);
    CHECK(series.value() == Approx(6));
    series.add(30, s);  // 3 leaves the window
    CHECK(series.value() == Approx(15));
    series.add(0, s);
    series.add(0, s);
    series.add(0, s);
    CHECK(series.value() == Approx(0));
}

TEST_CASE("last: the newest sample") {
    const Settings s = with(Method::last);
    Series series;
    for (double x : {7.0, 1.0, 42.0}) series.add(x, s);
    CHECK(series.value() == 42);
}

TEST_CASE("the method names round-trip and unknown names are refused") {
    for (Method m : {Method::ema, Method::sma, Method::last}) CHECK(parse_method(method_name(m)) == m);
    CHECK_FALSE(parse_method("EMA"));
    CHECK_FALSE(parse_method(""));
}

TEST_CASE("an Allgatherv's layout is part of its signature") {
    const std::vector<std::uint64_t> decreasing{300, 200, 100, 0}, even{150, 150, 150, 150};
    CHECK(block_hash(decreasing) != 0);
    CHECK(block_hash(decreasing) == block_hash(std::vector<std::uint64_t>{300, 200, 100, 0}));
    CHECK(block_hash(decreasing) != block_hash(even));  // the same total, another layout
    Signature a = signature_of(600, 1), b = a;
    a.blocks = block_hash(decreasing);
    b.blocks = block_hash(even);
    CHECK_FALSE(a == b);
    CHECK(a.hash() != b.hash());
    // Without a layout the hash is the one it always was (other collectives' plans unchanged).
    Signature plain = signature_of(600, 1);
    CHECK(plain.blocks == 0);
    CHECK(plain.hash() != a.hash());
}

TEST_CASE("signature hashes are never 0 and tell the fields apart") {
    Signature a = signature_of(8), b = signature_of(16), c = signature_of(8, 1);
    CHECK(a.hash() != 0);
    CHECK(a.hash() == signature_of(8).hash());
    CHECK(a.hash() != b.hash());
    CHECK(a.hash() != c.hash());
    Signature rooted = a;
    rooted.root = 2;
    CHECK(rooted.hash() != a.hash());
}

// One site called every `period` ticks, `inside` ticks in the call.
TEST_CASE("one site: no prediction before 2 samples of each series, then entry + time inside + interval") {
    const Settings s = with(Method::ema);
    CommHistory history;
    const std::uint64_t period = 10'000, inside = 3'000;
    std::vector<std::optional<Prediction>> expected;
    for (std::uint64_t k = 0; k < 6; ++k) {
        const std::uint64_t a = 1'000'000 + k * period;
        expected.push_back(history.enter(site(0), signature_of(64), a, s));
        if (k >= 2) {
            // Call k+1's prediction exists from call 2's entry: two time-inside samples
            // (calls 0, 1) and two compute intervals (before calls 1, 2).
            REQUIRE(history.next());
            CHECK(history.next()->arrival == a + period);
            CHECK(history.next()->signature == signature_of(64));
        } else {
            CHECK_FALSE(history.next());
        }
        history.leave(a + inside, s);
    }
    CHECK_FALSE(expected[0]);
    CHECK_FALSE(expected[2]);
    REQUIRE(expected[3]);
    CHECK(expected[3]->arrival == 1'000'000 + 3 * period);
}

TEST_CASE("the prediction made at entry is the one returned at the next entry: the exit does not change it") {
    // Barrier-synchronised arrivals every `period` ticks; the exits jitter by up to half the
    // period. What the exchange carried at entry is what the trace records next time.
    for (Method method : {Method::ema, Method::sma, Method::last}) {
        const Settings s = with(method);
        CommHistory history;
        const std::uint64_t period = 100'000;
        std::optional<Prediction> carried;
        for (std::uint64_t k = 0; k < 40; ++k) {
            const std::uint64_t a = 5'000'000 + k * period;
            const auto expected = history.enter(site(0), signature_of(64), a, s);
            if (carried) {
                REQUIRE(expected);
                CHECK(expected->arrival == carried->arrival);
                // EMA and SMA of (time inside + next interval) = the arrival period whatever
                // the exits did, up to the doubles' rounding.
                CHECK(double(expected->arrival) == Approx(double(a)).margin(3));
            }
            carried = history.next();
            const std::uint64_t jitter = (k * 7919) % (period / 2);
            history.leave(a + 1'000 + jitter, s);
        }
    }
}

TEST_CASE("two sites alternating: each call is predicted with the successor's signature and interval") {
    const Settings s = with(Method::last);
    CommHistory history;
    // A (8 bytes) then B (4096 bytes): A→B 1000 ticks of compute, B→A 5000; 200 inside each.
    std::uint64_t now = 0;
    std::optional<Prediction> prediction;
    for (int k = 0; k < 12; ++k) {
        const bool a_site = k % 2 == 0;
        now += a_site ? 5'000 : 1'000;
        const auto expected = history.enter(site(a_site ? 0 : 1), signature_of(a_site ? 8 : 4096), now, s);
        if (k >= 6) {
            REQUIRE(expected);
            CHECK(expected->arrival == now);
            CHECK(expected->signature == signature_of(a_site ? 8 : 4096));
        }
        prediction = history.next();
        now += 200;
        history.leave(now, s);
    }
    REQUIRE(prediction);
    CHECK(prediction->signature == signature_of(8));  // the last call was B; after B comes A
}

TEST_CASE("a site that changes its size predicts the size it had last") {
    const Settings s = with(Method::ema);
    CommHistory history;
    std::uint64_t now = 0;
    call_site_0(history, now, 8, [](int k) { return k < 4 ? 1024 : 2048; }, s);
    REQUIRE(history.next());
    CHECK(history.next()->signature == signature_of(2048));
}

TEST_CASE("a rooted site whose root rotates: each rank's exit is predicted from its calls in the same role") {
    // This rank is the root of one call in four and then stays 9 000 ticks inside, 1 000
    // otherwise; it computes 5 000 ticks between calls. One series of time inside for both
    // roles would put every call after a root call 8 000 ticks early under `last`, and mix the
    // roles under EMA and SMA; a series per role predicts every call exactly once both have
    // two samples.
    for (Method method : {Method::ema, Method::sma, Method::last}) {
        const Settings s = with(method);
        CommHistory history;
        const std::uint64_t as_root = 9'000, otherwise = 1'000, compute = 5'000;
        std::uint64_t now = 1'000'000;
        for (int k = 0; k < 24; ++k) {
            const bool root = k % 4 == 0;
            Signature sig = signature_of(64);
            sig.root = k % 4;  // this rank is rank 0
            const auto expected = history.enter(site(0), sig, now, s, root);
            if (k >= 10) {  // two root calls (0, 4) and two non-root calls behind every series
                INFO("method " << int(method) << ", call " << k);
                REQUIRE(expected);
                CHECK(expected->arrival == now);
            }
            now += (root ? as_root : otherwise);
            history.leave(now, s);
            now += compute;
        }
    }
}

TEST_CASE("a rotating root whose next entry follows the others, not its own exit") {
    // A barrier (or an unintercepted collective) between the calls: every rank enters call
    // k + 1 one period after call k, whatever its exit. The root stays 9 000 ticks inside and
    // then computes 8 000 ticks less than a non-root before the next entry. From one compute
    // series for both roles the call after a root call was predicted up to 8 000 ticks late;
    // the series after root calls made it exact once it had two samples, and so does the
    // time between entries, steady here, which the prediction now takes where the exit's
    // missed more.
    for (Method method : {Method::ema, Method::sma, Method::last}) {
        const Settings s = with(method);
        CommHistory history(4);
        const std::uint64_t period = 20'000;
        for (int k = 0; k < 24; ++k) {
            const std::uint64_t arrival = 1'000'000 + period * std::uint64_t(k);
            const bool root = k % 4 == 0;
            Signature sig = signature_of(64);
            sig.root = k % 4;  // this rank is rank 0
            const auto expected = history.enter(site(0), sig, arrival, s, root);
            if (k >= 10) {
                INFO("method " << int(method) << ", call " << k);
                REQUIRE(expected);
                if (k % 4 == 1) CHECK(expected->arrival == arrival);  // after a root call
                CHECK(expected->signature.root == k % 4);
            }
            history.leave(arrival + (root ? 9'000 : 1'000), s);
        }
    }
}

TEST_CASE("after a root call, where the time between calls swings alike on every rank, no root predicts from its own series") {
    // As papshim-bench's rotated order of two algorithms: every rank enters one period after
    // the previous entry, the period alternating 20 000 and 120 000 ticks. Every rank's
    // series swing alike; the root's own compute series after root calls would catch one
    // phase only (each rank is the root every fourth call), so its error would be its own.
    // Each rank predicts either from its exit with the common compute series (entry + time
    // inside as root + the common series, compute_series' rule) or from its entry (+ the
    // time between entries, the same on every rank), whichever missed less on that rank:
    // both err with the others, the own series' value is never used.
    const Settings s = with(Method::ema);
    constexpr int kRanks = 4;
    for (int rank = 0; rank < kRanks; ++rank) {
        CommHistory history(kRanks);
        Series common, inside_root, between;
        std::uint64_t arrival = 1'000'000, previous_exit = 0, previous_arrival = 0;
        for (int k = 0; k < 40; ++k) {
            const bool root = k % kRanks == rank;
            Signature sig = signature_of(64);
            sig.root = k % kRanks;
            history.enter(site(0), sig, arrival, s, root);
            if (k > 0) {
                common.add(double(arrival - previous_exit), s);
                between.add(double(arrival - previous_arrival), s);
            }
            const std::uint64_t exit = arrival + (root ? 9'000 : 1'000);
            if (root && k >= 16) {
                INFO("rank " << rank << ", call " << k);
                REQUIRE(history.next());
                const std::uint64_t from_exit =
                    arrival + std::uint64_t(inside_root.value()) + std::uint64_t(common.value());
                const std::uint64_t from_entry = arrival + std::uint64_t(between.value());
                CHECK((history.next()->arrival == from_exit || history.next()->arrival == from_entry));
            }
            if (root) inside_root.add(9'000, s);
            history.leave(exit, s);
            previous_exit = exit;
            previous_arrival = arrival;
            arrival += k % 2 == 0 ? 20'000 : 120'000;
        }
    }
}

TEST_CASE("a site whose root moves by a constant step predicts the next root") {
    // A loop that reduces to each rank in turn (step 1), every third rank (step 3 of 8), or
    // one fixed root (step 0). The root is predicted once two steps agree, wrapping at the
    // communicator's size; a step that changes predicts the last root until it repeats.
    const Settings s = with(Method::ema);
    for (const int step : {0, 1, 3, 7}) {
        CommHistory history(8);
        std::uint64_t now = 0;
        for (int k = 0; k < 20; ++k) {
            Signature sig = signature_of(1024);
            sig.root = (5 + step * k) % 8;
            now += 1'000;
            history.enter(site(0), sig, now, s);
            now += 100;
            history.leave(now, s);
            if (k >= 2) {
                INFO("step " << step << ", call " << k);
                REQUIRE(history.next());
                CHECK(history.next()->signature.root == (5 + step * (k + 1)) % 8);
            }
        }
    }
    SECTION("a broken rotation predicts the last root, then the new step once it repeats") {
        CommHistory history(4);
        std::uint64_t now = 0;
        const int roots[] = {0, 1, 2, 3, 1, 3, 1, 3};  // step 1, then 2 (mod 4)
        const int predicted[] = {-9, -9, 3, 0, 1, 1, 3, 1};
        for (int k = 0; k < 8; ++k) {
            Signature sig = signature_of(64);
            sig.root = roots[k];
            now += 1'000;
            history.enter(site(0), sig, now, s);
            now += 100;
            history.leave(now, s);
            if (predicted[k] < 0) continue;
            INFO("call " << k);
            REQUIRE(history.next());
            CHECK(history.next()->signature.root == predicted[k]);
        }
    }
    SECTION("without the communicator's size the root is predicted to repeat") {
        CommHistory history;
        std::uint64_t now = 0;
        for (int k = 0; k < 6; ++k) {
            Signature sig = signature_of(64);
            sig.root = k % 4;
            now += 1'000;
            history.enter(site(0), sig, now, s);
            now += 100;
            history.leave(now, s);
        }
        REQUIRE(history.next());
        CHECK(history.next()->signature.root == 1);
    }
}

TEST_CASE("a rotating root whose root calls come from a site of their own") {
    // `if (rank == root) MPI_Reduce(MPI_IN_PLACE, ...) else MPI_Reduce(...)` in a loop over
    // roots: every rank makes one call in p from its own root site. Each site sees a broken
    // rotation, a different one on every rank; the communicator's stream of that signature
    // sees the whole one, so every rank predicts every root, as it does from one site.
    const Settings s = with(Method::ema);
    constexpr int kRanks = 8;
    for (const int step : {1, 3}) {
        for (int rank = 0; rank < kRanks; ++rank) {
            CommHistory history(kRanks);
            std::uint64_t now = 0;
            int checked = 0;
            for (int k = 0; k < 6 * kRanks; ++k) {
                Signature sig = signature_of(1024);
                sig.root = step * k % kRanks;
                const bool at_root = sig.root == rank;
                now += 1'000;
                history.enter(site(at_root ? 1 : 0), sig, now, s, at_root);
                now += at_root ? 300 : 100;
                history.leave(now, s);
                if (k < 3 || !history.next()) continue;
                INFO("step " << step << ", rank " << rank << ", call " << k);
                CHECK(history.next()->signature.root == step * (k + 1) % kRanks);
                ++checked;
            }
            CHECK(checked >= 4 * kRanks);
        }
    }
}

TEST_CASE("a rotating root's calls from a site of its own are learnt as the loop's calls") {
    // The same loop, timed: every rank computes 1 000 ticks between calls and spends 100
    // inside as a non-root, 300 as the root. Once the stream is trusted, a root call is learnt
    // as a call of the rank's non-root site: the root predicts from the loop's series (not
    // from a site entered once in p calls, which warms up after 2p calls), and every
    // prediction is exact once the root's own time inside has two samples.
    const Settings s = with(Method::last);
    for (const int ranks : {4, 8}) {
        for (int rank = 0; rank < ranks; ++rank) {
            CommHistory history(ranks);
            std::uint64_t now = 0;
            std::optional<Prediction> predicted;
            for (int k = 0; k < 6 * ranks; ++k) {
                Signature sig = signature_of(4096);
                sig.root = k % ranks;
                const bool at_root = sig.root == rank;
                now += 1'000;
                INFO("p = " << ranks << ", rank " << rank << ", call " << k);
                if (k >= 4 * ranks) {
                    REQUIRE(predicted);
                    CHECK(predicted->arrival == now);
                    CHECK(predicted->signature == sig);
                }
                history.enter(site(at_root ? 1 : 0), sig, now, s, at_root);
                if (k > ranks) REQUIRE(history.next());
                predicted = history.next();
                now += at_root ? 300 : 100;
                history.leave(now, s);
            }
        }
    }
}

TEST_CASE("ranks that restart together after exits that vary are predicted from the time between entries") {
    // A Reduce followed by a barrier: this rank leaves the Reduce 1 000 to 40 000 ticks after
    // entering, by its place in that call's tree, and every rank enters the next one 100 000
    // ticks after the last entry (the barrier waits for the slowest). The time from the exit
    // swings with the exit; the time between entries does not, and once it has missed by
    // less the predictions come from it.
    const Settings s = with(Method::ema);
    CommHistory history(4);
    const std::uint64_t inside[] = {1'000, 40'000, 12'000, 25'000, 3'000};
    std::optional<Prediction> predicted;
    for (int k = 0; k < 40; ++k) {
        const std::uint64_t arrival = 1'000'000 + 100'000 * std::uint64_t(k);
        INFO("call " << k);
        if (k >= 6) {
            REQUIRE(predicted);
            CHECK(predicted->arrival == arrival);
        }
        history.enter(site(0), signature_of(4096), arrival, s);
        predicted = history.next();
        history.leave(arrival + inside[k % 5], s);
    }
}

TEST_CASE("two sites of one signature, one rotating and one fixed, each predicted from its own roots") {
    // A reduces to rank k, B always to rank 0, alternating (p = 7): the communicator's stream
    // of the signature steps by -k and k + 1 in turn, twice equal at k = 3 but never three
    // times, so each site keeps predicting its own roots.
    const Settings s = with(Method::ema);
    constexpr int kRanks = 7;
    CommHistory history(kRanks);
    std::uint64_t now = 0;
    for (int k = 0; k < 4 * kRanks; ++k) {
        for (const bool a_site : {true, false}) {
            Signature sig = signature_of(512);
            sig.root = a_site ? k % kRanks : 0;
            now += 1'000;
            history.enter(site(a_site ? 0 : 1), sig, now, s);
            now += 100;
            history.leave(now, s);
            if (k < 2) continue;
            INFO("call " << k << (a_site ? " at A" : " at B"));
            REQUIRE(history.next());
            CHECK(history.next()->signature.root == (a_site ? 0 : (k + 1) % kRanks));
        }
    }
}

TEST_CASE("sites with fixed roots of their own keep their series where the roots interleave into a constant step") {
    // X reduces to rank 0 and Y to rank p/2, alternating: the stream's step is p/2 every time
    // and is trusted, but each site's root is fixed, so the root's calls stay at its own site
    // (learnt as the other site, its series would mix two intervals). Different compute
    // before X and Y: every rank predicts exactly once each site has its samples.
    const Settings s = with(Method::last);
    for (const int ranks : {2, 4, 6}) {
        for (int rank = 0; rank < ranks; ++rank) {
            CommHistory history(ranks);
            std::uint64_t now = 0;
            std::optional<Prediction> predicted;
            for (int k = 0; k < 24; ++k) {
                const bool at_x = k % 2 == 0;
                Signature sig = signature_of(2048);
                sig.root = at_x ? 0 : ranks / 2;
                const bool at_root = sig.root == rank;
                now += at_x ? 5'000 : 20'000;
                INFO("p = " << ranks << ", rank " << rank << ", call " << k);
                if (k >= 8) {
                    REQUIRE(predicted);
                    CHECK(predicted->arrival == now);
                    CHECK(predicted->signature == sig);
                }
                history.enter(site(at_x ? 0 : 1), sig, now, s, at_root);
                predicted = history.next();
                now += at_root ? 700 : 100;
                history.leave(now, s);
            }
        }
    }
}

TEST_CASE("a site never followed before predicts nothing") {
    const Settings s = with(Method::ema);
    CommHistory history;
    std::uint64_t now = 0;
    call_site_0(history, now, 5, [](int) { return 8; }, s);
    REQUIRE(history.next());
    // A new site follows: its series have a sample at most, so the next call has no prediction.
    now += 1'000;
    history.enter(site(2), signature_of(8), now, s);
    CHECK_FALSE(history.next());
}
