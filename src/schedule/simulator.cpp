// The schedule simulator: flattening, the data-flow check and the LogGP-style timing model
// (include/papshim/simulator.hpp says what each promises).

#include "papshim/simulator.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace papshim::sim {

// --- ScheduleSet ---------------------------------------------------------------------------

ScheduleSet ScheduleSet::build(schedule::Builder build, int ranks) {
    return ScheduleSet::build(build, ranks, schedule::BuildInput{});
}

ScheduleSet ScheduleSet::build(schedule::Builder build, int ranks, schedule::BuildInput input) {
    ScheduleSet set;
    set.ranks_ = ranks;
    input.ranks = ranks;
    for (int rank = 0; rank < ranks; ++rank) {
        input.rank = rank;
        set.append(build(input));  // one rank's Schedule at a time: the flat form is far smaller
        if (rank == 0) set.blocks_ = set.pending_blocks_;
    }
    return set;
}

ScheduleSet ScheduleSet::from(std::span<const schedule::Schedule> schedules) {
    ScheduleSet set;
    set.ranks_ = static_cast<int>(schedules.size());
    set.blocks_ = schedules.empty() ? 0 : schedules.front().blocks;
    for (const auto& plan : schedules) set.append(plan);
    return set;
}

void ScheduleSet::append(const schedule::Schedule& plan) {
    auto flatten = [this](int step, const schedule::Transfer& transfer, std::vector<Message>& out) {
        constexpr int kNarrow = std::numeric_limits<std::uint16_t>::max();
        const schedule::Piece piece = transfer.piece;
        if (piece.count < 0 || piece.count > kNarrow || piece.index < 0 || piece.index > kNarrow)
            throw std::invalid_argument(fmt::format("piece {} of {} in step {}", piece.index, piece.count, step));
        out.push_back({.step = step, .peer = transfer.peer, .first_block = block_pool_.size(),
                       .block_count = transfer.blocks.size(), .combine = transfer.combine,
                       .piece_index = static_cast<std::uint16_t>(piece.index),
                       .piece_count = static_cast<std::uint16_t>(piece.count)});
        block_pool_.insert(block_pool_.end(), transfer.blocks.begin(), transfer.blocks.end());
    };
    for (std::size_t s = 0; s < plan.steps.size(); ++s) {
        for (const auto& transfer : plan.steps[s].sends) flatten(static_cast<int>(s), transfer, sends_);
        for (const auto& transfer : plan.steps[s].recvs) flatten(static_cast<int>(s), transfer, recvs_);
    }
    step_counts_.push_back(static_cast<int>(plan.steps.size()));
    pending_blocks_ = plan.blocks;
    send_begin_.push_back(sends_.size());
    recv_begin_.push_back(recvs_.size());
}

int ScheduleSet::max_step_count() const {
    return step_counts_.empty() ? 0 : *std::max_element(step_counts_.begin(), step_counts_.end());
}

std::span<const ScheduleSet::Message> ScheduleSet::sends(int rank) const {
    const auto r = static_cast<std::size_t>(rank);
    return {sends_.data() + send_begin_[r], send_begin_[r + 1] - send_begin_[r]};
}

std::span<const ScheduleSet::Message> ScheduleSet::recvs(int rank) const {
    const auto r = static_cast<std::size_t>(rank);
    return {recvs_.data() + recv_begin_[r], recv_begin_[r + 1] - recv_begin_[r]};
}

std::size_t ScheduleSet::blocks_received(int rank) const {
    std::size_t total = 0;
    for (const auto& message : recvs(rank)) total += message.block_count;
    return total;
}

