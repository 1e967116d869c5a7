/* A plain MPI program, unaware of collsel: broadcasts, scatters and all-to-all exchanges over a
   range of message sizes (Bcast and Scatter from several roots) and checks every value it
   receives. Run it under collsel with
     mpiexec -n 4 -genv LD_PRELOAD /path/to/libcollsel.so ./collectives
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
  int* got = malloc(sizeof(int) * (size_t)max_ints * (size_t)size);
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

      /* All-to-All with blocks of n / size ints (the whole buffer stays within max_ints). */
      long b = n / size > 0 ? n / size : 1;
      for (int d = 0; d < size; ++d)
        for (long i = 0; i < b; ++i) data[d * b + i] = expected_value(rank, d * b + i + rep);
      memset(got, 0xff, sizeof(int) * (size_t)b * (size_t)size);
      MPI_Alltoall(data, (int)b, MPI_INT, got, (int)b, MPI_INT, MPI_COMM_WORLD);
      for (int s = 0; s < size; ++s)
        for (long i = 0; i < b; ++i) errors += got[s * b + i] != expected_value(s, rank * b + i + rep);
      calls += 3;
    }
  }
  long total_errors = 0;
  MPI_Reduce(&errors, &total_errors, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("collectives: %d ranks, %ld collective calls per rank, %ld wrong values\n", size,
           calls, total_errors);
  }
  free(data);
  free(mine);
  free(got);
  MPI_Finalize();
  return total_errors == 0 ? 0 : 1;
}
