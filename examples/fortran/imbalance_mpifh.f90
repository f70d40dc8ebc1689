! The Fortran imbalance example through `include 'mpif.h'`; the body is shared with
! imbalance.f90 (use mpi).
program imbalance_mpifh
  use, intrinsic :: iso_c_binding, only: c_int
  use, intrinsic :: iso_fortran_env, only: int64
  implicit none
  include 'mpif.h'
#include "imbalance_body.inc"
end program imbalance_mpifh
