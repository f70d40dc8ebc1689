! A traced Fortran job that dies: every rank makes Allreduce calls; after CALLS calls rank
! RANK calls MPI_Abort (Open MPI's Fortran binding calls PMPI_Abort directly, so papshim
! needs its own Fortran entry to save the trace first). Built twice: with `use mpi`
! (abort_after_f90) and with USE_MPI_F08 defined, `use mpi_f08` (abort_after_f08, whose
! MPI_Abort calls PMPI_Abort on MPICH too).
! usage: abort_after_f90 CALLS RANK
program abort_after_f90
#ifdef USE_MPI_F08
    use mpi_f08
#else
    use mpi
#endif
    implicit none
    integer :: ierr, rank, dying, call_index, calls
    double precision :: value, total
    character(len=32) :: argument

    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call get_command_argument(1, argument)
    read (argument, *) calls
    call get_command_argument(2, argument)
    read (argument, *) dying
    call_index = 0
    do
        if (rank == dying .and. call_index == calls) then
            print '(a,i0,a,i0,a)', 'rank ', rank, ': ', calls, ' calls made, now abort'
            flush (6)
            call MPI_Abort(MPI_COMM_WORLD, 3, ierr)
        end if
        value = call_index
        call MPI_Allreduce(value, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
        call_index = call_index + 1
    end do
end program abort_after_f90
