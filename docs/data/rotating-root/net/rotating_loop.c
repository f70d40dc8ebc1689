/* An application loop whose Reduce rotates its root: call k reduces BYTES of MPI_INT to rank
 * k mod p, from one call site (two with inplace). Every rank computes BASE_MS before each call, the last rank
 * LATE_MS more (a persistently late rank).
 *   usage: rotating_loop BYTES CALLS BASE_MS LATE_MS free|barrier [inplace]
 * free: a rank computes right after it leaves the Reduce, so its next arrival follows its
 * own exit (the root, which leaves last, arrives last too).
 * barrier: an MPI_Barrier (which papshim does not intercept) after each Reduce, so every
 * rank's next arrival follows the others' and the root computes for less time after it.
 * inplace: the root reduces in place, from a call site of its own (`if (rank == root)
 * MPI_Reduce(MPI_IN_PLACE, ...) else MPI_Reduce(...)`).
 * Rank 0 prints: the loop's time (the slowest rank's), the mean time inside MPI_Reduce per
 * call over ranks and calls (the mean elapsed time e of docs/benchmarks.md) and the same for
 * the second half of the calls. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* "Computes" by sleeping and spinning only the last 200 us, as papshim-bench waits: eight
 * ranks spinning on two cores would stretch each other's compute phases. */
static void compute_ms(double ms) {
    const double end = MPI_Wtime() + ms * 1e-3;
    const double sleep_s = ms * 1e-3 - 200e-6;
    if (sleep_s > 0) {
        struct timespec t = {(time_t)sleep_s, (long)((sleep_s - (double)(time_t)sleep_s) * 1e9)};
        nanosleep(&t, NULL);
    }
    while (MPI_Wtime() < end) {}
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 6 || argc > 7 || (strcmp(argv[5], "free") != 0 && strcmp(argv[5], "barrier") != 0) ||
        (argc == 7 && strcmp(argv[6], "inplace") != 0)) {
        if (rank == 0) fprintf(stderr, "usage: %s BYTES CALLS BASE_MS LATE_MS free|barrier [inplace]\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    const int n = atoi(argv[1]) / (int)sizeof(int);
    const int calls = atoi(argv[2]);
    const double base_ms = atof(argv[3]), late_ms = atof(argv[4]);
    const int barrier = strcmp(argv[5], "barrier") == 0;
    const int in_place = argc == 7;
    int* in = malloc(sizeof(int) * (size_t)n);
    int* out = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; ++i) in[i] = (rank * 131 + i * 7) % 1009;
    double inside = 0, inside_late_half = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    for (int k = 0; k < calls; ++k) {
        compute_ms(base_ms + (rank == size - 1 ? late_ms : 0));
        const double a = MPI_Wtime();
        if (in_place && rank == k % size) {
            memcpy(out, in, sizeof(int) * (size_t)n);
            MPI_Reduce(MPI_IN_PLACE, out, n, MPI_INT, MPI_SUM, k % size, MPI_COMM_WORLD);
        } else {
            MPI_Reduce(in, out, n, MPI_INT, MPI_SUM, k % size, MPI_COMM_WORLD);
        }
        const double e = MPI_Wtime() - a;
        inside += e;
        if (k >= calls / 2) inside_late_half += e;
        if (barrier) MPI_Barrier(MPI_COMM_WORLD);
    }
    const double loop = MPI_Wtime() - start;
    double sums[2] = {inside, inside_late_half}, totals[2], slowest;
    MPI_Reduce(sums, totals, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&loop, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("loop %.4f s  e %.3f ms  e(second half) %.3f ms\n", slowest, 1e3 * totals[0] / size / calls,
               1e3 * totals[1] / size / (calls - calls / 2));
    free(in);
    free(out);
    MPI_Finalize();
    return 0;
}
