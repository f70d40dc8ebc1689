/* Probe: the first and second MPI_Allreduce on MPI_COMM_WORLD through the shim, after MPI's
 * own first calls, in TSC cycles; and MPI_Init's own time. */
#include <mpi.h>
#include <stdio.h>
#include <x86intrin.h>
int main(int argc, char** argv) {
    unsigned long long i0 = __rdtsc();
    MPI_Init(&argc, &argv);
    unsigned long long i1 = __rdtsc();
    int rank; MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double x = 1, y;
    for (int i = 0; i < 50; ++i) PMPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    unsigned long long f = __rdtsc();
    MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    unsigned long long g = __rdtsc();
    MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    unsigned long long h = __rdtsc();
    printf("rank %d init %llu first %llu second %llu\n", rank, i1 - i0, g - f, h - g);
    MPI_Finalize();
}
