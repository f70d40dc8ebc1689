/* Collectives with predefined and derived datatypes, the derived ones freed and created
 * again (MPI may hand the same handle to a type of another size). papshim keeps the size of
 * the last predefined type per thread; the trace must still say every call's true size.
 * Prints "bytes N" per call in call order, as calls.csv's `bytes` should hold it. */
#include <mpi.h>
#include <stdio.h>

static int size_of(MPI_Datatype type) {
    int bytes = 0;
    MPI_Type_size(type, &bytes);
    return bytes;
}

static void allreduce(int count, MPI_Datatype type) {
    double in[8] = {1, 2, 3, 4, 5, 6, 7, 8}, out[8];
    MPI_Allreduce(in, out, count, type, MPI_MAX, MPI_COMM_WORLD);
    printf("bytes %d\n", count * size_of(type));
}

static void allgather(int count, MPI_Datatype type, int ranks) {
    static char in[1024], out[64 * 1024];
    MPI_Allgather(in, count, type, out, count, type, MPI_COMM_WORLD);
    printf("bytes %d\n", count * ranks * size_of(type));
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, ranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    if (rank != 0) fclose(stdout);  /* rank 0 speaks for all: every rank makes the same calls */
    for (int round = 0; round < 3; ++round) {
        allreduce(1, MPI_DOUBLE);
        allreduce(3, MPI_INT);
        allreduce(3, MPI_INT);
        MPI_Datatype ints, doubles;
        MPI_Type_contiguous(5 + round, MPI_INT, &ints);
        MPI_Type_commit(&ints);
        allgather(1, ints, ranks);
        allgather(2, ints, ranks);
        MPI_Type_free(&ints);
        MPI_Type_contiguous(2 + round, MPI_DOUBLE, &doubles);
        MPI_Type_commit(&doubles);
        allgather(1, doubles, ranks);
        MPI_Type_free(&doubles);
        allgather(4, MPI_CHAR, ranks);
        allgather(1, MPI_INT, ranks);
    }
    MPI_Finalize();
    return 0;
}