namespace {

// --- pairing -------------------------------------------------------------------------------

// One message seen from the pairing rule's point of view.
struct Endpoint {
    int rank;   // owner of the schedule
    int peer;
    int step;
    std::span<const int> blocks;
    schedule::Piece piece;
};

std::string describe_piece(schedule::Piece piece) {
    return piece.whole() ? std::string() : fmt::format(" piece {} of {}", piece.index, piece.count);
}

std::string describe(const Endpoint& e, bool send) {
    return fmt::format("rank {}'s {} {} {} in step {} (blocks [{}]{})", e.rank, send ? "send" : "receive",
                       send ? "to" : "from", e.peer, e.step, fmt::join(e.blocks, ","), describe_piece(e.piece));
}

std::string check_peer(int rank, int peer, int ranks, int step, bool send) {
    if (peer >= 0 && peer < ranks && peer != rank) return {};
    return fmt::format("rank {} lists a {} with invalid peer {} in step {} (ranks: {})", rank,
                       send ? "send" : "receive", peer, step, ranks);
}

// Pairs every receive with its send (the rule in simulator.hpp). On success fills
// `send_of_recv[k]` with the send index of receive k (indices into the set's flat lists, in
// rank order) and returns ""; otherwise describes the first mismatch.
std::string match_messages(const ScheduleSet& set, std::vector<std::size_t>& send_of_recv) {
    const int p = set.ranks();
    // Sends bucketed by receiver; within a bucket by sender, then step, then listing order.
    std::vector<std::size_t> bucket_begin(static_cast<std::size_t>(p) + 1, 0);
    for (int i = 0; i < p; ++i) {
        for (const auto& m : set.sends(i)) {
            if (auto error = check_peer(i, m.peer, p, m.step, true); !error.empty()) return error;
            ++bucket_begin[static_cast<std::size_t>(m.peer) + 1];
        }
    }
    for (int j = 0; j < p; ++j) bucket_begin[static_cast<std::size_t>(j) + 1] += bucket_begin[static_cast<std::size_t>(j)];
    std::vector<std::size_t> fill(bucket_begin.begin(), bucket_begin.end() - 1);
    std::vector<std::size_t> incoming(set.send_count());
    std::vector<int> incoming_sender(set.send_count());
    std::size_t global = 0;
    for (int i = 0; i < p; ++i) {
        for (const auto& m : set.sends(i)) {
            const std::size_t slot = fill[static_cast<std::size_t>(m.peer)]++;
            incoming[slot] = global++;
            incoming_sender[slot] = i;
        }
    }

    send_of_recv.assign(set.recv_count(), 0);
    std::vector<std::size_t> order;
    for (int j = 0; j < p; ++j) {
        const auto recvs = set.recvs(j);
        for (const auto& m : recvs) {
            if (auto error = check_peer(j, m.peer, p, m.step, false); !error.empty()) return error;
        }
        order.resize(recvs.size());
        for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            return std::pair(recvs[a].peer, recvs[a].step) < std::pair(recvs[b].peer, recvs[b].step);
        });
        const std::size_t first = bucket_begin[static_cast<std::size_t>(j)];
        const std::size_t bucket_size = bucket_begin[static_cast<std::size_t>(j) + 1] - first;
        const auto send_endpoint = [&](std::size_t k) {
            const auto& m = set.all_sends()[incoming[first + k]];
            return Endpoint{incoming_sender[first + k], j, m.step, set.blocks_of(m), m.piece()};
        };
        for (std::size_t k = 0; k < std::max(order.size(), bucket_size); ++k) {
            if (k >= order.size()) return describe(send_endpoint(k), true) + " has no matching receive";
            const auto& r = recvs[order[k]];
            const Endpoint recv{j, r.peer, r.step, set.blocks_of(r), r.piece()};
            if (k >= bucket_size) return describe(recv, false) + " has no matching send";
            const Endpoint send = send_endpoint(k);
            if (std::pair(send.rank, send.step) < std::pair(recv.peer, recv.step)) {
                return describe(send, true) + " has no matching receive";
            }
            if (std::pair(send.rank, send.step) > std::pair(recv.peer, recv.step)) {
                return describe(recv, false) + " has no matching send";
            }
            if (!std::ranges::equal(send.blocks, recv.blocks) || send.piece != recv.piece) {
                return describe(send, true) + " does not list the blocks of " + describe(recv, false);
            }
            send_of_recv[set.recv_offset(j) + order[k]] = incoming[first + k];
        }
    }
    return {};
}

// --- data flow -------------------------------------------------------------------------------

// What a rank holds of each block: every piece (kWholeBlock), or a mask of the pieces
// received so far. Pieces are at most 64 per block, one bit each.
constexpr std::uint64_t kWholeBlock = ~std::uint64_t{0};
constexpr int kMaxPieces = 64;

