// Runs every Allgather schedule through papshim's executor and compares the receive buffer,
// byte for byte, with the native PMPI_Allgather / PMPI_Allgatherv on the same inputs (on MPICH
// the nonblocking forms, waited for off the core: off_core.hpp):
// predefined, contiguous derived, vector, struct-with-gap and non-zero-lower-bound types, send
// types that differ from the receive type, receive types that differ between ranks (so one end
// of a message may pack it and the other describe it with a derived type), MPI_IN_PLACE, counts 0/1/odd/large, irregular Allgatherv layouts,
// reordered and split sub-communicators, and random arrival delays.
// Linked to papshim_schedule directly (not through the preload shim).

#include <mpi.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "../off_core.hpp"
#include "papshim/algorithms.hpp"
#include "papshim/schedule.hpp"
#include "papshim/waiting.hpp"
#include "src/schedule/message_exchange.hpp"

namespace {

using papshim::schedule::BuildInput;
using papshim::schedule::Schedule;
using papshim::schedule::Step;

// ---- schedules under test --------------------------------------------------------------

struct AlgorithmUnderTest {
    std::string name;
    papshim::schedule::Builder build;
};

// Everything goes to rank 0, which returns each peer all other blocks in reverse order:
// reversed block lists make the executor describe many non-adjacent runs in one message.
Schedule reversed_star(const BuildInput& in) {
    Schedule plan{in.ranks, in.rank, in.ranks, {}};
    if (in.ranks == 1) return plan;
    Step gather, scatter;
    for (int peer = 1; peer < in.ranks; ++peer) {
        std::vector<int> others;
        for (int b = in.ranks - 1; b >= 0; --b) {
            if (b != peer) others.push_back(b);
        }
        if (in.rank == 0) {
            gather.recvs.push_back({peer, {peer}});
            scatter.sends.push_back({peer, others});
        } else if (in.rank == peer) {
            gather.sends.push_back({0, {peer}});
            scatter.recvs.push_back({0, others});
        }
    }
    plan.steps = {gather, scatter};
    return plan;
}

// Every registered algorithm, plus the executor stress schedule above.
std::vector<AlgorithmUnderTest> algorithms_under_test() {
    std::vector<AlgorithmUnderTest> list;
    for (const auto& algorithm : papshim::allgather_algorithms()) {
        list.push_back({std::string(algorithm.name), algorithm.build});
    }
    list.push_back({"test:reversed_star", reversed_star});
    return list;
}

// ---- datatypes ---------------------------------------------------------------------------

struct TypeCase {
    std::string name;
    MPI_Datatype recv = MPI_DATATYPE_NULL;
    MPI_Datatype send = MPI_DATATYPE_NULL;
    int send_per_recv = 1;  // sendcount = recvcount * send_per_recv (equal signatures)
    // If set, odd ranks receive with this type instead, every receive count and displacement
    // multiplied by odd_recv_scale (equal signatures).
    MPI_Datatype odd_recv = MPI_DATATYPE_NULL;
    int odd_recv_scale = 1;
};

MPI_Datatype committed(MPI_Datatype type) {
    MPI_Type_commit(&type);
    return type;
}

struct TypeCatalog {
    std::vector<TypeCase> cases;
    std::vector<MPI_Datatype> owned;

    MPI_Datatype own(MPI_Datatype type) {
        owned.push_back(committed(type));
        return owned.back();
    }

