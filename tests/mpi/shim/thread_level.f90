! MPI_Query_thread from Fortran reports the level MPI_Init_thread gave the program, not the
! MPI_THREAD_MULTIPLE papshim raises underneath for bdr (Open MPI's Fortran binding calls
! PMPI_Query_thread, past papshim's C override).
program thread_level
  use mpi
  implicit none
  integer :: provided, queried, ierr
  call MPI_Init_thread(MPI_THREAD_SINGLE, provided, ierr)
  call MPI_Query_thread(queried, ierr)
  if (queried /= provided) then
    print '(a, i0, a, i0)', 'MPI_Query_thread says ', queried, ' where MPI_Init_thread gave ', provided
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  call MPI_Finalize(ierr)
end program thread_level
