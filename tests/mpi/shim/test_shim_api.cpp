// The shim as an application sees it: results equal native ones while algorithms switch,
// from two threads on two communicators at once, across communicator free and handle reuse.
#include <mpi.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "../cores_shared.hpp"
#include "papshim/control.h"

namespace {

int world_rank = 0;
std::atomic<int> failures{0};  // threads report too

void expect(bool ok, const std::string& what) {
    if (!ok) {
        std::fprintf(stderr, "rank %d: FAILED: %s\n", world_rank, what.c_str());
        ++failures;
    }
}

// One Allgather and one Allgatherv through the shim, compared with PMPI on the same data.
void gather_and_compare(MPI_Comm comm, int round, const char* algorithm) {
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int count = 1 + (round % 5) * 37;
    std::vector<int> mine(static_cast<std::size_t>(count + 2));  // Allgatherv sends up to 2
    for (int i = 0; i < count + 2; ++i) mine[std::size_t(i)] = rank * 100000 + round * 100 + i;
    std::vector<int> got(std::size_t(count * size), -1), want(std::size_t(count * size), -2);
    MPI_Allgather(mine.data(), count, MPI_INT, got.data(), count, MPI_INT, comm);
    PMPI_Allgather(mine.data(), count, MPI_INT, want.data(), count, MPI_INT, comm);
    expect(got == want, std::string("allgather with ") + algorithm + " round " + std::to_string(round));

    std::vector<int> counts(static_cast<std::size_t>(size)), displs(static_cast<std::size_t>(size));
    int total = 0;
    for (int r = size - 1; r >= 0; --r) {  // reversed displacements
        counts[std::size_t(r)] = (r + round) % 3;
        displs[std::size_t(r)] = total;
        total += counts[std::size_t(r)];
    }
    std::vector<int> vgot(std::size_t(total) + 1, -1), vwant(std::size_t(total) + 1, -1);
    MPI_Allgatherv(mine.data(), counts[std::size_t(rank)], MPI_INT, vgot.data(), counts.data(), displs.data(), MPI_INT, comm);
    PMPI_Allgatherv(mine.data(), counts[std::size_t(rank)], MPI_INT, vwant.data(), counts.data(), displs.data(), MPI_INT, comm);
    expect(vgot == vwant, std::string("allgatherv with ") + algorithm + " round " + std::to_string(round));

    long sum = 0, want_sum = 0, mine_sum = rank + round;
    MPI_Allreduce(&mine_sum, &sum, 1, MPI_LONG, MPI_SUM, comm);
    PMPI_Allreduce(&mine_sum, &want_sum, 1, MPI_LONG, MPI_SUM, comm);
    expect(sum == want_sum, "allreduce round " + std::to_string(round));
}

void control_api() {
    char name[64];
    expect(papshim_set_algorithm(MPI_COMM_WORLD, "allgather", "ring") == MPI_SUCCESS, "set ring");
    expect(papshim_get_algorithm(MPI_COMM_WORLD, "allgather", name, sizeof name) == MPI_SUCCESS &&
               std::strcmp(name, "ring") == 0, "get ring");
    expect(papshim_set_algorithm(MPI_COMM_WORLD, "allgather", "nosuch") == MPI_ERR_ARG, "unknown name refused");
    expect(papshim_set_algorithm(MPI_COMM_WORLD, "bcast", "ring") == MPI_ERR_ARG, "unknown collective refused");
    expect(papshim_set_algorithm(MPI_COMM_WORLD, "reduce", "sparbit") == MPI_ERR_ARG, "allgather algorithm for reduce refused");
    // Different names on different ranks: refused everywhere, nothing changes.
    const char* split = world_rank == 0 ? "bruck" : "sparbit";
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int rc = papshim_set_algorithm(MPI_COMM_WORLD, "allgather", split);
    expect(size == 1 ? rc == MPI_SUCCESS : rc == MPI_ERR_ARG, "mismatched names refused on every rank");
    if (size > 1) {
        papshim_get_algorithm(MPI_COMM_WORLD, "allgather", name, sizeof name);
        expect(std::strcmp(name, "ring") == 0, "a refused choice changes nothing");
    }
    expect(papshim_set_mode("sideways") == MPI_ERR_ARG, "unknown mode refused");
    expect(papshim_version() && *papshim_version(), "version");
    // PAPSHIM_WAIT=mpi or yield is the policy that runs; auto chooses one of the two.
    const std::string policy = papshim_wait_policy();
    expect(policy == "mpi" || policy == "yield", "a wait policy");
    if (const char* wait = std::getenv("PAPSHIM_WAIT"); wait && std::string(wait) != "auto")
        expect(policy == wait, "PAPSHIM_WAIT's policy runs");
    double t0 = papshim_wtime(), t1 = papshim_wtime();
    expect(t1 >= t0, "global clock is monotonic");
    // Traced (CMakeLists sets PAPSHIM_TRACE_DIR): that folder, or DIR.N where a dead run holds it.
    char dir[4096] = "x";
    const char* configured = std::getenv("PAPSHIM_TRACE_DIR");
    expect(papshim_get_trace_dir(dir, sizeof dir) == MPI_SUCCESS, "trace dir");
    expect(configured ? std::strncmp(dir, configured, std::strlen(configured)) == 0 : dir[0] == '\0',
           "the trace dir is PAPSHIM_TRACE_DIR's, or \"\" untraced");
    if (dir[0] != '\0') {
        char short_name[2] = "x";
        expect(papshim_get_trace_dir(short_name, sizeof short_name) == MPI_ERR_TRUNCATE && short_name[0] == '\0',
               "a trace dir that does not fit: MPI_ERR_TRUNCATE and \"\"");
    }
    expect(papshim_get_trace_dir(nullptr, 8) == MPI_ERR_ARG, "null buffer refused");
}

// Invalid arguments get the native error, through the communicator's error handler: papshim
// leaves such calls to the MPI library instead of running its own algorithm on them.
void invalid_arguments() {
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    papshim_set_algorithm(comm, "allgather", "sparbit");
    papshim_set_algorithm(comm, "allgatherv", "sparbit");
    int in[4] = {0}, out[64] = {0};
    auto same_class = [](int shim, int native) {
        int a = 0, b = 0;
        MPI_Error_class(shim, &a);
        MPI_Error_class(native, &b);
        return shim != MPI_SUCCESS && a == b;
    };
    int shim = MPI_Allgather(in, -1, MPI_INT, out, -1, MPI_INT, comm);
    int native = PMPI_Allgather(in, -1, MPI_INT, out, -1, MPI_INT, comm);
    expect(same_class(shim, native), "negative count: native error class");
    shim = MPI_Allgather(in, 1, MPI_DATATYPE_NULL, out, 1, MPI_DATATYPE_NULL, comm);
    native = PMPI_Allgather(in, 1, MPI_DATATYPE_NULL, out, 1, MPI_DATATYPE_NULL, comm);
    expect(same_class(shim, native), "null datatype: native error class");
    // A type never committed: MPI_ERR_TYPE through comm's handler (papshim's order probe packed
    // on MPI_COMM_SELF, whose fatal handler aborted the job on Open MPI).
    MPI_Datatype uncommitted;
    MPI_Type_contiguous(2, MPI_INT, &uncommitted);
    shim = MPI_Allgather(in, 1, uncommitted, out, 1, uncommitted, comm);
    native = PMPI_Allgather(in, 1, uncommitted, out, 1, uncommitted, comm);
    expect(same_class(shim, native), "uncommitted datatype: native error class");
    int counts[32], displs[32];
    for (int r = 0; r < 32; ++r) counts[r] = 1, displs[r] = 2 * r;
    shim = MPI_Allgatherv(in, 1, uncommitted, out, counts, displs, uncommitted, comm);
    native = PMPI_Allgatherv(in, 1, uncommitted, out, counts, displs, uncommitted, comm);
    expect(same_class(shim, native), "uncommitted datatype, allgatherv: native error class");
    MPI_Type_free(&uncommitted);
    // Handles MPI never gave out (a Fortran index of none): the native error through comm's
    // handler. MPI's queries (MPI_Type_size, MPI_Op_commutative) raise it on MPI_COMM_WORLD,
    // fatal: papshim asked them first, and the job ended (found by review).
    const MPI_Datatype unknown_type = MPI_Type_f2c(77777);
    shim = MPI_Allgather(in, 1, MPI_INT, out, 1, unknown_type, comm);
    char last[64] = "";
    papshim_get_last_algorithm(comm, "allgather", last, int(sizeof last));
    native = PMPI_Allgather(in, 1, MPI_INT, out, 1, unknown_type, comm);
    expect(same_class(shim, native), "unknown datatype: native error class");
    expect(std::string(last) == "native", "unknown datatype: the last algorithm is native");
    shim = MPI_Allgatherv(in, 1, unknown_type, out, counts, displs, MPI_INT, comm);
    native = PMPI_Allgatherv(in, 1, unknown_type, out, counts, displs, MPI_INT, comm);
    expect(same_class(shim, native), "unknown datatype, allgatherv: native error class");
#ifdef MPICH_VERSION
    // Open MPI's native Reduce and Allreduce crash on these.
    papshim_set_algorithm(comm, "allreduce", "recursive_doubling");
    papshim_set_algorithm(comm, "reduce", "binomial");
    shim = MPI_Reduce(in, out, 2, unknown_type, MPI_SUM, 0, comm);
    native = PMPI_Reduce(in, out, 2, unknown_type, MPI_SUM, 0, comm);
    expect(same_class(shim, native), "unknown datatype, reduce: native error class");
    const MPI_Op unknown_op = MPI_Op_f2c(77777);
    shim = MPI_Allreduce(in, out, 2, MPI_INT, unknown_op, comm);
    native = PMPI_Allreduce(in, out, 2, MPI_INT, unknown_op, comm);
    expect(same_class(shim, native), "unknown op, allreduce: native error class");
#endif

    // The outcome of each call below, papshim's against native's: the same error class, or
    // success on both with the same data.
    int size = 1;
    MPI_Comm_size(comm, &size);
    auto same_outcome = [](int shim_rc, int native_rc) {
        int a = 0, b = 0;
        MPI_Error_class(shim_rc, &a);
        MPI_Error_class(native_rc, &b);
        return a == b;
    };
    // A send buffer that is this rank's own block: MPICH's MPI_ERR_BUFFER (success on Open MPI).
    std::vector<int> got(2 * std::size_t(size), world_rank), want(got);
    shim = MPI_Allgather(got.data() + 2 * world_rank, 2, MPI_INT, got.data(), 2, MPI_INT, comm);
    native = PMPI_Allgather(want.data() + 2 * world_rank, 2, MPI_INT, want.data(), 2, MPI_INT, comm);
    expect(same_outcome(shim, native) && (shim != MPI_SUCCESS || got == want), "send buffer in its own block");
#ifdef OPEN_MPI
    // Open MPI accepts it (the data are in place), so papshim's algorithm runs it (dispatch).
    char ran[64] = "";
    papshim_get_last_algorithm(comm, "allgather", ran, int(sizeof ran));
    const char* mode = std::getenv("PAPSHIM_MODE");
    expect(!mode || std::string(mode) != "dispatch" || size == 1 || std::string(ran) == "sparbit",
           "send buffer in its own block: papshim's algorithm ran (Open MPI)");
    // Every rank's send buffer at the receive buffer's start, rank 0's own block only: Open MPI
    // runs it (the other ranks' send data overlap rank 0's block, erroneous); rank 0 went
    // native alone and the others hung in papshim's algorithm (found by review). No hang.
    std::vector<int> overlapping(got.size(), world_rank);
    shim = MPI_Allgather(overlapping.data(), 2, MPI_INT, overlapping.data(), 2, MPI_INT, comm);
    expect(shim == MPI_SUCCESS, "send buffer at the receive buffer's start on every rank (Open MPI)");
#endif
    std::vector<int> all_counts(std::size_t(size), 2), all_displs(std::size_t(size), 0);
    for (int r = 0; r < size; ++r) all_displs[std::size_t(r)] = 2 * r;
    shim = MPI_Allgatherv(got.data() + 2 * world_rank, 2, MPI_INT, got.data(), all_counts.data(), all_displs.data(),
                          MPI_INT, comm);
    native = PMPI_Allgatherv(want.data() + 2 * world_rank, 2, MPI_INT, want.data(), all_counts.data(),
                             all_displs.data(), MPI_INT, comm);
    expect(same_outcome(shim, native) && (shim != MPI_SUCCESS || got == want), "allgatherv: send buffer in its own block");
    // Rank 0's empty block at the receive buffer's start, and its send buffer there too, with
    // nothing to send: valid for MPI, so papshim's on every rank (rank 0 went native alone).
    all_counts[0] = 0;
    for (int r = 1; r < size; ++r) all_displs[std::size_t(r)] = 2 * (r - 1);
    const int own = world_rank == 0 ? 0 : 2;
    std::vector<int> mine(2, world_rank);
    shim = MPI_Allgatherv(world_rank == 0 ? got.data() : mine.data(), own, MPI_INT, got.data(), all_counts.data(),
                          all_displs.data(), MPI_INT, comm);
    native = PMPI_Allgatherv(world_rank == 0 ? want.data() : mine.data(), own, MPI_INT, want.data(),
                             all_counts.data(), all_displs.data(), MPI_INT, comm);
    expect(shim == MPI_SUCCESS && native == MPI_SUCCESS && got == want, "allgatherv: an empty own block at the send buffer");
    all_counts[0] = 2;
    for (int r = 0; r < size; ++r) all_displs[std::size_t(r)] = 2 * r;
#ifdef MPICH_VERSION
    // Null buffers: MPICH's MPI_ERR_BUFFER (Open MPI's native call crashes on them).
    shim = MPI_Allgather(nullptr, 2, MPI_INT, out, 2, MPI_INT, comm);
    native = PMPI_Allgather(nullptr, 2, MPI_INT, out, 2, MPI_INT, comm);
    expect(same_class(shim, native), "null send buffer: native error class");
    shim = MPI_Allgatherv(in, 2, MPI_INT, nullptr, all_counts.data(), all_displs.data(), MPI_INT, comm);
    native = PMPI_Allgatherv(in, 2, MPI_INT, nullptr, all_counts.data(), all_displs.data(), MPI_INT, comm);
    expect(same_class(shim, native), "allgatherv, null receive buffer: native error class");
    papshim_set_algorithm(comm, "allreduce", "ring");
    shim = MPI_Allreduce(nullptr, out, 2, MPI_INT, MPI_SUM, comm);
    native = PMPI_Allreduce(nullptr, out, 2, MPI_INT, MPI_SUM, comm);
    expect(same_class(shim, native), "allreduce, null send buffer: native error class");
#endif
    // A predefined op on a type the standard allows and the library may not: Debian's MPICH
    // has no MPI_SUM for MPI_COMPLEX32 (MPI_ERR_OP on every rank). papshim's schedules failed
    // on some ranks halfway, hung the others or left messages that the next call took.
    for (const char* algorithm : {"recursive_doubling", "dynamic_leader"}) {
        papshim_set_algorithm(comm, "allreduce", algorithm);
        papshim_set_algorithm(comm, "reduce", "binomial");
        alignas(64) unsigned char c_in[64] = {}, c_got[64] = {}, c_want[64] = {};
        shim = MPI_Allreduce(c_in, c_got, 1, MPI_COMPLEX32, MPI_SUM, comm);
        native = PMPI_Allreduce(c_in, c_want, 1, MPI_COMPLEX32, MPI_SUM, comm);
        expect(same_outcome(shim, native) && std::memcmp(c_got, c_want, sizeof c_got) == 0,
               std::string("complex32 allreduce, ") + algorithm);
        shim = MPI_Reduce(c_in, c_got, 1, MPI_COMPLEX32, MPI_PROD, 0, comm);
        native = PMPI_Reduce(c_in, c_want, 1, MPI_COMPLEX32, MPI_PROD, 0, comm);
        expect(same_outcome(shim, native) && std::memcmp(c_got, c_want, sizeof c_got) == 0, "complex32 reduce");
        std::vector<double> sum_in(8, world_rank + 1.0), sum_got(8), sum_want(8);
        MPI_Reduce(sum_in.data(), sum_got.data(), 8, MPI_DOUBLE, MPI_SUM, size - 1, comm);
        PMPI_Reduce(sum_in.data(), sum_want.data(), 8, MPI_DOUBLE, MPI_SUM, size - 1, comm);
        expect(world_rank != size - 1 || sum_got == sum_want, "a valid reduce after the complex32 calls");
    }
#ifdef OPEN_MPI
    // Open MPI's MPI_SUM on MPI_REAL16 depends on the operands' order: papshim's recursive
    // doubling made ranks disagree; it goes native now, alike everywhere.
    {
        papshim_set_algorithm(comm, "allreduce", "recursive_doubling");
        long double value = (world_rank + 1) / 3.0L, sum = 0, native_sum = 0;
        shim = MPI_Allreduce(&value, &sum, 1, MPI_REAL16, MPI_SUM, comm);
        native = PMPI_Allreduce(&value, &native_sum, 1, MPI_REAL16, MPI_SUM, comm);
        expect(shim == native && std::memcmp(&sum, &native_sum, sizeof sum) == 0, "real16 allreduce: native's bits");
    }
#endif
    // More data than a block holds (3 ints into blocks of 2 on every rank): MPI_ERR_TRUNCATE
    // (Open MPI's native call reports it; papshim's copy to itself truncated silently). Last:
    // the native call may leave the communicator unusable.
    shim = MPI_Allgather(in, 3, MPI_INT, out, 2, MPI_INT, comm);
    native = PMPI_Allgather(in, 3, MPI_INT, out, 2, MPI_INT, comm);
    expect(same_class(shim, native), "truncating allgather: native error class");
    MPI_Comm_free(&comm);
}

// What `auto` runs for an Allreduce of at most 1 KiB on a communicator of the world's ranks
// whose node view papshim has made (these tests run on one node; a followed 32 KiB Allreduce
// makes it): in dispatch mode symmetric_shm where the node's cores are shared, else MPI's.
std::string auto_small_allreduce() {
    static const bool shared = node_cores_shared();
    const char* mode = std::getenv("PAPSHIM_MODE");
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    return size > 1 && shared && (!mode || std::strcmp(mode, "profile") != 0) ? "symmetric_shm" : "native";
}

// auto's Reduce/Allreduce below the sampled sizes takes the fast path (native without the
// handler) and still reports what ran; larger calls, and small ones on a communicator whose
// exchanges follow every call, go through the handler. Results equal native's throughout.
void auto_fast_path() {
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    expect(papshim_set_algorithm(comm, "allreduce", "auto") == MPI_SUCCESS, "set auto");
    char ran[64] = "";
    for (std::size_t count : {std::size_t(1), std::size_t(4096)}) {  // 8 B and 32 KiB of doubles
        std::vector<double> in(count, world_rank + 0.5), got(count), want(count);
        MPI_Allreduce(in.data(), got.data(), int(count), MPI_DOUBLE, MPI_SUM, comm);
        PMPI_Allreduce(in.data(), want.data(), int(count), MPI_DOUBLE, MPI_SUM, comm);
        expect(got == want, "auto allreduce of " + std::to_string(count) + " doubles");
        papshim_get_last_algorithm(comm, "allreduce", ran, sizeof ran);
        // The 8-byte call too: auto runs symmetric_shm only once the communicator has its node
        // view (kAutoSmallCallsBeforeView), and this is its first call.
        expect(std::strcmp(ran, "native") == 0, "auto on balanced arrivals reports native, not '" + std::string(ran) + "'");
    }
    papshim_set_algorithm(comm, "allgather", "bdr");  // every call on comm now exchanges
    for (int round = 0; round < 3; ++round) {
        long in = world_rank + round, got = 0, want = 0;
        MPI_Allreduce(&in, &got, 1, MPI_LONG, MPI_SUM, comm);
        PMPI_Allreduce(&in, &want, 1, MPI_LONG, MPI_SUM, comm);
        expect(got == want, "auto allreduce beside a planned allgather, round " + std::to_string(round));
    }
    MPI_Comm_free(&comm);
}

// auto follows arrivals from a communicator's first call: with the last rank 20 ms late at
// every 32 KiB Allreduce (ω ≫ 6τ on one node), the first sampled exchange already shows the
// imbalance and auto leaves native within a few calls (the dynamic leader on shared memory).
// The arrival used to be read after the first call had created the communicator's context (a
// duplicate, which lines the ranks up), so with auto configured by PAPSHIM_ALLREDUCE that
// exchange looked balanced and auto waited for the 16th eligible call.
void auto_switches_early() {
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) return;
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);  // no papshim call on it before the first Allreduce
    constexpr int calls = 10, count = 4096;
    std::vector<double> in(count, world_rank + 0.25), got(count), want(count);
    int first_switch = -1;
    for (int call = 0; call < calls; ++call) {
        if (world_rank == size - 1) std::this_thread::sleep_for(std::chrono::milliseconds(20));
        MPI_Allreduce(in.data(), got.data(), count, MPI_DOUBLE, MPI_SUM, comm);
        char ran[64] = "";
        papshim_get_last_algorithm(comm, "allreduce", ran, sizeof ran);
        PMPI_Allreduce(in.data(), want.data(), count, MPI_DOUBLE, MPI_SUM, comm);
        expect(got == want, "auto allreduce under a late rank, call " + std::to_string(call));
        if (first_switch < 0 && std::strcmp(ran, "native") != 0) first_switch = call;
    }
    expect(first_switch >= 0 && first_switch <= 6,
           "auto left native by call 6 under a late rank (first switch: " + std::to_string(first_switch) + ")");
    // A small call after those takes the fast path (or symmetric_shm), and is reported as what ran.
    long small = world_rank, sum = 0;
    MPI_Allreduce(&small, &sum, 1, MPI_LONG, MPI_SUM, comm);
    char ran[64] = "";
    papshim_get_last_algorithm(comm, "allreduce", ran, sizeof ran);
    const std::string expected = auto_small_allreduce();
    expect(ran == expected, "a small call after the switch reports " + expected + ", not '" + std::string(ran) + "'");
    MPI_Comm_free(&comm);
}

