// The dynamic leader's shared-memory protocol (src/algorithms/node_steps.cpp: leader_reduce,
// copy_partial, through allreduce::run_dynamic_leader and reduce::run_dynamic_leader, every
// other call a Reduce to a rotating root, whose other ranks leave once deposited and may
// deposit for the next call before the leader took this one), and every fourth call the
// symmetric Allreduce (symmetric_reduce, its two cells per rank), then as many symmetric
// calls back to back, with threads as the ranks of one node, over a Segment in this process's memory. Across processes ThreadSanitizer cannot see the
// segment's accesses; here every claim, deposit, epoch flag and copy is in one process, so
// it checks that the epochs order them (the CI's ThreadSanitizer job runs this test). What it
// cannot see: the leader reads the deposits inside PMPI_Reduce_local, in uninstrumented
// libmpi; the copies into and out of the result slot are its own.
// Each call the threads arrive in a random order, so the leader changes from call to call;
// counts, in place and back-to-back calls vary. Results against sums computed here.
//
// test_node_threads [CALLS]   (default 3000 per node size; 2..6 threads)

#include <mpi.h>

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "src/algorithms/allreduce/builders.hpp"
#include "src/algorithms/node_steps.hpp"
#include "src/algorithms/reduce/builders.hpp"

namespace {

constexpr std::size_t kSlotBytes = 4096;
constexpr int kMaxInts = int(kSlotBytes / sizeof(int));

std::atomic<long> failures{0};

void fail(const std::string& what) {
    if (failures.fetch_add(1) < 20) fmt::print(stderr, "FAIL {}\n", what);
}

// Call `call`'s vector length: the same on every thread, from 1 to a full slot.
int count_of(int call) { return 1 + (call * 37) % kMaxInts; }

int contribution(int thread, int call, int i) { return thread * 1000 + call * 7 + i; }

struct FreeMemory {
    void operator()(std::byte* memory) const { std::free(memory); }
};

struct Shared {
    int threads = 0;
    std::unique_ptr<std::byte, FreeMemory> memory;
    papshim::node::Segment segment;
};

void rank_thread(Shared& shared, int thread, int calls) {
    papshim::node::NodeView view;
    view.local_rank = thread;
    view.local_size = shared.threads;
    view.segment = shared.segment;
    view.node_of.assign(std::size_t(shared.threads), 0);
    for (int r = 0; r < shared.threads; ++r) view.local_rank_of.push_back(r);
    std::mt19937 rng(unsigned(thread * 7919 + shared.threads));
    std::vector<int> send(kMaxInts), result(kMaxInts);
    // The first `calls` mix the three; then as many symmetric Allreduces back to back, where a
    // rank that left one call writes its next deposit while others still read this one's.
    for (int call = 0; call < 2 * calls; ++call) {
        // Arrivals in a random order: a short sleep, a yield, or straight in.
        switch (rng() % 4) {
            case 0: std::this_thread::sleep_for(std::chrono::microseconds(rng() % 40)); break;
            case 1: std::this_thread::yield(); break;
            default: break;
        }
        const bool mixed = call < calls;
        const bool reduce = mixed && call % 2 == 1, symmetric = !mixed || call % 4 == 2;
        const int count = symmetric ? 1 + call % int(papshim::node::kSymmetricBytes / sizeof(int)) : count_of(call);
        const int root = reduce ? (call / 2) % shared.threads : -1;
        const bool holds_result = !reduce || thread == root;
        const bool in_place = call % 3 == 1 && holds_result;
        for (int i = 0; i < count; ++i) (in_place ? result : send)[std::size_t(i)] = contribution(thread, call, i);
        papshim::ReductionBuffers buffers;
        buffers.sendbuf = in_place ? MPI_IN_PLACE : send.data();
        buffers.recvbuf = holds_result ? result.data() : nullptr;
        buffers.count = count;
        buffers.type = MPI_INT;
        buffers.op = MPI_SUM;
        buffers.root = root;
        buffers.same_type_everywhere = true;
        const int error = reduce      ? papshim::reduce::run_dynamic_leader(view, buffers, MPI_COMM_NULL)
                          : symmetric ? papshim::allreduce::run_symmetric_shm(view, buffers, MPI_COMM_NULL)
                                      : papshim::allreduce::run_dynamic_leader(view, buffers, MPI_COMM_NULL);
        if (error != MPI_SUCCESS) {
            // The other threads would wait for this one's deposit forever: end the test here.
            fmt::print(stderr, "FAIL {} threads, thread {}, call {}: error {}\n", shared.threads, thread, call, error);
            std::fflush(stderr);
            std::_Exit(1);
        }
        for (int i = 0; holds_result && i < count; ++i) {
            long expected = 0;
            for (int t = 0; t < shared.threads; ++t) expected += contribution(t, call, i);
            if (result[std::size_t(i)] != expected) {
                const char* kind = reduce ? "Reduce" : symmetric ? "symmetric Allreduce" : "Allreduce";
                fail(fmt::format("{} threads, thread {}, call {} ({}, {} ints{}): element {} is {}, {} expected",
                                 shared.threads, thread, call, kind, count,
                                 in_place ? ", in place" : "", i, result[std::size_t(i)], expected));
                break;
            }
        }
    }
}

void run(int threads, int calls) {
    Shared shared;
    shared.threads = threads;
    const std::size_t bytes = (papshim::node::Segment::bytes_for(threads, kSlotBytes) + 4095) / 4096 * 4096;
    shared.memory.reset(static_cast<std::byte*>(std::aligned_alloc(4096, bytes)));
    if (!shared.memory) {
        fail(fmt::format("{} threads: no memory for a {}-byte segment", threads, bytes));
        return;
    }
    shared.segment = papshim::node::Segment(shared.memory.get(), threads, kSlotBytes);
    shared.segment.initialise();
    std::vector<std::thread> ranks;
    for (int t = 0; t < threads; ++t) ranks.emplace_back(rank_thread, std::ref(shared), t, calls);
    for (std::thread& rank : ranks) rank.join();
}

}  // namespace

int main(int argc, char** argv) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    const int calls = argc > 1 ? std::atoi(argv[1]) : 3000;
    if (provided < MPI_THREAD_MULTIPLE || calls <= 0) {
        fmt::print(stderr, "{}\n", calls <= 0 ? "usage: test_node_threads [CALLS > 0]"
                                               : "the MPI library does not provide MPI_THREAD_MULTIPLE");
        MPI_Finalize();
        return 2;
    }
    for (int threads = 2; threads <= 6; ++threads) run(threads, calls);
    fmt::print("dynamic leader (Allreduce and Reduce) and symmetric Allreduce, threads as ranks (2..6), {} calls each: {} failures\n",
               calls, failures.load());
    MPI_Finalize();
    return failures.load() == 0 ? 0 : 1;
}
