// How papshim's own algorithms wait for their messages (PAPSHIM_WAIT).
//
// MPICH's wait polls without ever giving up its core. With more ranks than CPUs on a node,
// a rank waiting for a message then holds the core its sender needs until the scheduler's
// time slice ends, and every message costs milliseconds. Open MPI yields by itself when
// mpiexec knows the node is oversubscribed.
#pragma once

#include <mpi.h>

#include <span>

namespace papshim {

enum class WaitPolicy {
    mpi,    // the MPI library's own wait (PMPI_Waitall)
    yield,  // test, and give the core to another process between tests
};

// Process-wide; set by the runtime in MPI_Init, before any algorithm runs.
void set_wait_policy(WaitPolicy policy);
WaitPolicy wait_policy();
const char* wait_policy_name(WaitPolicy policy);  // "mpi" or "yield"

// The ranks of `comm` that share this rank's node, and the CPUs they may run on (the union of
// their affinity masks; 0 if unknown). Collective over `comm`. A CPU quota (cgroups) is not
// seen: only the CPUs a process may be scheduled on.
struct NodeLoad {
    int ranks = 1;
    int cpus = 0;
    bool oversubscribed() const { return cpus > 0 && ranks > cpus; }
};
NodeLoad node_load(MPI_Comm comm);
// yield where the node is oversubscribed, else mpi.
inline WaitPolicy measured_wait_policy(const NodeLoad& load) {
    return load.oversubscribed() ? WaitPolicy::yield : WaitPolicy::mpi;
}

// Whether papshim's node algorithms may keep spinning on their core while they wait for a peer
// in shared memory (node::Backoff): set by the runtime in MPI_Init where this rank's node was
// measured to have a CPU per rank and PAPSHIM_WAIT is not yield; false until then and
// elsewhere (a node of shared cores, or not measured). Process-wide.
void set_spin_on_own_core(bool spin);
bool spin_on_own_core();

// PMPI_Waitall and PMPI_Wait under the policy; the same results and errors. A failed
// Waitall or Testall may return with other requests still pending (Open MPI's Waitall and
// MPICH's Testall return at the first failed request): the caller abandons them.
int wait_all(int count, MPI_Request* requests, MPI_Status* statuses);
int wait_one(MPI_Request* request, MPI_Status* status);

// After an error, what the requests left pending: receives are cancelled and then completed
// (one that had matched completes normally), so that nothing writes into the caller's
// buffers once it has returned and no stray receive takes a later call's message; sends are
// released, and MPI finishes them when their receiver comes (a cancelled send could block
// forever). Null requests are skipped; all are null afterwards.
void abandon(std::span<MPI_Request> receives, std::span<MPI_Request> sends);

}  // namespace papshim
