/* 1-byte MPI_Bcast latency: BATCHES batches of CALLS calls; rank 0 prints the median, min and max
   per-call time over the batches in nanoseconds, as "bcast_latency_ns median=.. min=.. max=..".
   Run it with and without LD_PRELOAD=libcollsel.so (bench/shim_overhead.sh does, interleaved).
   A third argument "allreduce" times a 1-int MPI_Allreduce instead, a collective collsel does not
   serve but counts (bench/uncovered_cost.sh), and prints "allreduce_latency_ns ...". A fourth
   argument sets the warm-up's calls (default 1000): 0 times a shape's first calls too, where
   [adapt]'s monitor agrees (its 8th, 64th and 512th: bench/monitor_cost.sh). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
  const int allreduce = argc > 3 && strcmp(argv[3], "allreduce") == 0;
  const int warmup = argc > 4 ? atoi(argv[4]) : 1000;
  char byte = 0;
  int one = 1, sum = 0;
  double* per_call = malloc(sizeof(double) * (size_t)batches);
  for (int b = warmup > 0 ? -1 : 0; b < batches; ++b) { /* batch -1: the warm-up */
    const int n = b < 0 ? warmup : calls;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (allreduce) {
      for (int i = 0; i < n; ++i) MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    } else {
      for (int i = 0; i < n; ++i) MPI_Bcast(&byte, 1, MPI_CHAR, 0, MPI_COMM_WORLD);
    }
    double t1 = MPI_Wtime();
    if (b < 0) continue;
    double mine = (t1 - t0) / calls, slowest = 0;
    MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    per_call[b] = slowest;
  }
  if (rank == 0) {
    qsort(per_call, (size_t)batches, sizeof(double), compare);
    printf("%s_latency_ns median=%.1f min=%.1f max=%.1f\n", allreduce ? "allreduce" : "bcast",
           per_call[batches / 2] * 1e9,
           per_call[0] * 1e9, per_call[batches - 1] * 1e9);
  }
  free(per_call);
  MPI_Finalize();
  return 0;
}