// Checks a piece transfer's shape and that its block is cut alike everywhere on this rank
// (`cut[b]`: the piece count first seen for block b, 0 none). Empty when fine.
std::string check_piece(int rank, const ScheduleSet::Message& m, std::span<const int> blocks, std::vector<int>& cut,
                        bool send) {
    const schedule::Piece piece = m.piece();
    const char* what = send ? "send to" : "receive from";
    if (blocks.size() != 1)
        return fmt::format("rank {}'s {} {} in step {} moves a piece of {} blocks", rank, what, m.peer, m.step,
                           blocks.size());
    if (piece.count > kMaxPieces || piece.index >= piece.count)
        return fmt::format("rank {}'s {} {} in step {} moves piece {} of {} (at most {} pieces)", rank, what, m.peer,
                           m.step, piece.index, piece.count, kMaxPieces);
    int& count = cut[static_cast<std::size_t>(blocks[0])];
    if (count != 0 && count != piece.count)
        return fmt::format("rank {}'s {} {} in step {} cuts block {} in {} pieces, earlier in {}", rank, what, m.peer,
                           m.step, blocks[0], piece.count, count);
    count = piece.count;
    return {};
}

// Follows one rank's blocks through its steps. `held`, `cut` and `listed` are scratch of
// size blocks.
std::string check_rank_flow(const ScheduleSet& set, int rank, std::vector<std::uint64_t>& held,
                            std::vector<int>& cut, std::vector<std::size_t>& listed, std::size_t& stamp) {
    const int blocks = set.blocks();
    std::fill(held.begin(), held.end(), 0);
    std::fill(cut.begin(), cut.end(), 0);
    if (rank < blocks) held[static_cast<std::size_t>(rank)] = kWholeBlock;
    const auto sends = set.sends(rank);
    const auto recvs = set.recvs(rank);
    auto valid_block = [&](int b) { return b >= 0 && b < blocks; };
    std::size_t next_send = 0, next_recv = 0;
    for (int step = 0; step < set.step_count(rank); ++step) {
        // Sends first: a block received in this step cannot leave in the same step.
        for (; next_send < sends.size() && sends[next_send].step == step; ++next_send) {
            const auto& m = sends[next_send];
            const auto moved = set.blocks_of(m);
            ++stamp;
            for (int b : moved) {
                if (!valid_block(b)) return fmt::format("rank {} sends invalid block {} in step {}", rank, b, step);
                const std::uint64_t have = held[static_cast<std::size_t>(b)];
                if (!m.piece().whole()) {
                    if (auto error = check_piece(rank, m, moved, cut, true); !error.empty()) return error;
                    if (have != kWholeBlock && (have >> m.piece_index & 1) == 0)
                        return fmt::format("rank {} sends piece {} of block {} to {} in step {} before it holds it",
                                           rank, m.piece_index, b, m.peer, step);
                    continue;
                }
                if (have != kWholeBlock) {
                    return fmt::format("rank {} sends block {} to {} in step {} before it holds it", rank, b,
                                       m.peer, step);
                }
                if (listed[static_cast<std::size_t>(b)] == stamp) {
                    return fmt::format("rank {} lists block {} twice in its send to {} in step {}", rank, b,
                                       m.peer, step);
                }
                listed[static_cast<std::size_t>(b)] = stamp;
            }
        }
        for (; next_recv < recvs.size() && recvs[next_recv].step == step; ++next_recv) {
            const auto& m = recvs[next_recv];
            const auto moved = set.blocks_of(m);
            for (int b : moved) {
                if (!valid_block(b)) return fmt::format("rank {} receives invalid block {} in step {}", rank, b, step);
                std::uint64_t& have = held[static_cast<std::size_t>(b)];
                if (m.piece().whole()) {
                    if (have != 0) {
                        return fmt::format("rank {} receives block {} from {} in step {} but already holds it",
                                           rank, b, m.peer, step);
                    }
                    have = kWholeBlock;
                    continue;
                }
                if (auto error = check_piece(rank, m, moved, cut, false); !error.empty()) return error;
                const std::uint64_t bit = std::uint64_t{1} << m.piece_index;
                if (have == kWholeBlock || (have & bit) != 0) {
                    return fmt::format("rank {} receives piece {} of block {} from {} in step {} but already holds it",
                                       rank, m.piece_index, b, m.peer, step);
                }
                have |= bit;
                if (have == (m.piece_count == kMaxPieces ? kWholeBlock : (std::uint64_t{1} << m.piece_count) - 1))
                    have = kWholeBlock;
            }
        }
    }
    const auto missing = std::find_if(held.begin(), held.end(), [](std::uint64_t have) { return have != kWholeBlock; });
    if (missing != held.end()) {
        return fmt::format("rank {} ends without block {}", rank, missing - held.begin());
    }
    return {};
}

}  // namespace

