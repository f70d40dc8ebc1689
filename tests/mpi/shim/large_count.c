/* MPI-4's large-count collectives (MPI_Allgather_c, MPI_Allgatherv_c, MPI_Reduce_c,
 * MPI_Allreduce_c). papshim runs them as the int routines when their values fit an int, so
 * that ranks mixing the two forms in one collective, as MPI allows, take the same path.
 * Every call is checked against the native PMPI_*_c result, and must have run papshim's
 * algorithm (the test forces one per collective). In the mixed rounds even ranks call the
 * int form and odd ranks the _c form: before, the _c calls went native and the job hung.
 * Counts beyond an int that MPI ignores or that count no bytes (a leftover send count in
 * place, 2^40 elements of a zero-size type) on one rank only must not send that rank native
 * alone (found by review: it hung).
 * Displacements beyond an int on some ranks only (`wide`: the odd ranks address the same
 * buffer from 2^31 + 5 elements before it) must not send those ranks native alone: before,
 * they went native and the others waited in papshim's algorithm.
 * `huge`: an MPI_Allreduce_c of 2^31 + 8 bytes, beyond an int count, goes native (2 GiB per
 * rank). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "papshim/control.h"

static int rank, size;
static long failures;

static void expect(int ok, const char* what, int round) {
    if (ok) return;
    fprintf(stderr, "rank %d: %s (round %d)\n", rank, what, round);
    ++failures;
}

/* papshim's algorithm ran the last call of `collective`, not a native hand-off. */
static void expect_own(const char* collective, int round) {
    char name[64] = "";
    papshim_get_last_algorithm(MPI_COMM_WORLD, collective, name, (int)sizeof name);
    if (strcmp(name, "native") == 0 || name[0] == '\0') {
        fprintf(stderr, "rank %d: %s ran '%s', not papshim's algorithm (round %d)\n", rank, collective, name,
                round);
        ++failures;
    }
}

/* Whether this rank calls the _c form in `round`: all ranks, or (mixed) the odd ones. */
static int large_form(int round) { return round % 2 == 0 || rank % 2 == 1; }

static void allgather_round(int round, int count) {
    int* mine = malloc(sizeof(int) * (size_t)count);
    int* got = malloc(sizeof(int) * (size_t)count * (size_t)size);
    int* want = malloc(sizeof(int) * (size_t)count * (size_t)size);
    for (int i = 0; i < count; ++i) mine[i] = rank * 7919 + i + round;
    PMPI_Allgather_c(mine, count, MPI_INT, want, count, MPI_INT, MPI_COMM_WORLD);
    memset(got, 0xff, sizeof(int) * (size_t)count * (size_t)size);
    const int rc = large_form(round) ? MPI_Allgather_c(mine, count, MPI_INT, got, count, MPI_INT, MPI_COMM_WORLD)
                                     : MPI_Allgather(mine, count, MPI_INT, got, count, MPI_INT, MPI_COMM_WORLD);
    expect(rc == MPI_SUCCESS, "Allgather returned an error", round);
    expect(memcmp(got, want, sizeof(int) * (size_t)count * (size_t)size) == 0, "Allgather differs from native",
           round);
    expect_own("allgather", round);
    free(mine);
    free(got);
    free(want);
}

/* Rank r's block holds r + count elements, placed in reverse rank order with a gap of 3.
 * `wide`: the odd ranks' _c calls give the displacements relative to a base 2^31 + 5
 * elements before the buffer (pointer arithmetic as MPI does it, never dereferenced). */
