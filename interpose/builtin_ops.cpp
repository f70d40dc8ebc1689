#include "builtin_ops.hpp"

#include <initializer_list>

namespace papshim::interpose {
namespace {

bool one_of(MPI_Datatype type, std::initializer_list<MPI_Datatype> types) {
    for (MPI_Datatype t : types)
        if (t != MPI_DATATYPE_NULL && t == type) return true;  // a type the MPI lacks may be NULL
    return false;
}

// The groups of MPI 4.0 §6.9.2.
bool c_integer(MPI_Datatype t) {
    return one_of(t, {MPI_INT, MPI_LONG, MPI_SHORT, MPI_UNSIGNED_SHORT, MPI_UNSIGNED, MPI_UNSIGNED_LONG,
                      MPI_LONG_LONG_INT, MPI_LONG_LONG, MPI_UNSIGNED_LONG_LONG, MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR,
                      MPI_INT8_T, MPI_INT16_T, MPI_INT32_T, MPI_INT64_T, MPI_UINT8_T, MPI_UINT16_T, MPI_UINT32_T,
                      MPI_UINT64_T, MPI_AINT, MPI_OFFSET, MPI_COUNT});
}
bool fortran_integer(MPI_Datatype t) {
    return one_of(t, {MPI_INTEGER, MPI_INTEGER1, MPI_INTEGER2, MPI_INTEGER4, MPI_INTEGER8});
}
bool floating(MPI_Datatype t) {
    return one_of(t, {MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_REAL, MPI_DOUBLE_PRECISION, MPI_REAL4, MPI_REAL8,
                      MPI_REAL16});
}
bool logical(MPI_Datatype t) { return one_of(t, {MPI_LOGICAL, MPI_C_BOOL, MPI_CXX_BOOL}); }
bool complex(MPI_Datatype t) {
    return one_of(t, {MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX, MPI_C_LONG_DOUBLE_COMPLEX, MPI_CXX_FLOAT_COMPLEX,
                      MPI_CXX_DOUBLE_COMPLEX, MPI_CXX_LONG_DOUBLE_COMPLEX, MPI_COMPLEX, MPI_DOUBLE_COMPLEX,
                      MPI_COMPLEX8, MPI_COMPLEX16, MPI_COMPLEX32});
}
bool value_index_pair(MPI_Datatype t) {
    return one_of(t, {MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT, MPI_2INT, MPI_SHORT_INT, MPI_LONG_DOUBLE_INT,
                      MPI_2REAL, MPI_2DOUBLE_PRECISION, MPI_2INTEGER});
}

}  // namespace

bool predefined_op(MPI_Op op) {
    for (MPI_Op o : {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND, MPI_BAND, MPI_LOR, MPI_BOR, MPI_LXOR, MPI_BXOR,
                     MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE, MPI_NO_OP})
        if (o == op) return true;
    return false;
}

bool builtin_op_accepts(MPI_Op op, MPI_Datatype type) {
    const bool integer = c_integer(type) || fortran_integer(type);
    if (op == MPI_MAX || op == MPI_MIN) return integer || floating(type);
    if (op == MPI_SUM || op == MPI_PROD) return integer || floating(type) || complex(type);
    if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR) return c_integer(type) || logical(type);
    if (op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR) return integer || type == MPI_BYTE;
    if (op == MPI_MAXLOC || op == MPI_MINLOC) return value_index_pair(type);
    return false;  // MPI_REPLACE and MPI_NO_OP are for one-sided accumulates only
}

}  // namespace papshim::interpose