// What ran, as papshim_get_last_algorithm says it on `comm`.
std::string last_algorithm(MPI_Comm comm, const char* collective) {
    char ran[64] = "";
    papshim_get_last_algorithm(comm, collective, ran, sizeof ran);
    return ran;
}

// With auto configured by the environment, the entry points forward small calls at once when
// the thread's kept answer is for their communicator and type (quick_path.hpp): each call
// below runs twice, so that the second takes that path. Alternating communicators, types and
// collectives miss it; a communicator freed and a new one made (its handle may be the freed
// one's) must not find the old context there. Results equal native's, and every call is
// reported native but the small Allreduces where auto runs symmetric_shm (auto_small_allreduce).
void auto_quick_path_across_communicators() {
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm first, second;
    MPI_Comm_dup(MPI_COMM_WORLD, &first);
    MPI_Comm_dup(MPI_COMM_WORLD, &second);
    // A 32 KiB Allreduce on each: the full path, which makes its context.
    std::vector<double> large(4096, world_rank + 0.5), large_sum(4096), large_want(4096);
    for (MPI_Comm comm : {first, second}) {
        MPI_Allreduce(large.data(), large_sum.data(), 4096, MPI_DOUBLE, MPI_SUM, comm);
        PMPI_Allreduce(large.data(), large_want.data(), 4096, MPI_DOUBLE, MPI_SUM, comm);
        expect(large_sum == large_want, "a 32 KiB auto allreduce");
    }
    for (int call = 0; call < 24; ++call) {
        MPI_Comm comm = call % 2 == 0 ? first : second;
        // 2 KiB: between auto's small window and the sizes it follows, so forwarded, the second
        // time by the answer kept at the entry; the small calls after it on the same
        // communicator and type must still run what the window says, not that kept answer.
        for (int again = 0; again < 2; ++again) {
            const std::string what = " (call " + std::to_string(call) + (again ? ", again)" : ")");
            std::vector<double> middle(256, world_rank + call), middle_sum(256), middle_want(256);
            MPI_Allreduce(middle.data(), middle_sum.data(), 256, MPI_DOUBLE, MPI_SUM, comm);
            PMPI_Allreduce(middle.data(), middle_want.data(), 256, MPI_DOUBLE, MPI_SUM, comm);
            expect(middle_sum == middle_want, "2 KiB allreduce" + what);
            expect(last_algorithm(comm, "allreduce") == "native", "2 KiB allreduce reports native" + what);
        }
        for (int again = 0; again < 2; ++again) {
            const std::string what = " (call " + std::to_string(call) + (again ? ", again)" : ")");
            if (call % 3 == 0) {
                double in = world_rank + call, got = 0, want = 0;
                MPI_Allreduce(&in, &got, 1, MPI_DOUBLE, MPI_MAX, comm);
                PMPI_Allreduce(&in, &want, 1, MPI_DOUBLE, MPI_MAX, comm);
                expect(got == want, "small double allreduce" + what);
            } else {
                long in[3] = {world_rank, call, -world_rank}, got[3] = {}, want[3] = {};
                MPI_Allreduce(in, got, 3, MPI_LONG, MPI_SUM, comm);
                PMPI_Allreduce(in, want, 3, MPI_LONG, MPI_SUM, comm);
                expect(std::memcmp(got, want, sizeof got) == 0, "small long allreduce" + what);
            }
            const std::string small = auto_small_allreduce();
            expect(last_algorithm(comm, "allreduce") == small, "small allreduce reports " + small + what);
        }
        const int in = world_rank * 10 + call;
        for (int again = 0; again < 2; ++again) {
            const std::string what = " (call " + std::to_string(call) + (again ? ", again)" : ")");
            int got = -1, want = -1;
            MPI_Reduce(&in, &got, 1, MPI_INT, MPI_MIN, call % size, comm);
            PMPI_Reduce(&in, &want, 1, MPI_INT, MPI_MIN, call % size, comm);
            if (world_rank == call % size) expect(got == want, "small reduce" + what);
            expect(last_algorithm(comm, "reduce") == "native", "small reduce reports native" + what);
        }
        for (int again = 0; again < 2; ++again) {
            const std::string what = " (call " + std::to_string(call) + (again ? ", again)" : ")");
            std::vector<int> all(static_cast<std::size_t>(size), -1), all_want(static_cast<std::size_t>(size), -2);
            if (call % 4 == 1) {  // in place
                all[std::size_t(world_rank)] = in;
                all_want[std::size_t(world_rank)] = in;
                MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all.data(), 1, MPI_INT, comm);
                PMPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all_want.data(), 1, MPI_INT, comm);
            } else {
                MPI_Allgather(&in, 1, MPI_INT, all.data(), 1, MPI_INT, comm);
                PMPI_Allgather(&in, 1, MPI_INT, all_want.data(), 1, MPI_INT, comm);
            }
            expect(all == all_want, "small allgather" + what);
            expect(last_algorithm(comm, "allgather") == "native", "small allgather reports native" + what);
        }
    }
    // The thread's cache now holds `second`'s context; free it and make a communicator that
    // may reuse its handle: its small calls are reported native and make no context (a
    // duplicate of the world in the world's window counts its first 1024 such calls, 64 on
    // MPICH, before it makes one).
    MPI_Comm_free(&second);
    MPI_Comm third;
    MPI_Comm_dup(MPI_COMM_WORLD, &third);
    long in = world_rank, got = 0, want = 0;
    MPI_Allreduce(&in, &got, 1, MPI_LONG, MPI_SUM, third);
    PMPI_Allreduce(&in, &want, 1, MPI_LONG, MPI_SUM, third);
    expect(got == want, "small allreduce on a new communicator");
    expect(last_algorithm(third, "allreduce") == "native", "small allreduce on a new communicator reports native");
    papshim_plan_stats stats{};
    papshim_get_plan_stats(third, &stats);
    expect(stats.calls == 0, "a small call on a new communicator: its context has seen " +
                                 std::to_string(stats.calls) + " calls, expected none");
    MPI_Comm_free(&third);
    MPI_Comm_free(&first);
}

