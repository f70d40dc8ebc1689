// The node algorithms' wait (node::Backoff): how long it spins before giving its core away.
#include <catch.hpp>

#include <chrono>
#include <thread>

#include "papshim/node_shared.hpp"

using namespace papshim;

namespace {

void pause_times(node::Backoff& backoff, unsigned rounds) {
    for (unsigned i = 0; i < rounds; ++i) backoff.pause();
}

struct RestoreSpin {
    bool saved = spin_on_own_core();
    ~RestoreSpin() { set_spin_on_own_core(saved); }
};

}  // namespace

TEST_CASE("with a core of its own a waiter spins past the short spin until its budget is spent") {
    node::Backoff backoff(true);
    pause_times(backoff, node::Backoff::kSpinRounds - 1);
    CHECK_FALSE(backoff.own_core_spin());  // inside the short spin every policy shares
    backoff.pause();
    CHECK(backoff.own_core_spin());
    std::this_thread::sleep_for(std::chrono::nanoseconds(2 * node::Backoff::kOwnCoreSpinNs));
    pause_times(backoff, node::Backoff::kSpinRounds);  // the clock is read every kSpinRounds
    CHECK_FALSE(backoff.own_core_spin());
    pause_times(backoff, 4 * node::Backoff::kSpinRounds);  // yields and naps: no second spin
    CHECK_FALSE(backoff.own_core_spin());
    backoff.reset();  // progress: the next wait gets the whole budget again
    pause_times(backoff, node::Backoff::kSpinRounds);
    CHECK(backoff.own_core_spin());
}

TEST_CASE("without the own-core spin a waiter yields after the short spin") {
    node::Backoff backoff;
    pause_times(backoff, 2 * node::Backoff::kSpinRounds);
    CHECK_FALSE(backoff.own_core_spin());
}

TEST_CASE("only short calls on a node measured to have a core per rank spin") {
    RestoreSpin restore;
    set_spin_on_own_core(true);
    CHECK(node::short_wait(8));
    CHECK(node::short_wait(node::kOwnCoreSpinMaxBytes));
    CHECK_FALSE(node::short_wait(node::kOwnCoreSpinMaxBytes + 1));
    set_spin_on_own_core(false);  // shared cores, PAPSHIM_WAIT=yield, or not measured
    CHECK_FALSE(node::short_wait(8));
}
