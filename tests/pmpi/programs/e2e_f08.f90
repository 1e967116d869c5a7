! End-to-end Fortran 2008 program (use mpi_f08). MPICH's mpi_f08 calls PMPI_Init and PMPI_Finalize
! directly, so this checks the shim's lazy start-up and its finalize-time log flush.
program e2e_f08
  use mpi_f08
  implicit none
  integer, parameter :: n = 500
  integer :: rank, nranks, root, i, errors, total, calls
  integer, allocatable :: all(:), got(:)
  integer :: src
  integer :: buf(n), mine(n)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  allocate(all(n * nranks), got(n * nranks))
  errors = 0
  calls = 0
  do root = 0, nranks - 1
    buf = merge([(i + root, i = 1, n)], [(-1, i = 1, n)], rank == root)
    call MPI_Bcast(buf, n, MPI_INTEGER, root, MPI_COMM_WORLD)
    do i = 1, n
      if (buf(i) /= i + root) errors = errors + 1
    end do
    all = [(i, i = 1, n * nranks)]
    call MPI_Scatter(all, n, MPI_INTEGER, mine, n, MPI_INTEGER, root, MPI_COMM_WORLD)
    do i = 1, n
      if (mine(i) /= rank * n + i) errors = errors + 1
    end do
    do src = 0, nranks - 1
      all(src * n + 1 : src * n + n) = [(rank * 100003 + src * 7 + i + root, i = 1, n)]
    end do
    got = -1
    call MPI_Alltoall(all, n, MPI_INTEGER, got, n, MPI_INTEGER, MPI_COMM_WORLD)
    do src = 0, nranks - 1
      do i = 1, n
        if (got(src * n + i) /= src * 100003 + rank * 7 + i + root) errors = errors + 1
      end do
    end do
    calls = calls + 3
  end do
  ! Only rank 0 receives the sum: every other rank must start from 0, or it may stop 1 on garbage.
  total = 0
  call MPI_Reduce(errors, total, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD)
  if (rank == 0) print '(A,I0,A,I0,A)', 'E2E calls=', calls, ' errors=', total, &
                        ' colls=bcast,scatter,alltoall'
  call MPI_Finalize()
  if (total /= 0) stop 1
end program e2e_f08
