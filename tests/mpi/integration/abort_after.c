/* A traced job that dies: every rank makes Allreduce and Allgather calls from two call
 * sites; after CALLS calls rank RANK ends the job with MPI_Abort or by sending itself
 * SIGTERM (what a batch system does at the time limit). The others block in their next call
 * until the launcher kills them.
 * usage: abort_after CALLS RANK abort|sigterm|fortran-style-is-not-here */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double sum_step(double value) {
    double total = 0;
    MPI_Allreduce(&value, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return total;
}

static void gather_step(int rank, int* all) {
    MPI_Allgather(&rank, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 4 || (strcmp(argv[3], "abort") != 0 && strcmp(argv[3], "sigterm") != 0)) {
        if (rank == 0) fprintf(stderr, "usage: abort_after CALLS RANK abort|sigterm\n");
        MPI_Finalize();
        return 2;
    }
    const long calls = atol(argv[1]);
    const int dying = atoi(argv[2]);
    int* all = malloc(sizeof(int) * (size_t)size);
    for (long call = 0;; ++call) {
        if (rank == dying && call == calls) {
            printf("rank %d: %ld calls made, now %s\n", rank, calls, argv[3]);
            fflush(stdout);
            if (strcmp(argv[3], "abort") == 0) MPI_Abort(MPI_COMM_WORLD, 3);
            raise(SIGTERM);
            return 1; /* not reached: SIGTERM's default action ends the process */
        }
        if (call % 3 == 2) gather_step(rank, all);
        else sum_step((double)call);
    }
}