// With auto configured, a communicator's small Reduce/Allreduce calls (and Allgather(v)
// blocks under 64 KiB) go to MPI on the fast path and create no context (a duplicate and a broadcast per communicator, which cost
// LAMMPS's RCB balancing, splitting communicators in its loop, 3-7% of its time over TCP);
// papshim_get_last_algorithm still says they ran natively, and "" before the first call.
void auto_small_calls_make_no_context() {
    for (int round = 0; round < 4; ++round) {
        MPI_Comm sub;
        MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, world_rank, &sub);
        char ran[64] = "x";
        papshim_get_last_algorithm(sub, "allreduce", ran, sizeof ran);
        expect(ran[0] == '\0', "no call yet: '' , not '" + std::string(ran) + "'");
        long in = world_rank + round, got = 0, want = 0;
        MPI_Allreduce(&in, &got, 1, MPI_LONG, MPI_SUM, sub);
        MPI_Reduce(&in, &got, 1, MPI_LONG, MPI_MAX, 0, sub);
        MPI_Allreduce(&in, &got, 1, MPI_LONG, MPI_SUM, sub);
        PMPI_Allreduce(&in, &want, 1, MPI_LONG, MPI_SUM, sub);
        expect(got == want, "small auto allreduce on a split communicator");
        papshim_get_last_algorithm(sub, "allreduce", ran, sizeof ran);
        expect(std::strcmp(ran, "native") == 0, "small auto allreduce reports native, not '" + std::string(ran) + "'");
        papshim_get_last_algorithm(sub, "allgather", ran, sizeof ran);
        expect(ran[0] == '\0', "no allgather on it: '', not '" + std::string(ran) + "'");
        int size = 0;
        MPI_Comm_size(sub, &size);
        std::vector<long> all(static_cast<std::size_t>(size)), all_native(static_cast<std::size_t>(size));
        std::vector<int> counts(static_cast<std::size_t>(size), 1), displs(static_cast<std::size_t>(size));
        for (int r = 0; r < size; ++r) displs[std::size_t(r)] = r;
        MPI_Allgather(&in, 1, MPI_LONG, all.data(), 1, MPI_LONG, sub);
        PMPI_Allgather(&in, 1, MPI_LONG, all_native.data(), 1, MPI_LONG, sub);
        expect(all == all_native, "small auto allgather on a split communicator");
        MPI_Allgatherv(&in, 1, MPI_LONG, all.data(), counts.data(), displs.data(), MPI_LONG, sub);
        expect(all == all_native, "small auto allgatherv on a split communicator");
        for (const char* collective : {"allgather", "allgatherv"}) {
            papshim_get_last_algorithm(sub, collective, ran, sizeof ran);
            expect(std::strcmp(ran, "native") == 0,
                   std::string("small auto ") + collective + " reports native, not '" + ran + "'");
        }
        papshim_plan_stats stats{};
        papshim_get_plan_stats(sub, &stats);
        expect(stats.calls == 0 && stats.exchange == 0, "small auto calls made a context (exchange " +
                                                            std::to_string(stats.exchange) + ", calls " +
                                                            std::to_string(stats.calls) + ")");
        MPI_Comm_free(&sub);
    }
}

