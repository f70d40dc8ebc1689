/* A traced job that dies: every rank makes Allreduce and Allgather calls from two call
 * sites; after CALLS calls rank RANK ends the job with MPI_Abort or by sending itself
 * SIGTERM (what a batch system does at the time limit). The others block in their next call
 * until the launcher kills them. term-then-abort: the program catches SIGTERM itself (handler
 * installed before MPI_Init, so papshim chains to it), survives it after CALLS calls, and
 * calls MPI_Abort after 2 CALLS: papshim must save again then. fatal: RANK sends to a rank that
 * does not exist, a fatal MPI error under the default MPI_ERRORS_ARE_FATAL (Open MPI then ends
 * the rank with _exit).
 * usage: abort_after CALLS RANK abort|sigterm|term-then-abort|fatal */
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

static volatile sig_atomic_t terminated = 0;
static void on_sigterm(int signal_number) {
    (void)signal_number;
    terminated = 1;
}

int main(int argc, char** argv) {
    const int survive = argc == 4 && strcmp(argv[3], "term-then-abort") == 0;
    if (survive) signal(SIGTERM, on_sigterm);
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 4 || (strcmp(argv[3], "abort") != 0 && strcmp(argv[3], "sigterm") != 0 &&
                      strcmp(argv[3], "fatal") != 0 && !survive)) {
        if (rank == 0) fprintf(stderr, "usage: abort_after CALLS RANK abort|sigterm|term-then-abort|fatal\n");
        MPI_Finalize();
        return 2;
    }
    const long calls = atol(argv[1]);
    const int dying = atoi(argv[2]);
    int* all = malloc(sizeof(int) * (size_t)size);
    for (long call = 0;; ++call) {
        if (survive && rank == dying && call == calls) {
            raise(SIGTERM);
            printf("rank %d: %ld calls made, survived SIGTERM (%d)\n", rank, calls, (int)terminated);
            fflush(stdout);
        }
        if (survive && rank == dying && call == 2 * calls) {
            printf("rank %d: %ld calls made, now MPI_Abort\n", rank, 2 * calls);
            fflush(stdout);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        if (!survive && rank == dying && call == calls) {
            printf("rank %d: %ld calls made, now %s\n", rank, calls, argv[3]);
            fflush(stdout);
            if (strcmp(argv[3], "abort") == 0) MPI_Abort(MPI_COMM_WORLD, 3);
            if (strcmp(argv[3], "fatal") == 0) MPI_Send(&rank, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
            raise(SIGTERM);
            return 1; /* not reached: SIGTERM's default action ends the process */
        }
        if (call % 3 == 2) gather_step(rank, all);
        else sum_step((double)call);
    }
}
