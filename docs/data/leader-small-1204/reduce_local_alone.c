#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Win win; char* shared;
    MPI_Win_allocate_shared(8 << 20, 1, MPI_INFO_NULL, MPI_COMM_SELF, &shared, &win);
    char* a = malloc(4 << 20); char* b = malloc(4 << 20);
    memset(a, 1, 4 << 20); memset(b, 1, 4 << 20); memset(shared, 1, 8 << 20);
    int sizes[] = {512 << 10, 768 << 10, 896 << 10, 1000 << 10, 1 << 20, (1 << 20) + 4096, 2 << 20};
    for (int k = 0; k < 7; ++k) {
        int n = sizes[k] / 4;
        double t0 = MPI_Wtime();
        for (int i = 0; i < 200; ++i) PMPI_Reduce_local(a, b, n, MPI_INT, MPI_SUM);
        double t1 = MPI_Wtime();
        for (int i = 0; i < 200; ++i) PMPI_Reduce_local(shared, b, n, MPI_INT, MPI_SUM);
        double t2 = MPI_Wtime();
        for (int i = 0; i < 200; ++i) memcpy(shared + (4 << 20), b, sizes[k]);
        double t3 = MPI_Wtime();
        printf("%8d KiB  reduce_local heap %7.1f us  from shm %7.1f us  memcpy to shm %7.1f us\n", sizes[k] >> 10,
               (t1 - t0) / 200 * 1e6, (t2 - t1) / 200 * 1e6, (t3 - t2) / 200 * 1e6);
    }
    MPI_Win_free(&win);
    MPI_Finalize();
}
