/* A flat Bcast by MPI_Isend, in plain MPI, to time what SMPI charges a root's burst of posted
   sends without collsel (docs/BENCHMARKS.md, "The posted burst"). Two calls; in the second the
   root prints when its sends were posted and done, and ranks 1-9, every tenth and the last print
   when their receive completed, all relative to the barrier's exit. Then 3 calls timed as
   bench/at_scale.py times one: a barrier, the last end minus the first start over all ranks
   (SMPI's clock is global).
     smpicc -O2 -o flat_isend flat_isend.c
     tools/simcluster/simcluster run --platform gige -n 100 --ppn 1 --native \
         --cfg smpi/barrier:ompi_bruck -- ./flat_isend 256
   Argument: the message size in bytes. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void flat(char* buf, int m, int rank, int P, MPI_Request* requests) {
  if (rank == 0) {
    for (int i = 1; i < P; ++i) {
      MPI_Isend(buf + (size_t)i * m, m, MPI_BYTE, i, 0, MPI_COMM_WORLD, &requests[i - 1]);
    }
    MPI_Waitall(P - 1, requests, MPI_STATUSES_IGNORE);
  } else {
    MPI_Recv(buf, m, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, P;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  const int m = argc > 1 ? atoi(argv[1]) : 256;
  char* buf = calloc((size_t)m * P + 1, 1);
  MPI_Request* requests = malloc(sizeof(MPI_Request) * (size_t)P);
  for (int it = 0; it < 2; ++it) {  // arrivals
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    if (rank == 0) {
      for (int i = 1; i < P; ++i) {
        MPI_Isend(buf + (size_t)i * m, m, MPI_BYTE, i, 0, MPI_COMM_WORLD, &requests[i - 1]);
      }
      const double posted = MPI_Wtime();
      MPI_Waitall(P - 1, requests, MPI_STATUSES_IGNORE);
      if (it == 1) {
        printf("root: posted %.1f us, done %.1f us\n", (posted - t0) * 1e6,
               (MPI_Wtime() - t0) * 1e6);
      }
    } else {
      MPI_Recv(buf, m, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      const double got = MPI_Wtime() - t0;
      if (it == 1 && (rank < 10 || rank % 10 == 0 || rank == P - 1)) {
        printf("rank %d: received at %.1f us\n", rank, got * 1e6);
      }
    }
  }
  for (int it = 0; it < 3; ++it) {  // timed as a benchmark call
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    flat(buf, m, rank, P, requests);
    const double t1 = MPI_Wtime();
    double ends[2] = {t1, -t0}, span[2];
    MPI_Allreduce(ends, span, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double own = t1 - t0, most;
    MPI_Reduce(&own, &most, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      printf("call %d: last end - first start %.1f us, slowest rank's own time %.1f us\n", it,
             (span[0] + span[1]) * 1e6, most * 1e6);
    }
  }
  free(requests);
  free(buf);
  MPI_Finalize();
  return 0;
}