std::string check_data_flow(const ScheduleSet& set) {
    std::vector<std::size_t> send_of_recv;
    if (auto error = match_messages(set, send_of_recv); !error.empty()) return error;
    const auto blocks = static_cast<std::size_t>(set.blocks());
    std::vector<std::uint64_t> held(blocks);
    std::vector<int> cut(blocks);
    std::vector<std::size_t> listed(blocks, 0);
    std::size_t stamp = 0;
    for (int rank = 0; rank < set.ranks(); ++rank) {
        if (auto error = check_rank_flow(set, rank, held, cut, listed, stamp); !error.empty()) return error;
    }
    return {};
}

// --- reduction data flow ----------------------------------------------------------------------

namespace {

// Which ranks' contributions one partial result of one block holds.
class Contributions {
public:
    explicit Contributions(int ranks) : words_((static_cast<std::size_t>(ranks) + 63) / 64, 0) {}
    void add(int rank) { words_[static_cast<std::size_t>(rank) / 64] |= std::uint64_t{1} << (rank % 64); }
    bool overlaps(const Contributions& other) const {
        for (std::size_t w = 0; w < words_.size(); ++w)
            if (words_[w] & other.words_[w]) return true;
        return false;
    }
    void join(const Contributions& other) {
        for (std::size_t w = 0; w < words_.size(); ++w) words_[w] |= other.words_[w];
    }
    int count() const {
        int n = 0;
        for (std::uint64_t w : words_) n += std::popcount(w);
        return n;
    }
    int lowest() const {
        for (std::size_t w = 0; w < words_.size(); ++w)
            if (words_[w]) return static_cast<int>(w * 64) + std::countr_zero(words_[w]);
        return -1;
    }
    int highest() const {
        for (std::size_t w = words_.size(); w-- > 0;)
            if (words_[w]) return static_cast<int>(w * 64) + 63 - std::countl_zero(words_[w]);
        return -1;
    }
    // Ranks lowest()..highest() with no gap: what a non-commutative partial must be.
    bool is_range() const { return count() == highest() - lowest() + 1; }

private:
    std::vector<std::uint64_t> words_;
};

std::string check_consecutive(const ScheduleSet& set, int rank, const ScheduleSet::Message& m, bool send) {
    const auto blocks = set.blocks_of(m);
    const char* what = send ? "send to" : "receive from";
    if (!m.piece().whole())
        return fmt::format("rank {}'s {} {} in step {} moves a piece (Allgather only)", rank, what, m.peer, m.step);
    if (blocks.empty()) return fmt::format("rank {}'s {} {} in step {} lists no blocks", rank, what, m.peer, m.step);
    for (std::size_t i = 0; i < blocks.size(); ++i) {
        if (blocks[i] < 0 || blocks[i] >= set.blocks())
            return fmt::format("rank {}'s {} {} in step {} lists invalid block {}", rank, what, m.peer, m.step, blocks[i]);
        if (i > 0 && blocks[i] != blocks[i - 1] + 1)
            return fmt::format("rank {}'s {} {} in step {} lists blocks that are not consecutive ascending", rank,
                               what, m.peer, m.step);
    }
    return {};
}

}  // namespace

