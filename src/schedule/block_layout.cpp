#include "block_layout.hpp"

#include <climits>

namespace papshim::schedule {

BlockLayout::BlockLayout(void* base, MPI_Datatype type, int uniform_count, const int* counts,
                         const int* displs, int& error)
    : base_(base), type_(type), uniform_count_(uniform_count), counts_(counts), displs_(displs) {
    MPI_Aint lower_bound = 0;
    error = PMPI_Type_get_extent(type, &lower_bound, &extent_);
    if (error == MPI_SUCCESS) error = PMPI_Type_size_x(type, &type_size_);
}

void* BlockLayout::at(MPI_Aint byte_offset) const {
    return reinterpret_cast<void*>(MPI_Aint_add(reinterpret_cast<MPI_Aint>(base_), byte_offset));
}

namespace {

// Scratch for building the hindexed description; per thread so concurrent collectives on
// different communicators (MPI_THREAD_MULTIPLE) do not share it, and reused across calls
// so small messages do not allocate.
struct RunScratch {
    std::vector<MPI_Aint> offsets;
    std::vector<int> counts;
};
thread_local RunScratch run_scratch;

}  // namespace

int describe_blocks(const BlockLayout& layout, std::span<const int> blocks, MessageBuffer& out) {
    out = MessageBuffer{};
    auto& runs = run_scratch;
    runs.offsets.clear();
    runs.counts.clear();
    for (const int block : blocks) {
        if (layout.empty(block)) continue;
        const int count = layout.count(block);
        const MPI_Aint offset = layout.offset(block);
        if (!runs.counts.empty()) {
            int& last_count = runs.counts.back();
            const bool adjacent = runs.offsets.back() + MPI_Aint{last_count} * layout.extent() == offset;
            if (adjacent && last_count <= INT_MAX - count) {
                last_count += count;
                continue;
            }
        }
        runs.offsets.push_back(offset);
        runs.counts.push_back(count);
    }
    if (runs.counts.empty()) return MPI_SUCCESS;
    if (runs.counts.size() == 1) {
        out.buffer = layout.at(runs.offsets.front());
        out.count = runs.counts.front();
        out.type = layout.type();
        return MPI_SUCCESS;
    }
    MPI_Datatype runs_type = MPI_DATATYPE_NULL;
    int error = PMPI_Type_create_hindexed(static_cast<int>(runs.counts.size()), runs.counts.data(),
                                          runs.offsets.data(), layout.type(), &runs_type);
    if (error != MPI_SUCCESS) return error;
    error = PMPI_Type_commit(&runs_type);
    if (error != MPI_SUCCESS) {
        PMPI_Type_free(&runs_type);
        return error;
    }
    out.buffer = layout.base();
    out.count = 1;
    out.type = runs_type;
    out.owned_type = runs_type;
    return MPI_SUCCESS;
}

}  // namespace papshim::schedule
