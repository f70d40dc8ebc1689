/* A program that uses MPI sessions only (no MPI_Init): one Allreduce on a communicator made
 * from the world process set, then MPI_Session_finalize, where an MPI-4 library tears down.
 * netemu.finalize runs it to check that papshim keeps that end from hanging too.
 * Prints "sum S" on rank 0, or "no sessions" where the MPI is older than 4. */
#include <mpi.h>
#include <stdio.h>

int main(void) {
#if MPI_VERSION >= 4
    MPI_Session session;
    MPI_Group group;
    MPI_Comm comm;
    if (MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &session) != MPI_SUCCESS) return 1;
    if (MPI_Group_from_session_pset(session, "mpi://WORLD", &group) != MPI_SUCCESS) return 1;
    if (MPI_Comm_create_from_group(group, "papshim.sessions_probe", MPI_INFO_NULL, MPI_ERRORS_RETURN, &comm) !=
        MPI_SUCCESS)
        return 1;
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    double mine = rank, sum = 0;
    if (MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, comm) != MPI_SUCCESS) return 1;
    if (rank == 0) printf("sum %g\n", sum);
    fflush(stdout);
    MPI_Comm_free(&comm);
    MPI_Group_free(&group);
    return MPI_Session_finalize(&session) == MPI_SUCCESS ? 0 : 1;
#else
    printf("no sessions\n");
    return 0;
#endif
}
