// Where the blocks of a gather-type collective live in the receive buffer, and how the
// blocks of one schedule Transfer are described to MPI as a single message.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace papshim::schedule {

// Block b is `count(b)` elements of `type` starting `offset(b)` bytes after `base`.
// Allgather: every block has `uniform_count` elements, block b at b*uniform_count elements.
// Allgatherv: `counts`/`displs` (in elements of `type`) give them per block.
class BlockLayout {
public:
    // Returns an MPI error code in `error` if the type's extent or size cannot be read, or
    // MPI_Pack on `comm` (errors returned) refuses it.
    BlockLayout(void* base, MPI_Datatype type, int uniform_count, const int* counts,
                const MPI_Aint* displs, MPI_Comm comm, int& error);

    int count(int block) const { return counts_ != nullptr ? counts_[block] : uniform_count_; }
    MPI_Aint offset(int block) const {
        const MPI_Aint first_element =
            displs_ != nullptr ? displs_[block] : MPI_Aint{block} * uniform_count_;
        return first_element * extent_;
    }
    bool empty(int block) const { return type_size_ == 0 || count(block) == 0; }
    // Block b's bytes of type signature (count x type size): the same on every rank.
    std::int64_t bytes(int block) const { return std::int64_t{count(block)} * std::int64_t{type_size_}; }
    void* address(int block) const { return at(offset(block)); }
    // `base` + byte_offset, computed with MPI_Aint_add because `base` may be MPI_BOTTOM.
    void* at(MPI_Aint byte_offset) const;

    void* base() const { return base_; }
    MPI_Datatype type() const { return type_; }
    MPI_Aint extent() const { return extent_; }
    MPI_Count type_size() const { return type_size_; }
    // True when the type's data fills [0, extent) with no gaps (lower bound and true lower
    // bound 0, extent = true extent = size) in the order of its type signature: n elements
    // are then exactly the n*extent bytes at their address, in the order MPI sends them, and
    // a memcpy of them moves what MPI would, to a peer using any type of the same signature.
    bool dense() const { return dense_; }

private:
    void* base_;
    MPI_Datatype type_;
    int uniform_count_;
    const int* counts_;
    const MPI_Aint* displs_;
    MPI_Aint extent_ = 0;
    MPI_Count type_size_ = 0;
    bool dense_ = false;
};

// `count` elements of the layout's type at byte `offset` from its base.
struct Run {
    MPI_Aint offset = 0;
    int count = 0;
};

// Appends the runs of `blocks` (in order) to `runs`: empty blocks are left out, consecutive
// blocks that follow each other in memory are merged into one run.
void append_runs(const BlockLayout& layout, std::span<const int> blocks, std::vector<Run>& runs);

// Elements in `runs` in total, or -1 if that does not fit an int.
int total_count(std::span<const Run> runs);

// One message's buffer arguments: (buffer, count, datatype). `owned_type` is a committed
// derived type the caller must free once the message completes (MPI_DATATYPE_NULL if none).
struct MessageBuffer {
    void* buffer = nullptr;
    int count = 0;
    MPI_Datatype type = MPI_DATATYPE_NULL;
    MPI_Datatype owned_type = MPI_DATATYPE_NULL;
    bool empty() const { return count == 0; }
};

// Describes `runs` (not empty) in place as one message: a single run as (address, count,
// type) without a derived type, several as an hindexed type over `layout.base()`. Returns
// an MPI error code.
int describe_runs(const BlockLayout& layout, std::span<const Run> runs, MessageBuffer& out);

// Copies the runs (of a dense layout) back to back into `packed`, or from `packed` back
// into the layout: `packed` holds total_count(runs) consecutive elements of the type.
void pack_runs(const BlockLayout& layout, std::span<const Run> runs, std::byte* packed);
void unpack_runs(const BlockLayout& layout, std::span<const Run> runs, const std::byte* packed);

}  // namespace papshim::schedule
