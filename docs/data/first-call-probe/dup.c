/* Probe: the cost of a first and a second PMPI_Comm_dup, and of papshim's first and second
 * MPI_Allreduce on MPI_COMM_WORLD after them, in TSC cycles (docs/benchmarks.md, "The last
 * predefined datatype's size kept"). Run under LD_PRELOAD=libpapshim.so PAPSHIM_MODE=profile. */
#include <mpi.h>
#include <stdio.h>
#include <x86intrin.h>
int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank; MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double x = 1, y;
    for (int i = 0; i < 50; ++i) PMPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm d, d2;
    unsigned long long a = __rdtsc();
    PMPI_Comm_dup(MPI_COMM_WORLD, &d);
    unsigned long long b = __rdtsc();
    PMPI_Comm_dup(MPI_COMM_WORLD, &d2);
    unsigned long long c = __rdtsc();
    PMPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, d);
    unsigned long long e = __rdtsc();
    unsigned long long f = __rdtsc();
    MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    unsigned long long g = __rdtsc();
    MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    unsigned long long h = __rdtsc();
    printf("rank %d dup1 %llu dup2 %llu first-on-dup %llu shim-first %llu shim-second %llu\n", rank, b-a, c-b, e-c, g-f, h-g);
    MPI_Finalize();
}
