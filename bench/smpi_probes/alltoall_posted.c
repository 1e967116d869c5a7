/* An All-to-All as collsel's alltoall.all_at_once posts it (every receive, then every send, one
   MPI_Waitall), in plain MPI, to time what SMPI charges it without collsel. Each of 3 calls is
   timed as bench/at_scale.py times one (a barrier, then the last end minus the first start over
   all ranks: SMPI's clock is global), beside the slowest rank's own time and its posting times.
   Build and run (docs/BENCHMARKS.md, "A rank's CPU floor"):
     smpicc -O2 -o alltoall_posted alltoall_posted.c
     tools/simcluster/simcluster run --platform eth25-fattree -n 16 --ppn 8 --native \
         --cfg smpi/barrier:ompi_bruck -- ./alltoall_posted 256
   Argument: the block size in bytes. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, P;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  const int m = argc > 1 ? atoi(argv[1]) : 256;
  char* sendbuf = calloc((size_t)m * P + 1, 1);
  char* recvbuf = calloc((size_t)m * P + 1, 1);
  MPI_Request* requests = malloc(sizeof(MPI_Request) * 2 * (size_t)P);
  for (int it = 0; it < 3; ++it) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    int n = 0;
    for (int t = 1; t < P; ++t) {
      const int from = (rank - t + P) % P;
      MPI_Irecv(recvbuf + (size_t)from * m, m, MPI_BYTE, from, 0, MPI_COMM_WORLD, &requests[n++]);
    }
    const double t_recvs = MPI_Wtime();
    for (int t = 1; t < P; ++t) {
      const int to = (rank + t) % P;
      MPI_Isend(sendbuf + (size_t)to * m, m, MPI_BYTE, to, 0, MPI_COMM_WORLD, &requests[n++]);
    }
    const double t_sends = MPI_Wtime();
    MPI_Waitall(n, requests, MPI_STATUSES_IGNORE);
    const double t1 = MPI_Wtime();
    double ends[2] = {t1, -t0}, span[2];
    MPI_Allreduce(ends, span, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double own[3] = {t1 - t0, t_recvs - t0, t_sends - t_recvs}, most[3];
    MPI_Reduce(own, most, 3, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      printf("call %d: last end - first start %.1f us; slowest rank's own time %.1f us, posting "
             "its receives %.1f us, its sends %.1f us\n",
             it, (span[0] + span[1]) * 1e6, most[0] * 1e6, most[1] * 1e6, most[2] * 1e6);
    }
  }
  free(requests);
  free(recvbuf);
  free(sendbuf);
  MPI_Finalize();
  return 0;
}
