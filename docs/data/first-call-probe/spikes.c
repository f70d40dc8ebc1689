/* Probe: per-call TSC cycles of 20 000 MPI_Allreduce calls (8 bytes) from a fresh process,
 * listing the calls above 100 000 cycles (docs/benchmarks.md, "The last predefined datatype's
 * size kept"). Run under LD_PRELOAD=libpapshim.so with PAPSHIM_MODE=profile, then off. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <x86intrin.h>
int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank; MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    enum { N = 20000 };
    static unsigned long long t[N];
    double x = 1, y;
    for (int i = 0; i < 50; ++i) PMPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);  /* MPI's own first calls */
    for (int i = 0; i < N; ++i) {
        unsigned long long a = __rdtsc();
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        t[i] = __rdtsc() - a;
    }
    unsigned long long total = 0; for (int i = 0; i < N; ++i) total += t[i];
    printf("rank %d mean %.0f cyc; >100k cyc:", rank, (double)total / N);
    for (int i = 0; i < N; ++i) if (t[i] > 100000) printf(" [%d]=%llu", i, t[i]);
    printf("\n");
    MPI_Finalize();
}
