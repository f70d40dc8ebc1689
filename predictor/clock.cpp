#include "papshim/clock.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <fstream>
#include <iterator>
#include <limits>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

namespace papshim::clock {
namespace {

constexpr int sync_tag = 1;
constexpr int link_tag = 2;
constexpr int turn_tag = 3;
constexpr int early_tag = 4;
constexpr int sync_rounds = 8;
constexpr int stream_message = 1 << 16;
// β comes from a back-to-back stream larger than the burst a shaped or switched link absorbs
// at full speed: a single 64 KiB ping-pong measured 1.3 GB/s on the emulated 1 Gbit/s network
// (its token bucket holds 2 ms of the rate), ten times the link's real 125 MB/s.
constexpr int stream_messages = 16;  // 1 MiB: 8 ms at 1 Gbit/s, well under 1 ms on a node
// Of both measurements the minimum over several rounds (LinkRounds), since a descheduled peer
// (an oversubscribed node) inflates single rounds; the stream after one warm-up round that
// drains any burst allowance.

// Waits for `request` without holding a core. The ranks outside a measurement wait this way:
// MPICH's blocking wait spins, and with more ranks than cores the spinning ranks took the
// measuring pair's cores, so MPI_Init's α came out 2–3 ms instead of microseconds and every
// τ-based decision of `auto` went wrong (docs/benchmarks.md, "MPICH's link model on shared
// cores"). A sleep, not sched_yield: a yielding rank stays runnable and is soon back.
void wait_off_core(MPI_Request& request) {
    int done = 0;
    while (PMPI_Test(&request, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done)
        std::this_thread::sleep_for(std::chrono::microseconds(50));
}

void broadcast_off_core(double* values, int count, MPI_Comm comm) {
    MPI_Request request = MPI_REQUEST_NULL;
    if (PMPI_Ibcast(values, count, MPI_DOUBLE, 0, comm, &request) == MPI_SUCCESS) wait_off_core(request);
}

// One rank's estimate of (rank 0 time − local time), from the exchange with the least RTT.
double estimate_offset(MPI_Comm comm, double& best_rtt) {
    double best_offset = 0.0;
    best_rtt = std::numeric_limits<double>::infinity();
    for (int i = 0; i < sync_rounds; ++i) {
        double sent = local_now();
        double remote = 0.0;
        PMPI_Send(&sent, 1, MPI_DOUBLE, 0, sync_tag, comm);
        PMPI_Recv(&remote, 1, MPI_DOUBLE, 0, sync_tag, comm, MPI_STATUS_IGNORE);
        double received = local_now();
        if (received - sent < best_rtt) {
            best_rtt = received - sent;
            best_offset = remote - (sent + received) / 2;
        }
    }
    return best_offset;
}

void serve_offset(MPI_Comm comm, int peer) {
    for (int i = 0; i < sync_rounds; ++i) {
        double ignored = 0.0;
        PMPI_Recv(&ignored, 1, MPI_DOUBLE, peer, sync_tag, comm, MPI_STATUS_IGNORE);
        double now = local_now();
        PMPI_Send(&now, 1, MPI_DOUBLE, peer, sync_tag, comm);
    }
}

// Minimum one-way time of `bytes` between rank 0 and `peer`, measured on rank 0.
double one_way_time(MPI_Comm comm, int rank, int peer, std::vector<char>& buffer, int bytes, int rounds) {
    double best = std::numeric_limits<double>::infinity();
    for (int i = 0; i < rounds; ++i) {
        if (rank == 0) {
            double t0 = local_now();
            PMPI_Send(buffer.data(), bytes, MPI_BYTE, peer, link_tag, comm);
            PMPI_Recv(buffer.data(), bytes, MPI_BYTE, peer, link_tag, comm, MPI_STATUS_IGNORE);
            best = std::min(best, (local_now() - t0) / 2);
        } else {
            PMPI_Recv(buffer.data(), bytes, MPI_BYTE, 0, link_tag, comm, MPI_STATUS_IGNORE);
            PMPI_Send(buffer.data(), bytes, MPI_BYTE, 0, link_tag, comm);
        }
    }
    return best;
}

// Minimum time for rank 0 to stream `stream_messages` messages to `peer` and hear back with
// a short acknowledgement, measured on rank 0: the bytes' time plus two latencies.
double stream_time(MPI_Comm comm, int rank, int peer, std::vector<char>& buffer, int rounds) {
    double best = std::numeric_limits<double>::infinity();
    char ack = 0;
    for (int round = 0; round <= rounds; ++round) {
        if (rank == 0) {
            const double t0 = local_now();
            for (int m = 0; m < stream_messages; ++m)
                PMPI_Send(buffer.data(), stream_message, MPI_BYTE, peer, link_tag, comm);
            PMPI_Recv(&ack, 1, MPI_BYTE, peer, link_tag, comm, MPI_STATUS_IGNORE);
            if (round > 0) best = std::min(best, local_now() - t0);
        } else {
            for (int m = 0; m < stream_messages; ++m)
                PMPI_Recv(buffer.data(), stream_message, MPI_BYTE, 0, link_tag, comm, MPI_STATUS_IGNORE);
            PMPI_Send(&ack, 1, MPI_BYTE, 0, link_tag, comm);
        }
    }
    return best;
}

// LinkModel::early_send_bytes: the largest of kEarlySendBytes whose send completes before its
// receiver posts the receive. Rank 0 sends one message of each size at once, smallest first
// (so none waits behind a larger one's handshake), then watches them for 1 ms while the peer
// sleeps 2 ms before it receives them all. Open MPI's TCP completes 48 KiB at once (the data
// waits in the peer's socket); MPICH over UCX's TCP holds 48 KiB until the receive
// (rendezvous) and completes 16 KiB. One window for every size: where none is buffered (one
// node) the probe costs 3 ms, where trying the sizes in turn would cost 3 ms each. A rank 0
// descheduled past the 1 ms only answers smaller, the safe side. Rank 0's answer; the peer's
// is 0.
std::uint64_t early_send_bytes(MPI_Comm comm, int rank, int peer) {
    constexpr std::size_t sizes = std::size(kEarlySendBytes);
    std::vector<char> buffer(std::accumulate(std::begin(kEarlySendBytes), std::end(kEarlySendBytes), std::size_t(0)));
    std::array<MPI_Request, sizes> requests;
    requests.fill(MPI_REQUEST_NULL);
    char go = 0;
    if (rank == peer) {
        PMPI_Send(&go, 1, MPI_CHAR, 0, early_tag, comm);
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    } else {
        PMPI_Recv(&go, 1, MPI_CHAR, peer, early_tag, comm, MPI_STATUS_IGNORE);
    }
    std::size_t offset = 0;
    for (std::size_t i = sizes; i-- > 0;) {  // kEarlySendBytes is largest first
        const int bytes = int(kEarlySendBytes[i]), tag = early_tag + 1 + int(i);
        if (rank == peer)
            PMPI_Irecv(buffer.data() + offset, bytes, MPI_BYTE, 0, tag, comm, &requests[i]);
        else
            PMPI_Isend(buffer.data() + offset, bytes, MPI_BYTE, peer, tag, comm, &requests[i]);
        offset += std::size_t(bytes);
    }
    std::uint64_t buffered = 0;
    if (rank != peer) {
        const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(1);
        std::array<int, sizes> done{};
        while (std::chrono::steady_clock::now() < until) {
            for (std::size_t i = 0; i < sizes; ++i)
                if (!done[i]) PMPI_Test(&requests[i], &done[i], MPI_STATUS_IGNORE);
            if (std::all_of(done.begin(), done.end(), [](int d) { return d != 0; })) break;
            std::this_thread::sleep_for(std::chrono::microseconds(20));
        }
        for (std::size_t i = 0; i < sizes && buffered == 0; ++i)
            if (done[i]) buffered = kEarlySendBytes[i];
    }
    PMPI_Waitall(int(sizes), requests.data(), MPI_STATUSES_IGNORE);
    return buffered;
}

}  // namespace

const char* select_tick_source() {
#if defined(__x86_64__) || defined(__i386__)
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    while (std::getline(cpuinfo, line)) {
        if (line.rfind("flags", 0) != 0) continue;
        auto has = [&](const char* flag) { return (" " + line + " ").find(std::string(" ") + flag + " ") != std::string::npos; };
        use_tsc = has("constant_tsc") && has("nonstop_tsc");
        break;
    }
#endif
    return use_tsc ? "tsc" : "steady_clock";
}

ClockPoint point_now() {
    // Read the slow clock between two counter reads and pair it with their midpoint.
    std::uint64_t before = ticks();
    double local = local_now();
    std::uint64_t after = ticks();
    return {before + (after - before) / 2, local};
}

TickFit fit_ticks(const ClockPoint& start, const ClockPoint& end, double clock_offset) {
    TickFit fit;
    fit.tick0 = start.tick;
    fit.seconds0 = start.local + clock_offset;
    if (!use_tsc) {
        fit.seconds_per_tick = 1e-9;  // ticks are steady_clock nanoseconds
        fit.seconds0 = double(start.tick) * 1e-9 + clock_offset;
    } else if (end.tick > start.tick) {
        fit.seconds_per_tick = (end.local - start.local) / double(end.tick - start.tick);
    }
    return fit;
}

Synchronisation synchronise(MPI_Comm comm) {
    int rank = 0, size = 1;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    Synchronisation sync;
    double rtt = 0.0;
    // Rank 0 serves every other rank in turn, so each estimate sees an idle peer; a rank
    // sleeps until rank 0 tells it its turn has come, so that it takes no core from the pair
    // exchanging.
    for (int peer = 1; peer < size; ++peer) {
        char turn = 0;
        if (rank == 0) {
            PMPI_Send(&turn, 1, MPI_CHAR, peer, turn_tag, comm);
            serve_offset(comm, peer);
        } else if (rank == peer) {
            MPI_Request request = MPI_REQUEST_NULL;
            PMPI_Irecv(&turn, 1, MPI_CHAR, 0, turn_tag, comm, &request);
            wait_off_core(request);
            sync.offset = estimate_offset(comm, rtt);
        }
    }
    double base = rank == 0 ? local_now() : 0.0;
    broadcast_off_core(&base, 1, comm);
    sync.offset -= base;  // rank 0's local time `base` becomes global time 0
    PMPI_Allreduce(MPI_IN_PLACE, &rtt, 1, MPI_DOUBLE, MPI_MAX, comm);
    sync.max_rtt = rtt;
    sync.link = measure_link(comm);
    return sync;
}

LinkModel measure_link(MPI_Comm comm, LinkRounds rounds) {
    int rank = 0, size = 1;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    LinkModel link;
    double measured[3] = {link.alpha, link.beta, 0.0};
    if (size > 1) {
        const int peer = size - 1;  // with block mapping the last rank is the farthest from rank 0
        std::vector<char> buffer(stream_message);
        if (rank == 0 || rank == peer) {
            const double small = one_way_time(comm, rank, peer, buffer, 8, rounds.ping_pongs);
            const double stream = stream_time(comm, rank, peer, buffer, rounds.streams);
            const std::uint64_t early_bytes = early_send_bytes(comm, rank, peer);
            if (rank == 0) {
                measured[0] = small;
                measured[1] = std::max(stream - 2 * small, 0.0) / (double(stream_message) * stream_messages);
                measured[2] = double(early_bytes);
            }
        }
    }
    broadcast_off_core(measured, 3, comm);  // the ranks outside the pair wait here off their cores
    link.alpha = measured[0];
    link.beta = measured[1];
    link.early_send_bytes = std::uint64_t(measured[2]);
    return link;
}

}  // namespace papshim::clock
