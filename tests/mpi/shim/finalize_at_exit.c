/* MPI_Finalize from an exit handler registered before MPI_Init: papshim's state, made during
 * MPI_Init, must still exist when the handler runs, and the trace must be merged (10 traced
 * Allreduce calls per rank). */
#include <mpi.h>
#include <stdlib.h>

static void finalize_at_exit(void) { MPI_Finalize(); }

int main(int argc, char** argv) {
    atexit(finalize_at_exit);
    MPI_Init(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double mine[64], sum[64];
    for (int i = 0; i < 64; ++i) mine[i] = rank;
    for (int call = 0; call < 10; ++call) MPI_Allreduce(mine, sum, 64, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return 0;
}
