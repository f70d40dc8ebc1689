// The table every exported entry point is stamped from (DESIGN §1): one row per
// intercepted collective with its C parameter list and argument list.
#pragma once

#include <mpi.h>

#define PAPSHIM_EXPORT extern "C" __attribute__((visibility("default")))

// X(Name, lower-case name, (C parameters), (C arguments)), for one form of the routines:
// `Suffix` and the types of its counts and displacements.
#define PAPSHIM_COLLECTIVE_FORMS(X, Suffix, Count, Displacement)                                           \
    X(Allgather##Suffix, allgather##Suffix,                                                               \
      (const void* sendbuf, Count sendcount, MPI_Datatype sendtype, void* recvbuf, Count recvcount,       \
       MPI_Datatype recvtype, MPI_Comm comm),                                                             \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm))                                 \
    X(Allgatherv##Suffix, allgatherv##Suffix,                                                             \
      (const void* sendbuf, Count sendcount, MPI_Datatype sendtype, void* recvbuf, const Count* recvcounts, \
       const Displacement* displs, MPI_Datatype recvtype, MPI_Comm comm),                                 \
      (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm))                        \
    X(Reduce##Suffix, reduce##Suffix,                                                                     \
      (const void* sendbuf, void* recvbuf, Count count, MPI_Datatype datatype, MPI_Op op, int root,       \
       MPI_Comm comm),                                                                                    \
      (sendbuf, recvbuf, count, datatype, op, root, comm))                                                \
    X(Allreduce##Suffix, allreduce##Suffix,                                                               \
      (const void* sendbuf, void* recvbuf, Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm), \
      (sendbuf, recvbuf, count, datatype, op, comm))

#define PAPSHIM_COLLECTIVES(X) PAPSHIM_COLLECTIVE_FORMS(X, , int, int)

// MPI-4's large-count forms (MPI_Allgather_c, ...; MPICH 4): C entry points only, since
// MPICH's Fortran bindings call them too. An MPI-4 library must provide them.
#if MPI_VERSION >= 4
#define PAPSHIM_LARGE_COUNT 1
#define PAPSHIM_LARGE_COUNT_COLLECTIVES(X) PAPSHIM_COLLECTIVE_FORMS(X, _c, MPI_Count, MPI_Aint)
#else
#define PAPSHIM_LARGE_COUNT_COLLECTIVES(X)
#endif

#define PAPSHIM_UNPACK(...) __VA_ARGS__

namespace papshim::interpose {

// Each collective's full path (collectives.cpp), for the calls its handler (quick_path.hpp)
// does not send to MPI at once; `caller` is the return address of the exported entry. Never
// inlined (the unity build compiles it with the entries): its frame would be the entry's on
// every path.
#define PAPSHIM_DECLARE_HANDLER(Name, lower, params, args) \
    [[gnu::noinline]] int lower##_full(PAPSHIM_UNPACK params, const void* caller);
PAPSHIM_COLLECTIVES(PAPSHIM_DECLARE_HANDLER)
PAPSHIM_LARGE_COUNT_COLLECTIVES(PAPSHIM_DECLARE_HANDLER)
#undef PAPSHIM_DECLARE_HANDLER

// Brackets around PMPI_Finalize and PMPI_Session_finalize (finalize_progress.cpp): on MPICH
// before 4.2 papshim progresses MPICH's UCX workers while it closes its endpoints, so no
// rank hangs waiting for a peer that sits in the closing barrier. Nothing elsewhere.
void begin_finalize_progress();
void end_finalize_progress();

}  // namespace papshim::interpose
