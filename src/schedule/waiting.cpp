#include "papshim/waiting.hpp"

#include <sched.h>

#include <atomic>
#include <cstring>

namespace papshim {
namespace {

std::atomic<WaitPolicy> policy{WaitPolicy::mpi};
std::atomic<bool> own_core_spin{false};

// Calls test(done) until it fails or says done, giving the core away in between.
template <class Test>
int test_and_yield(Test&& test) {
    for (;;) {
        int done = 0;
        if (const int error = test(done); error != MPI_SUCCESS || done) return error;
        sched_yield();
    }
}

}  // namespace

void set_wait_policy(WaitPolicy p) { policy.store(p, std::memory_order_relaxed); }

WaitPolicy wait_policy() { return policy.load(std::memory_order_relaxed); }

void set_spin_on_own_core(bool spin) { own_core_spin.store(spin, std::memory_order_relaxed); }

bool spin_on_own_core() { return own_core_spin.load(std::memory_order_relaxed); }

const char* wait_policy_name(WaitPolicy p) { return p == WaitPolicy::yield ? "yield" : "mpi"; }

NodeLoad node_load(MPI_Comm comm) {
    NodeLoad load;
    MPI_Comm node = MPI_COMM_NULL;
    if (PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) != MPI_SUCCESS ||
        node == MPI_COMM_NULL)
        return load;
    PMPI_Comm_size(node, &load.ranks);
    cpu_set_t mine;
    CPU_ZERO(&mine);
    // Unknown affinity counts as every CPU: never yield on a guess.
    if (sched_getaffinity(0, sizeof mine, &mine) != 0) std::memset(&mine, 0xff, sizeof mine);
    cpu_set_t node_cpus;
    CPU_ZERO(&node_cpus);
    const int error = PMPI_Allreduce(&mine, &node_cpus, int(sizeof mine), MPI_BYTE, MPI_BOR, node);
    PMPI_Comm_free(&node);
    if (error == MPI_SUCCESS) load.cpus = CPU_COUNT(&node_cpus);
    return load;
}

int wait_all(int count, MPI_Request* requests, MPI_Status* statuses) {
    if (wait_policy() == WaitPolicy::mpi) return PMPI_Waitall(count, requests, statuses);
    return test_and_yield([&](int& done) { return PMPI_Testall(count, requests, &done, statuses); });
}

int wait_one(MPI_Request* request, MPI_Status* status) {
    if (wait_policy() == WaitPolicy::mpi) return PMPI_Wait(request, status);
    return test_and_yield([&](int& done) { return PMPI_Test(request, &done, status); });
}

void abandon(std::span<MPI_Request> receives, std::span<MPI_Request> sends) {
    for (MPI_Request& request : receives) {
        if (request == MPI_REQUEST_NULL) continue;
        PMPI_Cancel(&request);
        wait_one(&request, MPI_STATUS_IGNORE);
    }
    for (MPI_Request& request : sends)
        if (request != MPI_REQUEST_NULL) PMPI_Request_free(&request);
}

}  // namespace papshim
