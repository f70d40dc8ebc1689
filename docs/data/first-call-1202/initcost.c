#include <mpi.h>
#include <stdio.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
int main(int argc, char** argv) {
    double t0 = now();
    MPI_Init(&argc, &argv);
    double init = now() - t0, longest = 0;
    MPI_Reduce(&init, &longest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    int rank; MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) printf("%.2f\n", longest * 1e3);
    MPI_Finalize();
    return 0;
}
