// Fortran entry points that would otherwise bypass the C ones (DESIGN §7).
// - mpif.h and `use mpi` on Open MPI, whose Fortran layer calls PMPI_* directly. Each
//   mangling gfortran and other compilers use is stamped from one wrapper per routine.
//   MPICH's calls the C MPI_* symbols, so there the C entry points already see these callers.
// - `use mpi_f08`, through the specific procedure names the MPI standard gives tools for it
//   (MPI_Allgather_f08, ...; gfortran's symbol mpi_allgather_f08_): on Open MPI the
//   collectives and the lifecycle routines call PMPI_* (through ompi_*_f); on MPICH the
//   collectives call the C MPI_* symbols but the lifecycle routines (MPI_Init, ...) PMPI_*.
//   Their ierror argument is OPTIONAL: a null pointer where the caller left it out.

#include <dlfcn.h>

#include "quick_path.hpp"

namespace {

void set_ierror(MPI_Fint* ierror, int code) {
    if (ierror != nullptr) *ierror = code;
}

// MPI_Init and friends: the runtime starts here for a Fortran program. C's MPI_Init accepts
// null argc/argv.
void fortran_mpi_init(MPI_Fint* ierr, const void*) { set_ierror(ierr, MPI_Init(nullptr, nullptr)); }

void fortran_mpi_init_thread(MPI_Fint* required, MPI_Fint* provided, MPI_Fint* ierr, const void*) {
    int level = 0;
    set_ierror(ierr, MPI_Init_thread(nullptr, nullptr, *required, &level));
    *provided = level;
}

void fortran_mpi_finalize(MPI_Fint* ierr, const void*) { set_ierror(ierr, MPI_Finalize()); }

// MPI_Abort saves the trace before the job dies; a binding that calls PMPI_Abort would skip it.
void fortran_mpi_abort(MPI_Fint* comm, MPI_Fint* errorcode, MPI_Fint* ierr, const void*) {
    set_ierror(ierr, MPI_Abort(PMPI_Comm_f2c(*comm), *errorcode));
}

// The level the program was given, where papshim raised the real one (lifecycle.cpp's C
// override; a binding that calls PMPI_Query_thread would see the raised level).
void fortran_mpi_query_thread(MPI_Fint* provided, MPI_Fint* ierr, const void*) {
    int level = 0;
    set_ierror(ierr, MPI_Query_thread(&level));
    *provided = level;
}

// MPI_Comm_free and MPI_Comm_disconnect: through the C hooks (lifecycle.cpp), which keep a
// context alive for the communicator's delete callbacks.
void fortran_mpi_comm_free(MPI_Fint* comm, MPI_Fint* ierr, const void*) {
    MPI_Comm c = PMPI_Comm_f2c(*comm);
    set_ierror(ierr, MPI_Comm_free(&c));
    *comm = PMPI_Comm_c2f(c);
}

void fortran_mpi_comm_disconnect(MPI_Fint* comm, MPI_Fint* ierr, const void*) {
    MPI_Comm c = PMPI_Comm_f2c(*comm);
    set_ierror(ierr, MPI_Comm_disconnect(&c));
    *comm = PMPI_Comm_c2f(c);
}

}  // namespace

// X(lower_name, (Fortran parameters), (arguments of the wrapper)): the mpi_f08 symbol.
#define PAPSHIM_FORTRAN_F08(lower, params, args) \
    PAPSHIM_EXPORT void lower##_f08_ params { fortran_##lower(PAPSHIM_UNPACK args, __builtin_return_address(0)); }

PAPSHIM_FORTRAN_F08(mpi_init, (MPI_Fint* ierr), (ierr))
PAPSHIM_FORTRAN_F08(mpi_query_thread, (MPI_Fint* provided, MPI_Fint* ierr), (provided, ierr))
PAPSHIM_FORTRAN_F08(mpi_init_thread, (MPI_Fint* required, MPI_Fint* provided, MPI_Fint* ierr),
                    (required, provided, ierr))
