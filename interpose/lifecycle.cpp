// MPI_Init*, MPI_Finalize: set the runtime up after the MPI library, tear it down before;
// MPI_Abort: save the trace first.
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

// The job ends here without MPI_Finalize: write this rank's buffered trace records first,
// so papshim-report can recover the trace (docs/trace-format.md).
PAPSHIM_EXPORT int MPI_Abort(MPI_Comm comm, int errorcode) {
    papshim::runtime::save_trace_before_abort();
    return PMPI_Abort(comm, errorcode);
}
