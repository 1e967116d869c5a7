/* A plain MPI program, unaware of collsel: broadcasts and scatters over a range of message sizes
   from several roots and checks every byte it receives. Run it under collsel with
     mpiexec -n 4 -genv LD_PRELOAD /path/to/libcollsel.so ./bcast_scatter
   Exit status 0 when every received value was right. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int expected_value(int root, long i) { return (int)((root * 1000003L + i * 7919L) % 1000000007L); }

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int repeats = argc > 1 ? atoi(argv[1]) : 5;
  long max_ints = argc > 2 ? atol(argv[2]) : 256L * 1024; /* 1 MiB of ints */
  long errors = 0, calls = 0;

  int* data = malloc(sizeof(int) * (size_t)max_ints * (size_t)size);
  int* mine = malloc(sizeof(int) * (size_t)max_ints);
  for (long n = 1; n <= max_ints; n *= 4) {
    for (int rep = 0; rep < repeats; ++rep) {
      int root = rep % size;
      for (long i = 0; i < n; ++i) data[i] = rank == root ? expected_value(root, i) : -1;
      MPI_Bcast(data, (int)n, MPI_INT, root, MPI_COMM_WORLD);
      for (long i = 0; i < n; ++i) errors += data[i] != expected_value(root, i);

      if (rank == root) {
        for (long i = 0; i < n * size; ++i) data[i] = expected_value(root, i);
      }
      memset(mine, 0xff, sizeof(int) * (size_t)n);
      MPI_Scatter(data, (int)n, MPI_INT, mine, (int)n, MPI_INT, root, MPI_COMM_WORLD);
      for (long i = 0; i < n; ++i) errors += mine[i] != expected_value(root, rank * n + i);
      calls += 2;
    }
  }
  long total_errors = 0;
  MPI_Reduce(&errors, &total_errors, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("bcast_scatter: %d ranks, %ld collective calls per rank, %ld wrong values\n", size,
           calls, total_errors);
  }
  free(data);
  free(mine);
  MPI_Finalize();
  return total_errors == 0 ? 0 : 1;
}
