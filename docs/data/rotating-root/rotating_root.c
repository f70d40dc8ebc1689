/* A Reduce whose root rotates, from one call site: rank r computes 1 ms + r * 0.2 ms, then
 * reduces 256 KiB to root (k mod p). The root leaves last, the others early. */
#include <mpi.h>
#include <stdlib.h>
#include <time.h>
static void spin_us(double us) {
    double end = MPI_Wtime() + us * 1e-6;
    while (MPI_Wtime() < end) {}
}
int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int n = 65536;
    int* in = malloc(sizeof(int) * n);
    int* out = malloc(sizeof(int) * n);
    for (int i = 0; i < n; ++i) in[i] = rank + i;
    for (int k = 0; k < 400; ++k) {
        spin_us(1000 + 200 * rank);
        MPI_Reduce(in, out, n, MPI_INT, MPI_SUM, k % size, MPI_COMM_WORLD);
    }
    free(in);
    free(out);
    MPI_Finalize();
    return 0;
}
