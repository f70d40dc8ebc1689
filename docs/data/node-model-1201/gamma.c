#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  for (int n = 8192; n <= 524288; n *= 4) {
    double *a = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double));
    for (int i = 0; i < n; ++i) a[i] = b[i] = i;
    MPI_Reduce_local(a, b, n, MPI_DOUBLE, MPI_SUM);
    int reps = 200; double t = MPI_Wtime();
    for (int r = 0; r < reps; ++r) MPI_Reduce_local(a, b, n, MPI_DOUBLE, MPI_SUM);
    t = (MPI_Wtime() - t) / reps;
    double tc = MPI_Wtime();
    for (int r = 0; r < reps; ++r) { __builtin_memcpy(b, a, n * sizeof(double)); __asm__ volatile("" ::: "memory"); }
    tc = (MPI_Wtime() - tc) / reps;
    printf("%zu B: reduce %.1f us (%.3g s/B), memcpy %.1f us (%.3g s/B)\n", n * sizeof(double), t * 1e6, t / (n * 8.0), tc * 1e6, tc / (n * 8.0));
    free(a); free(b);
  }
  MPI_Finalize();
}
