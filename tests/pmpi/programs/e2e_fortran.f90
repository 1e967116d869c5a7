! End-to-end Fortran program (use mpi): MPI_BCAST and MPI_SCATTER, the latter in place at the
! root, from every root. Prints "E2E calls=N errors=E" on rank 0.
program e2e_fortran
  use mpi
  implicit none
  integer, parameter :: n = 3000
  integer :: ierr, rank, nranks, root, i, errors, total, calls
  integer, allocatable :: all(:)
  integer :: buf(n), mine(n)

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nranks, ierr)
  allocate(all(n * nranks))
  errors = 0
  calls = 0
  do root = 0, nranks - 1
    if (rank == root) then
      buf = [(i * 7 + root, i = 1, n)]
    else
      buf = -1
    end if
    call MPI_BCAST(buf, n, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
    do i = 1, n
      if (buf(i) /= i * 7 + root) errors = errors + 1
    end do
    all = [(i, i = 1, n * nranks)]
    mine = -1
    if (rank == root) then
      call MPI_SCATTER(all, n, MPI_INTEGER, MPI_IN_PLACE, n, MPI_INTEGER, root, &
                       MPI_COMM_WORLD, ierr)
      mine = all(rank * n + 1 : rank * n + n)
    else
      call MPI_SCATTER(all, n, MPI_INTEGER, mine, n, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
    end if
    do i = 1, n
      if (mine(i) /= rank * n + i) errors = errors + 1
    end do
    calls = calls + 2
  end do
  call MPI_REDUCE(errors, total, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(A,I0,A,I0)', 'E2E calls=', calls, ' errors=', total
  call MPI_FINALIZE(ierr)
  if (total /= 0) stop 1
end program e2e_fortran
