// The tests' native reference calls. On MPICH, waited for off the core: the nonblocking PMPI
// collective, then PMPI_Test with a short sleep between tries. MPICH busy-polls in its
// blocking calls, so with more ranks than CPUs (CI has 2 cores) each blocking reference call
// cost several scheduler time slices while the waiting ranks spun: two thirds of
// test_reduction's time at p = 4 (28 of 42 s). The nonblocking collective is native MPI's
// result all the same. Open MPI yields in its blocking calls on an oversubscribed node, and
// its blocking collectives were the quicker there (test_reduction at p = 4: 10 s, 12 s with
// the nonblocking ones): the blocking call.
#pragma once

#include <mpi.h>

#include <chrono>
#include <thread>

#ifdef MPICH_VERSION
inline constexpr bool kReferenceOffCore = true;
#else
inline constexpr bool kReferenceOffCore = false;
#endif

// papshim::wait_one (waiting.hpp) waits the same way under PAPSHIM_WAIT=yield, but it is code
// under test, and its policy follows the node papshim measured: the reference keeps a wait of
// its own, so that it rests on MPI alone.
inline int wait_off_core(MPI_Request& request) {
    for (;;) {
        int done = 0;
        const int error = PMPI_Test(&request, &done, MPI_STATUS_IGNORE);
        if (error != MPI_SUCCESS || done) return error;
        std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
}

// The blocking PMPI collective, or on MPICH its nonblocking form (the same arguments and the
// request last) waited for off the core.
template <typename Blocking, typename Nonblocking, typename... Args>
int reference_call(Blocking blocking, Nonblocking nonblocking, Args... args) {
    if constexpr (!kReferenceOffCore) return blocking(args...);
    MPI_Request request = MPI_REQUEST_NULL;
    const int error = nonblocking(args..., &request);
    return error == MPI_SUCCESS ? wait_off_core(request) : error;
}

inline int reference_allgather(const void* send, int send_count, MPI_Datatype send_type, void* recv, int recv_count,
                               MPI_Datatype recv_type, MPI_Comm comm) {
    return reference_call(PMPI_Allgather, PMPI_Iallgather, send, send_count, send_type, recv, recv_count, recv_type,
                          comm);
}

inline int reference_allgatherv(const void* send, int send_count, MPI_Datatype send_type, void* recv,
                                const int* recv_counts, const int* displs, MPI_Datatype recv_type, MPI_Comm comm) {
    return reference_call(PMPI_Allgatherv, PMPI_Iallgatherv, send, send_count, send_type, recv, recv_counts, displs,
                          recv_type, comm);
}

inline int reference_reduce(const void* send, void* recv, int count, MPI_Datatype type, MPI_Op op, int root,
                            MPI_Comm comm) {
    return reference_call(PMPI_Reduce, PMPI_Ireduce, send, recv, count, type, op, root, comm);
}

inline int reference_allreduce(const void* send, void* recv, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
    return reference_call(PMPI_Allreduce, PMPI_Iallreduce, send, recv, count, type, op, comm);
}
