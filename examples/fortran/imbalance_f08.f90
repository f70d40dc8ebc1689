! The Fortran imbalance example through the `use mpi_f08` module; the body is shared with
! imbalance.f90 (use mpi) and imbalance_mpifh.f90 (mpif.h).
program imbalance_f08
  use mpi_f08
  use, intrinsic :: iso_c_binding, only: c_int
  use, intrinsic :: iso_fortran_env, only: int64
  implicit none
#include "imbalance_body.inc"
end program imbalance_f08
