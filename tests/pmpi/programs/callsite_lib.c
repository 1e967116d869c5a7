/* Shared library of the call-site end-to-end test (tests/pmpi/e2e_callsite.py): its MPI_Scatter
 * call must be reported at the marked line of this file, though the library is loaded at a
 * different address in every rank. Returns the number of wrong values received. */
#include <mpi.h>

int callsite_lib_scatter(int root, MPI_Comm comm) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int all[64];
  for (int i = 0; i < size && i < 64; ++i) all[i] = 1000 + i;
  int mine = -1;
  MPI_Scatter(all, 1, MPI_INT, &mine, 1, MPI_INT, root, comm); /* CALLSITE-LIB */
  return mine == 1000 + rank ? 0 : 1;
}
