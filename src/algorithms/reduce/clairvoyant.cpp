// Clairvoyant Reduce (spec allgather-bdr-bslb-and-clairvoyant.md §4; docs/algorithms/clairvoyant.md):
// the two schedulers of clairvoyant.hpp, the Reduce schedule built from a plan, and its
// balanced cost for `auto`. Times are integer nanoseconds throughout (§4.6(e)): the window
// is half-open, [h, h + d), and every comparison and `mod d` is exact, so every rank gets the
// same plan. Ties are broken by rank everywhere (availability, then rank).

#include "clairvoyant.hpp"

#include <algorithm>
#include <bit>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

#include "../reduction_steps.hpp"
#include "clairvoyant_instance.hpp"
#include "builders.hpp"

namespace papshim::clairvoyant {
namespace {

// A rank arriving later than this after the first is taken to arrive at this time: it keeps
// every sum of times far from overflow, and such a prediction is noise anyway.
constexpr std::int64_t kLatestNs = std::int64_t(1) << 40;  // about 18 minutes

}  // namespace

namespace detail {

Instance normalise(const Problem& problem) {
    const int p = problem.ranks;
    if (p < 1) throw std::invalid_argument("clairvoyant: ranks must be >= 1");
    if (problem.segments < 1) throw std::invalid_argument("clairvoyant: segments must be >= 1");
    if (problem.root < 0 || problem.root >= p) throw std::invalid_argument("clairvoyant: root out of range");
    if (problem.round_ns <= 0) throw std::invalid_argument("clairvoyant: the round length must be > 0");
    if (!problem.arrival_ns.empty() && problem.arrival_ns.size() != std::size_t(p))
        throw std::invalid_argument("clairvoyant: one arrival per rank, or none");
    Instance in{p, problem.segments, problem.root, problem.round_ns, std::vector<std::int64_t>(std::size_t(p), 0)};
    if (!problem.arrival_ns.empty()) {
        const auto [low, high] = std::minmax_element(problem.arrival_ns.begin(), problem.arrival_ns.end());
        if (std::uint64_t(*high) - std::uint64_t(*low) > std::uint64_t(kLatestNs))
            throw std::invalid_argument("clairvoyant: arrivals spread over more than 2^40 ns");
        for (int i = 0; i < p; ++i) in.arrival[std::size_t(i)] = problem.arrival_ns[std::size_t(i)] - *low;
    }
    in.d = std::min(in.d, *std::max_element(in.arrival.begin(), in.arrival.end()) + 1);
    return in;
}

}  // namespace detail

using detail::idle_rounds;
using detail::Instance;
using detail::normalise;

// --- the linear reference (§4.5) ---------------------------------------------------------

Plan schedule_reference(const Problem& problem) {
    const Instance in = normalise(problem);
    const int p = in.ranks, n = in.segments;
    std::vector<std::int64_t> avail = in.arrival;
    std::vector<std::uint8_t> held(std::size_t(p) * std::size_t(n), 1);  // A or P (1), E (0)
    auto holds = [&](int rank, int segment) -> std::uint8_t& { return held[std::size_t(rank) * std::size_t(n) + std::size_t(segment)]; };
    std::vector<int> pprime(std::size_t(p), -1);  // the segment received this round (P')
    std::vector<std::uint8_t> done(std::size_t(p), 0), sent(std::size_t(p), 0);
    std::vector<int> queue, group;
    int alive = p;
    Plan plan;
    std::int64_t round = 0;
    while (alive > 1) {
        queue.clear();
        for (int r = 0; r < p; ++r)
            if (!done[std::size_t(r)]) queue.push_back(r);
        std::sort(queue.begin(), queue.end(), [&](int x, int y) {
            return avail[std::size_t(x)] != avail[std::size_t(y)] ? avail[std::size_t(x)] < avail[std::size_t(y)] : x < y;
        });
        const std::int64_t h = avail[std::size_t(queue[0])];
        group.clear();
        for (int r : queue)
            if (avail[std::size_t(r)] - h < in.d) group.push_back(r);
        if (group.size() == 1) {  // only the next arrival can change the window: jump to it
            const std::int64_t k = idle_rounds(h, avail[std::size_t(queue[1])], in.d);
            avail[std::size_t(queue[0])] += k * in.d;
            round += k;
            continue;
        }
        if (const auto it = std::find(group.begin(), group.end(), in.root); it != group.end())
            std::rotate(group.begin(), it, it + 1);  // the root is the sink, served first
        const int sink = group[0];
        for (int r : group) sent[std::size_t(r)] = 0;
        for (int i : group) {
            int from = -1, segment = -1;
            for (int j = 0; j < n && from < 0; ++j) {
                if (i != sink && !holds(i, j)) continue;  // others take only what they hold
                if (i == sink && pprime[std::size_t(i)] == j) continue;
                for (int z : group) {
                    if (z != i && holds(z, j) && pprime[std::size_t(z)] != j && !sent[std::size_t(z)]) {
                        from = z;
                        segment = j;
                        break;
                    }
                }
            }
            if (from < 0) continue;
            plan.moves.push_back({round, from, i, segment, holds(i, segment) != 0});
            sent[std::size_t(from)] = 1;
            holds(from, segment) = 0;
            holds(i, segment) = 1;
            pprime[std::size_t(i)] = segment;
        }
        for (int r : group) {
            pprime[std::size_t(r)] = -1;
            bool any = false;
            for (int j = 0; j < n && !any; ++j) any = holds(r, j) != 0;
            if (any) {
                avail[std::size_t(r)] += in.d;
            } else {
                done[std::size_t(r)] = 1;
                --alive;
            }
        }
        ++round;
    }
    plan.rounds = round;
    return plan;
}

// --- the segment-tree scheduler (§4.6) ---------------------------------------------------

namespace {

// A segment tree over bit columns (one per leaf, `words` 64-bit words each): internal nodes
// hold the OR of their children, so "who else holds segment s" is a walk down the tree.
// kWords > 0 fixes the words at compile time (1: every N <= 64, which is what the builders
// use), 0 takes them at run time.
template <int kWords>
class OrTree {
public:
    explicit OrTree(std::vector<std::uint64_t>& storage) : nodes_(storage) {}
    void reset(int leaves, int words) {
        leaves_ = int(std::bit_ceil(unsigned(std::max(leaves, 1))));
        words_ = kWords > 0 ? kWords : words;
        nodes_.assign(2 * std::size_t(leaves_) * std::size_t(words_), 0);
    }
    int leaves() const { return leaves_; }
    int depth() const { return std::bit_width(unsigned(leaves_)); }
    int words() const { return kWords > 0 ? kWords : words_; }
    const std::uint64_t* node(int n) const { return nodes_.data() + std::size_t(n) * std::size_t(words()); }
    std::uint64_t* node(int n) { return nodes_.data() + std::size_t(n) * std::size_t(words()); }
    bool has(int n, int bit) const { return (node(n)[bit >> 6] >> (bit & 63)) & 1U; }

