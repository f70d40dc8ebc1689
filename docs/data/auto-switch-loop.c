/* The loop behind "What `auto` does with it" in docs/benchmarks.md: rank p-1 sleeps 300 ms
 * before each MPI_Allreduce of argv[1] bytes of ints, argv[2] times; rank 0 prints which
 * algorithm ran each call and how long it took there. Built and run as:
 *   mpicc.openmpi -Iinclude docs/data/auto-switch-loop.c -o loop -Lbuild/openmpi/lib -lpapshim
 *   PAPSHIM_ALLREDUCE=auto build/openmpi/bin/papshim-run --emulate-network 1gbit -- \
 *     mpiexec.openmpi --allow-run-as-root --oversubscribe -x PAPSHIM_ALLREDUCE -n 8 ./loop 4194304 30
 * Output at 4f2e6fe: native for calls 0-17 (385-558 ms), predicted_chain from call 18 on
 * (318-360 ms; 300 ms of each call is the wait for the late rank). At 3fd4bda (plans only
 * once the guard trusts the predictions): native for calls 0-20, predicted_chain from 21 on.
 * Since the commit after 2efa580 (the arrival is read before the first call creates the
 * communicator's context): native for calls 0-6 (412-532 ms), predicted_chain from 7 on
 * (336-364 ms). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "papshim/control.h"

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int n = argc > 1 ? atoi(argv[1]) / 4 : 1 << 20, calls = argc > 2 ? atoi(argv[2]) : 30;
    int* in = malloc(sizeof(int) * (size_t)n);
    int* out = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; ++i) in[i] = rank + i;
    for (int c = 0; c < calls; ++c) {
        if (rank == size - 1) usleep(300000);
        double t = MPI_Wtime();
        MPI_Allreduce(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        t = MPI_Wtime() - t;
        char ran[64] = "";
        papshim_get_last_algorithm(MPI_COMM_WORLD, "allreduce", ran, sizeof ran);
        if (rank == 0) printf("call %d: %s %.1f ms\n", c, ran, t * 1e3);
    }
    free(in);
    free(out);
    MPI_Finalize();
    return 0;
}