static void allgatherv_round(int round, int count, int in_place, int wide) {
    MPI_Count* counts = malloc(sizeof(MPI_Count) * (size_t)size);
    MPI_Aint* displs = malloc(sizeof(MPI_Aint) * (size_t)size);
    int* int_counts = malloc(sizeof(int) * (size_t)size);
    int* int_displs = malloc(sizeof(int) * (size_t)size);
    MPI_Aint total = 0;
    for (int r = size - 1; r >= 0; --r) {
        counts[r] = r + count;
        displs[r] = total;
        int_counts[r] = (int)counts[r];
        int_displs[r] = (int)displs[r];
        total += counts[r] + 3;
    }
    int* got = malloc(sizeof(int) * (size_t)total);
    int* want = malloc(sizeof(int) * (size_t)total);
    int* mine = malloc(sizeof(int) * (size_t)counts[rank]);
    for (MPI_Count i = 0; i < counts[rank]; ++i) mine[i] = rank * 104729 + (int)i - round;
    memset(want, 0, sizeof(int) * (size_t)total);
    PMPI_Allgatherv_c(mine, counts[rank], MPI_INT, want, counts, displs, MPI_INT, MPI_COMM_WORLD);
    memset(got, 0, sizeof(int) * (size_t)total);
    const void* send = mine;
    if (in_place) {
        memcpy(got + displs[rank], mine, sizeof(int) * (size_t)counts[rank]);
        send = MPI_IN_PLACE;
    }
    void* base = got;
    if (wide && rank % 2 == 1 && large_form(round)) {
        const MPI_Aint shift = ((MPI_Aint)1 << 31) + 5;
        for (int r = 0; r < size; ++r) displs[r] += shift;
        base = (void*)((uintptr_t)got - (uintptr_t)shift * sizeof(int));
    }
    const int rc = large_form(round)
                       ? MPI_Allgatherv_c(send, counts[rank], MPI_INT, base, counts, displs, MPI_INT, MPI_COMM_WORLD)
                       : MPI_Allgatherv(send, int_counts[rank], MPI_INT, got, int_counts, int_displs, MPI_INT,
                                        MPI_COMM_WORLD);
    expect(rc == MPI_SUCCESS, "Allgatherv returned an error", round);
    expect(memcmp(got, want, sizeof(int) * (size_t)total) == 0, "Allgatherv differs from native", round);
    expect_own("allgatherv", round);
    free(counts);
    free(displs);
    free(int_counts);
    free(int_displs);
    free(got);
    free(want);
    free(mine);
}

