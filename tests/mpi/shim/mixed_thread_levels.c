/* Ranks that ask for different thread levels (legal: MPI 4.0 §11.2.1): rank 0 asks for
 * MPI_THREAD_MULTIPLE, the others for MPI_THREAD_SINGLE. Under `auto` with one rank per
 * (virtual) node, a 256 KiB block is where auto follows calls for BDR if the helper thread
 * runs; it ran on rank 0 alone, which then split the communicator by node while the others
 * were in the native Allgather: a hang. Results are checked; a hang fails on the timeout. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
    /* The launcher's rank, before MPI_Init (Open MPI, then MPICH's Hydra). */
    const char* env_rank = getenv("OMPI_COMM_WORLD_RANK");
    if (!env_rank) env_rank = getenv("PMI_RANK");
    const int first = env_rank && atoi(env_rank) == 0;
    int provided = 0;
    MPI_Init_thread(&argc, &argv, first ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int n = 64 * 1024; /* 256 KiB of int per rank */
    int* mine = malloc(sizeof(int) * (size_t)n);
    int* all = malloc(sizeof(int) * (size_t)n * (size_t)size);
    long wrong = 0;
    for (int call = 0; call < 8; ++call) {
        for (int i = 0; i < n; ++i) mine[i] = rank * 1000003 + i + call;
        MPI_Allgather(mine, n, MPI_INT, all, n, MPI_INT, MPI_COMM_WORLD);
        for (int r = 0; r < size; ++r)
            for (int i = 0; i < n; ++i) wrong += all[(size_t)r * (size_t)n + (size_t)i] != r * 1000003 + i + call;
    }
    if (wrong) fprintf(stderr, "rank %d: %ld wrong elements\n", rank, wrong);
    free(mine);
    free(all);
    MPI_Finalize();
    return wrong ? 1 : 0;
}