// An inter-communicator whose groups send blocks of different sizes (1 int one way, 64 KiB
// the other): under auto one group's calls are small and the other's large, and both must
// still take the same path (MPI's), or one group waits in a collective the other never makes.
// The same with algorithms named by the environment (the `inter` run): papshim leaves every
// collective on an inter-communicator to MPI.
void auto_inter_communicator_allgather() {
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) return;
    const int colour = world_rank % 2;
    MPI_Comm local, inter;
    MPI_Comm_split(MPI_COMM_WORLD, colour, world_rank, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, colour == 0 ? 1 : 0, 7, &inter);
    int remote = 0;
    MPI_Comm_remote_size(inter, &remote);
    constexpr int large = 16384;  // ints: 64 KiB
    const int mine = colour == 0 ? 1 : large, theirs = colour == 0 ? large : 1;
    std::vector<int> send(static_cast<std::size_t>(mine), world_rank);
    std::vector<int> got(static_cast<std::size_t>(theirs) * static_cast<std::size_t>(remote), -1);
    MPI_Allgather(send.data(), mine, MPI_INT, got.data(), theirs, MPI_INT, inter);
    // Remote rank r of the other colour is world rank 2r + (1 - colour).
    bool right = true;
    for (int r = 0; r < remote; ++r)
        for (int k = 0; k < theirs; ++k)
            right = right && got[static_cast<std::size_t>(r * theirs + k)] == 2 * r + (1 - colour);
    expect(right, "allgather on an inter-communicator with different blocks per group");

    // A Reduce into group 0's first rank: the root group's other ranks pass MPI_PROC_NULL with
    // a count that is not significant (1 int, against 256 KiB elsewhere), and all must still
    // take the same path (np 3 has such a rank).
    constexpr int vector = 65536;  // ints: 256 KiB, above every size auto follows
    int local_rank = 0;
    MPI_Comm_rank(local, &local_rank);
    const int root = colour == 1 ? 0 : local_rank == 0 ? MPI_ROOT : MPI_PROC_NULL;
    const int count = root == MPI_PROC_NULL ? 1 : vector;
    std::vector<int> contribution(static_cast<std::size_t>(vector), world_rank), sum(static_cast<std::size_t>(vector), -1);
    MPI_Reduce(contribution.data(), sum.data(), count, MPI_INT, MPI_SUM, root, inter);
    if (root == MPI_ROOT) {
        int want = 0;
        for (int r = 0; r < remote; ++r) want += 2 * r + 1;  // group 1: world ranks 1, 3, ...
        bool reduced = true;
        for (int v : sum) reduced = reduced && v == want;
        expect(reduced, "reduce on an inter-communicator");
    }
    // Allreduce: each group receives the other group's sum.
    MPI_Allreduce(contribution.data(), sum.data(), vector, MPI_INT, MPI_SUM, inter);
    int other_sum = 0;
    for (int r = 0; r < remote; ++r) other_sum += 2 * r + (1 - colour);
    bool all_reduced = true;
    for (int v : sum) all_reduced = all_reduced && v == other_sum;
    expect(all_reduced, "allreduce on an inter-communicator");
    for (const char* collective : {"allgather", "reduce", "allreduce"}) {
        char ran[64] = {};
        papshim_get_last_algorithm(inter, collective, ran, sizeof ran);
        expect(std::string(ran) == "native", std::string(collective) + " on an inter-communicator ran " +
                                                 (ran[0] ? ran : "nothing papshim saw") + ", not MPI's");
    }
    // Selecting an algorithm there is refused at once (it broadcast from the other group's
    // rank 0, which waited for the same: a hang).
    expect(papshim_set_algorithm(inter, "allreduce", "ring") == MPI_ERR_COMM,
           "papshim_set_algorithm on an inter-communicator: MPI_ERR_COMM");
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
}

