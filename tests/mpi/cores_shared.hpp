// The tests' own count of whether this rank's node runs more ranks than the CPUs they may use:
// what papshim measures in MPI_Init (NodeLoad) and `auto`'s small Allreduce rule reads
// (auto_reduction_small: symmetric_shm only where cores are shared), with PAPSHIM_NODE_CPUS in
// place of the count where it is a number. Native calls only.
#pragma once

#include <mpi.h>
#include <sched.h>

#include <cstdlib>
#include <cstring>

inline bool node_cores_shared() {
    MPI_Comm node = MPI_COMM_NULL;
    PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int ranks = 0;
    PMPI_Comm_size(node, &ranks);
    cpu_set_t mine, all;
    CPU_ZERO(&mine);
    CPU_ZERO(&all);
    if (sched_getaffinity(0, sizeof mine, &mine) != 0) std::memset(&mine, 0xff, sizeof mine);
    PMPI_Allreduce(&mine, &all, int(sizeof mine), MPI_BYTE, MPI_BOR, node);
    PMPI_Comm_free(&node);
    const char* given = std::getenv("PAPSHIM_NODE_CPUS");
    const int cpus = given && std::atoi(given) > 0 ? std::atoi(given) : CPU_COUNT(&all);
    return ranks > cpus;
}
