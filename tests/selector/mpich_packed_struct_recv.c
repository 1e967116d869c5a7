/* Reproduces, without collsel, the MPICH 4.0.2 (Debian 12, ch4:ucx) failure that makes the
   differential test use a packed reference for in-place Alltoall of the struct family: a message
   sent as MPI_PACKED (or MPI_BYTE) of n * 13 bytes, received as n elements of the resized struct
   {char; double; int}, aborts with "Message truncated" from n = 635 on (634 works). Struct to
   struct works at any n. MPI_Sendrecv_replace, and so MPICH's own in-place MPI_Alltoall, fail
   the same way.
     mpicc mpich_packed_struct_recv.c -o p && mpiexec -n 2 ./p 635 0   -> Abort ... truncated
     mpiexec -n 2 ./p 634 0                                            -> ok
   Second argument: how rank 0 sends (0 MPI_PACKED, 1 MPI_BYTE, 2 the struct type). Not run by
   CTest. */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

struct Holey {
  char c;
  double d;
  int i;
};

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int n = argc > 1 ? atoi(argv[1]) : 635;
  const int how = argc > 2 ? atoi(argv[2]) : 0;
  int lengths[3] = {1, 1, 1};
  MPI_Aint displs[3] = {offsetof(struct Holey, c), offsetof(struct Holey, d),
                        offsetof(struct Holey, i)};
  MPI_Datatype types[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
  MPI_Datatype s, t;
  MPI_Type_create_struct(3, lengths, displs, types, &s);
  MPI_Type_create_resized(s, 0, sizeof(struct Holey), &t);
  MPI_Type_commit(&t);
  char* buf = calloc((size_t)n, sizeof(struct Holey));
  if (rank == 0) {
    if (how == 2) {
      MPI_Send(buf, n, t, 1, 0, MPI_COMM_WORLD);
    } else {
      MPI_Send(buf, n * 13, how == 0 ? MPI_PACKED : MPI_BYTE, 1, 0, MPI_COMM_WORLD);
    }
  } else if (rank == 1) {
    MPI_Recv(buf, n, t, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("ok n=%d how=%d\n", n, how);
  }
  free(buf);
  MPI_Type_free(&t);
  MPI_Type_free(&s);
  MPI_Finalize();
  return 0;
}
