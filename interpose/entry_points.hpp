// The table every exported entry point is stamped from (DESIGN §1): one row per
// intercepted collective with its C parameter list and argument list.
#pragma once

#include <mpi.h>

#define PAPSHIM_EXPORT extern "C" __attribute__((visibility("default")))

// X(Name, lower-case name, (C parameters), (C arguments))
#define PAPSHIM_COLLECTIVES(X)                                                                            \
    X(Allgather, allgather,                                                                               \
      (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,           \
       MPI_Datatype recvtype, MPI_Comm comm),                                                             \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm))                                 \
    X(Allgatherv, allgatherv,                                                                             \
      (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int* recvcounts,   \
       const int* displs, MPI_Datatype recvtype, MPI_Comm comm),                                          \
      (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm))                        \
    X(Reduce, reduce,                                                                                     \
      (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,         \
       MPI_Comm comm),                                                                                    \
      (sendbuf, recvbuf, count, datatype, op, root, comm))                                                \
    X(Allreduce, allreduce,                                                                               \
      (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm),   \
      (sendbuf, recvbuf, count, datatype, op, comm))

// MPI-4's large-count forms (MPI_Allgather_c, ...; MPICH 4): C entry points only, since
// MPICH's Fortran bindings call them too. An MPI-4 library must provide them.
#if MPI_VERSION >= 4
#define PAPSHIM_LARGE_COUNT 1
#define PAPSHIM_LARGE_COUNT_COLLECTIVES(X)                                                                \
    X(Allgather_c, allgather_c,                                                                           \
      (const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, \
       MPI_Datatype recvtype, MPI_Comm comm),                                                             \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm))                                 \
    X(Allgatherv_c, allgatherv_c,                                                                         \
      (const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,                    \
       const MPI_Count* recvcounts, const MPI_Aint* displs, MPI_Datatype recvtype, MPI_Comm comm),        \
      (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm))                        \
    X(Reduce_c, reduce_c,                                                                                 \
      (const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root,   \
       MPI_Comm comm),                                                                                    \
      (sendbuf, recvbuf, count, datatype, op, root, comm))                                                \
    X(Allreduce_c, allreduce_c,                                                                           \
      (const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,             \
       MPI_Comm comm),                                                                                    \
      (sendbuf, recvbuf, count, datatype, op, comm))
#else
#define PAPSHIM_LARGE_COUNT_COLLECTIVES(X)
#endif

#define PAPSHIM_UNPACK(...) __VA_ARGS__

namespace papshim::interpose {

// One handler per collective; `caller` is the return address of the exported entry.
#define PAPSHIM_DECLARE_HANDLER(Name, lower, params, args) \
    int lower(PAPSHIM_UNPACK params, const void* caller);
PAPSHIM_COLLECTIVES(PAPSHIM_DECLARE_HANDLER)
PAPSHIM_LARGE_COUNT_COLLECTIVES(PAPSHIM_DECLARE_HANDLER)
#undef PAPSHIM_DECLARE_HANDLER

}  // namespace papshim::interpose