std::string check_reduction_flow(const ScheduleSet& set, int root, bool commutative) {
    const int p = set.ranks();
    const int blocks = set.blocks();
    if (root >= p) return fmt::format("root {} of {} ranks", root, p);
    std::vector<std::size_t> send_of_recv;
    if (auto error = match_messages(set, send_of_recv); !error.empty()) return error;
    for (int rank = 0; rank < p; ++rank) {
        for (const auto& m : set.sends(rank))
            if (auto error = check_consecutive(set, rank, m, true); !error.empty()) return error;
        for (const auto& m : set.recvs(rank))
            if (auto error = check_consecutive(set, rank, m, false); !error.empty()) return error;
    }

    // held[rank * blocks + block]: the contributions of rank's partial of that block.
    std::vector<Contributions> held;
    held.reserve(static_cast<std::size_t>(p) * static_cast<std::size_t>(blocks));
    for (int rank = 0; rank < p; ++rank)
        for (int b = 0; b < blocks; ++b) {
            held.emplace_back(p);
            held.back().add(rank);
        }
    auto at = [&](int rank, int block) -> Contributions& {
        return held[static_cast<std::size_t>(rank) * static_cast<std::size_t>(blocks) + static_cast<std::size_t>(block)];
    };

    // Lockstep over steps: sends carry what the sender held when the step started.
    std::vector<std::size_t> next_recv(static_cast<std::size_t>(p), 0);
    // Per block, how this rank's receives of the step bring it: several combining receives of
    // one block reduce in one after another (the executor does the same, in list order), but
    // an overwrite must be its block's only receive in the step.
    enum class Brought : std::uint8_t { nothing, combined, overwritten };
    std::vector<Brought> received_in_step(static_cast<std::size_t>(blocks), Brought::nothing);
    for (int step = 0; step < set.max_step_count(); ++step) {
        struct Delivery {
            int rank, block, from;
            schedule::Combine combine;
            Contributions data;
        };
        std::vector<Delivery> deliveries;
        for (int rank = 0; rank < p; ++rank) {
            const auto recvs = set.recvs(rank);
            std::fill(received_in_step.begin(), received_in_step.end(), Brought::nothing);
            for (auto& k = next_recv[static_cast<std::size_t>(rank)]; k < recvs.size() && recvs[k].step == step; ++k) {
                const auto& m = recvs[k];
                for (int b : set.blocks_of(m)) {
                    Brought& brought = received_in_step[static_cast<std::size_t>(b)];
                    const bool overwrite = m.combine == schedule::Combine::none;
                    if (brought == Brought::overwritten || (brought == Brought::combined && overwrite))
                        return fmt::format("rank {} receives block {} twice in step {}", rank, b, step);
                    brought = overwrite ? Brought::overwritten : Brought::combined;
                    deliveries.push_back({rank, b, m.peer, m.combine, at(m.peer, b)});
                }
            }
        }
        for (Delivery& d : deliveries) {
            Contributions& local = at(d.rank, d.block);
            if (d.combine == schedule::Combine::none) {
                local = std::move(d.data);
                continue;
            }
            if (local.overlaps(d.data))
                return fmt::format("rank {} reduces block {} from rank {} in step {} with a contribution it already has",
                                   d.rank, d.block, d.from, step);
            if (!commutative) {
                const Contributions& first = d.combine == schedule::Combine::received_first ? d.data : local;
                const Contributions& second = d.combine == schedule::Combine::received_first ? local : d.data;
                if (!first.is_range() || !second.is_range() || first.highest() + 1 != second.lowest())
                    return fmt::format("rank {} reduces block {} from rank {} in step {} out of rank order "
                                       "(ranks {}..{} before {}..{})", d.rank, d.block, d.from, step, first.lowest(),
                                       first.highest(), second.lowest(), second.highest());
            }
            local.join(d.data);
        }
    }
    for (int rank = 0; rank < p; ++rank) {
        if (root >= 0 && rank != root) continue;
        for (int b = 0; b < blocks; ++b)
            if (at(rank, b).count() != p)
                return fmt::format("rank {} ends with {} of {} contributions to block {}", rank, at(rank, b).count(),
                                   p, b);
    }
    return {};
}

// --- timing ----------------------------------------------------------------------------------

namespace {

// The optional two-level machine of TimingModel: which node a rank sits on, and the
// inter-node messages of the current step that share each node's port in each direction.
// The ports are shared fairly: a message of b bytes that starts with others on its port
// takes as long as min(b, b_k) summed over them all, so a small message beside a large one
// is not slowed to the large one's pace (and equal messages take their number times one).
class NodePorts {
public:
    NodePorts(const TimingModel& model, int ranks)
        : per_node_(model.ranks_per_node),
          nodes_(per_node_ > 0 ? (ranks + per_node_ - 1) / per_node_ : 1),
          cyclic_(model.cyclic_mapping),
          out_(static_cast<std::size_t>(nodes_)),
          in_(static_cast<std::size_t>(nodes_)) {}

