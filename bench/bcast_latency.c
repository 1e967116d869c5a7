/* 1-byte MPI_Bcast latency: BATCHES batches of CALLS calls; rank 0 prints the median, min and max
   per-call time over the batches in nanoseconds, as "bcast_latency_ns median=.. min=.. max=..".
   Run it with and without LD_PRELOAD=libcollsel.so (bench/shim_overhead.sh does, interleaved). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int compare(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int batches = argc > 1 ? atoi(argv[1]) : 21;
  const int calls = argc > 2 ? atoi(argv[2]) : 20000;
  char byte = 0;
  double* per_call = malloc(sizeof(double) * (size_t)batches);
  for (int i = 0; i < 1000; ++i) MPI_Bcast(&byte, 1, MPI_CHAR, 0, MPI_COMM_WORLD); /* warm-up */
  for (int b = 0; b < batches; ++b) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < calls; ++i) MPI_Bcast(&byte, 1, MPI_CHAR, 0, MPI_COMM_WORLD);
    double t1 = MPI_Wtime();
    double mine = (t1 - t0) / calls, slowest = 0;
    MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    per_call[b] = slowest;
  }
  if (rank == 0) {
    qsort(per_call, (size_t)batches, sizeof(double), compare);
    printf("bcast_latency_ns median=%.1f min=%.1f max=%.1f\n", per_call[batches / 2] * 1e9,
           per_call[0] * 1e9, per_call[batches - 1] * 1e9);
  }
  free(per_call);
  MPI_Finalize();
  return 0;
}