PAPSHIM_FORTRAN_F08(mpi_finalize, (MPI_Fint* ierr), (ierr))
PAPSHIM_FORTRAN_F08(mpi_abort, (MPI_Fint* comm, MPI_Fint* errorcode, MPI_Fint* ierr), (comm, errorcode, ierr))
PAPSHIM_FORTRAN_F08(mpi_comm_free, (MPI_Fint* comm, MPI_Fint* ierr), (comm, ierr))
PAPSHIM_FORTRAN_F08(mpi_comm_disconnect, (MPI_Fint* comm, MPI_Fint* ierr), (comm, ierr))

#ifdef PAPSHIM_OPEN_MPI

namespace {

// Open MPI's Fortran MPI_IN_PLACE and MPI_BOTTOM are common blocks in libmpi; a Fortran
// caller passes their address. Looked up once (the library is loaded before any call).
const void* fortran_symbol(const char* name) {
    static void* self = dlopen(nullptr, RTLD_LAZY);
    return dlsym(self, name);
}

const void* c_buffer(const void* fortran_buffer) {
    static const void* in_place = fortran_symbol("mpi_fortran_in_place_");
    static const void* bottom = fortran_symbol("mpi_fortran_bottom_");
    if (fortran_buffer == in_place) return MPI_IN_PLACE;
    if (fortran_buffer == bottom) return MPI_BOTTOM;
    return fortran_buffer;
}

// A receive buffer: Open MPI's Fortran layer translates MPI_BOTTOM there, never MPI_IN_PLACE
// (a receive buffer that is MPI_IN_PLACE is the common block's address, as natively).
void* c_receive_buffer(void* fortran_buffer) {
    static void* bottom = const_cast<void*>(fortran_symbol("mpi_fortran_bottom_"));
    return fortran_buffer == bottom ? MPI_BOTTOM : fortran_buffer;
}

// Open MPI converts Fortran INTEGER arrays of counts in place when INTEGER is the size of
// int; anything else would need a copy, which Debian's gfortran ABI does not need.
static_assert(sizeof(MPI_Fint) == sizeof(int), "MPI_Fint must be int-sized");

}  // namespace

