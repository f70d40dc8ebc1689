// The C entry points: a call the thread's kept answer covers (quick_path.hpp) goes to PMPI at
// once, anything else to the collective's full path with the caller's return address (the
// call site). MPICH's Fortran bindings call these too. With the shim off, the entry goes
// straight to PMPI after one load and a branch.
#include "quick_path.hpp"

#define PAPSHIM_DEFINE_C_ENTRY(Name, lower, params, args)                                           \
    PAPSHIM_EXPORT int MPI_##Name params {                                                            \
        if (papshim::runtime::mode() == papshim::Mode::off) return PMPI_##Name args;                  \
        if (papshim::interpose::lower##_at_once args) return PMPI_##Name args;                        \
        return papshim::interpose::lower##_full(PAPSHIM_UNPACK args, __builtin_return_address(0));    \
    }
PAPSHIM_COLLECTIVES(PAPSHIM_DEFINE_C_ENTRY)
PAPSHIM_LARGE_COUNT_COLLECTIVES(PAPSHIM_DEFINE_C_ENTRY)