    bool crosses(int from, int to) const { return per_node_ > 0 && node(from) != node(to); }
    void count(int from, int to, double bytes) {
        if (out_[node(from)].empty() && in_[node(from)].empty()) touched_.push_back(node(from));
        out_[node(from)].push_back(bytes);
        if (out_[node(to)].empty() && in_[node(to)].empty()) touched_.push_back(node(to));
        in_[node(to)].push_back(bytes);
    }
    // The bytes' worth of port time a message of `bytes` from `from` to `to` takes.
    double shared_bytes(int from, int to, double bytes) const {
        return std::max(fair_share(out_[node(from)], bytes), fair_share(in_[node(to)], bytes));
    }
    void clear() {
        for (std::size_t n : touched_) out_[n].clear(), in_[n].clear();
        touched_.clear();
    }

private:
    std::size_t node(int rank) const {
        return static_cast<std::size_t>(cyclic_ ? rank % nodes_ : rank / per_node_);
    }
    static double fair_share(const std::vector<double>& port, double bytes) {
        double total = 0;
        for (double other : port) total += std::min(other, bytes);
        return total;
    }

    int per_node_;
    int nodes_;
    bool cyclic_;
    std::vector<std::vector<double>> out_, in_;
    std::vector<std::size_t> touched_;
};

// The step from which each rank waits for its arrival: 0, or with background receives its
// first send (never, if it sends nothing); those ranks then start at the earliest arrival.
std::vector<int> arrival_gates(const ScheduleSet& set, const TimingModel& model, std::vector<double>& start) {
    std::vector<int> gate(start.size(), 0);
    if (!model.background_receives || start.empty()) return gate;
    const double earliest = *std::min_element(start.begin(), start.end());
    for (int i = 0; i < set.ranks(); ++i) {
        const auto sends = set.sends(i);
        gate[static_cast<std::size_t>(i)] = sends.empty() ? std::numeric_limits<int>::max() : sends.front().step;
        start[static_cast<std::size_t>(i)] = earliest;
    }
    return gate;
}

}  // namespace

