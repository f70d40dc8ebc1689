/* Collectives called from attribute delete callbacks, as libraries do (HDF5 and PETSc close
 * files and free inner communicators from MPI_COMM_SELF's callbacks at MPI_Finalize):
 *   - on a communicator being freed whose user attribute is older than papshim's context
 *     (set before its first collective), so MPI deletes papshim's first;
 *   - on a communicator being freed that had no collective before;
 *   - then on a new communicator, which may get the freed handle;
 *   - from an MPI_COMM_SELF attribute's callback at MPI_Finalize, on MPI_COMM_WORLD and on a
 *     communicator made and freed there.
 * Every result is checked; exit status 1 on a wrong one. Under profile mode every call is in
 * the trace (8 per rank; the ctest counts calls.csv's lines). Before papshim kept a context
 * for a communicator being freed, MPI_Finalize aborted on the stale one; before it wrote the
 * trace from its own MPI_COMM_SELF attribute, the last three calls per rank were missing. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int failures = 0;
static int world_rank = 0;

static void check(const char* what, long got, long expected) {
    if (got != expected) {
        fprintf(stderr, "rank %d: %s: got %ld, expected %ld\n", world_rank, what, got, expected);
        ++failures;
    }
}

/* An Allreduce of (rank + 1) and an Allgather of the ranks on `comm`. */
static void exercise(MPI_Comm comm, const char* where, int gather) {
    int rank = 0, size = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    long mine = rank + 1, sum = 0;
    check(where, MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, comm), MPI_SUCCESS);
    check(where, sum, (long)size * (size + 1) / 2);
    if (!gather) return;
    int* ranks = malloc(sizeof(int) * (size_t)size);
    check(where, MPI_Allgather(&rank, 1, MPI_INT, ranks, 1, MPI_INT, comm), MPI_SUCCESS);
    for (int r = 0; r < size; ++r) check(where, ranks[r], r);
    free(ranks);
}

static int on_free(MPI_Comm comm, int keyval, void* value, void* extra) {
    (void)keyval, (void)extra;
    exercise(comm, (const char*)value, value != NULL && ((const char*)value)[0] == 'o');
    return MPI_SUCCESS;
}

static int on_finalize(MPI_Comm self, int keyval, void* value, void* extra) {
    (void)self, (void)keyval, (void)value, (void)extra;
    exercise(MPI_COMM_WORLD, "world at MPI_Finalize", 1);
    MPI_Comm fresh;
    MPI_Comm_dup(MPI_COMM_WORLD, &fresh);
    exercise(fresh, "a communicator made at MPI_Finalize", 0);
    MPI_Comm_free(&fresh);
    return MPI_SUCCESS;
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    int keyval = MPI_KEYVAL_INVALID;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_free, &keyval, NULL);

    MPI_Comm used;
    MPI_Comm_dup(MPI_COMM_WORLD, &used);
    MPI_Comm_set_attr(used, keyval, "older attribute");  /* before papshim's context */
    exercise(used, "before the free", 0);
    MPI_Comm_free(&used);

    MPI_Comm unused;
    MPI_Comm_dup(MPI_COMM_WORLD, &unused);
    MPI_Comm_set_attr(unused, keyval, "never used before its free");
    MPI_Comm_free(&unused);

    MPI_Comm next;
    MPI_Comm_dup(MPI_COMM_WORLD, &next);
    exercise(next, "a communicator made after the frees", 0);

    int self_keyval = MPI_KEYVAL_INVALID;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_finalize, &self_keyval, NULL);
    MPI_Comm_set_attr(MPI_COMM_SELF, self_keyval, NULL);
    MPI_Comm_free_keyval(&keyval);
    check("MPI_Finalize", MPI_Finalize(), MPI_SUCCESS);
    return failures == 0 ? 0 : 1;
}