static void reductions_round(int round, int count, int root) {
    int* mine = malloc(sizeof(int) * (size_t)count);
    int* got = malloc(sizeof(int) * (size_t)count);
    int* want = malloc(sizeof(int) * (size_t)count);
    for (int i = 0; i < count; ++i) mine[i] = (rank + 1) * (i % 1009) - round;

    PMPI_Allreduce_c(mine, want, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    memset(got, 0, sizeof(int) * (size_t)count);
    int rc = large_form(round) ? MPI_Allreduce_c(mine, got, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD)
                               : MPI_Allreduce(mine, got, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    expect(rc == MPI_SUCCESS, "Allreduce returned an error", round);
    expect(memcmp(got, want, sizeof(int) * (size_t)count) == 0, "Allreduce differs from native", round);
    expect_own("allreduce", round);

    /* In place at the root. */
    PMPI_Reduce_c(mine, want, count, MPI_INT, MPI_MAX, root, MPI_COMM_WORLD);
    memcpy(got, mine, sizeof(int) * (size_t)count);
    const void* send = rank == root ? MPI_IN_PLACE : mine;
    rc = large_form(round) ? MPI_Reduce_c(send, got, count, MPI_INT, MPI_MAX, root, MPI_COMM_WORLD)
                           : MPI_Reduce(send, got, count, MPI_INT, MPI_MAX, root, MPI_COMM_WORLD);
    expect(rc == MPI_SUCCESS, "Reduce returned an error", round);
    if (rank == root) expect(memcmp(got, want, sizeof(int) * (size_t)count) == 0, "Reduce differs from native", round);
    expect_own("reduce", round);
    free(mine);
    free(got);
    free(want);
}

/* Rank 0 passes counts beyond an int that carry no data: in place, a leftover send count;
 * in Allgatherv, its own empty block sent as 2^40 elements of a zero-size type. Every rank
 * must still run papshim's algorithm. */
static void empty_large_counts(int round) {
    const MPI_Count huge = (MPI_Count)1 << 40;
    MPI_Datatype empty;
    MPI_Type_contiguous(0, MPI_INT, &empty);
    MPI_Type_commit(&empty);
    int* got = malloc(sizeof(int) * (size_t)size);
    int* want = malloc(sizeof(int) * (size_t)size);
    for (int r = 0; r < size; ++r) want[r] = r * 10 + round;

    for (int r = 0; r < size; ++r) got[r] = r == rank ? want[r] : -1;
    int rc = MPI_Allgather_c(MPI_IN_PLACE, rank == 0 ? huge : 0, MPI_DATATYPE_NULL, got, 1, MPI_INT, MPI_COMM_WORLD);
    expect(rc == MPI_SUCCESS && memcmp(got, want, sizeof(int) * (size_t)size) == 0,
           "in-place Allgather with a large leftover send count", round);
    expect_own("allgather", round);

    /* Rank 0's block is empty; rank 1 receives it as 2^40 empty elements. */
    MPI_Count* counts = malloc(sizeof(MPI_Count) * (size_t)size);
    MPI_Aint* displs = malloc(sizeof(MPI_Aint) * (size_t)size);
    for (int r = 0; r < size; ++r) {
        counts[r] = r == 0 ? 0 : 1;
        displs[r] = r;
    }
    want[0] = -1;
    for (int r = 0; r < size; ++r) got[r] = -1;
    const int mine = rank * 10 + round;
    rc = rank == 0 ? MPI_Allgatherv_c(&mine, huge, empty, got, counts, displs, MPI_INT, MPI_COMM_WORLD)
                   : MPI_Allgatherv_c(&mine, 1, MPI_INT, got, counts, displs, MPI_INT, MPI_COMM_WORLD);
    expect(rc == MPI_SUCCESS && memcmp(got, want, sizeof(int) * (size_t)size) == 0,
           "Allgatherv with an empty block of 2^40 zero-size elements", round);
    expect_own("allgatherv", round);

    /* In place with a leftover send count on rank 0. */
    for (int r = 0; r < size; ++r) got[r] = r == rank ? mine : -1;
    rc = MPI_Allgatherv_c(MPI_IN_PLACE, rank == 0 ? huge : 0, MPI_DATATYPE_NULL, got, counts, displs, MPI_INT,
                          MPI_COMM_WORLD);
    want[0] = rank == 0 ? mine : -1;
    expect(rc == MPI_SUCCESS && memcmp(got, want, sizeof(int) * (size_t)size) == 0,
           "in-place Allgatherv with a large leftover send count", round);
    expect_own("allgatherv", round);
    free(counts);
    free(displs);
    free(got);
    free(want);
    MPI_Type_free(&empty);
}

/* Beyond an int count: MPI's own call, in place, checked 8 bytes (one period) at a time. */
static void huge_allreduce(void) {
    const MPI_Count count = (MPI_Count)1 << 31 | 8;
    unsigned char* data = malloc((size_t)count);
    if (!data) {
        fprintf(stderr, "rank %d: no memory for %lld bytes\n", rank, (long long)count);
        ++failures;
        return;
    }
    /* Byte i holds bit (i + rank) % 8: one period written, then doubled to the end (the byte
     * loop took 10 s of the test's 45 s). */
    for (int k = 0; k < 8; ++k) data[k] = (unsigned char)(1u << ((k + rank) % 8));
    for (MPI_Count filled = 8; filled < count;) {
        const MPI_Count n = filled < count - filled ? filled : count - filled;
        memcpy(data + filled, data, (size_t)n);
        filled += n;
    }
    expect(MPI_Allreduce_c(MPI_IN_PLACE, data, count, MPI_BYTE, MPI_BOR, MPI_COMM_WORLD) == MPI_SUCCESS,
           "huge Allreduce returned an error", 0);
    unsigned char want[8] = {0};  /* by i % 8: every rank's bit (i + r) % 8 */
    for (int k = 0; k < 8; ++k)
        for (int r = 0; r < size; ++r) want[k] |= (unsigned char)(1u << ((k + r) % 8));
    long wrong = 0;
    for (MPI_Count i = 0; i < count; i += 8) wrong += memcmp(data + i, want, 8) != 0;  /* count % 8 == 0 */
    expect(wrong == 0, "huge Allreduce differs", 0);
    char name[64] = "";
    papshim_get_last_algorithm(MPI_COMM_WORLD, "allreduce", name, (int)sizeof name);
    expect(strcmp(name, "native") == 0, "huge Allreduce did not go native", 0);
    free(data);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1 && strcmp(argv[1], "huge") == 0) {
        huge_allreduce();
    } else {
        const int counts[] = {1, 7, 1000, 40000};
        for (int round = 0; round < 8; ++round) {
            const int count = counts[round % 4];
            allgather_round(round, count);
            allgatherv_round(round, count, round % 3 == 0, 0);
            allgatherv_round(round, count, round % 3 == 1, 1);
            reductions_round(round, count, round % size);
        }
        for (int round = 0; round < 2; ++round) empty_large_counts(round);
    }
    long all_failures = 0;
    PMPI_Allreduce(&failures, &all_failures, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all_failures) fprintf(stderr, "%ld failures\n", all_failures);
    MPI_Finalize();
    return all_failures ? 1 : 0;
}
