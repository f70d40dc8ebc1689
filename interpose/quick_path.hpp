// The entry points' first test: a call whose answer this thread already knows goes to MPI
// without a call into papshim; anything else takes the collective's full path
// (collectives.cpp), which decides and, where it sends a call to MPI, keeps the answer here.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <type_traits>

#include "entry_points.hpp"
#include "papshim/runtime.hpp"

namespace papshim::interpose {

// What the full path decided for this thread's last communicator and datatype, valid while
// runtime::hot::generation has not moved (every change that could alter it bumps it): per
// collective, the element counts that go to MPI untouched, from forward_from up to but not
// including forward_from + forward_span (a span of 0: none; from 0 over the maximum: every
// call; from above auto's small calls that papshim runs, CommContext::own_up_to, to the size
// where it decides per call), and where papshim_get_last_algorithm then reads "native". It
// holds for any call with that communicator and type, not only the one that kept it. A rank
// may keep less than another (a type whose size it has not seen, a context not in its cache:
// those spans stay 0), never a different decision: what it keeps is the full path's own.
// One test instead of the full path's checks: an 8-byte Reduce under `auto` cost papshim
// 57-64 instructions through them (docs/benchmarks.md, "Kept answers at the entry").
struct QuickAnswer {
    MPI_Comm comm{};  // not MPI_COMM_NULL: Open MPI's is no constant expression (PAPSHIM_STARTUP_TLS)
    MPI_Datatype type{};
    std::uint64_t generation = ~std::uint64_t{0};  // empty until the first answer
    std::array<std::uint64_t, collective_count> forward_from{};
    std::array<std::uint64_t, collective_count> forward_span{};
    std::array<std::atomic<const char*>*, collective_count> report{};
};
static_assert(std::is_trivially_destructible_v<QuickAnswer>, "PAPSHIM_STARTUP_TLS");
PAPSHIM_STARTUP_TLS inline thread_local QuickAnswer quick_answer;
// Where a call whose full path reports nowhere writes its "native" (a configured native
// choice, with no papshim_set_algorithm choice on its communicator).
PAPSHIM_STARTUP_TLS inline thread_local std::atomic<const char*> unreported{nullptr};

// Whether this call goes to MPI at once, its report written. A negative count converts to a
// count at or above most limits (the full path decides); below the largest ones it goes to
// MPI, which returns its error, as the full path would have sent it.
template <class Count>
[[gnu::always_inline]] inline bool answered(Collective kind, MPI_Comm comm, Count count, MPI_Datatype type) {
    const QuickAnswer& answer = quick_answer;
    const std::size_t c = std::size_t(kind);
    if (answer.comm != comm || answer.type != type) return false;
    const std::uint64_t generation = runtime::hot::generation.load(std::memory_order_acquire);
    // One unsigned test for the range: a count below forward_from wraps past the span.
    if (answer.generation != generation ||
        std::uint64_t(std::make_unsigned_t<Count>(count)) - answer.forward_from[c] >= answer.forward_span[c])
        return false;
    answer.report[c]->store("native", std::memory_order_relaxed);
    return true;
}

// Per collective, from the entry's own arguments: whether the call goes to MPI at once. The
// large-count forms (_c) test the same.
inline constexpr auto allgather_at_once = [](const void* sendbuf, auto, MPI_Datatype sendtype, void*, auto recvcount,
                                             MPI_Datatype recvtype, MPI_Comm comm) {
    return (sendbuf == MPI_IN_PLACE || sendtype == recvtype) && answered(Collective::allgather, comm, recvcount, recvtype);
};
// Never: an Allgatherv's size is a sum over the ranks' counts.
inline constexpr auto allgatherv_at_once = [](auto&&...) { return false; };
inline constexpr auto reduce_at_once = [](const void*, void*, auto count, MPI_Datatype datatype, MPI_Op, int,
                                          MPI_Comm comm) { return answered(Collective::reduce, comm, count, datatype); };
inline constexpr auto allreduce_at_once = [](const void*, void*, auto count, MPI_Datatype datatype, MPI_Op,
                                             MPI_Comm comm) { return answered(Collective::allreduce, comm, count, datatype); };
inline constexpr auto allgather_c_at_once = allgather_at_once;
inline constexpr auto allgatherv_c_at_once = allgatherv_at_once;
inline constexpr auto reduce_c_at_once = reduce_at_once;
inline constexpr auto allreduce_c_at_once = allreduce_at_once;

// The handlers, for the entry points that are not C's (the Fortran bindings): the native call
// at once, else the full path.
#define PAPSHIM_DEFINE_HANDLER(Name, lower, params, args)                   \
    inline int lower(PAPSHIM_UNPACK params, const void* caller) {           \
        if (lower##_at_once args) return PMPI_##Name args;                  \
        return lower##_full(PAPSHIM_UNPACK args, caller);                   \
    }
PAPSHIM_COLLECTIVES(PAPSHIM_DEFINE_HANDLER)
PAPSHIM_LARGE_COUNT_COLLECTIVES(PAPSHIM_DEFINE_HANDLER)
#undef PAPSHIM_DEFINE_HANDLER

}  // namespace papshim::interpose
