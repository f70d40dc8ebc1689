// How papshim's own algorithms wait for their messages (PAPSHIM_WAIT).
//
// MPICH's wait polls without ever giving up its core. With more ranks than CPUs on a node,
// a rank waiting for a message then holds the core its sender needs until the scheduler's
// time slice ends, and every message costs milliseconds. Open MPI yields by itself when
// mpiexec knows the node is oversubscribed.
#pragma once

#include <mpi.h>

namespace papshim {

enum class WaitPolicy {
    mpi,    // the MPI library's own wait (PMPI_Waitall)
    yield,  // test, and give the core to another process between tests
};

// Process-wide; set by the runtime in MPI_Init, before any algorithm runs.
void set_wait_policy(WaitPolicy policy);
WaitPolicy wait_policy();
const char* wait_policy_name(WaitPolicy policy);  // "mpi" or "yield"

// yield where the ranks of `comm` that share this rank's node outnumber the CPUs they may
// run on (the union of their affinity masks), else mpi. Collective over `comm`. A CPU quota
// (cgroups) is not seen: only the CPUs a process may be scheduled on.
WaitPolicy measured_wait_policy(MPI_Comm comm);

// PMPI_Waitall and PMPI_Wait under the policy; the same results and errors. (Open MPI's
// Waitall returns at a failed request; the yielding loop waits for the others too.)
int wait_all(int count, MPI_Request* requests, MPI_Status* statuses);
int wait_one(MPI_Request* request, MPI_Status* status);

}  // namespace papshim
