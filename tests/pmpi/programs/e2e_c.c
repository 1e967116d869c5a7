/* End-to-end C program: Bcast, Scatter and Alltoall on MPI_COMM_WORLD, on a duplicate that is
   freed (the shim's context must go with it), an in-place Scatter and an in-place Alltoall; then a Bcast across an
   intercommunicator, which collsel leaves to the MPI library (not counted in N). Checks every
   value; prints "E2E calls=N errors=E" on rank 0, where N is the number of calls per rank that
   collsel serves and logs, followed by the collectives it called, and "E2E first_calls=F": of
   the N, the first call on the duplicate, which the default [runtime] serve_from_call = 2 leaves
   to the MPI library and counts without a record (a forced algorithm is served from it). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long errors = 0, calls = 0;
  const int sizes[] = {0, 1, 100, 5000, 70000};
  int* buf = malloc(sizeof(int) * 70000 * (size_t)size);
  int* mine = malloc(sizeof(int) * 70000);
  int* out = malloc(sizeof(int) * 70000 * (size_t)size);
  for (int round = 0; round < 2; ++round) {
    MPI_Comm comm = MPI_COMM_WORLD;
    if (round == 1) MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    for (int s = 0; s < 5; ++s) {
      int n = sizes[s], root = (s + round) % size;
      for (int i = 0; i < n; ++i) buf[i] = rank == root ? i * 3 + root : -1;
      MPI_Bcast(buf, n, MPI_INT, root, comm);
      for (int i = 0; i < n; ++i) errors += buf[i] != i * 3 + root;
      if (rank == root) for (int i = 0; i < n * size; ++i) buf[i] = i + 11;
      MPI_Scatter(buf, n, MPI_INT, rank == root ? MPI_IN_PLACE : mine, n, MPI_INT, root, comm);
      const int* got = rank == root ? buf + (size_t)rank * n : mine;
      for (int i = 0; i < n; ++i) errors += got[i] != rank * n + i + 11;
      /* Alltoall: element i of the block from rank r to rank d is r * 1000003 + d * 7 + i;
         the duplicate's round runs it in place. */
      int* in = round == 1 ? out : buf;
      for (int d = 0; d < size; ++d)
        for (int i = 0; i < n; ++i) in[(size_t)d * n + i] = rank * 1000003 + d * 7 + i;
      if (round == 1) {
        MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, n, MPI_INT, comm);
      } else {
        MPI_Alltoall(buf, n, MPI_INT, out, n, MPI_INT, comm);
      }
      for (int r = 0; r < size; ++r)
        for (int i = 0; i < n; ++i) errors += out[(size_t)r * n + i] != r * 1000003 + rank * 7 + i;
      calls += 3;
    }
    if (round == 1) MPI_Comm_free(&comm);
  }
  if (size >= 2) {
    /* Two halves joined by an intercommunicator; the lower half's rank 0 broadcasts to the upper
       half (MPI_ROOT / MPI_PROC_NULL on the sending side). */
    MPI_Comm half, inter;
    int low = rank < size / 2, hrank;
    MPI_Comm_split(MPI_COMM_WORLD, low, rank, &half);
    MPI_Comm_rank(half, &hrank);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, low ? size / 2 : 0, 99, &inter);
    int value = low && hrank == 0 ? 4242 : -1;
    int root = low ? (hrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    MPI_Bcast(&value, 1, MPI_INT, root, inter);
    if (!low) errors += value != 4242;
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
  }
  long total = 0;
  MPI_Reduce(&errors, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("E2E calls=%ld errors=%ld colls=bcast,scatter,alltoall\n", calls, total);
    printf("E2E first_calls=1\n");
  }
  free(out);
  free(buf);
  free(mine);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
