/* The loop behind "auto's fast path" in docs/benchmarks.md: an 8-byte MPI_Allreduce, in
 * argv[1] slices of argv[2] calls per variant, the variant order rotated per slice: PMPI
 * (native), papshim switched off, and papshim in dispatch mode with whatever the
 * PAPSHIM_ALLREDUCE of the job selects, so that the configured algorithm (not a
 * papshim_set_algorithm choice) is what is measured. Rank 0 prints the ratios to native.
 *   mpicc.openmpi -Iinclude docs/data/mode-switch-loop.c -o loop -Lbuild/openmpi/lib -lpapshim \
 *     -Wl,-rpath,$PWD/build/openmpi/lib
 *   PAPSHIM_ALLREDUCE=auto mpiexec.openmpi --allow-run-as-root -x PAPSHIM_ALLREDUCE -n 2 ./loop 60 5000 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "papshim/control.h"

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const int slices = argc > 1 ? atoi(argv[1]) : 40, calls = argc > 2 ? atoi(argv[2]) : 5000;
    enum { native, off, dispatch, variants };
    double seconds[variants] = {0}, in = rank + 1, out = 0;
    for (int slice = 0; slice < slices; ++slice)
        for (int k = 0; k < variants; ++k) {
            const int v = (k + slice) % variants;
            papshim_set_mode(v == dispatch ? "dispatch" : "off");
            PMPI_Barrier(MPI_COMM_WORLD);
            const double start = MPI_Wtime();
            for (int i = 0; i < calls; ++i) {
                if (v == native) PMPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
                else MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            }
            seconds[v] += MPI_Wtime() - start;
        }
    const double per_call = 1e9 / ((double)slices * calls);
    if (rank == 0)
        printf("native %.1f ns, off %.3fx, dispatch %.3fx (%+.1f ns)\n", seconds[native] * per_call,
               seconds[off] / seconds[native], seconds[dispatch] / seconds[native],
               (seconds[dispatch] - seconds[native]) * per_call);
    MPI_Finalize();
    return 0;
}
