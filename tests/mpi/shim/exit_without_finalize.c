/* A program that ends with exit() and never calls MPI_Finalize, while papshim's helper thread
 * runs (PAPSHIM_HELPER_THREAD=always, a plan-using algorithm): its exit status must be its
 * own (7). papshim's helper thread object was destroyed at exit while still joinable, and
 * std::terminate turned every such exit into SIGABRT (134). */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char** argv) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int* all = malloc(sizeof(int) * (size_t)size);
    MPI_Allgather(&rank, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
    free(all);
    exit(7);
}
