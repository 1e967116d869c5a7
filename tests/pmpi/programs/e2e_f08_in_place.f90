! End-to-end Fortran 2008 program (use mpi_f08) passing MPI_IN_PLACE: Scatter in place at the root
! and Alltoall in place. Under Open MPI the shim converts the Fortran sentinel itself
! (pmpi/fortran_entry.cpp); under MPICH its binding does. Prints "E2E calls=2 errors=E ...".
program e2e_f08_in_place
  use mpi_f08
  implicit none
  integer :: rank, nranks, i, errors, total
  integer, allocatable :: all(:), got(:)
  integer :: mine(4)
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  allocate(all(4 * nranks))
  all = [(i, i = 1, 4 * nranks)]
  errors = 0
  if (rank == 0) then
    call MPI_Scatter(all, 4, MPI_INTEGER, MPI_IN_PLACE, 4, MPI_INTEGER, 0, MPI_COMM_WORLD)
  else
    mine = -1
    call MPI_Scatter(all, 4, MPI_INTEGER, mine, 4, MPI_INTEGER, 0, MPI_COMM_WORLD)
    do i = 1, 4
      if (mine(i) /= rank * 4 + i) errors = errors + 1
    end do
  end if
  ! In-place alltoall: block j of rank r becomes r*1000 + j on arrival at j.
  allocate(got(nranks))
  got = [(rank * 1000 + i - 1, i = 1, nranks)]
  call MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, got, 1, MPI_INTEGER, MPI_COMM_WORLD)
  do i = 1, nranks
    if (got(i) /= (i - 1) * 1000 + rank) errors = errors + 1
  end do
  total = 0
  call MPI_Reduce(errors, total, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD)
  if (rank == 0) print '(A,I0,A)', 'E2E calls=2 errors=', total, ' colls=scatter,alltoall'
  call MPI_Finalize()
  if (total /= 0) stop 1
end program e2e_f08_in_place
