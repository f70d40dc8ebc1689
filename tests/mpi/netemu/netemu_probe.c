/* What an emulated-network job runs on, seen from the ranks: each rank's network namespace,
 * the bytes its interfaces carried, and how long one large message takes between the first
 * ranks of two emulated nodes. Shared memory would move that message without touching the
 * interfaces, so the byte counters tell a TCP run from a shared-memory one.
 *
 *   netemu_probe [BYTES [LINGER_S]]   (default 4 MiB; PAPSHIM_NODE_SIZE ranks per node, default 1)
 * Prints, on rank 0, one "rank R netns N" line per rank and one "transfer ..." line. With
 * LINGER_S, every rank then sleeps that long before MPI_Finalize: a job to kill in tests. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Bytes sent by every interface but loopback, from this namespace's /proc/net/dev. */
static unsigned long long wire_tx_bytes(void) {
    FILE *file = fopen("/proc/net/dev", "r");
    if (!file) return 0;
    char line[512];
    unsigned long long total = 0;
    while (fgets(line, sizeof line, file)) {
        char *colon = strchr(line, ':');
        if (!colon) continue; /* the two header lines */
        *colon = '\0';
        char *name = line + strspn(line, " ");
        if (strcmp(name, "lo") == 0) continue;
        unsigned long long v[9];
        if (sscanf(colon + 1, "%llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
                   &v[3], &v[4], &v[5], &v[6], &v[7], &v[8]) == 9)
            total += v[8];
    }
    fclose(file);
    return total;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long bytes = argc > 1 ? atol(argv[1]) : 4L << 20;
    unsigned linger = argc > 2 ? (unsigned)atoi(argv[2]) : 0;
    const char *node_size_text = getenv("PAPSHIM_NODE_SIZE");
    int node_size = node_size_text ? atoi(node_size_text) : 1;
    if (node_size < 1) node_size = 1;

    struct stat ns;
    unsigned long long netns = stat("/proc/self/ns/net", &ns) == 0 ? (unsigned long long)ns.st_ino : 0;
    unsigned long long *all = malloc(sizeof *all * (size_t)size);
    MPI_Gather(&netns, 1, MPI_UNSIGNED_LONG_LONG, all, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    if (rank == 0)
        for (int r = 0; r < size; ++r) printf("rank %d netns %llu\n", r, all[r]);
    fflush(stdout);

    /* Rank 0 sends to the first rank of the next node; the receiver answers with one byte
     * so that rank 0's clock covers the whole delivery. */
    int peer = node_size;
    char *buffer = calloc((size_t)bytes, 1);
    MPI_Barrier(MPI_COMM_WORLD);
    if (peer < size && (rank == 0 || rank == peer)) {
        unsigned long long before = wire_tx_bytes();
        double start = MPI_Wtime();
        char ack = 0;
        if (rank == 0) {
            MPI_Send(buffer, (int)bytes, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
            MPI_Recv(&ack, 1, MPI_CHAR, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buffer, (int)bytes, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&ack, 1, MPI_CHAR, 0, 2, MPI_COMM_WORLD);
        }
        double seconds = MPI_Wtime() - start;
        unsigned long long sent = wire_tx_bytes() - before;
        if (rank == 0)
            printf("transfer from 0 to %d bytes %ld seconds %.6f wire_tx_bytes %llu\n", peer, bytes,
                   seconds, sent);
    } else if (rank == 0) {
        printf("transfer none (one node)\n");
    }
    fflush(stdout);
    if (linger > 0) sleep(linger);
    free(buffer);
    free(all);
    MPI_Finalize();
    return 0;
}