    TypeCatalog() {
        MPI_Datatype strided = MPI_DATATYPE_NULL;  // 3 ints, one every other int
        MPI_Type_vector(3, 1, 2, MPI_INT, &strided);
        strided = own(strided);

        // {int at 0, double at 8}: a 4-byte gap after the int.
        const int lengths[2] = {1, 1};
        const MPI_Datatype members[2] = {MPI_INT, MPI_DOUBLE};
        const MPI_Aint gapped_displs[2] = {0, 8};
        MPI_Datatype gapped = MPI_DATATYPE_NULL;
        MPI_Type_create_struct(2, lengths, gapped_displs, members, &gapped);
        gapped = own(gapped);
        // The same signature packed into 12 bytes.
        const MPI_Aint packed_displs[2] = {0, 4};
        MPI_Datatype packed_raw = MPI_DATATYPE_NULL, packed = MPI_DATATYPE_NULL;
        MPI_Type_create_struct(2, lengths, packed_displs, members, &packed_raw);
        MPI_Type_create_resized(packed_raw, 0, 12, &packed);
        MPI_Type_free(&packed_raw);
        packed = own(packed);

        // Two ints at -8 and +4: lower bound -8 (data before the buffer pointer), gap between.
        const MPI_Aint shifted_displs[2] = {-8, 4};
        MPI_Datatype shifted = MPI_DATATYPE_NULL;
        MPI_Type_create_hindexed(2, lengths, shifted_displs, MPI_INT, &shifted);
        shifted = own(shifted);
        MPI_Datatype int_pair = MPI_DATATYPE_NULL;
        MPI_Type_contiguous(2, MPI_INT, &int_pair);
        int_pair = own(int_pair);
        // One int with its data `shift` bytes from the element's address, lower bound = shift
        // and extent 4: data back to back like MPI_INT, but not where a memcpy of the elements
        // from their address would look.
        auto shifted_int = [&](MPI_Aint shift) {
            const int one = 1;
            MPI_Datatype raw = MPI_DATATYPE_NULL, resized = MPI_DATATYPE_NULL;
            MPI_Type_create_hindexed(1, &one, &shift, MPI_INT, &raw);
            MPI_Type_create_resized(raw, shift, 4, &resized);
            MPI_Type_free(&raw);
            return own(resized);
        };
        MPI_Datatype int_triple = MPI_DATATYPE_NULL;  // the signature of `strided`, dense
        MPI_Type_contiguous(3, MPI_INT, &int_triple);
        int_triple = own(int_triple);
        // Two ints, the second listed first: dense, but its type signature's order (the
        // order MPI sends it in) is not its memory order.
        const int swapped_displs[2] = {1, 0};
        MPI_Datatype swapped = MPI_DATATYPE_NULL;
        MPI_Type_indexed(2, lengths, swapped_displs, MPI_INT, &swapped);
        swapped = own(swapped);
        const MPI_Datatype int_at_plus4 = shifted_int(4);
        const MPI_Datatype int_at_minus4 = shifted_int(-4);

        cases = {
            {"byte", MPI_BYTE, MPI_BYTE, 1},
            {"int", MPI_INT, MPI_INT, 1},
            {"double", MPI_DOUBLE, MPI_DOUBLE, 1},
            {"vector", strided, strided, 1},
            {"vector<-int", strided, MPI_INT, 3},
            {"struct_gap", gapped, gapped, 1},
            {"struct_gap<-packed", gapped, packed, 1},
            {"lb-8<-int_pair", shifted, int_pair, 1},
            {"int_pair", int_pair, int_pair, 1},
            {"int_pair<-int", int_pair, MPI_INT, 2},
            {"int@+4<-int", int_at_plus4, MPI_INT, 1},
            {"int@-4", int_at_minus4, int_at_minus4, 1},
            {"int_pair|odd:int@+4", int_pair, int_pair, 1, int_at_plus4, 2},
            {"int_triple|odd:vector<-int", int_triple, MPI_INT, 3, strided, 1},
            {"swapped", swapped, swapped, 1},
            {"swapped<-int", swapped, MPI_INT, 2},
            {"int_pair|odd:swapped", int_pair, int_pair, 1, swapped, 1},
        };
    }
    ~TypeCatalog() {
        for (auto& type : owned) MPI_Type_free(&type);
    }
    const TypeCase& get(const std::string& name) const {
        return *std::find_if(cases.begin(), cases.end(), [&](const TypeCase& c) { return c.name == name; });
    }
};

// A byte buffer that can hold `elements` consecutive elements of `type` at base(), with room
// for a negative true lower bound before it and the true extent after it.
struct TypedBuffer {
    std::vector<unsigned char> bytes;
    std::size_t origin = 0;

