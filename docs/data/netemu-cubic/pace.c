/* Probe (docs/benchmarks.md, "The emulated network's TCP was BBR"): how long one 1 MiB message
 * takes between two emulated nodes, alone after a pause, and right after the link to its
 * receiver was shared. np 3, one rank per node: rank 2 receives. Each round:
 *   shared: ranks 0 and 1 send 1 MiB each to rank 2 at once (rank 2's downlink is shared);
 *   pause 20 ms; alone: rank 0 sends 1 MiB to rank 2; rank 2 times it from a zero-byte
 *   "go" it sends to rank 0 to the message's completion (minus one small round trip).
 * Prints the median of the alone transfers over the rounds, in ms, and the line-rate time. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
/* Run as in the docs: PACE_SHARED=1 (every reported run had the shared round). */
static int shared(void) { const char* v = getenv("PACE_SHARED"); return v && *v; }
static int cmp(const void* a, const void* b) { double x = *(const double*)a, y = *(const double*)b; return (x > y) - (x < y); }
int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank; MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const int n = 1 << 20, rounds = 30;
    char* buf = malloc(2 * (size_t)n);
    memset(buf, 1, 2 * (size_t)n);
    double alone[rounds], rtt = 0;
    for (int r = 0; r < 5; ++r) {  /* small round trips 2 -> 0 -> 2 */
        double t = MPI_Wtime();
        if (rank == 2) { MPI_Send(buf, 0, MPI_BYTE, 0, 9, MPI_COMM_WORLD); MPI_Recv(buf, 0, MPI_BYTE, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE); rtt = MPI_Wtime() - t; }
        if (rank == 0) { MPI_Recv(buf, 0, MPI_BYTE, 2, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE); MPI_Send(buf, 0, MPI_BYTE, 2, 9, MPI_COMM_WORLD); }
    }
    for (int r = 0; r < rounds; ++r) {
        if (shared()) {
            if (rank < 2) MPI_Send(buf, n, MPI_BYTE, 2, 1, MPI_COMM_WORLD);
            else { MPI_Request q[2]; MPI_Irecv(buf, n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &q[0]); MPI_Irecv(buf + n, n, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &q[1]); MPI_Waitall(2, q, MPI_STATUSES_IGNORE); }
        }
        MPI_Barrier(MPI_COMM_WORLD);
        usleep(20000);
        if (rank == 2) {
            MPI_Request q; MPI_Irecv(buf, n, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &q);
            double t = MPI_Wtime();
            MPI_Send(buf, 0, MPI_BYTE, 0, 3, MPI_COMM_WORLD);
            MPI_Wait(&q, MPI_STATUS_IGNORE);
            alone[r] = MPI_Wtime() - t - rtt / 2;
        } else if (rank == 0) {
            MPI_Recv(buf, 0, MPI_BYTE, 2, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, n, MPI_BYTE, 2, 2, MPI_COMM_WORLD);
        }
    }
    if (rank == 2) {
        qsort(alone, rounds, sizeof alone[0], cmp);
        printf("%s: 1 MiB alone after a pause: median %.2f ms, p10 %.2f, p90 %.2f (line rate at 95%% of 1 Gbit/s: %.2f ms)\n",
               shared() ? "after a shared round" : "no shared round", alone[rounds / 2] * 1e3,
               alone[rounds / 10] * 1e3, alone[rounds * 9 / 10] * 1e3, n * 8 / 0.95e9 * 1e3);
    }
    MPI_Finalize();
}
