/* An application loop with two Allreduce sizes: each iteration computes (the last rank
 * LATE_MS longer: a persistently late rank), then reduces a LARGE-byte vector and right after
 * it a SMALL-byte one, both MPI_INT sums from their own call sites.
 *   usage: mixed_loop LARGE SMALL CALLS BASE_MS LATE_MS
 * Rank 0 prints the loop's time (the slowest rank's) and the mean time inside the large
 * Allreduce per call over ranks and calls (e), also for the second half of the calls. Under
 * PAPSHIM_ALLREDUCE=auto with one rank per node, a 1 MiB Allreduce is planned from predicted
 * arrivals and a 64 KiB one is handled but not followed (docs/benchmarks.md). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Sleeps and spins only the last 200 us, as papshim-bench waits. */
static void compute_ms(double ms) {
    const double end = MPI_Wtime() + ms * 1e-3;
    const double sleep_s = ms * 1e-3 - 200e-6;
    if (sleep_s > 0) {
        struct timespec t = {(time_t)sleep_s, (long)((sleep_s - (double)(time_t)sleep_s) * 1e9)};
        nanosleep(&t, NULL);
    }
    while (MPI_Wtime() < end) {}
}

static double large_step(const int* in, int* out, int n) {
    const double a = MPI_Wtime();
    MPI_Allreduce(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return MPI_Wtime() - a;
}

static void small_step(const int* in, int* out, int n) { MPI_Allreduce(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD); }

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 6) {
        if (rank == 0) fprintf(stderr, "usage: %s LARGE SMALL CALLS BASE_MS LATE_MS\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    const int large = atoi(argv[1]) / (int)sizeof(int), small = atoi(argv[2]) / (int)sizeof(int);
    const int calls = atoi(argv[3]);
    const double base_ms = atof(argv[4]), late_ms = atof(argv[5]);
    int* in = malloc(sizeof(int) * (size_t)large);
    int* out = malloc(sizeof(int) * (size_t)large);
    for (int i = 0; i < large; ++i) in[i] = (rank * 131 + i * 7) % 1009;
    double inside = 0, inside_late_half = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    for (int k = 0; k < calls; ++k) {
        compute_ms(base_ms + (rank == size - 1 ? late_ms : 0));
        const double e = large_step(in, out, large);
        inside += e;
        if (k >= calls / 2) inside_late_half += e;
        if (small > 0) small_step(in, out, small);
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
