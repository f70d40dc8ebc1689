// Which predefined datatypes MPI's predefined reduction operations are defined for (MPI 4.0
// §6.9.2), so that papshim runs its own Reduce/Allreduce only on calls the native one accepts:
// MPI_MINLOC on MPI_INT is an error every rank sees alike (MPI_ERR_OP), which the native call
// must raise before any message, not PMPI_Reduce_local halfway through papshim's schedule.
#pragma once

#include <mpi.h>

namespace papshim::interpose {

// Whether `op` is one of MPI's predefined operations (MPI_REPLACE and MPI_NO_OP included).
bool predefined_op(MPI_Op op);
// Whether the predefined `op` is defined for the predefined `type` and this MPI library
// reduces it. Conservative: a combination it does not know (an implementation's extension)
// is refused, and the call goes to the native MPI, which is always correct.
bool builtin_op_accepts(MPI_Op op, MPI_Datatype type);
// Finds the combinations the standard defines that this MPI library refuses, with one
// PMPI_Reduce_local of each: once, right after MPI_Init, before any other thread calls MPI.
void probe_builtin_ops();

}  // namespace papshim::interpose
