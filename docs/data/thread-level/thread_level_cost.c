/* What MPI_THREAD_MULTIPLE costs a small collective (docs/benchmarks.md, "What the thread
 * level costs"): an 8-byte MPI_Allreduce and a 1 KiB MPI_Allgather, timed over many calls,
 * with MPI initialised at the level named on the command line (single or multiple).
 * Usage: mpiexec -n 2 thread_level_cost single|multiple [calls] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double per_call(int calls, int allgather, MPI_Comm comm) {
    double in = 1.0, out = 0.0;
    char send[1024], recv[1024 * 64];
    int size;
    MPI_Comm_size(comm, &size);
    memset(send, 1, sizeof send);
    double best = 1e9;
    for (int round = 0; round < 5; ++round) { /* the best of 5 rounds: the machine is shared */
        MPI_Barrier(comm);
        double start = MPI_Wtime();
        for (int i = 0; i < calls; ++i) {
            if (allgather)
                MPI_Allgather(send, 1024 / size, MPI_BYTE, recv, 1024 / size, MPI_BYTE, comm);
            else
                MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, comm);
        }
        double t = (MPI_Wtime() - start) / calls;
        MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, comm);
        if (t < best) best = t;
    }
    return best;
}

int main(int argc, char** argv) {
    int want = argc > 1 && strcmp(argv[1], "multiple") == 0 ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE;
    int calls = argc > 2 ? atoi(argv[2]) : 20000, got = 0, rank = 0;
    MPI_Init_thread(&argc, &argv, want, &got);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double allreduce = per_call(calls, 0, MPI_COMM_WORLD);
    double allgather = per_call(calls, 1, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s %s allreduce8B_ns %.1f allgather1K_ns %.1f\n", argv[1], got == MPI_THREAD_MULTIPLE ? "got=multiple" : "got=single",
               allreduce * 1e9, allgather * 1e9);
    MPI_Finalize();
    return 0;
}
