/* What a new communicator costs under collsel (issue 20 part 2), against native: run the same
   binary with and without LD_PRELOAD (bench/comm_churn.sh).
     comm_churn split BATCHES ITERS BYTES — per iteration MPI_Comm_split(MPI_COMM_WORLD), one
        MPI_Bcast of BYTES on it, MPI_Comm_free; prints rank 0's microseconds per iteration of
        each batch (a batch starts after a barrier).
     comm_churn first ITERS BYTES — per iteration a new duplicate of MPI_COMM_WORLD (not timed),
        then its first and its second MPI_Bcast of BYTES, each timed between barriers (the time
        is the slowest rank's); prints the first iteration apart (the group's first communicator:
        collsel makes its private communicator there) and the medians of the others. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int compare(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

static double median(double* v, int n) {
  qsort(v, (size_t)n, sizeof *v, compare);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* One Bcast on `comm`, timed on every rank; the slowest rank's time, on all ranks. */
static double timed_bcast(char* buf, int bytes, MPI_Comm comm) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  MPI_Bcast(buf, bytes, MPI_BYTE, 0, comm);
  double t = MPI_Wtime() - t0, slowest = 0.0;
  MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc >= 4 && strcmp(argv[1], "split") == 0 && argc == 5) {
    const int batches = atoi(argv[2]), iters = atoi(argv[3]), bytes = atoi(argv[4]);
    char* buf = calloc((size_t)bytes + 1, 1);
    for (int b = 0; b < batches; ++b) {
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      for (int i = 0; i < iters; ++i) {
        MPI_Comm c;
        MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &c);
        MPI_Bcast(buf, bytes, MPI_BYTE, 0, c);
        MPI_Comm_free(&c);
      }
      const double us = (MPI_Wtime() - t0) / iters * 1e6;
      if (rank == 0) printf("split batch=%d us_per_iter=%.3f\n", b, us);
    }
    free(buf);
  } else if (argc == 4 && strcmp(argv[1], "first") == 0) {
    const int iters = atoi(argv[2]), bytes = atoi(argv[3]);
    char* buf = calloc((size_t)bytes + 1, 1);
    double* first = malloc(sizeof(double) * (size_t)iters);
    double* second = malloc(sizeof(double) * (size_t)iters);
    for (int i = 0; i < iters; ++i) {
      MPI_Comm c;
      MPI_Comm_dup(MPI_COMM_WORLD, &c);
      first[i] = timed_bcast(buf, bytes, c);
      second[i] = timed_bcast(buf, bytes, c);
      MPI_Comm_free(&c);
    }
    if (rank == 0) {
      printf("first group_first_call_us=%.3f group_second_call_us=%.3f\n", first[0] * 1e6,
             second[0] * 1e6);
      printf("first median_first_call_us=%.3f median_second_call_us=%.3f\n",
             median(first + 1, iters - 1) * 1e6, median(second + 1, iters - 1) * 1e6);
    }
    free(first);
    free(second);
    free(buf);
  } else if (rank == 0) {
    fprintf(stderr, "usage: comm_churn split BATCHES ITERS BYTES | first ITERS BYTES\n");
  }
  MPI_Finalize();
  return 0;
}