// X(lower_name, UPPER_NAME, (Fortran parameters), (arguments of the wrapper))
#define PAPSHIM_FORTRAN_MANGLINGS(lower, UPPER, params, args)                                  \
    PAPSHIM_EXPORT void lower##_ params { fortran_##lower(PAPSHIM_UNPACK args, __builtin_return_address(0)); } \
    PAPSHIM_EXPORT void lower##__ params { fortran_##lower(PAPSHIM_UNPACK args, __builtin_return_address(0)); } \
    PAPSHIM_EXPORT void lower params { fortran_##lower(PAPSHIM_UNPACK args, __builtin_return_address(0)); } \
    PAPSHIM_EXPORT void UPPER params { fortran_##lower(PAPSHIM_UNPACK args, __builtin_return_address(0)); }

namespace {

void fortran_mpi_allgather(void* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype, void* recvbuf,
                           MPI_Fint* recvcount, MPI_Fint* recvtype, MPI_Fint* comm, MPI_Fint* ierr,
                           const void* caller) {
    set_ierror(ierr, papshim::interpose::allgather(c_buffer(sendbuf), *sendcount, PMPI_Type_f2c(*sendtype),
                                                   c_receive_buffer(recvbuf), *recvcount, PMPI_Type_f2c(*recvtype),
                                                   PMPI_Comm_f2c(*comm), caller));
}

void fortran_mpi_allgatherv(void* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype, void* recvbuf,
                            MPI_Fint* recvcounts, MPI_Fint* displs, MPI_Fint* recvtype, MPI_Fint* comm,
                            MPI_Fint* ierr, const void* caller) {
    set_ierror(ierr, papshim::interpose::allgatherv(c_buffer(sendbuf), *sendcount, PMPI_Type_f2c(*sendtype),
                                                    c_receive_buffer(recvbuf), recvcounts, displs, PMPI_Type_f2c(*recvtype),
                                                    PMPI_Comm_f2c(*comm), caller));
}

void fortran_mpi_reduce(void* sendbuf, void* recvbuf, MPI_Fint* count, MPI_Fint* datatype, MPI_Fint* op,
                        MPI_Fint* root, MPI_Fint* comm, MPI_Fint* ierr, const void* caller) {
    set_ierror(ierr, papshim::interpose::reduce(c_buffer(sendbuf), c_receive_buffer(recvbuf), *count, PMPI_Type_f2c(*datatype),
                                                PMPI_Op_f2c(*op), *root, PMPI_Comm_f2c(*comm), caller));
}

void fortran_mpi_allreduce(void* sendbuf, void* recvbuf, MPI_Fint* count, MPI_Fint* datatype, MPI_Fint* op,
                           MPI_Fint* comm, MPI_Fint* ierr, const void* caller) {
    set_ierror(ierr, papshim::interpose::allreduce(c_buffer(sendbuf), c_receive_buffer(recvbuf), *count,
                                                   PMPI_Type_f2c(*datatype), PMPI_Op_f2c(*op), PMPI_Comm_f2c(*comm),
                                                   caller));
}

}  // namespace

// The collectives of mpif.h and `use mpi`, and of `use mpi_f08` with the same parameters:
// there handles are one-INTEGER derived types passed by reference, and buffers bare addresses
// (Open MPI's f08 bindings ignore their type, kind and rank).
#define PAPSHIM_FORTRAN_AND_F08(lower, UPPER, params, args) \
    PAPSHIM_FORTRAN_MANGLINGS(lower, UPPER, params, args)   \
    PAPSHIM_FORTRAN_F08(lower, params, args)

PAPSHIM_FORTRAN_AND_F08(mpi_allgather, MPI_ALLGATHER,
                        (void* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype, void* recvbuf, MPI_Fint* recvcount,
                         MPI_Fint* recvtype, MPI_Fint* comm, MPI_Fint* ierr),
                        (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, ierr))
PAPSHIM_FORTRAN_AND_F08(mpi_allgatherv, MPI_ALLGATHERV,
                        (void* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype, void* recvbuf,
                         MPI_Fint* recvcounts, MPI_Fint* displs, MPI_Fint* recvtype, MPI_Fint* comm,
                         MPI_Fint* ierr),
                        (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, ierr))
PAPSHIM_FORTRAN_AND_F08(mpi_reduce, MPI_REDUCE,
                        (void* sendbuf, void* recvbuf, MPI_Fint* count, MPI_Fint* datatype, MPI_Fint* op,
                         MPI_Fint* root, MPI_Fint* comm, MPI_Fint* ierr),
                        (sendbuf, recvbuf, count, datatype, op, root, comm, ierr))
PAPSHIM_FORTRAN_AND_F08(mpi_allreduce, MPI_ALLREDUCE,
                        (void* sendbuf, void* recvbuf, MPI_Fint* count, MPI_Fint* datatype, MPI_Fint* op,
                         MPI_Fint* comm, MPI_Fint* ierr),
                        (sendbuf, recvbuf, count, datatype, op, comm, ierr))

// Open MPI's Fortran MPI_Init/MPI_Finalize/MPI_Abort/MPI_Query_thread call PMPI_* too; without
// these the runtime would never start for a Fortran program.
PAPSHIM_FORTRAN_MANGLINGS(mpi_init, MPI_INIT, (MPI_Fint* ierr), (ierr))
PAPSHIM_FORTRAN_MANGLINGS(mpi_query_thread, MPI_QUERY_THREAD, (MPI_Fint* provided, MPI_Fint* ierr), (provided, ierr))
PAPSHIM_FORTRAN_MANGLINGS(mpi_init_thread, MPI_INIT_THREAD, (MPI_Fint* required, MPI_Fint* provided, MPI_Fint* ierr),
                          (required, provided, ierr))
PAPSHIM_FORTRAN_MANGLINGS(mpi_finalize, MPI_FINALIZE, (MPI_Fint* ierr), (ierr))
PAPSHIM_FORTRAN_MANGLINGS(mpi_abort, MPI_ABORT, (MPI_Fint* comm, MPI_Fint* errorcode, MPI_Fint* ierr),
                          (comm, errorcode, ierr))
PAPSHIM_FORTRAN_MANGLINGS(mpi_comm_free, MPI_COMM_FREE, (MPI_Fint* comm, MPI_Fint* ierr), (comm, ierr))
PAPSHIM_FORTRAN_MANGLINGS(mpi_comm_disconnect, MPI_COMM_DISCONNECT, (MPI_Fint* comm, MPI_Fint* ierr), (comm, ierr))

#endif
