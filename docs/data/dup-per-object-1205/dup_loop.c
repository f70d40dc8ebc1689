// A library that duplicates the world per object: per object, a duplicate, `calls` 8-byte
// Allreduces on it, and its free. Prints the mean time per object on rank 0.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    const int objects = argc > 1 ? atoi(argv[1]) : 200, calls = argc > 2 ? atoi(argv[2]) : 10;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double in[1] = {1.0}, out[1];
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    for (int o = 0; o < objects; ++o) {
        MPI_Comm comm;
        if (getenv("USE_WORLD")) comm = MPI_COMM_WORLD; else MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        for (int c = 0; c < calls; ++c) MPI_Allreduce(in, out, 1, MPI_DOUBLE, MPI_SUM, comm);
        if (!getenv("USE_WORLD")) MPI_Comm_free(&comm);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("per object: %.1f us (%d objects, %d calls each)\n", (MPI_Wtime() - start) / objects * 1e6, objects, calls);
    MPI_Finalize();
    return 0;
}
