/* An application that makes many communicators up front and then uses each: natively MPICH
 * 4.0.2 has room for 2048 per process, but papshim makes its own beside them (a duplicate per
 * communicator it runs an algorithm on; node communicators, a shared-memory window and the
 * exchange's duplicate where its algorithms need them), so under papshim MPI runs out before
 * the application does. papshim must then run those communicators' collectives natively, with
 * one line saying so, and never give a wrong result or end the job (it did: a receive on
 * MPI_COMM_NULL, a segfault on a window never made, then an abort with the reason).
 *
 * Usage: many_communicators [COUNT] (default 1100 duplicates of MPI_COMM_WORLD, each made
 * before any collective). On every one an Allreduce and an Allgather, checked against the
 * native PMPI_ result on the same communicator, then a second round (the contexts made
 * meanwhile, native or not, must serve again). Exit status 1 on a wrong result or error. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 16 KiB and 64 KiB per rank: auto's smallest sizes that take papshim's path (smaller calls
   go native without a context, and would test nothing here). */
enum { kReduceCount = 4096, kGatherCount = 16384 };

static int failures = 0;
static int world_rank = 0;

static void check(int ok, const char* what, int index) {
    if (!ok && failures++ < 5) fprintf(stderr, "rank %d: %s on communicator %d\n", world_rank, what, index);
}

static void exercise(MPI_Comm comm, int index, int* send, int* got, int* expected, int size) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    for (int i = 0; i < kGatherCount; ++i) send[i] = rank * 7 + i + index;
    check(MPI_Allreduce(send, got, kReduceCount, MPI_INT, MPI_SUM, comm) == MPI_SUCCESS, "MPI_Allreduce failed", index);
    PMPI_Allreduce(send, expected, kReduceCount, MPI_INT, MPI_SUM, comm);
    check(memcmp(got, expected, sizeof(int) * kReduceCount) == 0, "MPI_Allreduce differs from native", index);
    check(MPI_Allgather(send, kGatherCount, MPI_INT, got, kGatherCount, MPI_INT, comm) == MPI_SUCCESS,
          "MPI_Allgather failed", index);
    PMPI_Allgather(send, kGatherCount, MPI_INT, expected, kGatherCount, MPI_INT, comm);
    check(memcmp(got, expected, sizeof(int) * kGatherCount * (size_t)size) == 0, "MPI_Allgather differs from native",
          index);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int count = argc > 1 ? atoi(argv[1]) : 1100;
    MPI_Comm* comms = calloc((size_t)count, sizeof(MPI_Comm));
    for (int i = 0; i < count; ++i)
        if (MPI_Comm_dup(MPI_COMM_WORLD, &comms[i]) != MPI_SUCCESS) {
            fprintf(stderr, "rank %d: MPI_Comm_dup %d failed before any collective\n", world_rank, i);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    int* send = malloc(sizeof(int) * kGatherCount);
    int* got = malloc(sizeof(int) * kGatherCount * (size_t)size);
    int* expected = malloc(sizeof(int) * kGatherCount * (size_t)size);
    for (int round = 0; round < 2; ++round)
        for (int i = 0; i < count; ++i) exercise(comms[i], i, send, got, expected, size);
    for (int i = 0; i < count; ++i) MPI_Comm_free(&comms[i]);
    free(comms);
    free(send);
    free(got);
    free(expected);
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (world_rank == 0) printf("many_communicators: %d communicators, %s\n", count, all ? "FAILED" : "ok");
    MPI_Finalize();
    return all ? 1 : 0;
}
