// MPI_Init*, MPI_Finalize: set the runtime up after the MPI library, tear it down before.
#include "entry_points.hpp"
#include "papshim/algorithms.hpp"
#include "papshim/runtime.hpp"

PAPSHIM_EXPORT int MPI_Init(int* argc, char*** argv) {
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS) papshim::runtime::initialise(papshim::algorithm_names());
    return rc;
}

PAPSHIM_EXPORT int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS) papshim::runtime::initialise(papshim::algorithm_names());
    return rc;
}

PAPSHIM_EXPORT int MPI_Finalize(void) {
    papshim::runtime::finalise();
    return PMPI_Finalize();
}
