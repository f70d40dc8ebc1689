/* An application loop of Allgather calls with fresh random arrival delays: before each call
 * every rank computes (sleeps) for a delay drawn uniformly from [0, D], new every call.
 * Prints the mean time inside the collective over ranks and calls (the bench's e), the loop's
 * time on the slowest rank, and how many calls ran which algorithm (papshim_get_last_algorithm).
 * Usage: random_loop BLOCK_BYTES CALLS D_SECONDS [v]   (v: Allgatherv with equal blocks) */
#include <mpi.h>
#include <papshim/control.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void compute(double seconds) {
    struct timespec t = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    nanosleep(&t, NULL);
}

/* A small deterministic generator, so that native and papshim runs see the same delays. */
static double uniform(uint64_t* state) {
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*state >> 11) / 9007199254740992.0;
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 4) {
        if (rank == 0) fprintf(stderr, "usage: random_loop BLOCK_BYTES CALLS D_SECONDS [v]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const int n = atoi(argv[1]) / (int)sizeof(int), calls = atoi(argv[2]);
    const double max_delay = atof(argv[3]);
    const int gatherv = argc > 4 && strcmp(argv[4], "v") == 0;
    int* mine = calloc((size_t)n, sizeof(int));
    int* all = calloc((size_t)n * (size_t)size, sizeof(int));
    int* counts = malloc(sizeof(int) * (size_t)size);
    int* displs = malloc(sizeof(int) * (size_t)size);
    for (int r = 0; r < size; ++r) {
        counts[r] = n;
        displs[r] = r * n;
    }
    uint64_t state = 0x9e3779b97f4a7c15ull * (uint64_t)(rank + 1);
    char names[8][32] = {{0}};
    int ran[8] = {0}, kinds = 0;
    double inside = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    for (int call = 0; call < calls; ++call) {
        compute(max_delay * uniform(&state));
        mine[0] = call;
        const double entry = MPI_Wtime();
        if (gatherv)
            MPI_Allgatherv(mine, n, MPI_INT, all, counts, displs, MPI_INT, MPI_COMM_WORLD);
        else
            MPI_Allgather(mine, n, MPI_INT, all, n, MPI_INT, MPI_COMM_WORLD);
        inside += MPI_Wtime() - entry;
        char name[32] = "native";
        papshim_get_last_algorithm(MPI_COMM_WORLD, gatherv ? "allgatherv" : "allgather", name, sizeof name);
        int k = 0;
        while (k < kinds && strcmp(names[k], name) != 0) ++k;
        if (k == kinds && kinds < 8) strcpy(names[kinds++], name);
        if (k < 8) ++ran[k];
    }
    double loop = MPI_Wtime() - start, slowest = 0, inside_sum = 0;
    MPI_Reduce(&loop, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&inside, &inside_sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("e %.4f ms loop %.3f s", inside_sum / size / calls * 1e3, slowest);
        for (int k = 0; k < kinds; ++k) printf(" %s:%d", names[k], ran[k]);
        printf("\n");
    }
    free(mine);
    free(all);
    free(counts);
    free(displs);
    MPI_Finalize();
    return 0;
}
