// Every Reduce and Allreduce algorithm of papshim's own (and `auto`), called through the shim
// as an application calls MPI_Reduce/MPI_Allreduce, against the native PMPI result on the
// same inputs (on MPICH the nonblocking forms, waited for off the core: off_core.hpp):
// integer types of every width under every builtin integer op byte for byte
// (the less common ones rotated over the algorithms), floating point within a stated
// tolerance, MINLOC/MAXLOC pair types, user-defined commutative and non-commutative ops (a
// derived type among them), MPI_IN_PLACE, counts 1 to millions (odd, not divisible by p),
// every root, reordered and split sub-communicators, and late, reversed and random arrivals
// (each met at every count, in place and not).
// papshim_get_last_algorithm checks that papshim's own code ran wherever it should.
//
// Linked to libpapshim.so ahead of MPI (as papshim-bench is), so MPI_* resolves to the shim
// and PMPI_* to the MPI library.

#include <mpi.h>
#include <papshim/control.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "../cores_shared.hpp"
#include "../off_core.hpp"

namespace {

// ---- user-defined operations -------------------------------------------------------------

// Commutative: sum modulo a prime, on ints.
void sum_mod_prime(void* in, void* inout, int* len, MPI_Datatype*) {
    auto* a = static_cast<const int*>(in);
    auto* b = static_cast<int*>(inout);
    for (int i = 0; i < *len; ++i) b[i] = int((std::int64_t(a[i]) + b[i]) % 1000003);
}

// Non-commutative (and associative): 2x2 matrix product modulo 2^32, inout = in x inout.
void matrix_product(void* in, void* inout, int* len, MPI_Datatype*) {
    auto* a = static_cast<const std::uint32_t*>(in);
    auto* b = static_cast<std::uint32_t*>(inout);
    for (int i = 0; i < *len; ++i, a += 4, b += 4) {
        const std::uint32_t c[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
                                    a[2] * b[1] + a[3] * b[3]};
        std::memcpy(b, c, sizeof c);
    }
}

// Commutative: a sum on pairs of ints (a contiguous type of two).
void pair_sum(void* in, void* inout, int* len, MPI_Datatype*) {
    auto* a = static_cast<const int*>(in);
    auto* b = static_cast<int*>(inout);
    for (int i = 0; i < 2 * *len; ++i) b[i] += a[i];
}

// Commutative max on a strided type (every other int of 2): the gaps must stay untouched.
void strided_max(void* in, void* inout, int* len, MPI_Datatype*) {
    auto* a = static_cast<const int*>(in);
    auto* b = static_cast<int*>(inout);
    for (int i = 0; i < *len; ++i) b[2 * i] = std::max(a[2 * i], b[2 * i]);
}

// ---- data kinds ----------------------------------------------------------------------------

enum class Compare { bytes, tolerance };

struct Kind {
    std::string name;
    MPI_Datatype type;
    MPI_Op op;
    Compare compare;
    bool commutative;
    int elements_per_item;  // ints (or doubles, floats) per element of `type`
    char scalar;            // 'i' int32, 'u' uint32, 'd' double, 'f' float, 'p' double+int pairs, 'q' int pairs,
                            // 'S' signed and 'U' unsigned integers of the type's width (integer_value)
};

struct Kinds {
    std::vector<Kind> list;     // every algorithm, every count
    std::vector<Kind> rotated;  // the other predefined integer types and ops: a few per algorithm (run_comm)
    MPI_Op mod_sum = MPI_OP_NULL, matrix = MPI_OP_NULL, strided = MPI_OP_NULL;
    MPI_Datatype mat2x2 = MPI_DATATYPE_NULL, gapped = MPI_DATATYPE_NULL;

