! thread_level.f90 through `use mpi_f08`: papshim starts from MPI_Init_thread_f08 (which calls
! PMPI_Init_thread on both MPIs): bdr makes it raise the level underneath to
! MPI_THREAD_MULTIPLE (PMPI_Query_thread sees it), while MPI_Query_thread reports the level the
! program was given. The ierror arguments are left out (OPTIONAL in mpi_f08) but one.
program thread_level_f08
  use mpi_f08
  implicit none
  integer :: provided, queried, underneath, ierr
  call MPI_Init_thread(MPI_THREAD_SINGLE, provided, ierr)
  call MPI_Query_thread(queried)
  call PMPI_Query_thread(underneath)
  if (queried /= provided .or. provided /= MPI_THREAD_SINGLE .or. underneath /= MPI_THREAD_MULTIPLE &
      .or. ierr /= MPI_SUCCESS) then
    print '(4(a, i0))', 'MPI_Init_thread gave ', provided, ', MPI_Query_thread says ', queried, &
      ', the MPI library runs at ', underneath, ', ierror ', ierr
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end if
  call MPI_Finalize()
end program thread_level_f08
