! Call-site end-to-end test (tests/pmpi/e2e_callsite.py): MPI_BCAST through the Fortran binding
! (libmpifort's mpi_bcast_, skipped like the shim's frames) on the marked line.
! Prints "E2E calls=N errors=E colls=bcast" on rank 0.
program callsite_f
  use mpi
  implicit none
  integer, parameter :: n = 256
  integer :: ierr, rank, nranks, root, round, i, errors, total, calls
  integer :: buf(n)

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nranks, ierr)
  errors = 0
  calls = 0
  do round = 0, 3
    root = mod(round, nranks)
    if (rank == root) then
      buf = [(i * 3 + round, i = 1, n)]
    else
      buf = -1
    end if
    call MPI_BCAST(buf, n, MPI_INTEGER, root, MPI_COMM_WORLD, ierr) ! CALLSITE-BCAST
    do i = 1, n
      if (buf(i) /= i * 3 + round) errors = errors + 1
    end do
    calls = calls + 1
  end do
  ! Only rank 0 receives the sum: every other rank must start from 0, or it may stop 1 on garbage.
  total = 0
  call MPI_REDUCE(errors, total, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(A,I0,A,I0,A)', 'E2E calls=', calls, ' errors=', total, ' colls=bcast'
  call MPI_FINALIZE(ierr)
  if (total /= 0) stop 1
end program callsite_f