    // Leaf := value (null: zero) without bit `clear` (-1: none); ancestors follow, stopping
    // where one does not change.
    void set_leaf(int leaf, const std::uint64_t* value, int clear) {
        std::uint64_t* out = node(leaves_ + leaf);
        for (int w = 0; w < words(); ++w) out[w] = value ? value[w] : 0;
        if (value && clear >= 0) out[clear >> 6] &= ~(std::uint64_t(1) << (clear & 63));
        for (int n = (leaves_ + leaf) >> 1; n >= 1; n >>= 1)
            if (!pull(n)) break;
    }
    // Every internal node from its children (after leaves were written directly).
    void rebuild() {
        for (int n = leaves_ - 1; n >= 1; --n) pull(n);
    }
    void clear() { std::fill(nodes_.begin(), nodes_.end(), 0); }
    void write_leaf(int leaf, const std::uint64_t* value) { std::copy(value, value + words(), node(leaves_ + leaf)); }

    // The OR of every leaf but `leaf` (§4.6(d) all-except-one, with the climb the printed
    // listing forgets).
    void all_except(int leaf, std::uint64_t* out) const {
        std::fill(out, out + words(), 0);
        for (int n = leaves_ + leaf; n > 1; n >>= 1) {
            const std::uint64_t* sibling = node(n ^ 1);
            for (int w = 0; w < words(); ++w) out[w] |= sibling[w];
        }
    }
    // The leftmost leaf under node n with `bit`, or -1 (find-leftmost).
    int leftmost(int n, int bit) const {
        if (!has(n, bit)) return -1;
        while (n < leaves_) n = has(2 * n, bit) ? 2 * n : 2 * n + 1;
        return n - leaves_;
    }
    // The leftmost leaf right of `leaf` with `bit`, or -1 (find-leftmost-from).
    int leftmost_after(int leaf, int bit) const {
        for (int n = leaves_ + leaf; n > 1; n >>= 1)
            if ((n & 1) == 0 && has(n + 1, bit)) return leftmost(n + 1, bit);
        return -1;
    }

private:
    bool pull(int n) {
        std::uint64_t* out = node(n);
        const std::uint64_t* left = node(2 * n);
        const std::uint64_t* right = node(2 * n + 1);
        bool changed = false;
        for (int w = 0; w < words(); ++w) {
            const std::uint64_t value = left[w] | right[w];
            changed |= value != out[w];
            out[w] = value;
        }
        return changed;
    }

