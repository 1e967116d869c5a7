/* Repeated collectives with one rank's timing skewed, for the self-correction's end-to-end tests
   (tests/pmpi/e2e.py, cases adapt_*). Bcast of 64 KiB, Scatter of 16 KiB per rank and Alltoall of
   4 KiB blocks, ADAPT_CALLS times each (default 120), interleaved; the last rank sleeps a
   pseudo-random 0-2 ms before one call in three, so its local times differ from the others'
   (short: it arrives late; the others wait for it). Every received value is checked. Prints
   "E2E calls=C errors=E colls=bcast,scatter,alltoall". That every rank ran the same algorithm on
   every call is checked by the driver from the logs. Then the same Bcasts on a communicator of
   every rank but world rank 0, whose learning must reach the learned table too (world rank 0
   writes it). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* n_text = getenv("ADAPT_CALLS");
  const long n = n_text ? atol(n_text) : 120;
  const int bcast_bytes = 64 * 1024, scatter_bytes = 16 * 1024, a2a_bytes = 4096;
  unsigned char* bcast_buf = malloc(bcast_bytes);
  unsigned char* scatter_send = malloc((size_t)scatter_bytes * size);
  unsigned char* scatter_recv = malloc(scatter_bytes);
  unsigned char* a2a_send = malloc((size_t)a2a_bytes * size);
  unsigned char* a2a_recv = malloc((size_t)a2a_bytes * size);
  long errors = 0, calls = 0;
  unsigned seed = 12345u;
  for (long i = 0; i < n; ++i) {
    seed = seed * 1103515245u + 12345u;
    if (rank == size - 1 && i % 3 == 0) usleep((seed >> 8) % 2000);
    const unsigned char v = (unsigned char)(i * 7 + 1);
    if (rank == 0) memset(bcast_buf, v, bcast_bytes);
    MPI_Bcast(bcast_buf, bcast_bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (bcast_buf[0] != v || bcast_buf[bcast_bytes - 1] != v) ++errors;

    const int root = (int)(i % size);
    if (rank == root) {
      for (int r = 0; r < size; ++r) memset(scatter_send + (size_t)r * scatter_bytes, v + r, scatter_bytes);
    }
    MPI_Scatter(scatter_send, scatter_bytes, MPI_BYTE, scatter_recv, scatter_bytes, MPI_BYTE, root,
                MPI_COMM_WORLD);
    if (scatter_recv[0] != (unsigned char)(v + rank) ||
        scatter_recv[scatter_bytes - 1] != (unsigned char)(v + rank)) {
      ++errors;
    }

    for (int r = 0; r < size; ++r) memset(a2a_send + (size_t)r * a2a_bytes, v + rank * 16 + r, a2a_bytes);
    MPI_Alltoall(a2a_send, a2a_bytes, MPI_BYTE, a2a_recv, a2a_bytes, MPI_BYTE, MPI_COMM_WORLD);
    for (int r = 0; r < size; ++r) {
      const unsigned char want = (unsigned char)(v + r * 16 + rank);
      if (a2a_recv[(size_t)r * a2a_bytes] != want || a2a_recv[(size_t)(r + 1) * a2a_bytes - 1] != want) {
        ++errors;
      }
    }
    calls += 3;
  }
  MPI_Comm others = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : 1, rank, &others);
  if (others != MPI_COMM_NULL) {
    int sub_rank = 0;
    MPI_Comm_rank(others, &sub_rank);
    for (long i = 0; i < n; ++i) {
      const unsigned char v = (unsigned char)(i * 5 + 3);
      if (sub_rank == 0) memset(bcast_buf, v, bcast_bytes);
      MPI_Bcast(bcast_buf, bcast_bytes, MPI_BYTE, 0, others);
      if (bcast_buf[0] != v || bcast_buf[bcast_bytes - 1] != v) ++errors;
    }
    MPI_Comm_free(&others);
  }
  long all_errors = 0;
  MPI_Reduce(&errors, &all_errors, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("E2E calls=%ld errors=%ld colls=bcast,scatter,alltoall\n", calls, all_errors);
  free(bcast_buf);
  free(scatter_send);
  free(scatter_recv);
  free(a2a_send);
  free(a2a_recv);
  MPI_Finalize();
  return 0;
}
