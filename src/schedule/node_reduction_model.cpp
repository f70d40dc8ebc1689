// Timing models of papshim's node-level reductions (simulator.hpp): the shared-memory dynamic
// leader (simulate_dynamic_leader, after src/algorithms/node_steps.cpp's leader_reduce and
// copy_partial), and the arrival chain, hierarchical and symmetric algorithms
// (simulate_node_reduction, after src/algorithms/{reduce,allreduce}/arrival_chain.cpp,
// allreduce/hierarchical.cpp and allreduce/symmetric_shm.cpp).
// They are not one schedule: a rank runs phases one after the other (inside its node, among
// the node leaders, inside its node again), so each phase is simulated from the exit times of
// the one before. Messages inside a node take the model's latency and per_byte, between node
// leaders its inter_latency and inter_per_byte; shared-memory steps cost copies and flags.

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "../algorithms/allreduce/builders.hpp"
#include "../algorithms/node_steps.hpp"
#include "../algorithms/reduce/builders.hpp"
#include "../algorithms/reduction_steps.hpp"
#include "papshim/simulator.hpp"

namespace papshim::sim {
namespace {

// The costs of the shared-memory steps. A message through shared memory copies its bytes
// twice (into the shared buffer and out), so one copy of the vector costs half a message's
// time per byte.
struct SharedMemoryCosts {
    double copy, reduce, seen;
    SharedMemoryCosts(double bytes, const TimingModel& model)
        : copy(model.overhead + bytes * model.per_byte / 2),
          // One PMPI_Reduce_local of a slot into the partial.
          reduce(model.overhead + bytes * (model.per_byte / 2 + model.reduce_per_byte)),
          seen(model.latency) {}  // a flag stored on one core, seen on another
    // A rank free at `ready` waits for a vector published in the shared slot at `published`
    // (its flag seen), then copies it out: when it is done.
    double copied_out(double ready, double published) const { return std::max(ready, published + seen) + copy; }
};

// Ranks by arrival, ties to the lower rank: the order of the chain's tickets and of the
// dynamic leader's claim.
std::vector<int> arrival_order(std::span<const double> arrival) {
    std::vector<int> order(arrival.size());
    std::iota(order.begin(), order.end(), 0);
    std::ranges::stable_sort(order, [&](int x, int y) { return arrival[std::size_t(x)] < arrival[std::size_t(y)]; });
    return order;
}

// leader_reduce on one node: the first arriver copies its vector, reduces every other
// deposit once its flag is seen, in the order they appear, and publishes the partial in the
// result slot at `published`; the others' deposits are done at `deposited`.
struct LeaderPhase {
    int leader = 0;
    double published = 0;
    std::vector<double> deposited;
};
LeaderPhase leader_phase(std::span<const double> arrival, const SharedMemoryCosts& cost) {
    const auto order = arrival_order(arrival);
    LeaderPhase phase{.leader = order.front(), .published = 0, .deposited = {}};
    for (double a : arrival) phase.deposited.push_back(a + cost.copy);
    // Not in place: with MPI_IN_PLACE leader_reduce skips the leader's first copy.
    double time = arrival[std::size_t(phase.leader)] + cost.copy;
    for (std::size_t k = 1; k < order.size(); ++k)
        time = std::max(time, phase.deposited[std::size_t(order[k])] + cost.seen) + cost.reduce;
    phase.published = time + cost.copy;  // into the result slot
    phase.deposited[std::size_t(phase.leader)] = phase.published;
    return phase;
}

// symmetric_reduce on one node (local ranks 0..n-1 are members[0..n-1]): every rank's
// deposit is done at its arrival plus a copy; a rank that combines (all, or only local rank
// 0 where `only_first`) takes the deposits from the highest local rank down, each once its
// flag is seen (its own at once), copying the first into its sum and reducing the others in,
// then copies the sum out. The others leave once deposited.
void symmetric_phase(std::span<const int> members, const SharedMemoryCosts& cost, bool only_first,
                     std::vector<double>& now) {
    std::vector<double> deposited;
    for (int rank : members) deposited.push_back(now[std::size_t(rank)] + cost.copy);
    const int n = int(members.size());
    for (int me = 0; me < n; ++me) {
        double time = deposited[std::size_t(me)];
        if (!only_first || me == 0) {
            for (int r = n - 1; r >= 0; --r) {
                if (r != me) time = std::max(time, deposited[std::size_t(r)] + cost.seen);
                time += r == n - 1 ? cost.copy : cost.reduce;
            }
            time += cost.copy;
        }
        now[std::size_t(members[std::size_t(me)])] = time;
    }
}

// A model with every pair of ranks alike: inside one node, or among node leaders.
TimingModel inside_node(const TimingModel& model) {
    TimingModel one = model;
    one.ranks_per_node = 0;
    one.cyclic_mapping = false;
    one.background_receives = false;  // BDR's helper thread: no reduction phase has one
    return one;
}
TimingModel among_leaders(const TimingModel& model) {
    TimingModel leaders = inside_node(model);
    leaders.latency = model.inter_latency;
    leaders.per_byte = model.inter_per_byte;
    return leaders;
}

// Runs `set` on the ranks `members` (set rank i is members[i]), each starting at its time in
// `now`, and moves their times to their exits. The vector is split evenly over the blocks.
void run_phase(const ScheduleSet& set, std::span<const int> members, double bytes, const TimingModel& model,
               std::vector<double>& now) {
    std::vector<double> start;
    for (int rank : members) start.push_back(now[std::size_t(rank)]);
    const std::vector<double> sizes(std::size_t(set.blocks()), bytes / set.blocks());
    const TimingResult result = simulate_timing(set, model, start, sizes);
    for (std::size_t i = 0; i < members.size(); ++i) now[std::size_t(members[i])] = result.exit[i];
}

ScheduleSet build_set(schedule::Builder build, int ranks, int root) {
    schedule::BuildInput input;
    input.root = root;
    return ScheduleSet::build(build, ranks, input);
}

// chain_reduce on one node (local ranks 0..n-1 are members[0..n-1]), after node_steps.cpp:
// ranks take tickets in arrival order; the first sends its vector, in pieces of
// node::kChainPieceBytes (the last one the remainder), once the second has taken its ticket
// (its flag seen); every other rank reduces each piece as it arrives and passes on the pieces
// it has reduced once the next rank is known (one thread: receives, reductions and sends on
// one clock); the last arriver relays the result to local rank `target` the same way, or keeps
// it (target -1); the target receives it after its own part. Messages as in simulate_timing,
// eager: overhead o on each side, injected at once (or one after another on the sender's link
// with contention), latency + bytes * per_byte to arrive, γ per byte to reduce in. Returns the
// last arriver's local rank.
int chain_phase(std::span<const int> members, double bytes, int target, const TimingModel& model,
                std::vector<double>& now) {
    const int n = int(members.size());
    std::vector<double> local;
    for (int rank : members) local.push_back(now[std::size_t(rank)]);
    const auto order = arrival_order(local);
    const int last = order.back();
    if (n == 1) return last;
    const double full = double(node::kChainPieceBytes);
    const int pieces = int(std::max(1.0, std::ceil(bytes / full)));
    auto piece_bytes = [&](int j) { return std::min(full, bytes - j * full); };

    // One rank's clock and links while it relays.
    struct Relay {
        double cpu, send_link, receive_link;
        std::vector<double> sent;  // when each piece it sent arrives at the next rank
    };
    auto send_piece = [&](Relay& relay, int j) {
        relay.cpu += model.overhead;
        const double inject = model.contention ? std::max(relay.cpu, relay.send_link) : relay.cpu;
        relay.send_link = inject + piece_bytes(j) * model.per_byte;
        relay.sent.push_back(relay.send_link + model.latency);
    };
    // Receives `arrive` (reducing each piece in when `combine`) and, once `known` (infinite:
    // never), sends the pieces reduced so far, as relay_pieces' loop does. Returns the time
    // its last send left or its last piece was reduced, whichever is later.
    auto relay = [&](Relay& r, std::span<const double> arrive, bool combine, double known) {
        int reduced = 0, sent = 0;
        auto send_pending = [&](double until) {
            if (known > until) return;
            r.cpu = std::max(r.cpu, known);
            while (sent < reduced) send_piece(r, sent++);
        };
        for (int j = 0; j < pieces; ++j) {
            double received = arrive.empty() ? r.cpu : arrive[std::size_t(j)];
            if (!arrive.empty() && model.contention)
                received = std::max(received, r.receive_link + piece_bytes(j) * model.per_byte);
            r.receive_link = received;
            send_pending(received);  // the next rank became known while this piece came
            r.cpu = std::max(r.cpu, received) + (arrive.empty() ? 0.0 : model.overhead) +
                    (combine ? piece_bytes(j) * model.reduce_per_byte : 0.0);
            ++reduced;
            send_pending(r.cpu);
        }
        if (sent < reduced && std::isfinite(known)) send_pending(known);
        return std::max(r.cpu, r.send_link);
    };
    const SharedMemoryCosts cost(bytes, model);
    const double never = std::numeric_limits<double>::infinity();
    std::vector<double> arrive, result_arrive;
    std::vector<double> leave(static_cast<std::size_t>(n));
    for (int k = 0; k < n; ++k) {
        const int me = order[std::size_t(k)];
        const double start = local[std::size_t(me)];
        Relay r{.cpu = start, .send_link = start, .receive_link = start, .sent = {}};
        const bool is_last = k == n - 1;
        const bool relays_result = is_last && target >= 0 && target != me;
        // Whom to send to is known once that rank's ticket is seen; the last knows the target.
        const double known = !is_last ? local[std::size_t(order[std::size_t(k) + 1])] + cost.seen
                             : relays_result ? start
                                             : never;
        // The first arriver's pieces are its own vector: ready at once.
        leave[std::size_t(me)] = relay(r, k == 0 ? std::span<const double>{} : std::span<const double>(arrive), k > 0, known);
        (is_last ? result_arrive : arrive) = std::move(r.sent);
    }
    if (target >= 0 && target != last) {
        Relay r{.cpu = leave[std::size_t(target)], .send_link = 0, .receive_link = leave[std::size_t(target)], .sent = {}};
        leave[std::size_t(target)] = relay(r, result_arrive, false, never);
    }
    for (int r = 0; r < n; ++r) now[std::size_t(members[std::size_t(r)])] = leave[std::size_t(r)];
    return last;
}

// node_bcast from local rank `root`: through the result slot when the vector fits it (the
// root copies in and raises a flag, the others copy out), else a binomial tree.
void bcast_phase(std::span<const int> members, double bytes, int root, bool fits_slot, const TimingModel& model,
                 std::vector<double>& now) {
    const int n = int(members.size());
    if (n == 1) return;
    if (!fits_slot) {
        run_phase(build_set(reduction::build_binomial_bcast, n, root), members, bytes, model, now);
        return;
    }
    const SharedMemoryCosts cost(bytes, model);
    const double published = now[std::size_t(members[std::size_t(root)])] + cost.copy;
    for (int r = 0; r < n; ++r) {
        double& t = now[std::size_t(members[std::size_t(r)])];
        t = r == root ? published : cost.copied_out(t, published);
    }
}

// The dynamic leader's Reduce on one node (reduce/dynamic_leader.cpp): ranks deposit and
// leave, but local rank `target`, which takes the partial: accumulated in its own buffer
// when it leads (no copy into the result slot), else copied out of the result slot.
void leader_reduce_phase(std::span<const int> members, double bytes, int target, const TimingModel& model,
                         std::vector<double>& now) {
    if (members.size() == 1) return;  // as chain_phase: a copy at most
    std::vector<double> local;
    for (int rank : members) local.push_back(now[std::size_t(rank)]);
    const SharedMemoryCosts cost(bytes, model);
    const LeaderPhase phase = leader_phase(local, cost);
    for (std::size_t i = 0; i < members.size(); ++i) {
        double& t = now[std::size_t(members[i])];
        if (int(i) == target) {
            t = int(i) == phase.leader ? phase.published - cost.copy : cost.copied_out(phase.deposited[i], phase.published);
        } else {
            t = phase.deposited[i];  // the leader's: when it published
        }
    }
}

void check_dynamic_leader_model(int ranks, const TimingModel& model) {
    if (ranks <= 0) throw std::invalid_argument("dynamic_leader: no ranks");
    if (model.ranks_per_node > 0 && model.ranks_per_node < ranks)
        throw std::invalid_argument("simulate_dynamic_leader models one node (simulate_node_reduction, several)");
}

}  // namespace


TimingResult simulate_dynamic_leader(std::span<const double> arrival, double bytes, const TimingModel& model) {
    check_dynamic_leader_model(int(arrival.size()), model);
    const SharedMemoryCosts cost(bytes, model);
    const LeaderPhase phase = leader_phase(arrival, cost);
    // The others deposited; they wait for the published result and copy it out.
    std::vector<double> exit(arrival.size());
    for (std::size_t r = 0; r < arrival.size(); ++r)
        exit[r] = int(r) == phase.leader ? phase.published : cost.copied_out(phase.deposited[r], phase.published);
    return timing_of_exits(arrival, std::move(exit));
}

void check_node_reduction_model(const TimingModel& model) {
    if (model.ranks_per_node < 0) throw std::invalid_argument("ranks_per_node must be >= 0");
    if (model.cyclic_mapping)
        throw std::invalid_argument("the node algorithms are modelled on consecutive nodes only (PAPSHIM_NODE_SIZE's)");
    if (std::isfinite(model.rendezvous_bytes))
        throw std::invalid_argument("the node algorithms' chain is modelled with eager messages only (no --rendezvous)");
}

TimingResult simulate_node_reduction(NodeReduction algorithm, std::span<const double> arrival, double bytes, int root,
                                     double slot_bytes, const TimingModel& model) {
    const int p = int(arrival.size());
    if (p <= 0) throw std::invalid_argument("node reduction: no ranks");
    check_node_reduction_model(model);
    const bool reduce = algorithm == NodeReduction::reduce_arrival_chain || algorithm == NodeReduction::reduce_dynamic_leader;
    if (reduce && (root < 0 || root >= p)) throw std::invalid_argument("node reduction: the Reduce root is not a rank");
    // Nodes of ranks_per_node consecutive ranks (the last one may be smaller), or one.
    const int per_node = model.ranks_per_node > 0 ? std::min(model.ranks_per_node, p) : p;
    std::vector<std::vector<int>> nodes;
    std::vector<int> leaders;
    for (int first = 0; first < p; first += per_node) {
        nodes.emplace_back(std::size_t(std::min(per_node, p - first)));
        std::iota(nodes.back().begin(), nodes.back().end(), first);
        leaders.push_back(first);  // local rank 0
    }
    const TimingModel node_model = inside_node(model), leader_model = among_leaders(model);
    const bool fits_slot = algorithm == NodeReduction::allreduce_dynamic_leader ||
                           algorithm == NodeReduction::reduce_dynamic_leader ||
                           algorithm == NodeReduction::allreduce_symmetric || bytes <= slot_bytes;
    std::vector<double> now(arrival.begin(), arrival.end());
    const int node_count = int(nodes.size());

    if (reduce) {
        const int root_node = root / per_node, root_local = root % per_node;
        // Each node's partial to its local rank `target` (the root on one node, else 0).
        const int target = node_count == 1 ? root_local : 0;
        for (const auto& node : nodes) {
            if (algorithm == NodeReduction::reduce_arrival_chain) {
                chain_phase(node, bytes, target, node_model, now);
            } else {
                leader_reduce_phase(node, bytes, target, node_model, now);
            }
        }
        if (node_count == 1) return timing_of_exits(arrival, std::move(now));
        run_phase(build_set(reduce::build_binomial, node_count, root_node), leaders, bytes, leader_model, now);
        if (root_local != 0) {  // the root node's leader hands the result to the root
            const std::vector<int> pair{leaders[std::size_t(root_node)], root};
            run_phase(build_set(reduction::build_binomial_bcast, 2, 0), pair, bytes, node_model, now);
        }
        return timing_of_exits(arrival, std::move(now));
    }

    const bool leads = algorithm == NodeReduction::allreduce_hierarchical || algorithm == NodeReduction::allreduce_dynamic_leader;
    if (algorithm == NodeReduction::allreduce_symmetric) {
        const SharedMemoryCosts cost(bytes, node_model);
        for (const auto& node : nodes) symmetric_phase(node, cost, node_count > 1, now);
        if (node_count == 1) return timing_of_exits(arrival, std::move(now));
    } else if (leads && fits_slot) {
        if (node_count == 1) return simulate_dynamic_leader(arrival, bytes, node_model);
        const SharedMemoryCosts cost(bytes, node_model);
        for (const auto& node : nodes) {
            std::vector<double> local;
            for (int rank : node) local.push_back(now[std::size_t(rank)]);
            const LeaderPhase phase = leader_phase(local, cost);
            for (std::size_t i = 0; i < node.size(); ++i) now[std::size_t(node[i])] = phase.deposited[i];
            // Local rank 0 copies the node's partial out unless it led.
            if (phase.leader != 0)
                now[std::size_t(node.front())] = cost.copied_out(phase.deposited.front(), phase.published);
        }
    } else if (algorithm == NodeReduction::allreduce_arrival_chain && node_count == 1) {
        // The last arriver keeps the result and broadcasts it.
        const int last = chain_phase(nodes.front(), bytes, -1, node_model, now);
        bcast_phase(nodes.front(), bytes, last, fits_slot, node_model, now);
        return timing_of_exits(arrival, std::move(now));
    } else {  // run_chain_to_leaders
        for (const auto& node : nodes) chain_phase(node, bytes, 0, node_model, now);
    }
    if (node_count > 1) {
        // leaders_allreduce: Rabenseifner or recursive doubling by their balanced cost on the
        // default link, as the runtime chooses.
        const LinkModel link;
        const bool large = allreduce::rabenseifner_cost(node_count, bytes, link) <
                           allreduce::recursive_doubling_cost(node_count, bytes, link);
        run_phase(build_set(large ? allreduce::build_rabenseifner : allreduce::build_recursive_doubling, node_count, -1),
                  leaders, bytes, leader_model, now);
    }
    for (const auto& node : nodes) bcast_phase(node, bytes, 0, fits_slot, node_model, now);
    return timing_of_exits(arrival, std::move(now));
}

}  // namespace papshim::sim
