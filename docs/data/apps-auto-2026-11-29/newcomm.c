/* Per-new-communicator cost: split, one small Allreduce, free; repeated. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size; MPI_Comm_rank(MPI_COMM_WORLD, &rank); MPI_Comm_size(MPI_COMM_WORLD, &size);
    int n = argc > 1 ? atoi(argv[1]) : 100, calls = argc > 2 ? atoi(argv[2]) : 1;
    double x = rank, y;
    MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime(), split = 0;
    for (int i = 0; i < n; ++i) {
        MPI_Comm c;
        double s0 = MPI_Wtime();
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &c);
        split += MPI_Wtime() - s0;
        for (int k = 0; k < calls; ++k) MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, c);
        MPI_Comm_free(&c);
    }
    double t = MPI_Wtime() - t0;
    if (rank == 0) printf("per new communicator: %.1f us (split %.1f us)\n", t / n * 1e6, split / n * 1e6);
    MPI_Finalize();
}