    Kinds() {
        MPI_Op_create(sum_mod_prime, 1, &mod_sum);
        MPI_Op_create(matrix_product, 0, &matrix);
        MPI_Op_create(strided_max, 1, &strided);
        MPI_Type_contiguous(4, MPI_UINT32_T, &mat2x2);
        MPI_Type_commit(&mat2x2);
        MPI_Datatype one_of_two = MPI_DATATYPE_NULL;
        MPI_Type_vector(1, 1, 2, MPI_INT, &one_of_two);
        MPI_Type_create_resized(one_of_two, 0, 2 * sizeof(int), &gapped);
        MPI_Type_free(&one_of_two);
        MPI_Type_commit(&gapped);
        list = {
            {"int:sum", MPI_INT, MPI_SUM, Compare::bytes, true, 1, 'i'},
            {"int:max", MPI_INT, MPI_MAX, Compare::bytes, true, 1, 'i'},
            {"uint32:bxor", MPI_UINT32_T, MPI_BXOR, Compare::bytes, true, 1, 'u'},
            {"double:sum", MPI_DOUBLE, MPI_SUM, Compare::tolerance, true, 1, 'd'},
            {"float:sum", MPI_FLOAT, MPI_SUM, Compare::tolerance, true, 1, 'f'},
            {"double:min", MPI_DOUBLE, MPI_MIN, Compare::bytes, true, 1, 'd'},
            {"double_int:minloc", MPI_DOUBLE_INT, MPI_MINLOC, Compare::bytes, true, 1, 'p'},
            {"2int:maxloc", MPI_2INT, MPI_MAXLOC, Compare::bytes, true, 2, 'q'},
            {"int:user_mod_sum", MPI_INT, mod_sum, Compare::bytes, true, 1, 'i'},
            {"mat2x2:user_noncommutative", mat2x2, matrix, Compare::bytes, false, 4, 'u'},
            {"gapped_int:user_max", gapped, strided, Compare::bytes, true, 2, 'i'},
        };
        rotated = {
            {"signed_char:prod", MPI_SIGNED_CHAR, MPI_PROD, Compare::bytes, true, 1, 'S'},
            {"short:min", MPI_SHORT, MPI_MIN, Compare::bytes, true, 1, 'S'},
            {"long:band", MPI_LONG, MPI_BAND, Compare::bytes, true, 1, 'S'},
            {"int64:bor", MPI_INT64_T, MPI_BOR, Compare::bytes, true, 1, 'S'},
            {"unsigned_char:land", MPI_UNSIGNED_CHAR, MPI_LAND, Compare::bytes, true, 1, 'U'},
            {"unsigned_short:lor", MPI_UNSIGNED_SHORT, MPI_LOR, Compare::bytes, true, 1, 'U'},
            {"unsigned:lxor", MPI_UNSIGNED, MPI_LXOR, Compare::bytes, true, 1, 'U'},
            {"uint64:prod", MPI_UINT64_T, MPI_PROD, Compare::bytes, true, 1, 'U'},
            {"long_long:prod", MPI_LONG_LONG, MPI_PROD, Compare::bytes, true, 1, 'S'},
            {"int:min", MPI_INT, MPI_MIN, Compare::bytes, true, 1, 'S'},
            {"unsigned_long:min", MPI_UNSIGNED_LONG, MPI_MIN, Compare::bytes, true, 1, 'U'},
            {"int:land", MPI_INT, MPI_LAND, Compare::bytes, true, 1, 'S'},
        };
    }
    ~Kinds() {
        MPI_Op_free(&mod_sum);
        MPI_Op_free(&matrix);
        MPI_Op_free(&strided);
        MPI_Type_free(&mat2x2);
        MPI_Type_free(&gapped);
    }
    const Kind& get(const std::string& name) const {
        for (const auto* kinds : {&list, &rotated})
            for (const auto& k : *kinds)
                if (k.name == name) return k;
        std::abort();
    }
};

// A buffer of `count` elements of a kind, filled deterministically from (seed, rank).
struct Buffer {
    std::vector<unsigned char> bytes;
    Buffer(const Kind& k, int count) {
        MPI_Aint lb = 0, extent = 0;
        MPI_Type_get_extent(k.type, &lb, &extent);
        bytes.assign(static_cast<std::size_t>(std::max(count, 1)) * static_cast<std::size_t>(extent), 0xEE);
    }
    void* data() { return bytes.data(); }
};

// A value for the integer kinds of any width ('S', 'U'), so that each op has something to
// decide: logical ops see zeros and non-zeros other than 1, bitwise ones bits mostly set
// (BAND) or mostly clear (BOR), MIN/MAX the whole range. Products stay defined: unsigned ones
// at least as wide as unsigned int wrap, so any value; others +-1 and now and then 2, which
// fits the type even on 9 ranks (2^9) except a char, which gets +-1 alone (narrow unsigned
// types only positive ones: their products are computed as int).
std::int64_t integer_value(const Kind& k, int width, std::mt19937& rng) {
    const auto bits = [&rng] {
        const std::uint64_t high = rng();
        return high << 32 | rng();
    };
    const auto nonzero = [&rng] {
        const std::int64_t magnitude = std::int64_t(rng() % 100) + 1;
        return rng() % 2 ? magnitude : -magnitude;
    };
    if (k.op == MPI_PROD) {
        if (k.scalar == 'U' && width >= int(sizeof(unsigned))) return std::int64_t(bits() | 1);
        const std::int64_t magnitude = width > 1 && rng() % 8 == 0 ? 2 : 1;
        return k.scalar == 'U' || rng() % 2 ? magnitude : -magnitude;
    }
    if (k.op == MPI_LAND) return rng() % 4 == 0 ? 0 : nonzero();
    if (k.op == MPI_LOR) return rng() % 4 == 0 ? nonzero() : 0;
    if (k.op == MPI_LXOR) return rng() % 2 ? nonzero() : 0;
    const std::uint64_t first = bits();
    if (k.op == MPI_BAND) return std::int64_t(first | bits());
    if (k.op == MPI_BOR) return std::int64_t(first & bits());
    return std::int64_t(first);
}

// v as the integer type of `width` bytes holds it (signed or not, the same bytes).
void store_integer(unsigned char* at, int width, std::int64_t v) {
    const auto store = [at](auto narrowed) { std::memcpy(at, &narrowed, sizeof narrowed); };
    switch (width) {
        case 1: store(std::int8_t(v)); break;
        case 2: store(std::int16_t(v)); break;
        case 4: store(std::int32_t(v)); break;
        default: store(v); break;
    }
}

void fill(Buffer& b, const Kind& k, int count, unsigned seed, int rank) {
    std::mt19937 rng(seed * 2654435761u + static_cast<unsigned>(rank) * 40503u + 7u);
    unsigned char* p = b.bytes.data();
    int width = 0;
    MPI_Type_size(k.type, &width);
    for (int i = 0; i < count; ++i) {
        switch (k.scalar) {
            case 'S':
            case 'U':
                store_integer(p + std::size_t(i) * std::size_t(width), width, integer_value(k, width, rng));
                break;
            case 'i':
                for (int j = 0; j < k.elements_per_item; ++j) {
                    // Gapped items: only the first int of each pair is data; the gap stays 0xEE..
                    if (k.type != MPI_INT && j % 2 == 1) continue;
                    const int v = int(rng() % 2001) - 1000;
                    std::memcpy(p + (std::size_t(i) * k.elements_per_item + j) * sizeof(int), &v, sizeof v);
                }
                break;
            case 'u':
                for (int j = 0; j < k.elements_per_item; ++j) {
                    const std::uint32_t v = static_cast<std::uint32_t>(rng());
                    std::memcpy(p + (std::size_t(i) * k.elements_per_item + j) * 4, &v, 4);
                }
                break;
            case 'd': {
                const double v = std::ldexp(double(rng() % 1000000) - 500000.0, -int(rng() % 20));
                std::memcpy(p + std::size_t(i) * sizeof(double), &v, sizeof v);
                break;
            }
            case 'f': {
                const float v = float(int(rng() % 200000) - 100000) / 1024.0f;
                std::memcpy(p + std::size_t(i) * sizeof(float), &v, sizeof v);
                break;
            }
            case 'p': {  // {double value, int index}: ties on value so MINLOC's index rule matters
                struct {
                    double value;
                    int index;
                } v{double(rng() % 5), rank};
                std::memcpy(p + std::size_t(i) * 16, &v.value, sizeof(double));
                std::memcpy(p + std::size_t(i) * 16 + 8, &v.index, sizeof(int));
                break;
            }
            case 'q': {
                const int v[2] = {int(rng() % 5), rank};
                std::memcpy(p + std::size_t(i) * 8, v, sizeof v);
                break;
            }
        }
    }
}

// Floating point: reduction order may differ from native's; each result may differ by at
// most p ulp-sized roundings of the magnitudes summed: |got - native| <= p * eps * sum|x|.
template <class T>
bool close(const T* got, const T* native, const T* magnitude, int n, int p, std::string& why) {
    const double eps = std::numeric_limits<T>::epsilon();
    for (int i = 0; i < n; ++i) {
        const double bound = p * eps * double(magnitude[i]) + std::numeric_limits<T>::denorm_min();
        if (std::fabs(double(got[i]) - double(native[i])) > bound) {
            why = fmt::format("element {}: got {} native {} (bound {})", i, double(got[i]), double(native[i]), bound);
            return false;
        }
    }
    return true;
}

// ---- cases ---------------------------------------------------------------------------------

struct Comm {
    std::string name;
    MPI_Comm comm;
    int size, rank;
};

struct Case {
    std::string collective;  // "reduce" or "allreduce"
    std::string algorithm;
    const Kind* kind;
    int count;
    bool in_place;
    int root;
    char arrival;  // '-' none, 'l' last rank late, 'r' reversed staircase, 'u' uniform random
    unsigned seed;
};

struct Tally {
    long cases = 0, failures = 0, printed = 0, own = 0;
};

void fail(Tally& t, const Comm& c, const Case& k, const std::string& what) {
    ++t.failures;
    if (t.printed++ < 20)
        fmt::print(stderr, "FAIL {} algorithm={} kind={} count={} in_place={} root={} arrival={} seed={} comm={} p={} rank={}: {}\n",
                   k.collective, k.algorithm, k.kind->name, k.count, k.in_place, k.root, k.arrival, k.seed, c.name,
                   c.size, c.rank, what);
}

// A Reduce to `root` (reduce) or an Allreduce, natively (PMPI; on MPICH the nonblocking form,
// waited for off the core: off_core.hpp) or through papshim (MPI).
enum class Through { native, papshim };
int reduction(Through through, bool reduce, const void* in, void* out, int count, MPI_Datatype type, MPI_Op op, int root,
              MPI_Comm comm) {
    if (through == Through::native)
        return reduce ? reference_reduce(in, out, count, type, op, root, comm)
                      : reference_allreduce(in, out, count, type, op, comm);
    return reduce ? MPI_Reduce(in, out, count, type, op, root, comm) : MPI_Allreduce(in, out, count, type, op, comm);
}

void arrive(char pattern, const Comm& c, unsigned seed) {
    double seconds = 0;
    if (pattern == 'l' && c.rank == c.size - 1) seconds = 2e-3;
    if (pattern == 'r') seconds = (c.size - 1 - c.rank) * 4e-4;
    if (pattern == 'u') seconds = double(std::mt19937(seed * 31u + unsigned(c.rank))() % 1500) * 1e-6;
    if (seconds > 0) std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
}

// Debian's MPICH 4.0.2 crashes natively in MPI_Reduce with MPI_IN_PLACE at the root unless
// MPIR_CVAR_DEVICE_COLLECTIVES=none; `auto` forwards balanced calls to native on one node and
// below 64 KiB (across nodes from 64 KiB it runs papshim's tree), so it gets no in-place Reduce
// there.
bool native_in_place_crashes(const std::string& collective, const std::string& algorithm) {
#ifdef MPICH_VERSION
    return collective == "reduce" && algorithm == "auto";
#else
    (void)collective;
    (void)algorithm;
    return false;
#endif
}

// Whether papshim is expected to run its own algorithm on this case (else it forwards).
bool expect_own(const Case& k, const Comm& c) {
    if (c.size == 1 || k.count == 0) return false;
    // auto: native, or an algorithm of papshim's by size, layout and arrivals (auto_reduction,
    // auto_reduction_classic): whatever ran, the result is checked.
    if (k.algorithm == "auto") return false;
    // Algorithms that reorder the op leave non-commutative ones to MPI.
    if (!k.kind->commutative && k.algorithm != "binomial" && k.algorithm != "pipelined_binomial" &&
        k.algorithm != "recursive_doubling")
        return false;
    return true;
}

// One case's inputs and its native reference, computed before papshim's call, so that a
// batch of papshim's calls can run back to back (soak) with no collective between them.
struct Prepared {
    Buffer send, expected, magnitude;  // magnitude: sum over ranks of |x|, floating point only
    Prepared(const Kind& kind, int count) : send(kind, count), expected(kind, count), magnitude(kind, count) {}
};

// What papshim's call did, read straight after it (a later call overwrites the last algorithm).
struct Outcome {
    Buffer actual;
    int error = MPI_SUCCESS;
    std::string ran;
    Outcome(const Kind& kind, int count) : actual(kind, count) {}
};

bool holds_result(const Comm& c, const Case& k) { return k.collective != "reduce" || c.rank == k.root; }

// Collective over c (native calls only): the send buffer, native's result on it, and the
// magnitudes for the floating-point tolerance.
void prepare(const Comm& c, const Case& k, Prepared& p, Tally& t) {
    const Kind& kind = *k.kind;
    fill(p.send, kind, k.count, k.seed, c.rank);
    // Native reference, never in place (Debian's MPICH 4.0.2 crashes in MPI_Reduce with
    // MPI_IN_PLACE at the root; the in-place result must equal the out-of-place one anyway).
    const int native_error = reduction(Through::native, k.collective == "reduce", p.send.data(), p.expected.data(),
                                       k.count, kind.type, kind.op, k.root, c.comm);
    if (native_error != MPI_SUCCESS) fail(t, c, k, fmt::format("native error {}", native_error));
    if (kind.compare != Compare::tolerance || k.count == 0) return;
    std::vector<unsigned char> absolute = p.send.bytes;
    for (int i = 0; i < k.count; ++i) {
        if (kind.type == MPI_DOUBLE) {
            auto* x = reinterpret_cast<double*>(absolute.data()) + i;
            *x = std::fabs(*x);
        } else {
            auto* x = reinterpret_cast<float*>(absolute.data()) + i;
            *x = std::fabs(*x);
        }
    }
    reference_allreduce(absolute.data(), p.magnitude.data(), k.count, kind.type, MPI_SUM, c.comm);
}

// papshim's call on the prepared input, after the case's arrival delay.
void call(const Comm& c, const Case& k, const Prepared& p, Outcome& o) {
    const Kind& kind = *k.kind;
    const void* sendbuf = p.send.bytes.data();
    if (k.in_place && holds_result(c, k)) {
        o.actual.bytes = p.send.bytes;
        sendbuf = MPI_IN_PLACE;
    }
    arrive(k.arrival, c, k.seed);
    o.error = reduction(Through::papshim, k.collective == "reduce", sendbuf, o.actual.data(), k.count, kind.type, kind.op,
                        k.root, c.comm);
    char ran[64] = {};
    papshim_get_last_algorithm(c.comm, k.collective.c_str(), ran, sizeof ran);
    o.ran = ran;
}

// Local: the call's error, which algorithm ran, and the result against native's.
void check(const Comm& c, const Case& k, const Prepared& p, const Outcome& o, Tally& t) {
    const Kind& kind = *k.kind;
    if (o.error != MPI_SUCCESS) fail(t, c, k, fmt::format("papshim error {}", o.error));
    const bool own = o.ran != "native";
    t.own += own ? 1 : 0;
    if (expect_own(k, c) && !own) fail(t, c, k, "papshim forwarded the call to native MPI");
    // dynamic_leader and symmetric_shm hand vectors beyond their shared-memory slots (or of
    // derived types) to the same family's algorithm for them: hierarchical (Allreduce),
    // arrival_chain (Reduce), as their registry lines say (beyond_slot) and the README documents.
    const bool handed_on = (k.algorithm == "dynamic_leader" &&
                            o.ran == (k.collective == "reduce" ? "arrival_chain" : "hierarchical")) ||
                           (k.algorithm == "symmetric_shm" && o.ran == "hierarchical");
    if (k.algorithm != "auto" && own && o.ran != k.algorithm && !handed_on)
        fail(t, c, k, fmt::format("ran '{}' instead", o.ran));

    if (!holds_result(c, k) || k.count == 0) return;
    MPI_Aint lb = 0, extent = 0;
    MPI_Type_get_extent(kind.type, &lb, &extent);
    const std::size_t bytes = std::size_t(k.count) * std::size_t(extent);
    std::string why;
    if (kind.compare == Compare::bytes) {
        const auto m = std::mismatch(o.actual.bytes.begin(), o.actual.bytes.begin() + std::ptrdiff_t(bytes),
                                     p.expected.bytes.begin());
        if (m.first != o.actual.bytes.begin() + std::ptrdiff_t(bytes))
            fail(t, c, k, fmt::format("byte {} differs: got {:#04x}, native {:#04x}", m.first - o.actual.bytes.begin(),
                                      *m.first, *m.second));
        return;
    }
    const bool ok = kind.type == MPI_DOUBLE
        ? close(reinterpret_cast<const double*>(o.actual.bytes.data()),
                reinterpret_cast<const double*>(p.expected.bytes.data()),
                reinterpret_cast<const double*>(p.magnitude.bytes.data()), k.count, c.size, why)
        : close(reinterpret_cast<const float*>(o.actual.bytes.data()),
                reinterpret_cast<const float*>(p.expected.bytes.data()),
                reinterpret_cast<const float*>(p.magnitude.bytes.data()), k.count, c.size, why);
    if (!ok) fail(t, c, k, why);
}

void run_case(const Comm& c, const Case& k, Tally& t) {
    ++t.cases;
    Prepared p(*k.kind, k.count);
    prepare(c, k, p, t);
    Outcome o(*k.kind, k.count);
    call(c, k, p, o);
    check(c, k, p, o, t);
}

std::vector<std::string> algorithms_of(const char* collective) {
    // The names papshim-info lists; kept here so the test fails if one disappears.
    if (std::string(collective) == "reduce")
        return {"binomial", "pipelined_binomial", "rabenseifner", "dynamic_leader", "arrival_chain", "clairvoyant",
                "predicted_chain", "auto"};
    return {"recursive_doubling", "rabenseifner", "ring", "dynamic_leader", "symmetric_shm", "arrival_chain", "hierarchical",
            "clairvoyant", "clairvoyant_bcast", "predicted_chain", "predicted_scatter", "auto"};
}

Comm make(std::string name, MPI_Comm comm);

void run_comm(const Comm& c, const Kinds& kinds, bool world, int world_size, Tally& t) {
    unsigned seed = 1;
    const std::vector<int> counts = world ? std::vector<int>{1, 7, 1000, 4099} : std::vector<int>{1, 33};
    const char patterns[] = {'-', 'l', 'r', 'u'};
    // The rotated kinds (world only): this many per algorithm, each at one count, taken in
    // turn round the list from one algorithm to the next and on into the other collective.
    constexpr std::size_t rotated_per_algorithm = 3;
    std::size_t rotated_slot = 0;
    for (const char* collective : {"reduce", "allreduce"}) {
        const std::vector<std::string> algorithms = algorithms_of(collective);
        for (std::size_t algorithm_index = 0; algorithm_index < algorithms.size(); ++algorithm_index) {
            const std::string& algorithm = algorithms[algorithm_index];
            if (papshim_set_algorithm(c.comm, collective, algorithm.c_str()) != MPI_SUCCESS) {
                fail(t, c, {collective, algorithm, &kinds.list[0], 0, false, 0, '-', 0}, "papshim_set_algorithm refused it");
                continue;
            }
            std::size_t variant = 0;
            // kind_index: the kind's place in list, then rotated.
            const auto run_variant = [&](const Kind& kind, std::size_t kind_index, std::size_t count_index) {
                const int count = counts[count_index];
                ++variant;
                // Arrival and in place from the kind, the count and the algorithm together, so
                // that at each count an algorithm's kinds meet every pattern both in place and
                // not (kind_index % 4 picks the one, kind_index / 4 the other).
                const std::size_t shift = count_index + algorithm_index;
                const char arrival = patterns[(shift + kind_index) % 4];
                const bool in_place =
                    (shift + kind_index / 4) % 2 == 0 && !native_in_place_crashes(collective, algorithm);
                // Every root on small communicators, a rotating one otherwise.
                std::vector<int> roots = {-1};
                if (std::string(collective) == "reduce") {
                    roots.clear();
                    if (c.size <= 4 || count == 7) {
                        for (int r = 0; r < c.size; ++r) roots.push_back(r);
                    } else {
                        roots.push_back(int(variant % unsigned(c.size)));
                    }
                }
                for (int root : roots) {
                    Case k{collective, algorithm, &kind, count, in_place, root, arrival, ++seed};
                    run_case(c, k, t);
                }
            };
            for (std::size_t kind_index = 0; kind_index < kinds.list.size(); ++kind_index) {
                const Kind& kind = kinds.list[kind_index];
                if (!world && &kind != &kinds.list[0] && &kind != &kinds.get("mat2x2:user_noncommutative") &&
                    &kind != &kinds.get("double:sum"))
                    continue;
                for (std::size_t count_index = 0; count_index < counts.size(); ++count_index)
                    run_variant(kind, kind_index, count_index);
            }
            // Each at a count that moves on one place per lap of the list, so that every rotated
            // kind meets both collectives, four or five algorithms and every count, for a few
            // percent more calls.
            for (std::size_t i = 0; world && i < rotated_per_algorithm; ++i, ++rotated_slot) {
                const std::size_t which = rotated_slot % kinds.rotated.size();
                const std::size_t lap = rotated_slot / kinds.rotated.size();
                run_variant(kinds.rotated[which], kinds.list.size() + which, (which + lap) % counts.size());
            }
            if (world && world_size <= 4) {
                // Large vectors, odd element counts, well past every eager limit: 16 MiB of ints.
                for (int count : {(1 << 20) + 3, (1 << 22) + 1}) {
#ifdef PAPSHIM_SANITIZED
                    if (count > (1 << 21)) continue;  // 16 MiB instrumented: minutes, and no new path
#endif
                    Case k{collective, algorithm, &kinds.get("int:sum"), count,
                           count % 2 == 1 && !native_in_place_crashes(collective, algorithm), c.size - 1, 'l', ++seed};
                    run_case(c, k, t);
                }
                Case k{collective, algorithm, &kinds.get("double:sum"), (1 << 18) + 5, false, 0, 'u', ++seed};
                run_case(c, k, t);
                // A non-commutative user op on 1 MiB: the algorithms that keep rank order (and
                // auto's pipelined binomial Reduce across nodes) run it, the others forward it.
                Case ordered{collective, algorithm, &kinds.get("mat2x2:user_noncommutative"), (1 << 16) + 1, false,
                             c.size - 1, '-', ++seed};
                run_case(c, ordered, t);
            }
            // Count 0 goes to native (nothing to reduce), identically everywhere.
            run_case(c, {collective, algorithm, &kinds.get("int:sum"), 0, false, 0, '-', ++seed}, t);
        }
        papshim_set_algorithm(c.comm, collective, "native");
    }
}

// Back-to-back calls for `seconds`: a random sequence (the same on every rank, from one seed)
// of Reduce and Allreduce calls on two communicators, mostly without delays, in batches: the
// batch's native references first, then its papshim calls with nothing between them, so
// consecutive calls overlap as far as MPI lets them (early leavers of a Reduce, and ranks
// that leave an Allreduce first, enter the next call while others are still in the last
// one): epochs of the shared-memory algorithms must never mix two calls. Every result
// against native.
void soak(const Kinds& kinds, double seconds, Tally& t) {
    MPI_Comm a = MPI_COMM_NULL, b = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &a);
    MPI_Comm_dup(MPI_COMM_WORLD, &b);
    const std::vector<Comm> comms = {make("soak-a", a), make("soak-b", b)};
    const auto reduce_names = algorithms_of("reduce");
    const auto allreduce_names = algorithms_of("allreduce");
    unsigned seed = 12345;
    MPI_Bcast(&seed, 1, MPI_UNSIGNED, 0, MPI_COMM_WORLD);
    std::mt19937 rng(seed);
    const double end = MPI_Wtime() + seconds;
    const int counts[] = {1, 2, 17, 1000, 8192, 70000};
    const char* kinds_used[] = {"int:sum", "uint32:bxor", "double:sum", "int:user_mod_sum"};
    constexpr int batch_size = 8;
    long calls = 0;
    for (int done = 0; !done;) {
        struct Planned {
            const Comm* comm;
            Case k;
            Prepared p;
            Outcome o;
        };
        std::vector<Planned> batch;
        batch.reserve(batch_size);
        for (int i = 0; i < batch_size; ++i) {
            const Comm& c = comms[rng() % 2];
            const bool reduce = rng() % 2 == 0;
            const auto& names = reduce ? reduce_names : allreduce_names;
            const std::string algorithm = names[rng() % names.size()];
            const Kind& kind = kinds.get(kinds_used[rng() % 4]);
            const int count = counts[rng() % 6];
            const int root = int(rng() % unsigned(c.size));
            const bool in_place =
                rng() % 3 == 0 && !native_in_place_crashes(reduce ? "reduce" : "allreduce", algorithm);
            const char arrival = "----lu"[rng() % 6];
            batch.push_back({&c,
                             {reduce ? "reduce" : "allreduce", algorithm, &kind, count, in_place, reduce ? root : -1,
                              arrival, unsigned(rng())},
                             Prepared(kind, count),
                             Outcome(kind, count)});
        }
        for (Planned& one : batch) prepare(*one.comm, one.k, one.p, t);
        for (Planned& one : batch) {
            papshim_set_algorithm(one.comm->comm, one.k.collective.c_str(), one.k.algorithm.c_str());
            call(*one.comm, one.k, one.p, one.o);
        }
        for (const Planned& one : batch) {
            ++t.cases;
            check(*one.comm, one.k, one.p, one.o, t);
        }
        calls += batch_size;
        // Stop together: rank 0's clock decides, every 64 calls.
        if (calls % 64 == 0) {
            done = MPI_Wtime() > end ? 1 : 0;
            MPI_Bcast(&done, 1, MPI_INT, 0, MPI_COMM_WORLD);
        }
    }
    if (comms[0].rank == 0) fmt::print("soak: {} calls in {:.0f} s, back to back in batches of {}\n", calls, seconds, batch_size);
    MPI_Comm_free(&a);
    MPI_Comm_free(&b);
}

