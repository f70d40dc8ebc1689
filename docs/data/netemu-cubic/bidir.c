/* Probe: rank 2 exchanges 1 MiB both ways with ranks 0 and 1 at once (4 flows through node 2's
 * link, 2 each way), after a 20 ms pause; rounds' median time on rank 2, in ms. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static int cmp(const void* a, const void* b) { double x = *(const double*)a, y = *(const double*)b; return (x > y) - (x < y); }
int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank; MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const int n = 1 << 20, rounds = 30;
    char* out = calloc(2, n); char* in = calloc(2, n);
    double t[rounds];
    for (int r = 0; r < rounds; ++r) {
        MPI_Barrier(MPI_COMM_WORLD);
        usleep(20000);
        MPI_Barrier(MPI_COMM_WORLD);
        double s = MPI_Wtime();
        MPI_Request q[4]; int k = 0;
        if (rank == 2) {
            for (int p = 0; p < 2; ++p) { MPI_Irecv(in + (size_t)p * n, n, MPI_BYTE, p, 1, MPI_COMM_WORLD, &q[k++]); MPI_Isend(out + (size_t)p * n, n, MPI_BYTE, p, 1, MPI_COMM_WORLD, &q[k++]); }
        } else {
            MPI_Irecv(in, n, MPI_BYTE, 2, 1, MPI_COMM_WORLD, &q[k++]); MPI_Isend(out, n, MPI_BYTE, 2, 1, MPI_COMM_WORLD, &q[k++]);
        }
        MPI_Waitall(k, q, MPI_STATUSES_IGNORE);
        t[r] = MPI_Wtime() - s;
    }
    if (rank == 2) { qsort(t, rounds, sizeof t[0], cmp); printf("2 MiB in and 2 MiB out at node 2: median %.2f ms, p10 %.2f, p90 %.2f (line rate 2 MiB at 95%%: %.2f ms)\n", t[rounds/2]*1e3, t[rounds/10]*1e3, t[rounds*9/10]*1e3, 2.0*n*8/0.95e9*1e3); }
    MPI_Finalize();
}