    std::vector<std::uint64_t>& nodes_;
    int leaves_ = 1;
    int words_ = kWords;
};

int first_bit(const std::uint64_t* bits, int words) {
    for (int w = 0; w < words; ++w)
        if (bits[w] != 0) return w * 64 + std::countr_zero(bits[w]);
    return -1;
}

// The segment-tree scheduler's arrays, kept per thread between calls: at small p the
// allocations would cost more than the scheduling.
struct Workspace {
    std::vector<std::int64_t> avail;
    std::vector<std::uint64_t> held, tree, mask;
    std::vector<int> by_fraction, position, waiting, leaf, rank_at, used_leaves, pprime, group, merged;
    std::vector<std::uint8_t> disabled;
};

template <int kWords>
Plan segment_tree(const Instance& in, Workspace& ws) {
    const int p = in.ranks, n = in.segments, words = kWords > 0 ? kWords : (n + 63) / 64;
    const std::int64_t d = in.d;
    Plan plan;
    if (p == 1) return plan;
    const auto count = std::size_t(p);
    auto& avail = ws.avail;
    avail.assign(in.arrival.begin(), in.arrival.end());
    auto earlier = [&](int x, int y) {
        return avail[std::size_t(x)] != avail[std::size_t(y)] ? avail[std::size_t(x)] < avail[std::size_t(y)] : x < y;
    };

    // Mtrue (§4.6 correction 1): the authoritative one-bit states, a receiver's mask.
    auto& held = ws.held;
    held.assign(count * std::size_t(words), ~std::uint64_t(0));
    if (n % 64)
        for (int r = 0; r < p; ++r) held[std::size_t(r) * std::size_t(words) + std::size_t(words - 1)] = (std::uint64_t(1) << (n % 64)) - 1;
    auto column = [&](int r) { return held.data() + std::size_t(r) * std::size_t(words); };
    auto holds = [&](int r, int segment) { return (column(r)[segment >> 6] >> (segment & 63)) & 1U; };

    // Leaf order = window order (§4.6(d)): ranks sorted once by (a mod d, rank); in a round
    // whose head has position x, a rank before x takes the second copy of its leaf, +p.
    auto& by_fraction = ws.by_fraction;
    auto& position = ws.position;
    by_fraction.resize(count);
    position.resize(count);
    std::iota(by_fraction.begin(), by_fraction.end(), 0);
    std::sort(by_fraction.begin(), by_fraction.end(), [&](int x, int y) {
        const std::int64_t fx = in.arrival[std::size_t(x)] % d, fy = in.arrival[std::size_t(y)] % d;
        return fx != fy ? fx < fy : x < y;
    });
    for (int k = 0; k < p; ++k) position[std::size_t(by_fraction[std::size_t(k)])] = k;

    // The awaiting queue (§4.6(b)), sorted once.
    auto& waiting = ws.waiting;
    waiting.resize(count);
    std::iota(waiting.begin(), waiting.end(), 0);
    std::sort(waiting.begin(), waiting.end(), earlier);
    std::size_t next_waiting = 0;

    OrTree<kWords> tree(ws.tree);
    tree.reset(2 * p, words);
    auto& leaf = ws.leaf;
    auto& rank_at = ws.rank_at;
    auto& used_leaves = ws.used_leaves;
    auto& pprime = ws.pprime;
    auto& disabled = ws.disabled;
    auto& group = ws.group;
    auto& merged = ws.merged;
    leaf.assign(count, -1);
    rank_at.assign(2 * count, -1);
    pprime.assign(count, -1);
    disabled.assign(count, 0);
    used_leaves.clear();
    group.clear();
    ws.mask.resize(std::size_t(words));
    std::uint64_t* mask = ws.mask.data();
    int alive = p;
    std::int64_t round = 0;

    while (alive > 1) {
        // Merge-and-clean (§4.6(b)): the survivors of the last window (already advanced, in
        // order) and the arrivals now inside [h, h + d), merged by (availability, rank).
        int head = group.empty() ? waiting[next_waiting] : group.front();
        if (next_waiting < waiting.size() && earlier(waiting[next_waiting], head)) head = waiting[next_waiting];
        const std::int64_t h = avail[std::size_t(head)];
        merged.clear();
        for (std::size_t g = 0;;) {
            const bool from_group = g < group.size();
            const bool from_waiting =
                next_waiting < waiting.size() && avail[std::size_t(waiting[next_waiting])] - h < d;
            if (!from_group && !from_waiting) break;
            if (from_group && (!from_waiting || earlier(group[g], waiting[next_waiting])))
                merged.push_back(group[g++]);
            else
                merged.push_back(waiting[next_waiting++]);
        }
        group.swap(merged);
        if (group.size() == 1) {  // idle rounds (§4.6(a)): jump to the next arrival
            const int lone = group[0];
            const std::int64_t k = idle_rounds(avail[std::size_t(lone)], avail[std::size_t(waiting[next_waiting])], d);
            avail[std::size_t(lone)] += k * d;
            round += k;
            continue;
        }

        // Leaves for this window: clear last round's, write this one's (a full rebuild when
        // the windows are large, path updates when they are small).
        const int head_position = position[std::size_t(group.front())];
        const bool rebuild = (used_leaves.size() + group.size()) * std::size_t(tree.depth()) >= std::size_t(tree.leaves());
        if (rebuild) {
            tree.clear();
        } else {
            for (int x : used_leaves) tree.set_leaf(x, nullptr, -1);
        }
        for (int x : used_leaves) rank_at[std::size_t(x)] = -1;
        used_leaves.clear();
        bool root_in_group = false;
        for (int r : group) {
            const int x = position[std::size_t(r)] + (position[std::size_t(r)] < head_position ? p : 0);
            leaf[std::size_t(r)] = x;
            rank_at[std::size_t(x)] = r;
            used_leaves.push_back(x);
            disabled[std::size_t(r)] = 0;
            root_in_group |= r == in.root;
            if (rebuild)
                tree.write_leaf(x, column(r));
            else
                tree.set_leaf(x, column(r), -1);
        }
        if (rebuild) tree.rebuild();

        // Receivers: the root first when it is in the window (the sink), then window order.
        const int sink = root_in_group ? in.root : group.front();
        auto serve = [&](int r) {
            tree.all_except(leaf[std::size_t(r)], mask);
            if (r != sink)  // its true column, even if it already sent (correction 1)
                for (int w = 0; w < words; ++w) mask[w] &= column(r)[w];
            const int segment = first_bit(mask, words);
            if (segment < 0) return;
            int from = -1;
            const int root = in.root;
            if (root_in_group && root != r && !disabled[std::size_t(root)] && holds(root, segment) &&
                pprime[std::size_t(root)] != segment) {
                from = root;  // the root is the preferred sender (correction 2)
            } else {
                int x = tree.leftmost(1, segment);
                if (x == leaf[std::size_t(r)]) x = tree.leftmost_after(x, segment);
                from = rank_at[std::size_t(x)];
            }
            plan.moves.push_back({round, from, r, segment, holds(r, segment) != 0});
            column(from)[segment >> 6] &= ~(std::uint64_t(1) << (segment & 63));
            column(r)[segment >> 6] |= std::uint64_t(1) << (segment & 63);
            pprime[std::size_t(r)] = segment;
            disabled[std::size_t(from)] = 1;
            tree.set_leaf(leaf[std::size_t(from)], nullptr, -1);
            if (!disabled[std::size_t(r)]) tree.set_leaf(leaf[std::size_t(r)], column(r), segment);
        };
        if (root_in_group) serve(in.root);
        for (int r : group)
            if (r != sink || !root_in_group) serve(r);

        // End of round (correction 3 is automatic with Mtrue): P' -> P, the ranks left with
        // nothing leave, the others advance by d (their order is unchanged).
        merged.clear();
        for (int r : group) {
            pprime[std::size_t(r)] = -1;
            if (first_bit(column(r), words) < 0) {
                --alive;
            } else {
                avail[std::size_t(r)] += d;
                merged.push_back(r);
            }
        }
        group.swap(merged);
        ++round;
    }
    plan.rounds = round;
    return plan;
}

}  // namespace

Plan schedule_segment_tree(const Problem& problem) {
    const Instance in = normalise(problem);
    thread_local Workspace workspace;
    return in.segments <= 64 ? segment_tree<1>(in, workspace) : segment_tree<0>(in, workspace);
}

// --- from plans to schedules ---------------------------------------------------------------

int segments_for(int ranks) { return ranks <= 2 ? 1 : std::bit_width(unsigned(ranks - 1)); }
int round_segments(int ranks, int /*segments*/) { return segments_for(ranks); }

namespace {
bool has_arrivals(const schedule::BuildInput& input) {
    return input.step_ns > 0 && input.arrival_ns.size() == std::size_t(input.ranks);
}
}  // namespace

Plan plan_for(const schedule::BuildInput& input, int root, int segments) {
    Problem problem{.ranks = input.ranks, .arrival_ns = {}, .round_ns = 1, .root = root, .segments = segments};
    std::vector<std::int64_t> arrival;
    if (has_arrivals(input)) {
        const std::int64_t first = *std::min_element(input.arrival_ns.begin(), input.arrival_ns.end());
        for (std::int64_t a : input.arrival_ns)
            arrival.push_back(std::int64_t(std::min(std::uint64_t(a) - std::uint64_t(first), std::uint64_t(kLatestNs))));
        problem.arrival_ns = arrival;
        problem.round_ns = input.step_ns;
    }
    return schedule_segment_tree(problem);
}

int last_arrival(const schedule::BuildInput& input) {
    if (!has_arrivals(input)) return 0;
    return int(std::max_element(input.arrival_ns.begin(), input.arrival_ns.end()) - input.arrival_ns.begin());
}

namespace {

void add_move(schedule::Schedule& plan, int step, const Move& move) {
    if (plan.steps.size() <= std::size_t(step)) plan.steps.resize(std::size_t(step) + 1);
    if (move.from == plan.rank)
        reduction::add_send(plan.steps[std::size_t(step)], move.to, {move.segment});
    else
        reduction::add_receive(plan.steps[std::size_t(step)], move.from, {move.segment},
                               move.combine ? schedule::Combine::received_first : schedule::Combine::none);
}

}  // namespace

namespace {

// Calls visit(step, move) for every move, steps numbering the rounds in which anything moves;
// returns the number of steps.
template <typename Visit>
int for_each_step(const Plan& plan, Visit&& visit) {
    int step = -1;
    std::int64_t last = -1;
    for (const Move& move : plan.moves) {
        if (move.round != last) {
            ++step;
            last = move.round;
        }
        visit(step, move);
    }
    return step + 1;
}

}  // namespace

schedule::Schedule reduce_schedule(const Plan& plan, int ranks, int rank, int segments, int* rounds_as_steps) {
    schedule::Schedule out{.ranks = ranks, .rank = rank, .blocks = segments, .steps = {}};
    const int steps = for_each_step(plan, [&](int step, const Move& move) {
        if (move.from == rank || move.to == rank) add_move(out, step, move);
    });
    if (rounds_as_steps) *rounds_as_steps = steps;
    return out;
}

std::vector<schedule::Schedule> reduce_schedules(const Plan& plan, int ranks, int segments) {
    std::vector<schedule::Schedule> out;
    for (int r = 0; r < ranks; ++r) out.push_back({.ranks = ranks, .rank = r, .blocks = segments, .steps = {}});
    for_each_step(plan, [&](int step, const Move& move) {
        add_move(out[std::size_t(move.from)], step, move);
        add_move(out[std::size_t(move.to)], step, move);
    });
    return out;
}

}  // namespace papshim::clairvoyant

namespace papshim::reduce {

schedule::Schedule build_clairvoyant(const schedule::BuildInput& input) {
    const int root = input.root < 0 ? 0 : input.root;
    const int segments = clairvoyant::segments_for(input.ranks);
    return clairvoyant::reduce_schedule(clairvoyant::plan_for(input, root, segments), input.ranks, input.rank,
                                        segments);
}

}  // namespace papshim::reduce