    TypedBuffer(MPI_Datatype type, std::int64_t elements) {
        MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
        MPI_Type_get_extent(type, &lb, &extent);
        MPI_Type_get_true_extent(type, &true_lb, &true_extent);
        origin = static_cast<std::size_t>(std::max<MPI_Aint>(0, -true_lb));
        const auto tail = std::max<MPI_Aint>(0, true_lb + true_extent);
        bytes.resize(origin + static_cast<std::size_t>(elements * std::max<MPI_Aint>(extent, 0) + tail) + 16);
    }
    void* base() { return bytes.data() + origin; }
    void fill(unsigned seed) {
        for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<unsigned char>((seed + i * 13) & 0xff);
    }
};

// ---- cases ---------------------------------------------------------------------------------

enum class Layout { allgather, packed, reversed, permuted };

const char* layout_name(Layout layout) {
    switch (layout) {
        case Layout::allgather: return "allgather";
        case Layout::packed: return "allgatherv-packed";
        case Layout::reversed: return "allgatherv-reversed";
        case Layout::permuted: return "allgatherv-permuted";
    }
    return "?";
}

struct Case {
    const AlgorithmUnderTest* algorithm;
    const TypeCase* type;
    Layout layout;
    int count;  // Allgather: recvcount; Allgatherv: the largest block
    bool in_place;
    bool random_delay;
    unsigned seed;  // identical on every rank
};

struct CommUnderTest {
    std::string name;
    MPI_Comm user = MPI_COMM_NULL;     // where the native reference runs
    MPI_Comm private_ = MPI_COMM_NULL;  // what the executor gets, as in the shim
    int size = 0;
    int rank = 0;
};

// Allgatherv counts (about a quarter zero) and displacements, identical on every rank.
struct VectorLayout {
    std::vector<int> counts, displs;
    std::int64_t elements = 0;  // receive buffer length in elements
};

VectorLayout make_vector_layout(Layout layout, int p, int max_count, unsigned seed) {
    std::mt19937 rng(seed);
    VectorLayout v;
    v.counts.resize(p);
    v.displs.resize(p);
    for (int& c : v.counts) c = (rng() % 4 == 0) ? 0 : static_cast<int>(rng() % (max_count + 1));
    std::vector<int> order(p);
    std::iota(order.begin(), order.end(), 0);
    if (layout == Layout::reversed) std::reverse(order.begin(), order.end());
    if (layout == Layout::permuted) std::shuffle(order.begin(), order.end(), rng);
    int next = 0;
    for (const int b : order) {
        if (layout == Layout::permuted) next += static_cast<int>(rng() % 3);  // gaps between blocks
        v.displs[b] = next;
        next += v.counts[b];
    }
    v.elements = next;
    return v;
}

struct Outcome {
    int cases = 0;
    int failures = 0;
    int printed = 0;
};

void report_failure(Outcome& outcome, const CommUnderTest& comm, const Case& c, const std::string& what) {
    ++outcome.failures;
    if (outcome.printed++ >= 20) return;
    fmt::print(stderr, "FAIL algorithm={} call={} type={} count={} in_place={} seed={} comm={} p={} rank={}: {}\n",
               c.algorithm->name, layout_name(c.layout), c.type->name, c.count, c.in_place, c.seed, comm.name,
               comm.size, comm.rank, what);
}

void run_case(const CommUnderTest& comm, const Case& c, Outcome& outcome) {
    const int p = comm.size, r = comm.rank;
    ++outcome.cases;
    const bool is_vector = c.layout != Layout::allgather;
    VectorLayout v;
    if (is_vector) v = make_vector_layout(c.layout, p, c.count, c.seed);
    const int sendcount = (is_vector ? v.counts[r] : c.count) * c.type->send_per_recv;
    // This rank's receive type; counts and displacements in its elements.
    const bool odd_view = c.type->odd_recv != MPI_DATATYPE_NULL && r % 2 == 1;
    const MPI_Datatype recvtype = odd_view ? c.type->odd_recv : c.type->recv;
    const int scale = odd_view ? c.type->odd_recv_scale : 1;
    const VectorLayout even_v = v;  // in the even ranks' elements
    for (int& count : v.counts) count *= scale;
    for (int& displ : v.displs) displ *= scale;
    v.elements *= scale;
    const int recvcount = c.count * scale;
    const int own_count = is_vector ? v.counts[r] : recvcount;
    const std::int64_t recv_elements = is_vector ? v.elements : std::int64_t{recvcount} * p;

    TypedBuffer send(c.type->send, sendcount);
    send.fill(c.seed * 7 + static_cast<unsigned>(r) * 131 + 1);
    TypedBuffer initial(recvtype, recv_elements);
    initial.fill(0x5a);
    // This rank's contribution placed into its own block, as MPI_IN_PLACE callers do.
    auto place_own_block = [&](TypedBuffer& buffer) {
        MPI_Aint lb = 0, extent = 0;
        MPI_Type_get_extent(recvtype, &lb, &extent);
        const std::int64_t first = is_vector ? v.displs[r] : std::int64_t{recvcount} * r;
        MPI_Sendrecv(send.base(), sendcount, c.type->send, 0, 0, static_cast<unsigned char*>(buffer.base()) + first * extent,
                     own_count, recvtype, 0, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE);
    };
    if (c.in_place) place_own_block(initial);
    TypedBuffer expected = initial;
    TypedBuffer actual = initial;

    const void* sendbuf = c.in_place ? MPI_IN_PLACE : send.base();
    if (p == 1 && is_vector) {
        // MPICH 4.0.2's Allgatherv on a size-1 communicator writes at offset 0, ignoring
        // displs[0]; the answer there is just the own block.
        place_own_block(expected);
    } else if (c.type->odd_recv != MPI_DATATYPE_NULL) {
        // Open MPI 4.1.4's Allgatherv can hang when the receive types differ between ranks
        // (seen at p = 3), so the reference runs with the even ranks' type everywhere and the
        // odd ranks convert it block by block.
        const std::int64_t even_elements = is_vector ? even_v.elements : std::int64_t{c.count} * p;
        TypedBuffer reference = odd_view ? TypedBuffer(c.type->recv, even_elements) : initial;
        const int native_error = is_vector
            ? reference_allgatherv(send.base(), sendcount, c.type->send, reference.base(), even_v.counts.data(),
                                   even_v.displs.data(), c.type->recv, comm.user)
            : reference_allgather(send.base(), sendcount, c.type->send, reference.base(), c.count, c.type->recv, comm.user);
        if (native_error != MPI_SUCCESS) report_failure(outcome, comm, c, fmt::format("native error {}", native_error));
        if (!odd_view) {
            expected = reference;
        } else {
            MPI_Aint lb = 0, even_extent = 0, odd_extent = 0;
            MPI_Type_get_extent(c.type->recv, &lb, &even_extent);
            MPI_Type_get_extent(recvtype, &lb, &odd_extent);
            for (int b = 0; b < p; ++b) {
                const std::int64_t even_first = is_vector ? even_v.displs[b] : std::int64_t{c.count} * b;
                const std::int64_t odd_first = is_vector ? v.displs[b] : std::int64_t{recvcount} * b;
                MPI_Sendrecv(static_cast<unsigned char*>(reference.base()) + even_first * even_extent,
                             is_vector ? even_v.counts[b] : c.count, c.type->recv, 0, 0,
                             static_cast<unsigned char*>(expected.base()) + odd_first * odd_extent,
                             is_vector ? v.counts[b] : recvcount, recvtype, 0, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE);
            }
        }
    } else {
        const int native_error = is_vector
            ? reference_allgatherv(sendbuf, sendcount, c.type->send, expected.base(), v.counts.data(),
                                   v.displs.data(), recvtype, comm.user)
            : reference_allgather(sendbuf, sendcount, c.type->send, expected.base(), recvcount, recvtype, comm.user);
        if (native_error != MPI_SUCCESS) report_failure(outcome, comm, c, fmt::format("native error {}", native_error));
    }

    std::vector<std::int64_t> arrivals;
    if (c.seed % 2 == 1) {
        std::mt19937 rng(c.seed);
        for (int i = 0; i < p; ++i) arrivals.push_back(static_cast<std::int64_t>(rng() % 1000) * 1000);
        // Every other such case: one rank 2000τ behind the rest, which gives BDR its tree tail.
        if (c.seed % 4 == 3) {
            arrivals.assign(static_cast<std::size_t>(p), 0);
            arrivals[c.seed / 4 % static_cast<unsigned>(p)] = 100'000'000;
        }
    }
    BuildInput input;
    input.ranks = p;
    input.rank = r;
    input.arrival_ns = arrivals;
    input.step_ns = 50'000;
    const Schedule plan = c.algorithm->build(input);
    if (plan.ranks != p || plan.rank != r) {
        report_failure(outcome, comm, c, fmt::format("schedule built for p={} rank={}", plan.ranks, plan.rank));
    }
    if (c.random_delay) {
        std::mt19937 rng(c.seed ^ static_cast<unsigned>(r * 7919));
        std::this_thread::sleep_for(std::chrono::microseconds(rng() % 3000));
    }
    papshim::AllgatherBuffers buffers;
    buffers.sendbuf = sendbuf;
    buffers.sendcount = sendcount;
    buffers.sendtype = c.type->send;
    buffers.recvbuf = actual.base();
    buffers.recvcount = is_vector ? 0 : recvcount;
    buffers.recvcounts = is_vector ? v.counts.data() : nullptr;
    const std::vector<MPI_Aint> wide_displs(v.displs.begin(), v.displs.end());
    buffers.displs = is_vector ? wide_displs.data() : nullptr;
    buffers.recvtype = recvtype;
    papshim::AllgatherRun run;
    run.comm = comm.private_;
    const int error = papshim::execute_allgather(plan, buffers, run);
    if (error != MPI_SUCCESS) report_failure(outcome, comm, c, fmt::format("executor error {}", error));

    if (actual.bytes != expected.bytes) {
        const auto mismatch = std::mismatch(actual.bytes.begin(), actual.bytes.end(), expected.bytes.begin());
        const auto at = mismatch.first - actual.bytes.begin();
        report_failure(outcome, comm, c,
                       fmt::format("first differing byte at offset {} from the buffer base: got {:#04x}, native {:#04x}",
                                   at - static_cast<std::ptrdiff_t>(actual.origin), *mismatch.first, *mismatch.second));
    }
}

// ---- the case matrix ----------------------------------------------------------------------

// Sized for MPICH, which busy-polls: with many ranks on 2 cores every message costs
// milliseconds. So every algorithm meets every type and layout, but only `per_combination`
// of the (count, in-place) variants, rotating through them so that each variant still meets
// every algorithm, type and layout across the run; the matrix shrinks as p grows.
struct Matrix {
    std::vector<std::string> types;
    std::vector<Layout> layouts;
    std::vector<int> counts;
    int per_combination = 1;
    bool large = false;
};

Matrix matrix_for(int world_size, bool is_world) {
    const std::vector<std::string> all_types = {"byte", "int", "double", "vector", "vector<-int",
                                                "struct_gap", "struct_gap<-packed", "lb-8<-int_pair",
                                                "int_pair", "int_pair<-int", "int@+4<-int", "int@-4",
                                                "int_pair|odd:int@+4", "int_triple|odd:vector<-int", "swapped",
                                                "swapped<-int", "int_pair|odd:swapped"};
    const std::vector<Layout> all_layouts = {Layout::allgather, Layout::packed, Layout::reversed, Layout::permuted};
    if (!is_world) {
        return {{"int", "vector<-int", "struct_gap<-packed", "int_triple|odd:vector<-int"},
                {Layout::allgather, Layout::permuted}, {1, 7}, 1, false};
    }
    if (world_size <= 4) return {all_types, all_layouts, {0, 1, 7, 33}, 3, true};
    if (world_size <= 6) return {all_types, {Layout::allgather, Layout::permuted}, {0, 1, 7}, 2, false};
    return {{"byte", "vector<-int", "struct_gap<-packed", "lb-8<-int_pair", "int_pair|odd:int@+4",
             "int_pair|odd:swapped"},
            {Layout::allgather, Layout::reversed}, {0, 3}, 2, false};
}

void run_matrix(const CommUnderTest& comm, const Matrix& m, const TypeCatalog& types,
                const std::vector<AlgorithmUnderTest>& algorithms, Outcome& outcome) {
    const std::size_t variants = m.counts.size() * 2;  // (count, in_place)
    unsigned seed = 1;
    std::size_t next_variant = 0;
    for (const auto& algorithm : algorithms) {
        for (const auto& type_name : m.types) {
            for (const Layout layout : m.layouts) {
                for (int i = 0; i < m.per_combination; ++i, ++next_variant) {
                    const std::size_t variant = next_variant % variants;
                    ++seed;
                    run_case(comm, Case{&algorithm, &types.get(type_name), layout, m.counts[variant / 2], variant % 2 == 1,
                                        seed % 3 == 0, seed},
                             outcome);
                }
            }
            // Shift the rotation per type so consecutive algorithms do not repeat one pattern.
            ++next_variant;
        }
        if (m.large) {
            // >= 1 MiB per block (odd element count), beyond every eager limit.
            constexpr int kLargeInts = (1 << 18) + 1;
            run_case(comm, Case{&algorithm, &types.get("int"), Layout::allgather, kLargeInts, false, true, ++seed}, outcome);
            run_case(comm, Case{&algorithm, &types.get("vector<-int"), Layout::permuted, kLargeInts / 3, true, false, ++seed},
                     outcome);
            // 7 KiB blocks: messages of two such blocks are packed, of three or more are not
            // (the executor packs multi-block messages of dense types up to 16 KiB).
            constexpr int kMediumInts = 7 * 256;
            run_case(comm, Case{&algorithm, &types.get("int"), Layout::reversed, kMediumInts, false, false, ++seed}, outcome);
            run_case(comm, Case{&algorithm, &types.get("int_pair"), Layout::allgather, kMediumInts / 2, true, true, ++seed},
                     outcome);
        }
    }
}

// A step whose wait fails leaves nothing posted, under either wait policy. Rank 0 receives
// twice from rank 1 in one step; the first message is too long (MPI_ERR_TRUNCATE) and the
// second comes 200 ms later. Open MPI's Waitall and MPICH's Testall return at the failure
// with the second receive pending: the step dropped that request, and it took a later
// message into the buffer after the step had returned (the next call's data, lost to it).
void failed_step_leaves_nothing_posted(Outcome& outcome) {
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) return;
    const papshim::WaitPolicy measured = papshim::wait_policy();
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    // MPICH raises a failed Waitall's error on MPI_COMM_WORLD, not on the requests' communicator.
    MPI_Errhandler world_handler = MPI_ERRHANDLER_NULL;
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &world_handler);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    constexpr int kTag = 77;
    for (papshim::WaitPolicy policy : {papshim::WaitPolicy::mpi, papshim::WaitPolicy::yield}) {
        papshim::set_wait_policy(policy);
        if (rank == 1) {
            const int first[4] = {1, 2, 3, 4}, second = 42, third = 43;
            MPI_Send(first, 4, MPI_INT, 0, kTag, comm);
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
            MPI_Send(&second, 1, MPI_INT, 0, kTag, comm);
            MPI_Send(&third, 1, MPI_INT, 0, kTag, comm);
        } else if (rank == 0) {
            ++outcome.cases;
            int a = -1, b = -1;
            const papshim::schedule::WireMessage step[] = {{&a, 1, MPI_INT, 1, true}, {&b, 1, MPI_INT, 1, true}};
            const int error = papshim::schedule::exchange(step, kTag, comm);
            const int b_at_return = b;
            // 42 then 43, or only 43 where the step had received 42 before returning.
            int value = 0;
            while (value != 43 && MPI_Recv(&value, 1, MPI_INT, 1, kTag, comm, MPI_STATUS_IGNORE) == MPI_SUCCESS) {
            }
            if (error == MPI_SUCCESS || b != b_at_return) {
                ++outcome.failures;
                fmt::print(stderr, "FAIL failed step, wait {}: error {}, second receive {} at return, {} later\n",
                           papshim::wait_policy_name(policy), error, b_at_return, b);
            }
        }
        MPI_Barrier(comm);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, world_handler);
    MPI_Errhandler_free(&world_handler);
    MPI_Comm_free(&comm);
    papshim::set_wait_policy(measured);
}

