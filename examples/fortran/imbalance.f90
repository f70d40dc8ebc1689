! The Fortran imbalance example through the `use mpi` module; the body is shared with
! imbalance_mpifh.f90 (mpif.h).
program imbalance_f90
  use mpi
  use, intrinsic :: iso_c_binding, only: c_int
  use, intrinsic :: iso_fortran_env, only: int64
  implicit none
#include "imbalance_body.inc"
end program imbalance_f90