TimingResult simulate_timing(const ScheduleSet& set, const TimingModel& model,
                             std::span<const double> arrival, std::span<const double> block_bytes) {
    const int p = set.ranks();
    if (arrival.size() != static_cast<std::size_t>(p)) {
        throw std::invalid_argument(fmt::format("{} arrival times for {} ranks", arrival.size(), p));
    }
    if (block_bytes.size() != static_cast<std::size_t>(set.blocks())) {
        throw std::invalid_argument(fmt::format("{} block sizes for {} blocks", block_bytes.size(), set.blocks()));
    }
    if (model.ranks_per_node < 0) throw std::invalid_argument("ranks_per_node must be >= 0");
    std::vector<std::size_t> send_of_recv;
    if (auto error = match_messages(set, send_of_recv); !error.empty()) throw std::invalid_argument(error);

    // Bytes, time on the wire and arrival time of every send, indexed like the flat send list.
    std::vector<double> send_bytes(set.send_count()), send_wire(set.send_count()),
        send_arrival(set.send_count());
    for (std::size_t g = 0; g < set.send_count(); ++g) {
        const auto& send = set.all_sends()[g];
        double bytes = 0;
        for (int b : set.blocks_of(send)) bytes += block_bytes[static_cast<std::size_t>(b)];
        // A piece: its byte range of the block, cut as the executor cuts it.
        if (!send.piece().whole() && send.piece_index < send.piece_count) {
            bytes = static_cast<double>(
                schedule::reduction_block(std::llround(bytes), send.piece_count, send.piece_index).count);
        }
        send_bytes[g] = bytes;
    }

    std::vector<double> now(arrival.begin(), arrival.end());
    const std::vector<int> gate = arrival_gates(set, model, now);
    std::vector<double> start(now.size()), cpu(now.size()), finish(now.size());
    std::vector<std::size_t> next_send(now.size(), 0), next_recv(now.size(), 0);
    struct Arrival {
        double at;      // when the message has arrived
        double wire;    // its time on the link
        double reduce;  // CPU time to reduce it in (combining receives)
    };
    std::vector<Arrival> arrivals;  // of one rank's step
    // With socket_buffers, when each rank's port took in its last message, and when its link
    // put its last one on the wire (buffered sends may still be draining as the next step starts).
    std::vector<double> port_free(now.size(), -std::numeric_limits<double>::infinity());
    std::vector<double> wire_free(now.size(), -std::numeric_limits<double>::infinity());
    const int steps = set.max_step_count();
    NodePorts ports(model, p);
    for (int step = 0; step < steps; ++step) {
        start = now;
        for (int i = 0; i < p; ++i) {
            const auto ui = static_cast<std::size_t>(i);
            if (step >= gate[ui]) start[ui] = std::max(start[ui], arrival[ui]);
        }
        ports.clear();
        for (int i = 0; i < p; ++i) {
            const auto sends = set.sends(i);
            for (std::size_t k = next_send[static_cast<std::size_t>(i)]; k < sends.size() && sends[k].step == step; ++k) {
                const double bytes = send_bytes[set.send_offset(i) + k];
                if (bytes > 0 && ports.crosses(i, sends[k].peer)) ports.count(i, sends[k].peer, bytes);
            }
        }
        for (int i = 0; i < p; ++i) {
            const auto ui = static_cast<std::size_t>(i);
            const auto sends = set.sends(i);
            double link_free = model.socket_buffers ? std::max(start[ui], wire_free[ui]) : start[ui];
            cpu[ui] = finish[ui] = start[ui];
            for (auto& k = next_send[ui]; k < sends.size() && sends[k].step == step; ++k) {
                const std::size_t g = set.send_offset(i) + k;
                const double bytes = send_bytes[g];
                // The executor skips empty messages on both sides; a signal (no blocks) goes.
                if (bytes <= 0 && sends[k].block_count > 0) continue;
                cpu[ui] += model.overhead;
                double inject = cpu[ui];
                if (model.contention) inject = std::max(inject, link_free);
                const int to = sends[k].peer;
                const bool rendezvous = bytes >= model.rendezvous_bytes;
                if (rendezvous) inject = std::max(inject, start[static_cast<std::size_t>(to)]);
                const bool remote = ports.crosses(i, to);
                send_wire[g] = remote ? ports.shared_bytes(i, to, bytes) * model.inter_per_byte : bytes * model.per_byte;
                link_free = inject + send_wire[g];
                send_arrival[g] = link_free + (remote ? model.inter_latency : model.latency);
                finish[ui] = std::max(finish[ui], rendezvous ? send_arrival[g] : model.socket_buffers ? cpu[ui] : link_free);
            }
            wire_free[ui] = link_free;
        }
        for (int j = 0; j < p; ++j) {
            const auto uj = static_cast<std::size_t>(j);
            const auto recvs = set.recvs(j);
            arrivals.clear();
            for (auto& k = next_recv[uj]; k < recvs.size() && recvs[k].step == step; ++k) {
                const std::size_t g = send_of_recv[set.recv_offset(j) + k];
                const double reduce = recvs[k].combine == schedule::Combine::none ? 0.0
                                                                                   : send_bytes[g] * model.reduce_per_byte;
                if (send_bytes[g] > 0 || set.all_sends()[g].block_count == 0)
                    arrivals.push_back({send_arrival[g], send_wire[g], reduce});
            }
            std::sort(arrivals.begin(), arrivals.end(),
                      [](const Arrival& a, const Arrival& b) { return a.at < b.at; });
            double link_free = model.socket_buffers ? port_free[uj] : start[uj];
            for (const Arrival& incoming : arrivals) {
                double received = incoming.at;
                if (model.contention) received = std::max(incoming.at, link_free + incoming.wire);
                link_free = received;
                cpu[uj] = std::max(cpu[uj], received) + model.overhead + incoming.reduce;
                finish[uj] = std::max(finish[uj], cpu[uj]);
            }
            port_free[uj] = link_free;
            now[uj] = finish[uj];
        }
    }

    for (std::size_t i = 0; i < now.size(); ++i) now[i] = std::max(now[i], arrival[i]);
    return timing_of_exits(arrival, std::move(now));
}

TimingResult timing_of_exits(std::span<const double> arrival, std::vector<double> exit) {
    TimingResult result;
    result.exit = std::move(exit);
    if (arrival.empty()) return result;
    double elapsed = 0;
    for (std::size_t i = 0; i < result.exit.size(); ++i) elapsed += result.exit[i] - arrival[i];
    result.mean_elapsed = elapsed / double(arrival.size());
    result.run_time = *std::max_element(result.exit.begin(), result.exit.end()) -
                      *std::min_element(arrival.begin(), arrival.end());
    return result;
}

