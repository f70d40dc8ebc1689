// Where the blocks of a gather-type collective live in the receive buffer, and how the
// blocks of one schedule Transfer are described to MPI as a single message.
#pragma once

#include <mpi.h>

#include <span>
#include <vector>

namespace papshim::schedule {

// Block b is `count(b)` elements of `type` starting `offset(b)` bytes after `base`.
// Allgather: every block has `uniform_count` elements, block b at b*uniform_count elements.
// Allgatherv: `counts`/`displs` (in elements of `type`) give them per block.
class BlockLayout {
public:
    // Returns an MPI error code in `error` if the type's extent or size cannot be read.
    BlockLayout(void* base, MPI_Datatype type, int uniform_count, const int* counts,
                const int* displs, int& error);

    int count(int block) const { return counts_ != nullptr ? counts_[block] : uniform_count_; }
    MPI_Aint offset(int block) const {
        const MPI_Aint first_element =
            displs_ != nullptr ? MPI_Aint{displs_[block]} : MPI_Aint{block} * uniform_count_;
        return first_element * extent_;
    }
    bool empty(int block) const { return type_size_ == 0 || count(block) == 0; }
    void* address(int block) const { return at(offset(block)); }
    // `base` + byte_offset, computed with MPI_Aint_add because `base` may be MPI_BOTTOM.
    void* at(MPI_Aint byte_offset) const;

    void* base() const { return base_; }
    MPI_Datatype type() const { return type_; }
    MPI_Aint extent() const { return extent_; }
    MPI_Count type_size() const { return type_size_; }

private:
    void* base_;
    MPI_Datatype type_;
    int uniform_count_;
    const int* counts_;
    const int* displs_;
    MPI_Aint extent_ = 0;
    MPI_Count type_size_ = 0;
};

// One message's buffer arguments: (buffer, count, datatype). `owned_type` is a committed
// derived type the caller must free once the message completes (MPI_DATATYPE_NULL if none).
struct MessageBuffer {
    void* buffer = nullptr;
    int count = 0;
    MPI_Datatype type = MPI_DATATYPE_NULL;
    MPI_Datatype owned_type = MPI_DATATYPE_NULL;
    bool empty() const { return count == 0; }
};

// Describes `blocks` (in order) as one message. Runs of consecutive blocks that follow each
// other in memory are merged; a single run is sent as (address, count, type) without a
// derived type, several runs as an hindexed type over `layout.base()`. Empty blocks are left
// out; if all are empty the result is empty(). Returns an MPI error code.
int describe_blocks(const BlockLayout& layout, std::span<const int> blocks, MessageBuffer& out);

}  // namespace papshim::schedule