// Two threads, each calling on its own communicator at the same time (MPI_THREAD_MULTIPLE).
void threads(const Kinds& kinds, Tally& t) {
    MPI_Comm comm[2] = {MPI_COMM_NULL, MPI_COMM_NULL};
    MPI_Comm_dup(MPI_COMM_WORLD, &comm[0]);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm[1]);
    Tally per_thread[2];
    auto work = [&](int which) {
        const Comm c = make(which ? "thread-b" : "thread-a", comm[which]);
        for (const char* collective : {"reduce", "allreduce"})
            for (const auto& algorithm : algorithms_of(collective)) {
                papshim_set_algorithm(c.comm, collective, algorithm.c_str());
                for (int count : {1, 999, 20000})
                    for (const char* kind : {"int:sum", "double:sum"})
                        run_case(c, {collective, algorithm, &kinds.get(kind), count, false,
                                     std::string(collective) == "reduce" ? count % c.size : -1, "-lu"[count % 3],
                                     unsigned(count + which)},
                                 per_thread[which]);
            }
    };
    std::thread second(work, 1);
    work(0);
    second.join();
    for (const Tally& p : per_thread) {
        t.cases += p.cases;
        t.failures += p.failures;
        t.own += p.own;
    }
    MPI_Comm_free(&comm[0]);
    MPI_Comm_free(&comm[1]);
}

