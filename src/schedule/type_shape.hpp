// What the reduction code needs to know of a datatype to hold, copy and address elements
// of it outside the user's buffers (scratch buffers, shared-memory slots).
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "message_exchange.hpp"

namespace papshim::schedule {

struct TypeShape {
    MPI_Aint extent = 0;
    MPI_Aint true_lb = 0;
    MPI_Aint true_extent = 0;
    MPI_Count size = 0;
    bool dense = false;  // n elements are exactly n * extent contiguous bytes from their address

    int read(MPI_Datatype type) {
        MPI_Aint lb = 0;
        int error = PMPI_Type_get_extent(type, &lb, &extent);
        if (error == MPI_SUCCESS) error = PMPI_Type_get_true_extent(type, &true_lb, &true_extent);
        if (error == MPI_SUCCESS) error = PMPI_Type_size_x(type, &size);
        dense = error == MPI_SUCCESS && lb == 0 && true_lb == 0 && extent == true_extent && MPI_Count{extent} == size;
        return error;
    }
    // Bytes a buffer of n elements spans (from its true lower bound).
    std::size_t span(std::int64_t n) const {
        return n <= 0 ? 0 : static_cast<std::size_t>(true_extent + (n - 1) * extent);
    }
};

inline void* byte_offset(const void* base, MPI_Aint bytes) {
    return reinterpret_cast<void*>(MPI_Aint_add(reinterpret_cast<MPI_Aint>(base), bytes));
}

// A buffer for elements whose true data starts `at` bytes into `scratch` (grown first).
inline void* scratch_buffer(std::vector<std::byte>& scratch, std::size_t at, std::size_t bytes, const TypeShape& shape) {
    if (scratch.size() < at + bytes) scratch.resize(at + bytes);
    return byte_offset(scratch.data() + at, -shape.true_lb);
}

// Copies n elements; dense types by memcpy, others through MPI (a message to ourselves on
// `comm`, a private communicator, with a tag no schedule uses).
inline int copy_elements(const void* from, void* to, int n, MPI_Datatype type, const TypeShape& shape, int self,
                         MPI_Comm comm) {
    if (n == 0 || from == to) return MPI_SUCCESS;
    if (shape.dense) {
        std::memmove(to, from, static_cast<std::size_t>(n) * static_cast<std::size_t>(shape.extent));
        return MPI_SUCCESS;
    }
    return PMPI_Sendrecv(from, n, type, self, kSelfCopyTag, to, n, type, self, kSelfCopyTag, comm, MPI_STATUS_IGNORE);
}

}  // namespace papshim::schedule