// --- arrival patterns ------------------------------------------------------------------------

namespace {

std::uint64_t splitmix64(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

// A draw in [0, 1) that depends only on (seed, stream).
double unit_draw(std::uint64_t seed, std::uint64_t stream) {
    return static_cast<double>(splitmix64(splitmix64(seed) ^ stream) >> 11) * 0x1.0p-53;
}

// The number `text` spells, all of it; nullopt if it is empty or has anything else.
std::optional<double> whole_number(std::string_view text) {
    double value = 0;
    const char* end = text.data() + text.size();
    const auto [parsed_end, error] = std::from_chars(text.data(), end, value);
    if (text.empty() || error != std::errc{} || parsed_end != end) return std::nullopt;
    return value;
}

}  // namespace

std::optional<ArrivalPattern> parse_arrival_pattern(std::string_view text) {
    if (text == "balanced") return ArrivalPattern{};
    const auto colon = text.find(':');
    if (colon == std::string_view::npos) return std::nullopt;
    const std::string_view name = text.substr(0, colon);
    const std::string_view value = text.substr(colon + 1);
    ArrivalPattern pattern;
    if (name == "uniform") {
        pattern.kind = ArrivalPattern::Kind::uniform;
    } else if (name == "one-late") {
        pattern.kind = ArrivalPattern::Kind::one_late;
    } else if (name == "staircase") {
        pattern.kind = ArrivalPattern::Kind::staircase;
    } else if (name == "list") {
        pattern.kind = ArrivalPattern::Kind::list;
        std::string_view rest = value;
        for (;;) {
            const std::string_view item = rest.substr(0, rest.find(','));
            const auto time = whole_number(item);
            if (!time || !std::isfinite(*time)) return std::nullopt;
            pattern.times.push_back(*time);
            if (item.size() == rest.size()) return pattern;
            rest.remove_prefix(item.size() + 1);
        }
    } else {
        return std::nullopt;
    }
    const auto seconds = whole_number(value);
    if (!seconds || !(*seconds >= 0)) return std::nullopt;
    pattern.seconds = *seconds;
    return pattern;
}

std::vector<double> make_arrivals(const ArrivalPattern& pattern, int ranks, std::uint64_t seed) {
    std::vector<double> arrival(static_cast<std::size_t>(std::max(ranks, 0)), 0.0);
    switch (pattern.kind) {
        case ArrivalPattern::Kind::balanced:
            break;
        case ArrivalPattern::Kind::uniform:
            for (std::size_t i = 0; i < arrival.size(); ++i) arrival[i] = pattern.seconds * unit_draw(seed, i);
            break;
        case ArrivalPattern::Kind::one_late:
            if (!arrival.empty()) arrival[splitmix64(seed) % arrival.size()] = pattern.seconds;
            break;
        case ArrivalPattern::Kind::staircase:
            for (std::size_t i = 0; i < arrival.size(); ++i) arrival[i] = pattern.seconds * static_cast<double>(i);
            break;
        case ArrivalPattern::Kind::list:
            for (std::size_t i = 0; i < arrival.size() && i < pattern.times.size(); ++i) arrival[i] = pattern.times[i];
            break;
    }
    return arrival;
}

// --- debugging -------------------------------------------------------------------------------

std::string to_string(const schedule::Schedule& plan) {
    std::string out = fmt::format("rank {} of {} ({} steps)\n", plan.rank, plan.ranks, plan.steps.size());
    for (std::size_t s = 0; s < plan.steps.size(); ++s) {
        out += fmt::format("  step {}:", s);
        for (const auto& t : plan.steps[s].sends)
            out += fmt::format(" send [{}]{} -> {};", fmt::join(t.blocks, ","), describe_piece(t.piece), t.peer);
        for (const auto& t : plan.steps[s].recvs) {
            const char* how = t.combine == schedule::Combine::none ? "" : t.combine == schedule::Combine::received_first
                                                                              ? " (+, theirs first)" : " (+, mine first)";
            out += fmt::format(" recv [{}]{} <- {}{};", fmt::join(t.blocks, ","), describe_piece(t.piece), t.peer, how);
        }
        out += '\n';
    }
    return out;
}

}  // namespace papshim::sim
