/* Call-site end-to-end test (tests/pmpi/e2e_callsite.py): MPI_Bcast from main on a line marked for
 * the test, MPI_Scatter from a shared library (callsite_lib.c). Prints
 * "E2E calls=N errors=E colls=bcast,scatter" on rank 0. */
#include <mpi.h>
#include <stdio.h>

int callsite_lib_scatter(int root, MPI_Comm comm);

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int errors = 0, calls = 0;
  for (int round = 0; round < 4; ++round) {
    const int root = round % size;
    int buf[256];
    for (int i = 0; i < 256; ++i) buf[i] = rank == root ? i * 3 + round : -1;
    MPI_Bcast(buf, 256, MPI_INT, root, MPI_COMM_WORLD); /* CALLSITE-BCAST */
    for (int i = 0; i < 256; ++i) errors += buf[i] != i * 3 + round;
    errors += callsite_lib_scatter(root, MPI_COMM_WORLD);
    calls += 2;
  }
  int total = 0;
  MPI_Reduce(&errors, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("E2E calls=%d errors=%d colls=bcast,scatter\n", calls, total);
  MPI_Finalize();
  return total != 0;
}
