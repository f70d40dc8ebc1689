#include "builtin_ops.hpp"

#include <array>
#include <cstddef>
#include <type_traits>
#include <utility>
#include <vector>

#include "papshim/runtime.hpp"

namespace papshim::interpose {
namespace {

using Types = std::vector<MPI_Datatype>;

bool one_of(MPI_Datatype type, const Types& types) {
    for (MPI_Datatype t : types)
        if (t != MPI_DATATYPE_NULL && t == type) return true;  // a type the MPI lacks may be NULL
    return false;
}

// The groups of MPI 4.0 §6.9.2.
const Types& c_integers() {
    static const Types types{MPI_INT, MPI_LONG, MPI_SHORT, MPI_UNSIGNED_SHORT, MPI_UNSIGNED, MPI_UNSIGNED_LONG,
                             MPI_LONG_LONG_INT, MPI_LONG_LONG, MPI_UNSIGNED_LONG_LONG, MPI_SIGNED_CHAR,
                             MPI_UNSIGNED_CHAR, MPI_INT8_T, MPI_INT16_T, MPI_INT32_T, MPI_INT64_T, MPI_UINT8_T,
                             MPI_UINT16_T, MPI_UINT32_T, MPI_UINT64_T, MPI_AINT, MPI_OFFSET, MPI_COUNT};
    return types;
}
const Types& fortran_integers() {
    static const Types types{MPI_INTEGER, MPI_INTEGER1, MPI_INTEGER2, MPI_INTEGER4, MPI_INTEGER8};
    return types;
}
const Types& floating_types() {
    static const Types types{MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_REAL, MPI_DOUBLE_PRECISION, MPI_REAL4,
                             MPI_REAL8, MPI_REAL16};
    return types;
}
const Types& logical_types() {
    static const Types types{MPI_LOGICAL, MPI_C_BOOL, MPI_CXX_BOOL};
    return types;
}
const Types& complex_types() {
    static const Types types{MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX, MPI_C_LONG_DOUBLE_COMPLEX,
                             MPI_CXX_FLOAT_COMPLEX, MPI_CXX_DOUBLE_COMPLEX, MPI_CXX_LONG_DOUBLE_COMPLEX,
                             MPI_COMPLEX, MPI_DOUBLE_COMPLEX, MPI_COMPLEX8, MPI_COMPLEX16, MPI_COMPLEX32};
    return types;
}
const Types& value_index_pairs() {
    static const Types types{MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT, MPI_2INT, MPI_SHORT_INT,
                             MPI_LONG_DOUBLE_INT, MPI_2REAL, MPI_2DOUBLE_PRECISION, MPI_2INTEGER};
    return types;
}

// The operations MPI defines for reductions (MPI_REPLACE and MPI_NO_OP are for one-sided
// accumulates only).
std::array<MPI_Op, 12> reduction_ops() {
    return {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND, MPI_BAND, MPI_LOR, MPI_BOR, MPI_LXOR, MPI_BXOR,
            MPI_MAXLOC, MPI_MINLOC};
}

// Whether MPI 4.0 §6.9.2 defines `op` for `type`.
bool defined_by_standard(MPI_Op op, MPI_Datatype type) {
    const bool c_integer = one_of(type, c_integers());
    const bool integer = c_integer || one_of(type, fortran_integers());
    if (op == MPI_MAX || op == MPI_MIN) return integer || one_of(type, floating_types());
    if (op == MPI_SUM || op == MPI_PROD) return integer || one_of(type, floating_types()) || one_of(type, complex_types());
    if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR) return c_integer || one_of(type, logical_types());
    if (op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR) return integer || type == MPI_BYTE;
    if (op == MPI_MAXLOC || op == MPI_MINLOC) return one_of(type, value_index_pairs());
    return false;
}

// Pairs the standard defines but this MPI library refuses (MPICH 4.0.2 built without a
// REAL*16 C type has no MPI_SUM for MPI_COMPLEX32: its native call returns MPI_ERR_OP on every
// rank, where papshim's PMPI_Reduce_local failed on some ranks halfway through a schedule).
// Written once at MPI_Init, before any other thread calls MPI; read-only after.
std::vector<std::pair<MPI_Op, MPI_Datatype>> refused_by_library;

}  // namespace

bool predefined_op(MPI_Op op) {
    for (MPI_Op o : reduction_ops())
        if (o == op) return true;
    return op == MPI_REPLACE || op == MPI_NO_OP;
}

// The pair this thread's last call was accepted with: a loop reduces the same one call after
// call, and the standard's tables are some forty comparisons.
struct Accepted {
    MPI_Op op{};
    MPI_Datatype type{};
    bool set = false;
};
static_assert(std::is_trivially_destructible_v<Accepted>, "PAPSHIM_STARTUP_TLS");
PAPSHIM_STARTUP_TLS thread_local Accepted last_accepted;

bool builtin_op_accepts(MPI_Op op, MPI_Datatype type) {
    Accepted& last = last_accepted;
    if (last.set && last.op == op && last.type == type) return true;
    if (!defined_by_standard(op, type)) return false;
    for (const auto& [o, t] : refused_by_library)
        if (o == op && t == type) return false;
    last = {op, type, true};
    return true;
}

void probe_builtin_ops() {
    // MPI_Reduce_local has no communicator: its errors go to MPI_COMM_WORLD's handler (MPI
    // 3.1) or MPI_COMM_SELF's (MPI 4.0), fatal by default. Both return errors for the probe.
    MPI_Errhandler world = MPI_ERRHANDLER_NULL, self = MPI_ERRHANDLER_NULL;
    PMPI_Comm_get_errhandler(MPI_COMM_WORLD, &world);
    PMPI_Comm_get_errhandler(MPI_COMM_SELF, &self);
    PMPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    PMPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    alignas(64) std::byte in[64] = {}, inout[64] = {};  // one element of any predefined type
    static const Types bytes{MPI_BYTE};
    for (const Types* group : {&c_integers(), &fortran_integers(), &floating_types(), &logical_types(),
                               &complex_types(), &value_index_pairs(), &bytes}) {
        for (MPI_Datatype type : *group) {
            MPI_Aint lb = 0, extent = 0;
            if (type == MPI_DATATYPE_NULL || PMPI_Type_get_extent(type, &lb, &extent) != MPI_SUCCESS ||
                lb != 0 || extent <= 0 || extent > MPI_Aint(sizeof in))
                continue;
            for (MPI_Op op : reduction_ops())
                if (defined_by_standard(op, type) && PMPI_Reduce_local(in, inout, 1, type, op) != MPI_SUCCESS)
                    refused_by_library.emplace_back(op, type);
        }
    }
#ifdef PAPSHIM_OPEN_MPI
    // Open MPI 4.1's operations on its 16-byte reals (REAL*16, COMPLEX*32) give different bits
    // with the operands swapped: its own result is wrong but alike everywhere, papshim's
    // combination order made ranks of one Allreduce disagree. Left to it.
    for (MPI_Datatype type : {MPI_REAL16, MPI_COMPLEX32})
        if (type != MPI_DATATYPE_NULL)
            for (MPI_Op op : reduction_ops())
                if (defined_by_standard(op, type)) refused_by_library.emplace_back(op, type);
#endif
    PMPI_Comm_set_errhandler(MPI_COMM_WORLD, world);
    PMPI_Comm_set_errhandler(MPI_COMM_SELF, self);
    PMPI_Errhandler_free(&world);
    PMPI_Errhandler_free(&self);
}

}  // namespace papshim::interpose
