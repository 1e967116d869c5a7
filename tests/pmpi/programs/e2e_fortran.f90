! End-to-end Fortran program (use mpi): MPI_BCAST and MPI_SCATTER, the latter in place at the
! root, from every root, and MPI_ALLTOALL. Prints "E2E calls=N errors=E colls=..." on rank 0.
program e2e_fortran
  use mpi
  implicit none
  integer, parameter :: n = 3000
  integer :: ierr, rank, nranks, root, i, errors, total, calls
  integer, allocatable :: all(:), got(:)
  integer :: src
  integer :: buf(n), mine(n)

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nranks, ierr)
  allocate(all(n * nranks), got(n * nranks))
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
    ! Element i of the block from rank src to rank d is src * 100003 + d * 7 + i + root.
    do src = 0, nranks - 1
      all(src * n + 1 : src * n + n) = [(rank * 100003 + src * 7 + i + root, i = 1, n)]
    end do
    got = -1
    call MPI_ALLTOALL(all, n, MPI_INTEGER, got, n, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    do src = 0, nranks - 1
      do i = 1, n
        if (got(src * n + i) /= src * 100003 + rank * 7 + i + root) errors = errors + 1
      end do
    end do
    calls = calls + 3
  end do
  ! Only rank 0 receives the sum: every other rank must start from 0, or it may stop 1 on garbage.
  total = 0
  call MPI_REDUCE(errors, total, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(A,I0,A,I0,A)', 'E2E calls=', calls, ' errors=', total, &
                        ' colls=bcast,scatter,alltoall'
  call MPI_FINALIZE(ierr)
  if (total /= 0) stop 1
end program e2e_fortran