Comm make(std::string name, MPI_Comm comm) {
    Comm c{std::move(name), comm, 0, 0};
    MPI_Comm_size(comm, &c.size);
    MPI_Comm_rank(comm, &c.rank);
    return c;
}

// A duplicate of MPI_COMM_WORLD for one test function (freed by it).
Comm world_dup() {
    MPI_Comm dup = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    return make("world-dup", dup);
}

// Under PAPSHIM_REPRODUCIBLE=1: algorithms whose combining order follows the arrivals leave
// every floating-point type to MPI (C, C++ and Fortran names alike), and still run integer
// ones; the fixed-order algorithms keep floating point. Values are multiples of 1/4, so
// every order sums them exactly and the results compare byte for byte with native's.
void reproducible(Tally& t) {
    Comm c = world_dup();
    struct FloatType {
        const char* name;
        MPI_Datatype type;
        bool single;  // components are float (else double)
    };
    const FloatType types[] = {
        {"float", MPI_FLOAT, true},          {"double", MPI_DOUBLE, false},
        {"real", MPI_REAL, true},            {"double precision", MPI_DOUBLE_PRECISION, false},
        {"real8", MPI_REAL8, false},         {"complex", MPI_COMPLEX, true},
        {"double complex", MPI_DOUBLE_COMPLEX, false}, {"c double complex", MPI_C_DOUBLE_COMPLEX, false},
        {"cxx float complex", MPI_CXX_FLOAT_COMPLEX, true},
    };
    constexpr int count = 5;
    const auto run = [&](const std::string& collective, const std::string& algorithm, MPI_Datatype type,
                         const std::function<void(std::vector<unsigned char>&)>& fill_values, const char* type_name,
                         bool must_be_native) {
        int size = 0;
        if (type == MPI_DATATYPE_NULL || MPI_Type_size(type, &size) != MPI_SUCCESS || size == 0) return;  // not in this MPI
        ++t.cases;
        std::vector<unsigned char> in(std::size_t(count * size)), expected(in.size()), actual(in.size());
        fill_values(in);
        const bool reduce = collective == "reduce";
        reduction(Through::native, reduce, in.data(), expected.data(), count, type, MPI_SUM, 0, c.comm);
        reduction(Through::papshim, reduce, in.data(), actual.data(), count, type, MPI_SUM, 0, c.comm);
        char ran[64] = {};
        papshim_get_last_algorithm(c.comm, collective.c_str(), ran, sizeof ran);
        t.own += std::string(ran) != "native" ? 1 : 0;
        const auto report = [&](const std::string& what) {
            ++t.failures;
            if (t.printed++ < 20)
                fmt::print(stderr, "FAIL reproducible {} {} {} p={} rank={}: {}\n", collective, algorithm, type_name,
                           c.size, c.rank, what);
        };
        if (c.size > 1 && must_be_native && std::string(ran) != "native") report(fmt::format("ran '{}', not native", ran));
        if (c.size > 1 && !must_be_native && std::string(ran) == "native") report("forwarded to native");
        if ((!reduce || c.rank == 0) && actual != expected) report("differs from native");
    };
    const std::vector<std::string> arrival_ordered_reduce = {"dynamic_leader", "arrival_chain", "clairvoyant",
                                                             "predicted_chain"};
    const std::vector<std::string> arrival_ordered_allreduce = {"dynamic_leader", "arrival_chain", "hierarchical",
                                                                "clairvoyant", "clairvoyant_bcast", "predicted_chain",
                                                                "predicted_scatter"};
    for (const char* collective : {"reduce", "allreduce"}) {
        const bool reduce = std::string(collective) == "reduce";
        const auto& ordered = reduce ? arrival_ordered_reduce : arrival_ordered_allreduce;
        std::vector<std::string> algorithms = ordered;
        algorithms.push_back(reduce ? "binomial" : "recursive_doubling");  // fixed order: keeps floating point
        if (!reduce) algorithms.push_back("symmetric_shm");
        for (const auto& algorithm : algorithms) {
            if (papshim_set_algorithm(c.comm, collective, algorithm.c_str()) != MPI_SUCCESS) {
                ++t.failures;
                fmt::print(stderr, "FAIL reproducible: papshim_set_algorithm refused {} for {}\n", algorithm, collective);
                continue;
            }
            const bool arrival_ordered = std::find(ordered.begin(), ordered.end(), algorithm) != ordered.end();
            for (const FloatType& f : types) {
                run(collective, algorithm, f.type, [&](std::vector<unsigned char>& bytes) {
                    for (std::size_t i = 0; i < bytes.size() / (f.single ? sizeof(float) : sizeof(double)); ++i) {
                        const double value = 0.25 * double((c.rank + 1) * (int(i) + 1));
                        if (f.single) {
                            const float v = float(value);
                            std::memcpy(bytes.data() + i * sizeof v, &v, sizeof v);
                        } else {
                            std::memcpy(bytes.data() + i * sizeof value, &value, sizeof value);
                        }
                    }
                }, f.name, arrival_ordered);
            }
            run(collective, algorithm, MPI_INT, [&](std::vector<unsigned char>& bytes) {
                for (std::size_t i = 0; i < bytes.size() / sizeof(int); ++i) {
                    const int v = c.rank * 7 + int(i);
                    std::memcpy(bytes.data() + i * sizeof v, &v, sizeof v);
                }
            }, "int", false);
        }
        papshim_set_algorithm(c.comm, collective, "native");
    }
    MPI_Comm_free(&c.comm);
}