CommUnderTest make_comm(std::string name, MPI_Comm user) {
    CommUnderTest comm{std::move(name), user, MPI_COMM_NULL, 0, 0};
    MPI_Comm_size(user, &comm.size);
    MPI_Comm_rank(user, &comm.rank);
    MPI_Comm_dup(user, &comm.private_);
    MPI_Comm_set_errhandler(comm.private_, MPI_ERRORS_RETURN);
    return comm;
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int world_size = 0, world_rank = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    // As the runtime under PAPSHIM_WAIT=auto on MPICH (on both MPIs here): with more ranks
    // than cores the executor yields between tests, otherwise it waits MPI's way (on CI's 2
    // cores both paths run).
    papshim::set_wait_policy(papshim::measured_wait_policy(papshim::node_load(MPI_COMM_WORLD)));
    Outcome outcome;
    {
        const TypeCatalog types;
        const auto algorithms = algorithms_under_test();

        MPI_Comm reversed = MPI_COMM_NULL, parity = MPI_COMM_NULL;
        MPI_Comm_split(MPI_COMM_WORLD, 0, world_size - 1 - world_rank, &reversed);
        MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, world_rank, &parity);
        std::vector<CommUnderTest> comms = {make_comm("world", MPI_COMM_WORLD),
                                            make_comm("reversed", reversed),
                                            make_comm(world_rank % 2 ? "odd" : "even", parity)};
        for (const auto& comm : comms) {
            run_matrix(comm, matrix_for(world_size, comm.user == MPI_COMM_WORLD), types, algorithms, outcome);
        }
        for (auto& comm : comms) MPI_Comm_free(&comm.private_);
        failed_step_leaves_nothing_posted(outcome);
        MPI_Comm_free(&reversed);
        MPI_Comm_free(&parity);

        int total_failures = 0;
        MPI_Allreduce(&outcome.failures, &total_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        outcome.failures = total_failures;
        if (world_rank == 0) {
            std::string names;
            for (const auto& a : algorithms) names += (names.empty() ? "" : ", ") + a.name;
            fmt::print("allgather executor, p={}: {} cases on rank 0, {} failing case-ranks; algorithms: {}\n",
                       world_size, outcome.cases, total_failures, names);
        }
    }
    MPI_Finalize();
    return outcome.failures == 0 ? 0 : 1;
}