// Under auto, one rank's invalid call (MPI_DATATYPE_NULL; MPICH 4.0.2 crashes natively on a
// negative count) on a fresh communicator while the others make a small valid one: that rank
// gets MPI's error at once, as from the native call, and its next, valid call matches the
// others' (it made the communicator's context alone, a duplicate that the others' native call
// met instead: a hang).
void auto_invalid_call_on_one_rank() {
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) return;
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    int in = world_rank + 1, got = 0;
    if (world_rank == 1)
        expect(MPI_Allreduce(&in, &got, 1, MPI_DATATYPE_NULL, MPI_SUM, comm) != MPI_SUCCESS, "auto: a null type fails");
    expect(MPI_Allreduce(&in, &got, 1, MPI_INT, MPI_SUM, comm) == MPI_SUCCESS && got == size * (size + 1) / 2,
           "auto: the valid call after one rank's invalid one");
    MPI_Comm_free(&comm);
}

// One rank alone makes a call MPI rejects on that rank (no message), on a fresh duplicate of
// the world, while the others go on to their next collective (a Barrier): it must get MPI's
// error class and make nothing collective. papshim made the communicator's context first (a
// duplicate and a broadcast) for an MPI_OP_NULL or aliased buffers on the routes that make
// one: auto's small Allreduce on world duplicates, any call of 16 KiB and more, every call of a
// named algorithm, profile mode's first call. Each case then checks a valid Allreduce. Then
// valid empty calls whose buffers differ by rank, which every rank must treat alike.
void one_rank_invalid_calls() {
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) return;
    const auto same_class = [](int shim, int native) {
        int a = 0, b = 0;
        MPI_Error_class(shim, &a);
        MPI_Error_class(native, &b);
        return shim != MPI_SUCCESS && a == b;
    };
    std::vector<int> in(8192, 1), out(8192, 0);  // 32 KiB
    const int small = 4, large = 8192;
    using Call = std::function<int(bool shim, MPI_Comm comm)>;
    const std::pair<const char*, Call> cases[] = {
        {"small allreduce, MPI_OP_NULL",
         [&](bool shim, MPI_Comm c) {
             return (shim ? MPI_Allreduce : PMPI_Allreduce)(in.data(), out.data(), small, MPI_INT, MPI_OP_NULL, c);
         }},
        {"32 KiB allreduce, MPI_OP_NULL",
         [&](bool shim, MPI_Comm c) {
             return (shim ? MPI_Allreduce : PMPI_Allreduce)(in.data(), out.data(), large, MPI_INT, MPI_OP_NULL, c);
         }},
        {"allreduce, aliased buffers",
         [&](bool shim, MPI_Comm c) {
             return (shim ? MPI_Allreduce : PMPI_Allreduce)(out.data(), out.data(), small, MPI_INT, MPI_SUM, c);
         }},
        {"32 KiB allreduce, receive buffer MPI_IN_PLACE",
         [&](bool shim, MPI_Comm c) {
             return (shim ? MPI_Allreduce : PMPI_Allreduce)(in.data(), MPI_IN_PLACE, large, MPI_INT, MPI_SUM, c);
         }},
        {"allreduce, MPI_SUM on MPI_2INT",
         [&](bool shim, MPI_Comm c) {
             return (shim ? MPI_Allreduce : PMPI_Allreduce)(in.data(), out.data(), 2, MPI_2INT, MPI_SUM, c);
         }},
        {"reduce, root out of range",
         [&](bool shim, MPI_Comm c) {
             return (shim ? MPI_Reduce : PMPI_Reduce)(in.data(), out.data(), small, MPI_INT, MPI_SUM, size, c);
         }},
#ifndef MPICH_VERSION  // MPICH 4.0.2's native call crashes (a segmentation fault) here
        {"32 KiB reduce, MPI_IN_PLACE off the root",
         [&](bool shim, MPI_Comm c) {
             return (shim ? MPI_Reduce : PMPI_Reduce)(MPI_IN_PLACE, out.data(), large, MPI_INT, MPI_SUM, 0, c);
         }},
#endif
        {"32 KiB reduce, MPI_OP_NULL",
         [&](bool shim, MPI_Comm c) {
             return (shim ? MPI_Reduce : PMPI_Reduce)(in.data(), out.data(), large, MPI_INT, MPI_OP_NULL, 0, c);
         }},
        {"allgather, receive buffer MPI_IN_PLACE",
         [&](bool shim, MPI_Comm c) {
             return (shim ? MPI_Allgather : PMPI_Allgather)(in.data(), 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, c);
         }},
        {"allgatherv, receive buffer MPI_IN_PLACE",
         [&](bool shim, MPI_Comm c) {
             std::vector<int> counts(std::size_t(size), 1), displs(std::size_t(size), 0);
             for (int r = 0; r < size; ++r) displs[std::size_t(r)] = r;
             return (shim ? MPI_Allgatherv : PMPI_Allgatherv)(in.data(), 1, MPI_INT, MPI_IN_PLACE, counts.data(),
                                                              displs.data(), MPI_INT, c);
         }},
    };
    // What every case ends with, on every rank: a Barrier and a valid Allreduce, then the free.
    const auto barrier_then_allreduce = [&](MPI_Comm& comm, const std::string& what) {
        expect(MPI_Barrier(comm) == MPI_SUCCESS, what + ": the Barrier after it");
        const int mine = world_rank + 1;
        int sum = 0;
        expect(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, comm) == MPI_SUCCESS && sum == size * (size + 1) / 2,
               what + ": a valid Allreduce after it");
        MPI_Comm_free(&comm);
    };
    // Open MPI raises some of these errors (aliased buffers) on MPI_COMM_WORLD.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (const auto& [what, call] : cases) {
        MPI_Comm comm;
        MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
        if (world_rank == 1) {
            const int shim = call(true, comm);
            const int native = call(false, comm);
            expect(same_class(shim, native), std::string(what) + ": MPI's error class on the rank alone");
        }
        barrier_then_allreduce(comm, what);
    }
    // Valid empty calls whose buffers differ by rank: rank 1 passes one null pointer twice
    // (empty vectors), the others two distinct buffers. MPI checks no buffer of an empty call,
    // so every rank must take the same path (papshim's checks once sent rank 1 alone to MPI
    // while the others made the context).
    for (int kind = 0; kind < 2; ++kind) {
        MPI_Comm comm;
        MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        void* send = world_rank == 1 ? nullptr : in.data();
        void* receive = world_rank == 1 ? nullptr : out.data();
        const int rc = kind == 0 ? MPI_Allreduce(send, receive, 0, MPI_INT, MPI_SUM, comm)
                                 : MPI_Reduce(send, receive, 0, MPI_INT, MPI_SUM, 1, comm);
        const std::string what = kind == 0 ? "empty allreduce, null buffers on rank 1" : "empty reduce to rank 1, null buffers there";
        expect(rc == MPI_SUCCESS, what);
        barrier_then_allreduce(comm, what);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

// The entry points keep each thread's last answer (quick_path.hpp) until something that could
// change it happens. After a kept answer sent a small Reduce to MPI: a papshim_set_algorithm
// choice must run the chosen algorithm at the next call, a switch to profile mode must count
// the next calls, the switch back forward them again, and a freed communicator's answer must
// not serve a new one that may have its handle.
void kept_answers_follow_changes() {
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    std::vector<int> large(8192, world_rank), large_sum(8192);  // 32 KiB: the full path makes the context
    MPI_Allreduce(large.data(), large_sum.data(), 8192, MPI_INT, MPI_SUM, comm);
    const auto small_reduce = [&](const std::string& what, const char* expected) {
        for (int again = 0; again < 2; ++again) {  // the second may take the kept answer
            const int in = world_rank * 3 + again;
            int got = -1, want = -1;
            MPI_Reduce(&in, &got, 1, MPI_INT, MPI_SUM, size - 1, comm);
            PMPI_Reduce(&in, &want, 1, MPI_INT, MPI_SUM, size - 1, comm);
            const std::string call = what + (again ? " (again)" : "");
            if (world_rank == size - 1) expect(got == want, "small reduce, " + call);
            expect(last_algorithm(comm, "reduce") == expected,
                   "small reduce, " + call + ": ran '" + last_algorithm(comm, "reduce") + "', not " + expected);
        }
    };
    small_reduce("auto", "native");
    if (size > 1) {
        expect(papshim_set_algorithm(comm, "reduce", "binomial") == MPI_SUCCESS, "set binomial");
        small_reduce("binomial chosen", "binomial");
        expect(papshim_set_algorithm(comm, "reduce", "auto") == MPI_SUCCESS, "set auto again");
        small_reduce("auto chosen again", "native");
    }
    const auto calls = [&] {
        papshim_plan_stats stats{};
        papshim_get_plan_stats(comm, &stats);
        return stats.calls;
    };
    const long before = calls();
    expect(papshim_set_mode("profile") == MPI_SUCCESS, "switch to profile mode");
    small_reduce("profile mode", "native");
    expect(calls() == before + 2, "profile mode counts both small calls (calls " + std::to_string(calls() - before) + ")");
    expect(papshim_set_mode("dispatch") == MPI_SUCCESS, "switch back to dispatch");
    small_reduce("dispatch again", "native");
    expect(calls() == before + 2, "dispatch forwards both small calls again (calls " +
                                      std::to_string(calls() - before) + ")");
    // Freed with its context, while the kept answer is its: a new communicator with its handle
    // (MPI returns the handles papshim's duplicates held first, so a few are made), the same
    // type. Its small calls take the full path, make no context and are reported native.
    const MPI_Comm freed = comm;
    MPI_Comm_free(&comm);
    std::vector<MPI_Comm> fresh(6);
    int reused = -1;
    for (std::size_t i = 0; i < fresh.size(); ++i) {
        MPI_Comm_dup(MPI_COMM_WORLD, &fresh[i]);
        if (fresh[i] == freed && reused < 0) reused = int(i);
    }
    int lowest = 0, highest = 0;  // the same one on every rank, or none checked
    PMPI_Allreduce(&reused, &lowest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    PMPI_Allreduce(&reused, &highest, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    comm = fresh[lowest == highest && lowest >= 0 ? std::size_t(lowest) : 0];
    small_reduce("a new communicator" + std::string(lowest == highest && lowest >= 0 ? " with the freed handle" : ""),
                 "native");
    expect(calls() == 0, "the new communicator's small calls made no context");
    for (MPI_Comm& made : fresh) MPI_Comm_free(&made);
}

// Threads that make the contexts of their communicators at the same time: each rank may
// finish making them in another order, yet MPI_Finalize frees them, node windows included
// (collective over a node), in one order everywhere. The communicators stay unfreed, as MPI
// allows, so MPI_Finalize frees them. Freed in creation order, 3 runs in 8 hung (4 ranks,
// virtual nodes of 2; a review helper's program, which this follows).
void threads_leave_contexts_to_finalize() {
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm comms[2];  // no context yet: each is made at its thread's first call
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[0]);
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - world_rank, &comms[1]);  // ranks renumbered
    constexpr int calls = 200, count = 100;
    std::vector<std::thread> workers;
    for (int t = 0; t < 2; ++t)
        workers.emplace_back([&, t] {
            const MPI_Comm comm = comms[t];
            int rank = 0;
            MPI_Comm_rank(comm, &rank);
            unsigned seed = unsigned(world_rank * 31 + t);
            std::vector<int> in(count), got(count), want(count);
            for (int call = 0; call < calls; ++call) {
                for (int i = 0; i < count; ++i) in[std::size_t(i)] = (call * 131 + rank * 17 + i * 3 + t * 5) % 1001 - 500;
                std::this_thread::sleep_for(std::chrono::microseconds(rand_r(&seed) % 101));
                const bool reduce = call % 3 == 2;
                const int root = call % size;
                if (reduce) {
                    MPI_Reduce(in.data(), got.data(), count, MPI_INT, MPI_SUM, root, comm);
                    PMPI_Reduce(in.data(), want.data(), count, MPI_INT, MPI_SUM, root, comm);
                } else {
                    MPI_Allreduce(in.data(), got.data(), count, MPI_INT, MPI_SUM, comm);
                    PMPI_Allreduce(in.data(), want.data(), count, MPI_INT, MPI_SUM, comm);
                }
                if ((!reduce || rank == root) && got != want && failures++ < 3)
                    std::fprintf(stderr, "rank %d thread %d call %d: not native's result\n", world_rank, t, call);
            }
        });
    for (std::thread& w : workers) w.join();
}

}  // namespace