// Under PAPSHIM_REPRODUCIBLE=1, whatever algorithm is set: a float sum whose rounding depends
// on the combining order (values of 40 binary orders of magnitude) gives the same bits with the
// last rank late as with the arrivals reversed, which arrival-ordered algorithms would
// combine in opposite orders.
void reproducible_arrivals(Tally& t) {
    Comm c = world_dup();
    // 1000 fits a dynamic-leader slot, 200 the symmetric Allreduce's cell.
    for (const int count : {1000, 200}) {
        std::vector<float> in(static_cast<std::size_t>(count));
        std::mt19937 rng(unsigned(c.rank) * 7919u + 1u);
        for (float& x : in) x = std::ldexp(float(int(rng() % 2000001) - 1000000), int(rng() % 40) - 20);
        const int root = c.size - 1;  // the last to arrive in the first call, the first in the second
        for (const char* collective : {"reduce", "allreduce"}) {
            const bool reduce = std::string(collective) == "reduce";
            for (const std::string& algorithm : algorithms_of(collective)) {
                // A refusal is reproducible()'s to report.
                if (papshim_set_algorithm(c.comm, collective, algorithm.c_str()) != MPI_SUCCESS) continue;
                std::vector<float> late(in.size()), reversed(in.size());
                for (const auto& [pattern, out] : {std::pair{'l', &late}, std::pair{'r', &reversed}}) {
                    arrive(pattern, c, 0);
                    reduction(Through::papshim, reduce, in.data(), out->data(), count, MPI_FLOAT, MPI_SUM, root, c.comm);
                    char ran[64] = {};
                    papshim_get_last_algorithm(c.comm, collective, ran, sizeof ran);
                    t.own += std::string(ran) != "native" ? 1 : 0;
                }
                ++t.cases;
                if (reduce && c.rank != root) continue;
                const auto differs = std::mismatch(late.begin(), late.end(), reversed.begin(), [](float a, float b) {
                    return std::memcmp(&a, &b, sizeof a) == 0;
                });
                if (differs.first != late.end()) {
                    ++t.failures;
                    if (t.printed++ < 20)
                        fmt::print(stderr, "FAIL reproducible {} {} count {} p={} rank={}: element {} is {} one rank "
                                   "late, {} reversed\n", collective, algorithm, count, c.size, c.rank,
                                   differs.first - late.begin(), *differs.first, *differs.second);
                }
            }
            papshim_set_algorithm(c.comm, collective, "native");
        }
    }
    MPI_Comm_free(&c.comm);
}

