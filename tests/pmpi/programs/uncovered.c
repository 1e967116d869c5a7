/* Calls collectives collsel does not serve, and checks every value they deliver: with the
   pass-through wrappers preloaded the results must be what MPI computes. N_ALLREDUCE Allreduces of
   one int, N_ALLTOALLV Alltoallvs (rank r sends r + 1 ints to each peer), N_IBCAST Ibcasts from
   rank 0, completed by MPI_Wait; one MPI_Bcast, which collsel serves; then N_BEFORE_SERVING
   Bcasts, each on a new duplicate of MPI_COMM_WORLD used once, which collsel leaves to MPI before
   the communicator's [runtime] serve_from_call-th call (2 by default) and counts. Prints the E2E
   verdict line of tests/pmpi/e2e.py and "UNCOVERED allreduce=.. alltoallv=.. ibcast=..
   before_serving=.." with the call counts. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { N_ALLREDUCE = 7, N_ALLTOALLV = 5, N_IBCAST = 3, N_BEFORE_SERVING = 4 };

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long errors = 0, calls = 0;

  for (int i = 0; i < N_ALLREDUCE; ++i, ++calls) {
    int mine = rank + i, sum = -1;
    MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    errors += sum != size * (size - 1) / 2 + size * i;
  }

  int* sendcounts = malloc(sizeof(int) * (size_t)size);
  int* recvcounts = malloc(sizeof(int) * (size_t)size);
  int* sdispls = malloc(sizeof(int) * (size_t)size);
  int* rdispls = malloc(sizeof(int) * (size_t)size);
  int* sendbuf = malloc(sizeof(int) * (size_t)size * (size_t)(rank + 1));
  int total = 0;
  for (int p = 0; p < size; ++p) {
    sendcounts[p] = rank + 1;
    sdispls[p] = p * (rank + 1);
    recvcounts[p] = p + 1;
    rdispls[p] = total;
    total += p + 1;
  }
  int* recvbuf = malloc(sizeof(int) * (size_t)total);
  for (int i = 0; i < N_ALLTOALLV; ++i, ++calls) {
    for (int p = 0; p < size; ++p) {
      for (int k = 0; k <= rank; ++k) sendbuf[sdispls[p] + k] = 1000 * rank + 10 * p + k + i;
    }
    MPI_Alltoallv(sendbuf, sendcounts, sdispls, MPI_INT, recvbuf, recvcounts, rdispls, MPI_INT,
                  MPI_COMM_WORLD);
    for (int p = 0; p < size; ++p) {
      for (int k = 0; k <= p; ++k) errors += recvbuf[rdispls[p] + k] != 1000 * p + 10 * rank + k + i;
    }
  }

  for (int i = 0; i < N_IBCAST; ++i, ++calls) {
    int value[4] = {-1, -1, -1, -1};
    if (rank == 0) {
      for (int k = 0; k < 4; ++k) value[k] = 17 * i + k;
    }
    MPI_Request request;
    MPI_Ibcast(value, 4, MPI_INT, 0, MPI_COMM_WORLD, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    for (int k = 0; k < 4; ++k) errors += value[k] != 17 * i + k;
  }

  int token = rank == 0 ? 42 : 0;
  MPI_Bcast(&token, 1, MPI_INT, 0, MPI_COMM_WORLD);
  errors += token != 42;
  ++calls;
  for (int i = 0; i < N_BEFORE_SERVING; ++i) {
    MPI_Comm once;
    MPI_Comm_dup(MPI_COMM_WORLD, &once);
    int value = rank == 0 ? 100 + i : 0;
    MPI_Bcast(&value, 1, MPI_INT, 0, once);
    errors += value != 100 + i;
    MPI_Comm_free(&once);
  }

  free(sendcounts);
  free(recvcounts);
  free(sdispls);
  free(rdispls);
  free(sendbuf);
  free(recvbuf);
  long all_errors = 0;
  MPI_Reduce(&errors, &all_errors, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("E2E calls=%ld errors=%ld colls=bcast\n", calls, all_errors);
    printf("UNCOVERED allreduce=%d alltoallv=%d ibcast=%d before_serving=%d\n", N_ALLREDUCE,
           N_ALLTOALLV, N_IBCAST, N_BEFORE_SERVING);
  }
  MPI_Finalize();
  return all_errors == 0 ? 0 : 1;
}