int main(int argc, char** argv) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    if (argc > 1 && std::strcmp(argv[1], "threads-finalize") == 0) {  // its own test: dynamic_leader, nodes of 2
        threads_leave_contexts_to_finalize();
        MPI_Finalize();
        return failures == 0 ? 0 : 1;
    }
    if (argc > 1 && std::strcmp(argv[1], "one-rank-errors") == 0) {  // its own tests: every route to a context
        one_rank_invalid_calls();
        MPI_Finalize();
        return failures == 0 ? 0 : 1;
    }
    if (argc > 1 && std::strcmp(argv[1], "inter") == 0) {  // its own test: algorithms named by the environment
        auto_inter_communicator_allgather();
        MPI_Finalize();
        return failures == 0 ? 0 : 1;
    }
    if (argc > 1 && std::strcmp(argv[1], "auto-switch") == 0) {  // its own test: PAPSHIM_ALLREDUCE=auto
        auto_quick_path_across_communicators();  // first: before any papshim_set_algorithm
        auto_switches_early();
        auto_small_calls_make_no_context();
        auto_inter_communicator_allgather();
        auto_invalid_call_on_one_rank();
        kept_answers_follow_changes();  // last: it switches algorithms and modes
        MPI_Finalize();
        return failures == 0 ? 0 : 1;
    }
    control_api();
    invalid_arguments();
    auto_fast_path();

    const char* algorithms[] = {"native", "auto", "sparbit", "ring", "neighbor_exchange", "recursive_doubling", "bruck",
                                "gather_bcast", "bdr", "bslb"};
    int round = 0;
    for (const char* a : algorithms) {
        expect(papshim_set_algorithm(MPI_COMM_WORLD, "allgather", a) == MPI_SUCCESS, std::string("set ") + a);
        expect(papshim_set_algorithm(MPI_COMM_WORLD, "allgatherv", a) == MPI_SUCCESS, std::string("set v ") + a);
        for (int i = 0; i < 3; ++i) gather_and_compare(MPI_COMM_WORLD, round++, a);
    }

    // Communicators created and freed in a loop: handles are reused, contexts must not be.
    for (int i = 0; i < 6; ++i) {
        MPI_Comm sub;
        MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, -world_rank, &sub);
        papshim_set_algorithm(sub, "allgather", algorithms[2 + i % 6]);
        gather_and_compare(sub, i, algorithms[2 + i % 6]);
        MPI_Comm_free(&sub);
    }

    // A choice made on a sub-communicator that only some ranks of a fresh communicator took
    // part in must not change how the others see that fresh communicator (all native): the
    // members must still agree on the fast path, or the first call deadlocks.
    {
        MPI_Comm half = MPI_COMM_NULL, fresh = MPI_COMM_NULL;
        MPI_Comm_split(MPI_COMM_WORLD, world_rank == 0 ? 0 : MPI_UNDEFINED, 0, &half);
        if (half != MPI_COMM_NULL) {
            papshim_set_algorithm(half, "allreduce", "recursive_doubling");
            MPI_Comm_free(&half);
        }
        MPI_Comm_dup(MPI_COMM_WORLD, &fresh);
        int one = 1, sum = 0;
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, fresh);
        int size = 0;
        MPI_Comm_size(fresh, &size);
        expect(sum == size, "allreduce on a fresh communicator after a choice on a subset");
        MPI_Comm_free(&fresh);
    }

    // Two threads, each on its own communicator, calling collectives concurrently.
    if (provided == MPI_THREAD_MULTIPLE) {
        MPI_Comm comms[2];
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[0]);
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[1]);
        papshim_set_algorithm(comms[0], "allgather", "sparbit");
        papshim_set_algorithm(comms[1], "allgather", "ring");
        std::thread workers[2];
        for (int t = 0; t < 2; ++t)
            workers[t] = std::thread([&, t] {
                for (int i = 0; i < 20; ++i) gather_and_compare(comms[t], i, t == 0 ? "sparbit (thread)" : "ring (thread)");
            });
        for (auto& w : workers) w.join();
        MPI_Comm_free(&comms[0]);
        MPI_Comm_free(&comms[1]);
    }

    int all_failures = 0;
    PMPI_Allreduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (world_rank == 0) std::printf("%s: %d failures\n", all_failures ? "FAILED" : "passed", all_failures);
    MPI_Finalize();
    return all_failures ? 1 : 0;
}