// Under PAPSHIM_ALLREDUCE=auto and PAPSHIM_REDUCE=auto: an Allreduce of at most 1 KiB runs
// symmetric_shm on a communicator on one node whose ranks share cores, once papshim has its
// context, knows its layout (the world and its duplicates at once; another communicator after
// a call that asked, such as a 64 KiB one) and has its node view (made by a followed 64 KiB call, or by the 65th
// such small call); everything else at that size stays native: a larger vector, a Reduce, a
// user op, a derived type, a communicator spanning (virtual) nodes. Sizes alternate, so the
// answers the entry keeps for a 2 KiB call must not send the next 8-byte call to MPI on some
// ranks only (that would hang). Results against native's, with ranks arriving late.
void auto_small(Tally& t) {
    const bool shared = node_cores_shared();
    const char* node_size_text = std::getenv("PAPSHIM_NODE_SIZE");
    const int node_size = node_size_text ? std::atoi(node_size_text) : 0;
    int world_rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Op user_sum = MPI_OP_NULL, pair_op = MPI_OP_NULL;
    MPI_Op_create(sum_mod_prime, 1, &user_sum);
    MPI_Op_create(pair_sum, 1, &pair_op);
    MPI_Datatype two_ints = MPI_DATATYPE_NULL;
    MPI_Type_contiguous(2, MPI_INT, &two_ints);
    MPI_Type_commit(&two_ints);
    const auto check = [&](const Comm& c, bool one_node, const std::string& what, int count, MPI_Datatype type,
                           MPI_Op op, bool in_place, bool reduce, bool eligible, char pattern) {
        ++t.cases;
        int type_ints = 0;
        MPI_Type_size(type, &type_ints);
        type_ints /= int(sizeof(int));
        const std::size_t ints = std::size_t(count) * std::size_t(type_ints);
        std::vector<int> in(ints), out(ints, -1), expected(ints, -1);
        for (std::size_t i = 0; i < ints; ++i) in[i] = c.rank * 13 + int(i % 97);
        reduction(Through::native, reduce, in.data(), expected.data(), count, type, op, 0, c.comm);
        if (in_place) out = in;
        arrive(pattern, c, unsigned(count));
        reduction(Through::papshim, reduce, in_place ? MPI_IN_PLACE : in.data(), out.data(), count, type, op, 0,
                  c.comm);
        char ran[64] = {};
        papshim_get_last_algorithm(c.comm, reduce ? "reduce" : "allreduce", ran, sizeof ran);
        const std::string want = eligible && one_node && shared && c.size > 1 ? "symmetric_shm" : "native";
        const auto report = [&](const std::string& why) {
            ++t.failures;
            if (t.printed++ < 20)
                fmt::print(stderr, "FAIL auto small {} on {} p={} rank={}: {}\n", what, c.name, c.size, c.rank, why);
        };
        t.own += std::string(ran) != "native" ? 1 : 0;
        if (ran != want) report(fmt::format("ran '{}', expected '{}'", ran, want));
        if ((!reduce || c.rank == 0) && out != expected) report("differs from native");
    };
    // The calls every communicator gets, in this order; `eligible`: auto may run it itself.
    const auto sequence = [&](const Comm& c, bool one_node) {
        check(c, one_node, "8 B", 2, MPI_INT, MPI_SUM, false, false, true, 'l');
        check(c, one_node, "2 KiB", 512, MPI_INT, MPI_MAX, false, false, false, '-');
        check(c, one_node, "8 B after 2 KiB", 2, MPI_INT, MPI_SUM, false, false, true, 'r');
        check(c, one_node, "8 B in place", 2, MPI_INT, MPI_MAX, true, false, true, 'u');
        check(c, one_node, "1 KiB", 256, MPI_INT, MPI_SUM, false, false, true, 'l');
        check(c, one_node, "1 KiB + 4 B", 257, MPI_INT, MPI_SUM, false, false, false, 'l');
        check(c, one_node, "empty", 0, MPI_INT, MPI_SUM, false, false, false, '-');
        check(c, one_node, "8 B user op", 2, MPI_INT, user_sum, false, false, false, 'l');
        check(c, one_node, "8 B derived type", 1, two_ints, pair_op, false, false, false, 'l');
        check(c, one_node, "8 B Reduce", 2, MPI_INT, MPI_SUM, false, true, false, 'l');
        check(c, one_node, "8 B again", 2, MPI_INT, MPI_BXOR, false, false, true, '-');
    };
    const auto world_size = [] {
        int size = 0;
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        return size;
    }();
    const auto within_one_node = [&](int lowest, int highest) {  // world ranks, as PAPSHIM_NODE_SIZE cuts them
        return node_size <= 0 || lowest / node_size == highest / node_size;
    };
    // The world: its context and layout from MPI_Init, but no node view yet: the first
    // kAutoSmallCallsBeforeView calls auto could run go to MPI, the next makes the view.
    const Comm world = make("world", MPI_COMM_WORLD);
    constexpr int calls_before_view = 64;  // papshim's kAutoSmallCallsBeforeView
    for (int call = 0; call < calls_before_view; ++call)
        check(world, false, "8 B before the node view", 2, MPI_INT, call % 2 ? MPI_SUM : MPI_MIN, false, false, false,
              "-lru"[call % 4]);
    sequence(world, within_one_node(0, world_size - 1));
    // A fresh duplicate of the world (as libraries make): the world's window once it has made
    // kWorldGroupCallsBeforeContext such calls without a context (checked without delays and
    // without native's call beside each); the next makes its context and its node view. A call
    // outside the window must not count.
    Comm fresh = world_dup();
#ifdef OPEN_MPI
    constexpr int calls_before_context = 1024;  // papshim's kWorldGroupCallsBeforeContext
#else
    constexpr int calls_before_context = calls_before_view;
#endif
    check(fresh, false, "4 KiB on the duplicate", 1024, MPI_INT, MPI_SUM, false, false, false, '-');
    for (int call = 0; call < calls_before_context; ++call) {
        const int in = fresh.rank + call;
        int got = -1;
        MPI_Allreduce(&in, &got, 1, MPI_INT, MPI_SUM, fresh.comm);
        if (got != fresh.size * call + fresh.size * (fresh.size - 1) / 2 && t.printed++ < 20) {
            ++t.failures;
            fmt::print(stderr, "FAIL auto small: counted call {} on a fresh duplicate: {}\n", call, got);
        }
    }
    sequence(fresh, within_one_node(0, world_size - 1));
    MPI_Comm_free(&fresh.comm);
    // A duplicate whose context profile mode made (no private duplicate, so no layout): after
    // the switch to dispatch, its first call makes the duplicate and opens the window.
    papshim_set_mode("profile");
    Comm profiled = world_dup();
    check(profiled, false, "8 B in profile mode", 2, MPI_INT, MPI_SUM, false, false, false, 'l');
    papshim_set_mode("dispatch");
    // A mid-size call first: the answer the entry keeps for it must not forward the small ones.
    check(profiled, false, "2 KiB on the profiled duplicate", 512, MPI_INT, MPI_SUM, false, false, false, '-');
    for (int call = 0; call < calls_before_view; ++call)
        check(profiled, false, "8 B before the profiled duplicate's node view", 2, MPI_INT, MPI_SUM, false, false,
              false, "-lru"[call % 4]);
    sequence(profiled, within_one_node(0, world_size - 1));
    MPI_Comm_free(&profiled.comm);
    // A pair of neighbours: native until a larger call has made its context, asked its layout
    // and (followed on one node) made its node view.
    MPI_Comm pair = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, world_rank / 2, world_rank, &pair);
    const Comm p = make("pair", pair);
    const int first = world_rank - p.rank;
    check(p, false, "8 B before its context", 2, MPI_INT, MPI_SUM, false, false, true, 'l');
    check(p, false, "64 KiB", 16384, MPI_INT, MPI_SUM, false, false, false, '-');
    sequence(p, within_one_node(first, first + p.size - 1));
    MPI_Comm_free(&pair);
    // A papshim_set_algorithm choice: native, then auto again.
    Comm d = world_dup();
    papshim_set_algorithm(d.comm, "allreduce", "native");
    check(d, false, "8 B, native chosen", 2, MPI_INT, MPI_SUM, false, false, true, 'l');
    papshim_set_algorithm(d.comm, "allreduce", "auto");
    check(d, false, "64 KiB, auto chosen", 16384, MPI_INT, MPI_SUM, false, false, false, '-');
    sequence(d, within_one_node(0, world_size - 1));
    MPI_Comm_free(&d.comm);
    MPI_Type_free(&two_ints);
    MPI_Op_free(&user_sum);
    MPI_Op_free(&pair_op);
}

