/* The self-correction benchmark's program (bench/adapt_demo.py, docs/BENCHMARKS.md
   "Self-correction"): N calls (default 200) of each of four shapes, one shape after the other:
   Bcast 64 KiB, Bcast 256 KiB, Scatter 256 KiB per rank, Alltoall 64 KiB blocks, all on
   MPI_COMM_WORLD from root 0. Per shape it prints the time from the first rank's start of the
   first call to the last rank's end of the last call (the simulated clock is global under SMPI; on
   a real cluster the ranks leave a barrier together to within its latency):

     ADAPT shape=bcast-65536 calls=200 total_s=0.123456789

   Plain MPI: compile with mpicc or smpicc. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double run_shape(int which, long n, int size, unsigned char* a, unsigned char* b) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  for (long i = 0; i < n; ++i) {
    switch (which) {
      case 0: MPI_Bcast(a, 64 * 1024, MPI_BYTE, 0, MPI_COMM_WORLD); break;
      case 1: MPI_Bcast(a, 256 * 1024, MPI_BYTE, 0, MPI_COMM_WORLD); break;
      case 2:
        MPI_Scatter(a, 256 * 1024, MPI_BYTE, b, 256 * 1024, MPI_BYTE, 0, MPI_COMM_WORLD);
        break;
      default:
        MPI_Alltoall(a, 64 * 1024, MPI_BYTE, b, 64 * 1024, MPI_BYTE, MPI_COMM_WORLD);
        break;
    }
  }
  const double end = MPI_Wtime();
  double first = 0.0, last = 0.0;
  MPI_Reduce(&start, &first, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
  MPI_Reduce(&end, &last, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  (void)size;
  return last - first;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long n = argc > 1 ? atol(argv[1]) : 200;
  const size_t bytes = (size_t)256 * 1024 * (size_t)size;
  unsigned char* a = calloc(bytes, 1);
  unsigned char* b = calloc(bytes, 1);
  const char* names[] = {"bcast-65536", "bcast-262144", "scatter-262144", "alltoall-65536"};
  for (int s = 0; s < 4; ++s) {
    const double total = run_shape(s, n, size, a, b);
    if (rank == 0) printf("ADAPT shape=%s calls=%ld total_s=%.9f\n", names[s], n, total);
  }
  free(a);
  free(b);
  MPI_Finalize();
  return 0;
}
