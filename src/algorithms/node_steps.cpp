#include "node_steps.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

#include "allreduce/builders.hpp"
#include "papshim/waiting.hpp"
#include "reduce/builders.hpp"
#include "reduction_steps.hpp"

namespace papshim::node {
namespace {

using schedule::byte_offset;

// Tags on view.node for the chain (running partials, and the result sent to the target),
// carrying the call's epoch; below 32767 (apart from the executors' step tags, 0x2000-0x25ff: node_bcast).
constexpr int kChainTag = 0x4000;
constexpr int kChainResultTag = 0x5000;
constexpr int kHandoverTag = 0x3fff;
constexpr int kTagSpan = 0x1000;

std::uint64_t order_cell(std::uint64_t epoch, int local_rank) { return (epoch << 24) | std::uint64_t(local_rank + 1); }

// The local rank in chain order cell k of this epoch, once written.
int read_order(Segment& segment, int slot, int k, std::uint64_t epoch) {
    std::uint64_t cell = 0;
    wait_until([&] {
        cell = segment.chain_order(slot, k).load(std::memory_order_acquire);
        return cell != 0 && (cell >> 24) == (epoch & 0xFFFFFFFFFFull);
    });
    return int(cell & 0xFFFFFF) - 1;
}
bool try_read_order(Segment& segment, int slot, int k, std::uint64_t epoch, int& local_rank) {
    const std::uint64_t cell = segment.chain_order(slot, k).load(std::memory_order_acquire);
    if (cell == 0 || (cell >> 24) != (epoch & 0xFFFFFFFFFFull)) return false;
    local_rank = int(cell & 0xFFFFFF) - 1;
    return true;
}

// The pieces of a chain message: [first, first + count) elements each.
struct Pieces {
    int count = 1;
    std::int64_t per_piece = 0;
    Pieces(const Call& call) {
        const std::int64_t elements_per_piece =
            std::max<std::int64_t>(1, kChainPieceBytes / std::max<std::int64_t>(1, call.shape.size));
        per_piece = elements_per_piece;
        count = int(std::max<std::int64_t>(1, (call.count + elements_per_piece - 1) / elements_per_piece));
    }
    std::int64_t first(int piece) const { return std::int64_t(piece) * per_piece; }
    int size(int piece, int total) const { return int(std::min<std::int64_t>(per_piece, total - first(piece))); }
};

// An error ends the transfer: what it left pending is abandoned first (papshim::abandon).
int fail_transfer(int error, std::span<MPI_Request> receives, std::span<MPI_Request> sends = {}) {
    abandon(receives, sends);
    return error;
}

// Waits for requests all of one kind (receives or sends).
int wait_all(std::vector<MPI_Request>& requests, bool receives) {
    if (requests.empty()) return MPI_SUCCESS;
    int error = papshim::wait_all(int(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
    if (error != MPI_SUCCESS) error = receives ? fail_transfer(error, requests) : fail_transfer(error, {}, requests);
    requests.clear();
    return error;
}

// Sends `count` elements at `from` in pieces (nonblocking, then waits).
int send_pieces(const Call& call, const void* from, int to, int tag, MPI_Comm comm) {
    const Pieces pieces(call);
    std::vector<MPI_Request> requests(std::size_t(pieces.count), MPI_REQUEST_NULL);
    for (int i = 0; i < pieces.count; ++i) {
        // Kept only once posted: a failed post's handle is undefined.
        MPI_Request request = MPI_REQUEST_NULL;
        const int error = PMPI_Isend(byte_offset(from, pieces.first(i) * call.shape.extent), pieces.size(i, call.count),
                                     call.type, to, tag, comm, &request);
        if (error != MPI_SUCCESS) return fail_transfer(error, {}, requests);
        requests[std::size_t(i)] = request;
    }
    return wait_all(requests, false);
}

int receive_pieces(const Call& call, void* into, int from, int tag, MPI_Comm comm) {
    const Pieces pieces(call);
    std::vector<MPI_Request> requests(std::size_t(pieces.count), MPI_REQUEST_NULL);
    for (int i = 0; i < pieces.count; ++i) {
        MPI_Request request = MPI_REQUEST_NULL;
        const int error = PMPI_Irecv(byte_offset(into, pieces.first(i) * call.shape.extent), pieces.size(i, call.count),
                                     call.type, from, tag, comm, &request);
        if (error != MPI_SUCCESS) return fail_transfer(error, requests);
        requests[std::size_t(i)] = request;
    }
    return wait_all(requests, true);
}

// A middle or last link of the chain: receives the running partial from `from` piece by
// piece into `partial`, reduces this rank's contribution into each piece, and passes each
// on to `next` as soon as it is known (next_known() looks it up; -1 = keep the result).
template <class NextKnown>
int relay_pieces(const Call& call, void* partial, int from, int tag, int send_tag, MPI_Comm comm,
                 NextKnown&& next_known) {
    const Pieces pieces(call);
    std::vector<MPI_Request> receives(std::size_t(pieces.count), MPI_REQUEST_NULL), sends;
    for (int i = 0; i < pieces.count; ++i) {
        MPI_Request request = MPI_REQUEST_NULL;
        const int error = PMPI_Irecv(byte_offset(partial, pieces.first(i) * call.shape.extent),
                                     pieces.size(i, call.count), call.type, from, tag, comm, &request);
        if (error != MPI_SUCCESS) return fail_transfer(error, receives);
        receives[std::size_t(i)] = request;
    }
    int reduced = 0, sent = 0, next = -2;  // -2: not known yet
    Backoff backoff;
    while (reduced < pieces.count || (next != -1 && sent < pieces.count)) {
        bool progressed = false;
        if (next == -2) next = next_known();
        if (reduced < pieces.count) {
            int done = 0;
            if (const int error = PMPI_Test(&receives[std::size_t(reduced)], &done, MPI_STATUS_IGNORE); error != MPI_SUCCESS)
                return fail_transfer(error, receives, sends);
            if (done) {
                const MPI_Aint at = pieces.first(reduced) * call.shape.extent;
                const int error = PMPI_Reduce_local(byte_offset(call.own, at), byte_offset(partial, at),
                                                    pieces.size(reduced, call.count), call.type, call.op);
                if (error != MPI_SUCCESS) return fail_transfer(error, receives, sends);
                ++reduced;
                progressed = true;
            }
        }
        for (; next >= 0 && sent < reduced; ++sent) {
            MPI_Request request = MPI_REQUEST_NULL;
            const int error = PMPI_Isend(byte_offset(partial, pieces.first(sent) * call.shape.extent),
                                         pieces.size(sent, call.count), call.type, next, send_tag, comm, &request);
            if (error != MPI_SUCCESS) return fail_transfer(error, receives, sends);
            sends.push_back(request);
            progressed = true;
        }
        if (progressed) {
            backoff.reset();
        } else {
            backoff.pause();
        }
    }
    return wait_all(sends, false);
}

// Schedules among node leaders, built once per (algorithm, leaders, this leader, root): a
// schedule is a pure function of those, so that is its whole key. (Keyed by the view's
// address, a view freed with its communicator and another allocated at the same address
// got the old view's schedule, built for another leader index: a hang.)
const schedule::Schedule& leaders_schedule(NodeView& view, schedule::Builder build, int root) {
    struct Cached {
        schedule::Builder build;
        int ranks, rank, root;
        schedule::Schedule plan;
    };
    thread_local std::vector<Cached> cache;
    for (auto& c : cache)
        if (c.build == build && c.ranks == view.node_count && c.rank == view.node_index && c.root == root) return c.plan;
    if (cache.size() > 64) cache.clear();
    schedule::BuildInput input;
    input.ranks = view.node_count;
    input.rank = view.node_index;
    input.root = root;
    cache.push_back({build, view.node_count, view.node_index, root, build(input)});
    return cache.back().plan;
}

// Maps bytes [from, to) of a slot into this process's page tables in one madvise, rather than
// by a page fault on each page the first time this rank writes or reads it. Where the kernel
// cannot (before Linux 5.14) or the memory is short, the pages fault in as they are used.
void map_slot(std::byte* slot, std::size_t from, std::size_t to) {
#ifdef MADV_POPULATE_WRITE
    static const std::uintptr_t page = std::uintptr_t(sysconf(_SC_PAGESIZE));
    const std::uintptr_t start = reinterpret_cast<std::uintptr_t>(slot + from) / page * page;
    const std::uintptr_t end = reinterpret_cast<std::uintptr_t>(slot + to);
    static_cast<void>(madvise(reinterpret_cast<void*>(start), end - start, MADV_POPULATE_WRITE));
#else
    static_cast<void>(slot), static_cast<void>(from), static_cast<void>(to);
#endif
}

// The first `bytes` of the result slot, and of every rank's deposit slot where `deposits`.
void map_slots(NodeView& view, std::size_t bytes, bool deposits) {
    if (deposits && bytes > view.mapped_deposit_bytes) {
        for (int r = 0; r < view.local_size; ++r) map_slot(view.segment.data(r), view.mapped_deposit_bytes, bytes);
        view.mapped_deposit_bytes = bytes;
    }
    if (bytes > view.mapped_result_bytes) {
        map_slot(view.segment.result(), view.mapped_result_bytes, bytes);
        view.mapped_result_bytes = bytes;
    }
}

}  // namespace

int Call::make(const ReductionBuffers& b, Call& call) {
    call.own = b.sendbuf == MPI_IN_PLACE ? b.recvbuf : b.sendbuf;
    call.out = b.recvbuf;
    call.count = b.count;
    call.type = b.type;
    call.op = b.op;
    int error = call.shape.read(b.type);
    call.bytes = std::size_t(b.count) * std::size_t(call.shape.size);
    int integers = 0, addresses = 0, types = 0, combiner = 0;
    if (error == MPI_SUCCESS) error = PMPI_Type_get_envelope(b.type, &integers, &addresses, &types, &combiner);
    call.predefined = combiner == MPI_COMBINER_NAMED && b.same_type_everywhere;
    return error;
}

bool fits_slots(const NodeView& view, const Call& call) {
    return call.predefined && call.extent_bytes() <= view.segment.slot_bytes();
}

void copy_vector(void* to, const void* from, const Call& call) {
    const MPI_Aint first = call.shape.true_lb;
    std::memcpy(byte_offset(to, first), byte_offset(from, first), call.shape.span(call.count));
}

void* slot_scratch(std::vector<std::byte>& scratch, const Call& call) {
    const std::size_t bytes = call.extent_bytes();
    if (scratch.size() < bytes) scratch.resize(bytes);
    return scratch.data();
}

int leader_reduce(NodeView& view, const Call& call, void* partial, bool publish, bool& led) {
    Segment& segment = view.segment;
    const std::uint64_t epoch = ++view.leader_calls;
    const std::size_t bytes = call.extent_bytes();
    map_slots(view, bytes, true);
    // leader_epoch is epoch - 1 until someone of this call claims it. A rank here left the
    // previous call, which was claimed by then (its leader or this rank), and no rank leaves
    // this one before it is claimed: exactly one claim succeeds, even when ranks that left a
    // Reduce early are already here while others are still in the call before.
    std::uint64_t previous = epoch - 1;
    led = segment.leader_epoch().compare_exchange_strong(previous, epoch, std::memory_order_acq_rel,
                                                         std::memory_order_acquire);
    std::atomic<std::uint64_t>& mine = segment.ready(view.local_rank);
    if (!led) {
        // The previous deposit (if any) must have been reduced before the slot is written.
        wait_until(
            [&] {
                const std::uint64_t last = mine.load(std::memory_order_acquire);
                return last == 0 || (last & kDepositTaken) != 0;
            },
            short_wait(call.bytes));
        copy_vector(segment.data(view.local_rank), call.own, call);
        mine.store(epoch, std::memory_order_release);
        return MPI_SUCCESS;
    }
    if (!partial) {
        partial = slot_scratch(view.scratch, call);
        publish = true;
    }
    // Accumulate privately: other ranks may still be copying the previous result out of the
    // result slot until they arrive here.
    if (partial != call.own) copy_vector(partial, call.own, call);
    std::vector<int> pending;
    for (int r = 0; r < view.local_size; ++r)
        if (r != view.local_rank) pending.push_back(r);
    Backoff backoff(short_wait(call.bytes));
    while (!pending.empty()) {
        bool progressed = false;
        for (std::size_t i = 0; i < pending.size();) {
            const int r = pending[i];
            if (segment.ready(r).load(std::memory_order_acquire) != epoch) {
                ++i;
                continue;
            }
            if (const int error = PMPI_Reduce_local(segment.data(r), partial, call.count, call.type, call.op);
                error != MPI_SUCCESS)
                return error;
            segment.ready(r).store(epoch | kDepositTaken, std::memory_order_release);
            pending.erase(pending.begin() + std::ptrdiff_t(i));
            progressed = true;
        }
        if (progressed) {
            backoff.reset();
        } else if (!pending.empty()) {
            backoff.pause();
        }
    }
    if (!publish) return MPI_SUCCESS;
    copy_vector(segment.result(), partial, call);
    segment.partial_epoch().store(epoch, std::memory_order_release);
    return MPI_SUCCESS;
}

void copy_partial(NodeView& view, const Call& call, void* to) {
    const std::uint64_t epoch = view.leader_calls;
    wait_until([&] { return view.segment.partial_epoch().load(std::memory_order_acquire) >= epoch; },
               short_wait(call.bytes));
    copy_vector(to, view.segment.result(), call);
}

bool fits_symmetric(const Call& call) { return call.predefined && call.extent_bytes() <= kSymmetricBytes; }

int symmetric_reduce(NodeView& view, const Call& call, void* to, bool combine) {
    Segment& segment = view.segment;
    // A rank writes the cell of call s + 2 only after it saw every deposit of call s + 1, so
    // after every rank had left call s, the last reader of this cell.
    const std::uint64_t epoch = ++view.symmetric_calls;
    const int parity = int(epoch & 1), me = view.local_rank;
    copy_vector(segment.symmetric_data(parity, me), call.own, call);
    segment.symmetric_epoch(parity, me).store(epoch, std::memory_order_release);
    if (!combine) return MPI_SUCCESS;
    const bool spin = short_wait(call.bytes);
    const auto deposit = [&](int r) -> const void* {
        if (r == me) return call.own;
        wait_until([&] { return segment.symmetric_epoch(parity, r).load(std::memory_order_acquire) == epoch; }, spin);
        return segment.symmetric_data(parity, r);
    };
    // From the highest rank down, each lower one combined in front (inout = in op inout).
    void* sum = slot_scratch(view.scratch, call);
    copy_vector(sum, deposit(view.local_size - 1), call);
    for (int r = view.local_size - 2; r >= 0; --r)
        if (const int error = PMPI_Reduce_local(deposit(r), sum, call.count, call.type, call.op); error != MPI_SUCCESS)
            return error;
    copy_vector(to, sum, call);
    return MPI_SUCCESS;
}

int chain_reduce(NodeView& view, const Call& call, int target, void* result, int& last) {
    Segment& segment = view.segment;
    const int n = view.local_size, me = view.local_rank;
    const std::uint64_t epoch = view.chain_calls++;
    const int slot = int(epoch % kChainSlots);
    const int tag = kChainTag + int(epoch % kTagSpan);
    const int result_tag = kChainResultTag + int(epoch % kTagSpan);
    last = -1;

    // A slot serves epochs j, j + K, ...: wait until the ranks of epoch - K left it.
    wait_until([&] { return segment.chain_epoch(slot).load(std::memory_order_acquire) == epoch; });
    const int position = int(segment.chain_ticket(slot).fetch_add(1, std::memory_order_acq_rel));
    segment.chain_order(slot, position).store(order_cell(epoch, me), std::memory_order_release);

    int error = MPI_SUCCESS;
    const bool keeps = target < 0;  // the last arriver keeps the result
    if (n == 1) {
        if (result && result != call.own)
            error = schedule::copy_elements(call.own, result, call.count, call.type, call.shape, view.local_rank, view.node);
    } else if (position == 0) {
        const int next = read_order(segment, slot, 1, epoch);
        error = send_pieces(call, call.own, next, tag, view.node);
    } else {
        const int from = read_order(segment, slot, position - 1, epoch);
        const bool is_last = position == n - 1;
        const bool ends_here = is_last && (keeps || target == me);
        // The running partial: straight in the result buffer where it ends here (unless that
        // is also this rank's contribution, in place), else scratch.
        void* partial = ends_here && result != call.own
                            ? result
                            : schedule::scratch_buffer(view.scratch, 0, call.shape.span(call.count), call.shape);
        error = relay_pieces(call, partial, from, tag, is_last ? result_tag : tag, view.node, [&] {
            if (is_last) return ends_here ? -1 : target;
            int next = -2;
            return try_read_order(segment, slot, position + 1, epoch, next) ? next : -2;
        });
        if (error == MPI_SUCCESS && ends_here && partial != result)
            error = schedule::copy_elements(partial, result, call.count, call.type, call.shape, view.local_rank, view.node);
    }
    if (error == MPI_SUCCESS && n > 1 && target == me && position != n - 1) {
        const int from = read_order(segment, slot, n - 1, epoch);
        error = receive_pieces(call, result, from, result_tag, view.node);
    }
    if (keeps) last = read_order(segment, slot, n - 1, epoch);
    // The last rank out hands the slot to epoch + K; order cells need no clearing (epoch-tagged).
    if (segment.chain_departed(slot).fetch_add(1, std::memory_order_acq_rel) + 1 == std::uint32_t(n)) {
        segment.chain_ticket(slot).store(0, std::memory_order_relaxed);
        segment.chain_departed(slot).store(0, std::memory_order_relaxed);
        segment.chain_epoch(slot).store(epoch + kChainSlots, std::memory_order_release);
    }
    return error;
}

int node_bcast(NodeView& view, const Call& call, void* buffer, int root) {
    if (view.local_size == 1) return MPI_SUCCESS;
    if (fits_slots(view, call)) {
        // The slot's previous readers are done: the writer only gets here once every rank of
        // the node has arrived at this call.
        const std::uint64_t epoch = ++view.bcast_calls;
        const std::size_t bytes = call.extent_bytes();
        map_slots(view, bytes, false);
        if (view.local_rank == root) {
            copy_vector(view.segment.result(), buffer, call);
            view.segment.bcast_epoch().store(epoch, std::memory_order_release);
        } else {
            wait_until([&] { return view.segment.bcast_epoch().load(std::memory_order_acquire) >= epoch; },
                       short_wait(call.bytes));
            copy_vector(buffer, view.segment.result(), call);
        }
        return MPI_SUCCESS;
    }
    schedule::BuildInput input;
    input.ranks = view.local_size;
    input.rank = view.local_rank;
    input.root = root;
    const schedule::Schedule plan = reduction::build_binomial_bcast(input);
    const ReductionBuffers b{MPI_IN_PLACE, buffer, call.count, call.type, call.op, -1, true};
    return execute_reduction(plan, b, view.node);
}

int node_handover(NodeView& view, const Call& call, void* buffer, int from, int to) {
    if (from == to || (view.local_rank != from && view.local_rank != to)) return MPI_SUCCESS;
    // Nonblocking, so that the wait follows PAPSHIM_WAIT (MPICH's blocking calls spin).
    MPI_Request request = MPI_REQUEST_NULL;
    const int error = view.local_rank == from
                          ? PMPI_Isend(buffer, call.count, call.type, to, kHandoverTag, view.node, &request)
                          : PMPI_Irecv(buffer, call.count, call.type, from, kHandoverTag, view.node, &request);
    return error != MPI_SUCCESS ? error : papshim::wait_one(&request, MPI_STATUS_IGNORE);
}

int leaders_allreduce(NodeView& view, const Call& call, void* buffer) {
    if (view.node_count == 1) return MPI_SUCCESS;
    const LinkModel link;
    const bool large = allreduce::rabenseifner_cost(view.node_count, double(call.bytes), link) <
                       allreduce::recursive_doubling_cost(view.node_count, double(call.bytes), link);
    const auto& plan = leaders_schedule(view, large ? allreduce::build_rabenseifner : allreduce::build_recursive_doubling, -1);
    return execute_reduction(plan, {MPI_IN_PLACE, buffer, call.count, call.type, call.op, -1, true}, view.leaders);
}

int leaders_reduce(NodeView& view, const Call& call, void* buffer, int root_node) {
    if (view.node_count == 1) return MPI_SUCCESS;
    const auto& plan = leaders_schedule(view, reduce::build_binomial, root_node);
    const bool root = view.node_index == root_node;
    return execute_reduction(plan, {root ? MPI_IN_PLACE : buffer, root ? buffer : nullptr, call.count, call.type, call.op,
                                    root_node, true},
                             view.leaders);
}

int leaders_reduce_to_root(NodeView& view, const Call& call, void* partial, int root) {
    const int root_node = view.node_of[std::size_t(root)];
    if (view.local_rank == 0)
        if (const int error = leaders_reduce(view, call, partial, root_node); error != MPI_SUCCESS) return error;
    if (view.node_index != root_node) return MPI_SUCCESS;
    return node_handover(view, call, view.local_rank == 0 ? partial : call.out, 0,
                         view.local_rank_of[std::size_t(root)]);
}

}  // namespace papshim::node