// symmetric_shm's edges through the dispatcher, under PAPSHIM_REPRODUCIBLE=1: 256 ints fill its
// 1 KiB cell and it runs them; 257 go to hierarchical (an integer sum has no order to keep); 300
// floats go native (hierarchical combines in arrival order); MPI_LONG_DOUBLE and, under
// MPI_MAXLOC, MPI_LONG_DOUBLE_INT (16-byte aligned; padding after its int) go through the
// cells. Results against native's, field by field (never the padding), one rank late.
void symmetric_edges(Tally& t) {
    Comm c = world_dup();
    papshim_set_algorithm(c.comm, "allreduce", "symmetric_shm");
    struct LongDoubleInt {
        long double value;
        int index;
    };
    const auto report = [&](const std::string& what) {
        ++t.failures;
        if (t.printed++ < 20) fmt::print(stderr, "FAIL symmetric edges p={} rank={}: {}\n", c.size, c.rank, what);
    };
    const auto check_ran = [&](const char* what, const std::string& expected) {
        char ran[64] = {};
        papshim_get_last_algorithm(c.comm, "allreduce", ran, sizeof ran);
        t.own += std::string(ran) != "native" ? 1 : 0;
        if (c.size > 1 && ran != expected) report(fmt::format("{}: ran '{}', expected '{}'", what, ran, expected));
    };
    for (const int count : {256, 257}) {
        ++t.cases;
        std::vector<int> in(static_cast<std::size_t>(count)), out(in.size()), expected(in.size());
        for (int i = 0; i < count; ++i) in[std::size_t(i)] = c.rank * 7 + i;
        PMPI_Allreduce(in.data(), expected.data(), count, MPI_INT, MPI_SUM, c.comm);
        arrive('l', c, 0);
        MPI_Allreduce(in.data(), out.data(), count, MPI_INT, MPI_SUM, c.comm);
        check_ran(count == 256 ? "256 ints" : "257 ints", count == 256 ? "symmetric_shm" : "hierarchical");
        if (out != expected) report(fmt::format("{} ints differ from native", count));
    }
    {
        ++t.cases;
        std::vector<float> in(300, float(c.rank + 1)), out(in.size());
        MPI_Allreduce(in.data(), out.data(), 300, MPI_FLOAT, MPI_SUM, c.comm);
        check_ran("300 floats under PAPSHIM_REPRODUCIBLE", "native");
    }
    {
        ++t.cases;
        constexpr int count = 9;
        std::vector<long double> in(count), out(count), expected(count);
        for (int i = 0; i < count; ++i) in[std::size_t(i)] = 0.5L * (c.rank + 1) * (i + 1);
        PMPI_Allreduce(in.data(), expected.data(), count, MPI_LONG_DOUBLE, MPI_SUM, c.comm);
        arrive('r', c, 0);
        MPI_Allreduce(in.data(), out.data(), count, MPI_LONG_DOUBLE, MPI_SUM, c.comm);
        check_ran("MPI_LONG_DOUBLE", "symmetric_shm");
        for (int i = 0; i < count; ++i)
            if (out[std::size_t(i)] != expected[std::size_t(i)]) report(fmt::format("long double {} differs", i));
    }
    {
        ++t.cases;
        constexpr int count = 5;
        std::vector<LongDoubleInt> in(count), out(count), expected(count);
        for (int i = 0; i < count; ++i) in[std::size_t(i)] = {static_cast<long double>((c.rank * 3 + i) % 4), c.rank};
        PMPI_Allreduce(in.data(), expected.data(), count, MPI_LONG_DOUBLE_INT, MPI_MAXLOC, c.comm);
        arrive('l', c, 0);
        MPI_Allreduce(in.data(), out.data(), count, MPI_LONG_DOUBLE_INT, MPI_MAXLOC, c.comm);
        check_ran("MPI_LONG_DOUBLE_INT", "symmetric_shm");
        for (int i = 0; i < count; ++i)
            if (out[std::size_t(i)].value != expected[std::size_t(i)].value ||
                out[std::size_t(i)].index != expected[std::size_t(i)].index)
                report(fmt::format("MPI_LONG_DOUBLE_INT element {} differs", i));
    }
    papshim_set_algorithm(c.comm, "allreduce", "native");
    MPI_Comm_free(&c.comm);
}

// A padded pair type through the shared-memory slots and cells: MPI_LONG_DOUBLE_INT's extent
// (32 bytes on x86-64) has 12 bytes of padding after its int, and a caller's buffer may end at
// the last element's int. The slot copies wrote count * extent bytes, past such a buffer: bytes
// after the last int must come back untouched, for every algorithm that copies through them.
void padded_pairs(Tally& t) {
    Comm c = world_dup();
    struct LongDoubleInt {
        long double value;
        int index;
    };
    MPI_Aint true_lb = 0, true_extent = 0;
    MPI_Type_get_true_extent(MPI_LONG_DOUBLE_INT, &true_lb, &true_extent);
    constexpr int count = 3;
    const std::size_t end = std::size_t(true_lb + true_extent) + (count - 1) * sizeof(LongDoubleInt);
    for (const char* collective : {"allreduce", "reduce"}) {
        const bool reduce = std::string(collective) == "reduce";
        const std::vector<std::string> names =
            reduce ? std::vector<std::string>{"dynamic_leader"} : std::vector<std::string>{"dynamic_leader", "symmetric_shm"};
        for (const std::string& algorithm : names) {
            if (papshim_set_algorithm(c.comm, collective, algorithm.c_str()) != MPI_SUCCESS) continue;
            ++t.cases;
            std::vector<LongDoubleInt> in(count + 1), expected(count + 1), out(count + 1);
            for (int i = 0; i < count; ++i) in[std::size_t(i)] = {static_cast<long double>((c.rank + i) % 3), c.rank};
            auto* bytes = reinterpret_cast<unsigned char*>(out.data());
            std::memset(bytes + end, 0xab, (count + 1) * sizeof(LongDoubleInt) - end);
            reduction(Through::native, reduce, in.data(), expected.data(), count, MPI_LONG_DOUBLE_INT, MPI_MAXLOC, 0, c.comm);
            reduction(Through::papshim, reduce, in.data(), out.data(), count, MPI_LONG_DOUBLE_INT, MPI_MAXLOC, 0, c.comm);
            const auto report = [&](const std::string& what) {
                ++t.failures;
                if (t.printed++ < 20)
                    fmt::print(stderr, "FAIL padded pairs {} {} p={} rank={}: {}\n", collective, algorithm, c.size,
                               c.rank, what);
            };
            char ran[64] = {};
            papshim_get_last_algorithm(c.comm, collective, ran, sizeof ran);
            t.own += std::string(ran) != "native" ? 1 : 0;
            if (reduce && c.rank != 0) continue;
            for (std::size_t b = end; b < (count + 1) * sizeof(LongDoubleInt); ++b)
                if (bytes[b] != 0xab) {
                    report(fmt::format("byte {} past the last element's data was written", b - end));
                    break;
                }
            for (int i = 0; i < count; ++i)
                if (out[std::size_t(i)].value != expected[std::size_t(i)].value ||
                    out[std::size_t(i)].index != expected[std::size_t(i)].index)
                    report(fmt::format("element {} differs from native", i));
        }
        papshim_set_algorithm(c.comm, collective, "native");
    }
    MPI_Comm_free(&c.comm);
}

