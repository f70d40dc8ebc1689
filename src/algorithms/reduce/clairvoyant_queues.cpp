// Clairvoyant's third scheduler (clairvoyant.hpp: schedule_segment_queues): the per-segment
// queues of [CLV]'s "pairing heap" version, with its fixes (the rank leaves the queues when it
// sends, P' keeps a received segment out of its queue for the round) and the spec's integer
// times, half-open window and idle-round jump (§4.5, §4.6(a), (e)), so that its plans equal
// the reference's move for move. It exists to be measured against the segment tree (spec
// §5.3, Table 1's pairing/segment-tree columns); builders never run it.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <iterator>
#include <limits>
#include <queue>
#include <set>
#include <utility>
#include <vector>

#include "clairvoyant.hpp"
#include "clairvoyant_instance.hpp"

namespace papshim::clairvoyant {

Plan schedule_segment_queues(const Problem& problem, QueueOperations* operations) {
    const detail::Instance in = detail::normalise(problem);
    const int p = in.ranks, n = in.segments;
    const std::int64_t d = in.d;
    QueueOperations count;
    Plan plan;

    std::vector<std::uint8_t> held(std::size_t(p) * std::size_t(n), 1);  // A or P (1), E (0)
    auto holds = [&](int rank, int segment) -> std::uint8_t& { return held[std::size_t(rank) * std::size_t(n) + std::size_t(segment)]; };
    std::vector<int> held_segments(std::size_t(p), n);
    std::vector<int> pprime(std::size_t(p), -1);  // the segment received this round (P')
    // A window member's availability less d per round since round 0: constant while it is in
    // the window (every member advances by d each round), so it orders the window for good.
    std::vector<std::int64_t> key(std::size_t(p), 0);
    std::vector<std::uint8_t> queued(std::size_t(p), 0);  // in the queue of every segment it may send

    // The candidate senders of each segment in window order, the root first.
    using Entry = std::pair<std::int64_t, int>;
    std::vector<std::set<Entry>> senders(static_cast<std::size_t>(n));
    auto entry = [&](int rank) {
        return Entry{rank == in.root ? std::numeric_limits<std::int64_t>::min() : key[std::size_t(rank)], rank};
    };
    auto enqueue = [&](int rank, int segment) {
        senders[std::size_t(segment)].insert(entry(rank));
        ++count.inserts;
    };
    auto dequeue = [&](int rank, int segment) {
        senders[std::size_t(segment)].erase(entry(rank));
        ++count.erases;
    };

    // The ranks not yet in a window, earliest first (the original's priority queue Q).
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> awaiting;
    for (int r = 0; r < p; ++r) awaiting.emplace(in.arrival[std::size_t(r)], r);
    std::vector<int> group, joined, merged;  // the window by (key, rank)
    int alive = p;
    std::int64_t round = 0;
    auto earlier = [&](int x, int y) { return Entry{key[std::size_t(x)], x} < Entry{key[std::size_t(y)], y}; };

    while (alive > 1) {
        std::int64_t h = std::numeric_limits<std::int64_t>::max();
        if (!group.empty()) h = key[std::size_t(group.front())] + round * d;
        if (!awaiting.empty()) h = std::min(h, awaiting.top().first);
        joined.clear();
        while (!awaiting.empty() && awaiting.top().first - h < d) {
            const int r = awaiting.top().second;
            awaiting.pop();
            key[std::size_t(r)] = in.arrival[std::size_t(r)] - round * d;
            joined.push_back(r);
        }
        merged.clear();
        std::merge(group.begin(), group.end(), joined.begin(), joined.end(), std::back_inserter(merged), earlier);
        group.swap(merged);
        if (group.size() == 1) {  // only the next arrival can change the window: jump to it
            round += detail::idle_rounds(h, awaiting.top().first, d);
            continue;
        }

        // Every member that sent last round, or just joined, may send again.
        bool root_in_group = false;
        for (int r : group) {
            root_in_group |= r == in.root;
            if (queued[std::size_t(r)]) continue;
            queued[std::size_t(r)] = 1;
            for (int j = 0; j < n; ++j)
                if (holds(r, j)) enqueue(r, j);
        }

        const int sink = root_in_group ? in.root : group.front();
        auto serve = [&](int i) {
            for (int j = 0; j < n; ++j) {
                if (i != sink && !holds(i, j)) continue;  // others take only what they hold
                if (i == sink && pprime[std::size_t(i)] == j) continue;
                const auto& queue = senders[std::size_t(j)];
                auto it = queue.begin();
                if (it != queue.end() && it->second == i) ++it;
                if (it == queue.end()) continue;
                const int z = it->second;
                plan.moves.push_back({round, z, i, j, holds(i, j) != 0});
                for (int s = 0; s < n; ++s)  // z has sent: out of every queue this round
                    if (holds(z, s) && pprime[std::size_t(z)] != s) dequeue(z, s);
                queued[std::size_t(z)] = 0;
                holds(z, j) = 0;
                --held_segments[std::size_t(z)];
                if (holds(i, j)) {
                    if (queued[std::size_t(i)]) dequeue(i, j);  // P': not sent on this round
                } else {
                    holds(i, j) = 1;
                    ++held_segments[std::size_t(i)];
                }
                pprime[std::size_t(i)] = j;
                return;
            }
        };
        if (root_in_group) serve(in.root);
        for (int r : group)
            if (r != sink || !root_in_group) serve(r);

        // End of round: P' -> P (back in its queue if the rank may still send), the ranks
        // left with nothing leave the window.
        merged.clear();
        for (int r : group) {
            if (pprime[std::size_t(r)] >= 0 && queued[std::size_t(r)]) enqueue(r, pprime[std::size_t(r)]);
            pprime[std::size_t(r)] = -1;
            if (held_segments[std::size_t(r)] == 0) {
                --alive;
                queued[std::size_t(r)] = 0;
            } else {
                merged.push_back(r);
            }
        }
        group.swap(merged);
        ++round;
    }
    plan.rounds = round;
    if (operations) *operations = count;
    return plan;
}

}  // namespace papshim::clairvoyant
