#include "block_layout.hpp"

#include <climits>
#include <cstring>
#include <vector>

namespace papshim::schedule {

namespace {

// Whether one element's MPI_Pack form (its type signature's order, which is what goes on the
// wire) is its memory image. Named types: always. A derived type may list its pieces out of
// address order (an indexed type with displacements {4, 0}); its memory bytes are then not
// what a peer using another type of the same signature expects. Probed with fills that give
// every byte of the element a distinct position code, one byte of the code per fill. Packs
// on `comm`, whose handler returns errors (papshim's private communicators): MPI_COMM_SELF's
// would abort on a type MPI_Pack refuses (Open MPI: one never committed), where the native
// call returns MPI_ERR_TYPE through the user's handler. Such a refusal goes to `error`.
bool packs_in_memory_order(MPI_Datatype type, MPI_Aint extent, MPI_Comm comm, int& error) {
    int integers = 0, addresses = 0, types = 0, combiner = 0;
    if (PMPI_Type_get_envelope(type, &integers, &addresses, &types, &combiner) != MPI_SUCCESS) return false;
    if (combiner == MPI_COMBINER_NAMED) return true;
    // Larger elements take the typed path, which is right for any type.
    constexpr MPI_Aint kLargestProbed = MPI_Aint{1} << 24;
    if (extent <= 0 || extent > kLargestProbed) return false;
    std::vector<unsigned char> memory(static_cast<std::size_t>(extent)), packed(memory.size());
    for (int shift = 0; shift == 0 || ((extent - 1) >> shift) != 0; shift += 8) {
        for (std::size_t i = 0; i < memory.size(); ++i) memory[i] = static_cast<unsigned char>(i >> shift);
        int position = 0;
        error = PMPI_Pack(memory.data(), 1, type, packed.data(), static_cast<int>(packed.size()), &position, comm);
        if (error != MPI_SUCCESS || position != extent || packed != memory) return false;
    }
    return true;
}

}  // namespace

BlockLayout::BlockLayout(void* base, MPI_Datatype type, int uniform_count, const int* counts,
                         const MPI_Aint* displs, MPI_Comm comm, int& error)
    : base_(base), type_(type), uniform_count_(uniform_count), counts_(counts), displs_(displs) {
    MPI_Aint lower_bound = 0, true_lower_bound = 0, true_extent = 0;
    error = PMPI_Type_get_extent(type, &lower_bound, &extent_);
    if (error == MPI_SUCCESS) error = PMPI_Type_size_x(type, &type_size_);
    if (error == MPI_SUCCESS) error = PMPI_Type_get_true_extent(type, &true_lower_bound, &true_extent);
    dense_ = error == MPI_SUCCESS && lower_bound == 0 && true_lower_bound == 0 &&
             extent_ == true_extent && MPI_Count{extent_} == type_size_ &&
             packs_in_memory_order(type, extent_, comm, error);
}

void* BlockLayout::at(MPI_Aint byte_offset) const {
    return reinterpret_cast<void*>(MPI_Aint_add(reinterpret_cast<MPI_Aint>(base_), byte_offset));
}

void append_runs(const BlockLayout& layout, std::span<const int> blocks, std::vector<Run>& runs) {
    const std::size_t first = runs.size();
    for (const int block : blocks) {
        if (layout.empty(block)) continue;
        const int count = layout.count(block);
        const MPI_Aint offset = layout.offset(block);
        if (runs.size() > first) {
            Run& last = runs.back();
            const bool adjacent = last.offset + MPI_Aint{last.count} * layout.extent() == offset;
            if (adjacent && last.count <= INT_MAX - count) {
                last.count += count;
                continue;
            }
        }
        runs.push_back({offset, count});
    }
}

int total_count(std::span<const Run> runs) {
    long long total = 0;
    for (const Run& run : runs) total += run.count;
    return total <= INT_MAX ? static_cast<int>(total) : -1;
}

namespace {

// Scratch for building the hindexed description; per thread so concurrent collectives on
// different communicators (MPI_THREAD_MULTIPLE) do not share it, and reused across calls
// so small messages do not allocate.
struct HindexedScratch {
    std::vector<MPI_Aint> offsets;
    std::vector<int> counts;
};
thread_local HindexedScratch hindexed_scratch;

std::size_t run_bytes(const BlockLayout& layout, const Run& run) {
    return static_cast<std::size_t>(run.count) * static_cast<std::size_t>(layout.extent());
}

}  // namespace

int describe_runs(const BlockLayout& layout, std::span<const Run> runs, MessageBuffer& out) {
    out = MessageBuffer{};
    if (runs.size() == 1) {
        out.buffer = layout.at(runs.front().offset);
        out.count = runs.front().count;
        out.type = layout.type();
        return MPI_SUCCESS;
    }
    auto& scratch = hindexed_scratch;
    scratch.offsets.clear();
    scratch.counts.clear();
    for (const Run& run : runs) {
        scratch.offsets.push_back(run.offset);
        scratch.counts.push_back(run.count);
    }
    MPI_Datatype runs_type = MPI_DATATYPE_NULL;
    int error = PMPI_Type_create_hindexed(static_cast<int>(runs.size()), scratch.counts.data(),
                                          scratch.offsets.data(), layout.type(), &runs_type);
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

void pack_runs(const BlockLayout& layout, std::span<const Run> runs, std::byte* packed) {
    for (const Run& run : runs) {
        const std::size_t bytes = run_bytes(layout, run);
        std::memcpy(packed, layout.at(run.offset), bytes);
        packed += bytes;
    }
}

void unpack_runs(const BlockLayout& layout, std::span<const Run> runs, const std::byte* packed) {
    for (const Run& run : runs) {
        const std::size_t bytes = run_bytes(layout, run);
        std::memcpy(layout.at(run.offset), packed, bytes);
        packed += bytes;
    }
}

}  // namespace papshim::schedule