// Calls MPI rejects alike on every rank, under every algorithm: a predefined op on a type it
// is not defined for (MPI_MINLOC on MPI_INT: MPI_ERR_OP) and an Allreduce's in-place receive
// buffer. The native call must raise its error on every rank before any message, and the next
// call must work. papshim ran its own algorithm on the first, which failed halfway in
// PMPI_Reduce_local (ranks hung, or the next call got stray messages), and crashed on the
// second.
void rejected_calls(Tally& t) {
    MPI_Comm dup = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    // Open MPI raises a bad buffer on MPI_COMM_WORLD, not on the call's communicator.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    Comm c = make("world-dup", dup);
    const auto report = [&](const std::string& what) {
        ++t.failures;
        if (t.printed++ < 20) fmt::print(stderr, "FAIL rejected calls p={} rank={}: {}\n", c.size, c.rank, what);
    };
    constexpr int count = 4096;  // above the fast paths of auto; a dynamic-leader slot holds it
    std::vector<int> in(count), out(count);
    for (int i = 0; i < count; ++i) in[std::size_t(i)] = c.rank * 3 + i;
    for (const char* collective : {"reduce", "allreduce"}) {
        const bool reduce = std::string(collective) == "reduce";
        for (const std::string& algorithm : algorithms_of(collective)) {
            if (papshim_set_algorithm(c.comm, collective, algorithm.c_str()) != MPI_SUCCESS) continue;
            const auto call = [&](const void* send, void* recv, MPI_Op op) {
                return reduction(Through::papshim, reduce, send, recv, count, MPI_INT, op, 0, c.comm);
            };
            // A Reduce's non-roots may leave before the root checks anything: the root's error.
            const auto expect_error = [&](int rc, const char* what) {
                ++t.cases;
                if (rc == MPI_SUCCESS && (!reduce || c.rank == 0))
                    report(fmt::format("{} {} with {}: returned success", collective, algorithm, what));
            };
            expect_error(call(in.data(), out.data(), MPI_MINLOC), "MPI_MINLOC on MPI_INT");
            // Not for a Reduce: its receive buffer matters at the root only, so the error is the
            // root's alone, and the others may wait for it (as under some native algorithms).
            if (!reduce) expect_error(call(in.data(), MPI_IN_PLACE, MPI_SUM), "an in-place receive buffer");
            std::vector<int> expected(count);
            reduction(Through::native, reduce, in.data(), expected.data(), count, MPI_INT, MPI_SUM, 0, c.comm);
            std::fill(out.begin(), out.end(), -1);
            ++t.cases;
            if (call(in.data(), out.data(), MPI_SUM) != MPI_SUCCESS || ((!reduce || c.rank == 0) && out != expected))
                report(fmt::format("{} {}: the call after the rejected ones differs from native", collective, algorithm));
        }
        papshim_set_algorithm(c.comm, collective, "native");
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_free(&c.comm);
}

// Arguments that may differ between the ranks of one call, under every algorithm, against
// native with the same arguments:
// - a user op with MPI_INT on even ranks and a duplicate of MPI_INT on odd ones (MPI needs
//   only equal type signatures). papshim decided from each rank's own type whether the node's
//   shared-memory slots applied (and, under PAPSHIM_REPRODUCIBLE=1, whether the data was
//   floating point): the ranks ran different protocols and hung.
// - Open MPI: an Allreduce of one element whose send buffer is its receive buffer on rank 0
//   alone, which Open MPI accepts. papshim sent rank 0 to native and the others hung.
void mixed_arguments(const Kinds& kinds, Tally& t) {
    Comm c = world_dup();
    MPI_Datatype int_dup = MPI_DATATYPE_NULL;
    MPI_Type_dup(MPI_INT, &int_dup);
    const MPI_Datatype mine = c.rank % 2 ? int_dup : MPI_INT;
    const auto report = [&](const std::string& what) {
        ++t.failures;
        if (t.printed++ < 20) fmt::print(stderr, "FAIL mixed arguments p={} rank={}: {}\n", c.size, c.rank, what);
    };
    // Odd ranks late, so that an even rank leads the dynamic leader.
    const auto odd_late = [&] { if (c.rank % 2) std::this_thread::sleep_for(std::chrono::milliseconds(2)); };
    for (const char* collective : {"reduce", "allreduce"}) {
        const bool reduce = std::string(collective) == "reduce";
        for (const std::string& algorithm : algorithms_of(collective)) {
            if (papshim_set_algorithm(c.comm, collective, algorithm.c_str()) != MPI_SUCCESS) continue;
            for (int count : {1, 4096}) {  // 4096 ints fit a slot
                const std::size_t n = std::size_t(count);
                std::vector<int> in(n), expected(n, -1), actual(n, -2);
                for (int i = 0; i < count; ++i) in[std::size_t(i)] = c.rank * 5 + i;
                reduction(Through::native, reduce, in.data(), expected.data(), count, mine, kinds.mod_sum, 0, c.comm);
                odd_late();
                reduction(Through::papshim, reduce, in.data(), actual.data(), count, mine, kinds.mod_sum, 0, c.comm);
                ++t.cases;
                if ((!reduce || c.rank == 0) && actual != expected)
                    report(fmt::format("{} {}, user op, count {}: differs from native", collective, algorithm, count));
            }
#ifdef OPEN_MPI
            if (!reduce) {
                const auto aliased_on_rank0 = [&](auto allreduce) {
                    int value = c.rank + 1, result = 0;
                    if (c.rank == 0) {
                        allreduce(&value, &value, 1, MPI_INT, MPI_SUM, c.comm);
                        return value;
                    }
                    allreduce(&value, &result, 1, MPI_INT, MPI_SUM, c.comm);
                    return result;
                };
                const int expected = aliased_on_rank0(PMPI_Allreduce);
                odd_late();
                const int actual = aliased_on_rank0(MPI_Allreduce);
                ++t.cases;
                if (actual != expected)
                    report(fmt::format("allreduce {}, buffers aliased on rank 0: {}, native {}", algorithm, actual, expected));
            }
#endif
        }
        papshim_set_algorithm(c.comm, collective, "native");
    }
    MPI_Type_free(&int_dup);
    MPI_Comm_free(&c.comm);
}

// The matrix on world, a reversed and a split sub-communicator.
void run_all(const Kinds& kinds, int world_size, int world_rank, Tally& t) {
    MPI_Comm world = MPI_COMM_NULL, reversed = MPI_COMM_NULL, parity = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &world);
    MPI_Comm_split(MPI_COMM_WORLD, 0, world_size - 1 - world_rank, &reversed);
    MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, world_rank, &parity);
    const std::vector<Comm> comms = {make("world", world), make("reversed", reversed),
                                     make(world_rank % 2 ? "odd" : "even", parity)};
    for (const auto& c : comms) run_comm(c, kinds, c.comm == world, world_size, t);
    MPI_Comm_free(&world);
    MPI_Comm_free(&reversed);
    MPI_Comm_free(&parity);
}

// Communicators the program never frees, overlapping on every node and each with a node
// window (the dynamic leader ran on it): MPI_Finalize frees their contexts, collectively over
// each node, so in the same order on every rank. It freed them in pointer order, which
// differed between ranks, and two ranks of a node waited in MPI_Win_free for each other.
void leave_for_finalize(int world_size, int world_rank, Tally& t) {
    const int keys[][2] = {{0, world_rank}, {world_rank / 2, world_rank}, {world_rank % 2, world_rank},
                           {0, world_size - world_rank}};
    for (const auto& [colour, key] : keys) {
        MPI_Comm comm = MPI_COMM_NULL;
        MPI_Comm_split(MPI_COMM_WORLD, colour, key, &comm);
        int size = 0;
        MPI_Comm_size(comm, &size);
        if (papshim_set_algorithm(comm, "allreduce", "dynamic_leader") != MPI_SUCCESS) continue;
        std::vector<int> in(4096, 1), out(in.size(), 0);
        MPI_Allreduce(in.data(), out.data(), int(in.size()), MPI_INT, MPI_SUM, comm);
        ++t.cases;
        if (std::any_of(out.begin(), out.end(), [size](int v) { return v != size; })) {
            ++t.failures;
            fmt::print(stderr, "FAIL rank {}: dynamic_leader on a communicator left for MPI_Finalize\n", world_rank);
        }
    }
}

}  // namespace

// test_reduction                 the matrix on world and two sub-communicators
// test_reduction --soak SECONDS  back-to-back random calls
// test_reduction --threads       two threads on two communicators at once
// test_reduction --reproducible  under PAPSHIM_REPRODUCIBLE=1: floating point stays in fixed order,
//                                whatever the arrivals; symmetric_shm's edges
// test_reduction --auto-small    under PAPSHIM_ALLREDUCE=auto: what auto runs up to 1 KiB on one
//                                node (symmetric_shm where cores are shared, else native)
int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "";
    int provided = 0;
    MPI_Init_thread(&argc, &argv, mode == "--threads" ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
    if (mode == "--threads" && provided < MPI_THREAD_MULTIPLE) {
        fmt::print(stderr, "MPI_THREAD_MULTIPLE is not provided\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int world_size = 0, world_rank = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    Tally t;
    {
        const Kinds kinds;
        if (mode == "--soak") {
            soak(kinds, argc > 2 ? std::atof(argv[2]) : 30.0, t);
        } else if (mode == "--threads") {
            threads(kinds, t);
        } else if (mode == "--auto-small") {
            auto_small(t);
        } else if (mode == "--reproducible") {
            reproducible(t);
            reproducible_arrivals(t);
            symmetric_edges(t);
            mixed_arguments(kinds, t);
        } else {
            run_all(kinds, world_size, world_rank, t);
            rejected_calls(t);
            padded_pairs(t);
            mixed_arguments(kinds, t);
            leave_for_finalize(world_size, world_rank, t);
        }
    }
    long failures = 0;
    MPI_Allreduce(&t.failures, &failures, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (world_rank == 0)
        fmt::print("reduction through papshim, p={}: {} cases on rank 0 ({} ran papshim's own code), {} failing "
                   "case-ranks\n", world_size, t.cases, t.own, failures);
    MPI_Finalize();
    return failures == 0 ? 0 : 1;
}
