/* Plain-MPI probes, no collsel: what SMPI itself charges a communication pattern, timed as
   bench/at_scale.py times a call (a barrier, then the last end minus the first start over all
   ranks: SMPI's clock is global). Each figure of docs/BENCHMARKS.md that rests on one names it.
     smpicc -O2 -o smpi_probe bench/smpi_probe.c
     tools/simcluster/simcluster run --platform eth25-fattree -n 16 --ppn 8 --native \
         --cfg smpi/barrier:ompi_bruck -- ./smpi_probe alltoall 256
     tools/simcluster/simcluster run --platform gige -n 100 --ppn 1 --native \
         --cfg smpi/barrier:ompi_bruck -- ./smpi_probe flat 256
   alltoall M: an All-to-All of M-byte blocks as collsel's alltoall.all_at_once posts it (every
     receive, from rank+t, then every send, to rank-t, one MPI_Waitall); 3 calls, each with the
     slowest rank's own time and its posting times ("A rank's CPU floor").
   alltoall-mirrored M: the same with the mirror order (receive from rank-t, send to rank+t),
     all_at_once's until the seventeenth session ("The libraries' All-to-All order").
   native-alltoall M: MPI_Alltoall itself, i.e. the SMPI algorithm --cfg smpi/alltoall:NAME
     names (ompi: Open MPI's selector), timed the same way.
   flat M: a flat Bcast of M bytes by MPI_Isend; in a first call the root prints when its sends
     were posted and done, and ranks 1-9, every tenth and the last when their receive completed,
     relative to the barrier's exit; then 3 timed calls ("The posted burst").
   flat-sync M: the same, but every call starts on every rank at one simulated instant (the
     latest clock after a barrier, plus 50 ms, reached by nanosleep, which SMPI simulates), so
     no barrier skew is left; arrivals printed in the first call, times from that instant
     ("A synchronized start, first look").
   flat-sync-wait M: flat-sync with the pattern of collsel's tree engine (tree_engine.cpp):
     the root waits on each MPI_Isend before posting the next, a receiver posts MPI_Irecv and
     waits on it ("Calls timed alone").
   chain-sync M S: a chain Bcast of M bytes in S-byte segments with collsel's tree engine's
     pattern (the next segment's MPI_Irecv posted before waiting for this one, each MPI_Isend
     waited before the next), started as flat-sync; in the first call every rank prints when
     its first and last segments arrived.
   ring-sync M: P - 1 steps of a Sendrecv ring, the pattern of collsel's scatter_allgather ring
     (each rank MPI_Sendrecv of M bytes to rank+1 from rank-1), started as flat-sync; in the
     first call every rank prints when each of its first 4 steps ended, and its end ("A Sendrecv
     step waits for its receiver"). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void report(int rank, int call, double t0, double t1, const double* own, int owned,
                   const char* what) {
  double ends[2] = {t1, -t0}, span[2], most[3];
  MPI_Allreduce(ends, span, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Reduce(own, most, owned, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank != 0) return;
  printf("call %d: last end - first start %.1f us; slowest rank's own time %.1f us", call,
         (span[0] + span[1]) * 1e6, most[0] * 1e6);
  if (owned == 3) printf(", %s %.1f us and %.1f us", what, most[1] * 1e6, most[2] * 1e6);
  printf("\n");
}

/* mirrored = 0: collsel's order (receive from rank+t, send to rank-t), 1: the mirror order. */
static void alltoall(int m, int rank, int P, int mirrored) {
  char* sendbuf = calloc((size_t)m * P + 1, 1);
  char* recvbuf = calloc((size_t)m * P + 1, 1);
  MPI_Request* requests = malloc(sizeof(MPI_Request) * 2 * (size_t)P);
  for (int call = 0; call < 3; ++call) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    int n = 0;
    for (int t = 1; t < P; ++t) {
      const int from = mirrored ? (rank - t + P) % P : (rank + t) % P;
      MPI_Irecv(recvbuf + (size_t)from * m, m, MPI_BYTE, from, 0, MPI_COMM_WORLD, &requests[n++]);
    }
    const double t_recvs = MPI_Wtime();
    for (int t = 1; t < P; ++t) {
      const int to = mirrored ? (rank + t) % P : (rank - t + P) % P;
      MPI_Isend(sendbuf + (size_t)to * m, m, MPI_BYTE, to, 0, MPI_COMM_WORLD, &requests[n++]);
    }
    const double t_sends = MPI_Wtime();
    MPI_Waitall(n, requests, MPI_STATUSES_IGNORE);
    const double t1 = MPI_Wtime();
    const double own[3] = {t1 - t0, t_recvs - t0, t_sends - t_recvs};
    report(rank, call, t0, t1, own, 3, "posting its receives and its sends");
  }
  free(requests);
  free(recvbuf);
  free(sendbuf);
}

/* The root's MPI_Isend to every other rank, then one MPI_Waitall; the others' MPI_Recv. With
   `arrivals`, the times are printed relative to `t0` (extra MPI_Wtime calls: not timed). */
/* 1: flat_call posts and waits as collsel's tree engine does (flat-sync-wait). */
static int engine_pattern = 0;

static void flat_call(char* buf, int m, int rank, int P, MPI_Request* requests, int arrivals,
                      double t0) {
  if (rank == 0) {
    for (int i = 1; i < P; ++i) {
      MPI_Isend(buf + (size_t)i * m, m, MPI_BYTE, i, 0, MPI_COMM_WORLD, &requests[i - 1]);
      if (engine_pattern) MPI_Wait(&requests[i - 1], MPI_STATUS_IGNORE);
    }
    const double posted = arrivals ? MPI_Wtime() : 0.0;
    MPI_Waitall(P - 1, requests, MPI_STATUSES_IGNORE);
    if (arrivals) {
      printf("root: posted %.1f us, done %.1f us\n", (posted - t0) * 1e6,
             (MPI_Wtime() - t0) * 1e6);
    }
  } else if (engine_pattern) {
    MPI_Irecv(buf, m, MPI_BYTE, 0, 0, MPI_COMM_WORLD, &requests[0]);
    MPI_Wait(&requests[0], MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(buf, m, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (arrivals && (rank < 10 || rank % 10 == 0 || rank == P - 1)) {
      printf("rank %d: received at %.1f us\n", rank, (MPI_Wtime() - t0) * 1e6);
    }
  }
}

static void native_alltoall(int m, int rank, int P) {
  char* sendbuf = calloc((size_t)m * P + 1, 1);
  char* recvbuf = calloc((size_t)m * P + 1, 1);
  for (int call = 0; call < 3; ++call) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    MPI_Alltoall(sendbuf, m, MPI_BYTE, recvbuf, m, MPI_BYTE, MPI_COMM_WORLD);
    const double t1 = MPI_Wtime();
    const double own[1] = {t1 - t0};
    report(rank, call, t0, t1, own, 1, "");
  }
  free(recvbuf);
  free(sendbuf);
}

/* The latest clock after a barrier plus a margin above any collective's skew (SMPI's clock is
   global), reached by nanosleep: every rank returns at that instant, which it returns. */
static double synchronized_start(void) {
  MPI_Barrier(MPI_COMM_WORLD);
  double now = MPI_Wtime(), latest;
  MPI_Allreduce(&now, &latest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  const double start = latest + 0.05;
  const double wait = start - MPI_Wtime();
  const struct timespec ts = {(time_t)wait, (long)((wait - (double)(time_t)wait) * 1e9)};
  nanosleep(&ts, NULL);
  return start;
}

static void flat_sync(int m, int rank, int P) {
  char* buf = calloc((size_t)m * P + 1, 1);
  MPI_Request* requests = malloc(sizeof(MPI_Request) * (size_t)P);
  for (int call = 0; call < 3; ++call) {
    const double start = synchronized_start();
    const double lag = MPI_Wtime() - start;
    flat_call(buf, m, rank, P, requests, call == 0, start);
    const double t1 = MPI_Wtime();
    double most_lag;
    MPI_Reduce(&lag, &most_lag, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("largest start lag %.3f us\n", most_lag * 1e6);
    const double own[1] = {t1 - start};
    report(rank, call, start, t1, own, 1, "");
  }
  free(requests);
  free(buf);
}

/* Bytes in segment i of an m-byte message cut into seg-byte segments. */
static int segment_length(int i, int seg, int m) { return (i + 1) * seg <= m ? seg : m - i * seg; }

static void chain_sync(int m, int segment, int rank, int P) {
  char* buf = calloc((size_t)m + 1, 1);
  const int k = m > segment ? (m + segment - 1) / segment : 1;
  const int seg = m > segment ? segment : m;
  for (int call = 0; call < 3; ++call) {
    const double start = synchronized_start();
    double first = 0.0, last = 0.0;
    MPI_Request receiving[2], sending;
    if (rank > 0) MPI_Irecv(buf, seg, MPI_BYTE, rank - 1, 0, MPI_COMM_WORLD, &receiving[0]);
    for (int i = 0; i < k; ++i) {
      const int len = segment_length(i, seg, m);
      if (rank > 0) {
        if (i + 1 < k) {
          MPI_Irecv(buf + (size_t)(i + 1) * seg, segment_length(i + 1, seg, m), MPI_BYTE,
                    rank - 1, 0, MPI_COMM_WORLD, &receiving[(i + 1) % 2]);
        }
        MPI_Wait(&receiving[i % 2], MPI_STATUS_IGNORE);
        if (i == 0) first = MPI_Wtime() - start;
        if (i == k - 1) last = MPI_Wtime() - start;
      }
      if (rank + 1 < P) {
        MPI_Isend(buf + (size_t)i * seg, len, MPI_BYTE, rank + 1, 0, MPI_COMM_WORLD, &sending);
        MPI_Wait(&sending, MPI_STATUS_IGNORE);
      }
    }
    const double t1 = MPI_Wtime();
    if (call == 0) {
      double mine[2] = {first, last};
      double* all = rank == 0 ? malloc(sizeof(double) * 2 * (size_t)P) : NULL;
      MPI_Gather(mine, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
      if (rank == 0) {
        for (int r = 1; r < P; ++r) {
          printf("rank %d: first %.1f us (+%.1f), last %.1f us (+%.1f)\n", r, all[2 * r] * 1e6,
                 (all[2 * r] - all[2 * r - 2]) * 1e6, all[2 * r + 1] * 1e6,
                 (all[2 * r + 1] - all[2 * r - 1]) * 1e6);
        }
        free(all);
      }
    }
    const double own[1] = {t1 - start};
    report(rank, call, start, t1, own, 1, "");
  }
  free(buf);
}

static void ring_sync(int m, int rank, int P) {
  char* out = calloc((size_t)m + 1, 1);
  char* in = calloc((size_t)m + 1, 1);
  const int right = (rank + 1) % P, left = (rank + P - 1) % P;
  for (int call = 0; call < 3; ++call) {
    const double start = synchronized_start();
    double steps[4] = {0.0, 0.0, 0.0, 0.0};
    for (int s = 0; s + 1 < P; ++s) {
      MPI_Sendrecv(out, m, MPI_BYTE, right, 0, in, m, MPI_BYTE, left, 0, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE);
      if (s < 4) steps[s] = MPI_Wtime() - start;
    }
    const double t1 = MPI_Wtime();
    if (call == 0) {
      double mine[5] = {steps[0], steps[1], steps[2], steps[3], t1 - start};
      double* all = rank == 0 ? malloc(sizeof(double) * 5 * (size_t)P) : NULL;
      MPI_Gather(mine, 5, MPI_DOUBLE, all, 5, MPI_DOUBLE, 0, MPI_COMM_WORLD);
      if (rank == 0) {
        for (int r = 0; r < P; ++r) {
          const double* a = all + 5 * r;
          printf("rank %d: steps %.2f %.2f %.2f %.2f us, end %.2f us\n", r, a[0] * 1e6,
                 a[1] * 1e6, a[2] * 1e6, a[3] * 1e6, a[4] * 1e6);
        }
        free(all);
      }
    }
    const double own[1] = {t1 - start};
    report(rank, call, start, t1, own, 1, "");
  }
  free(in);
  free(out);
}

static void flat(int m, int rank, int P) {
  char* buf = calloc((size_t)m * P + 1, 1);
  MPI_Request* requests = malloc(sizeof(MPI_Request) * (size_t)P);
  MPI_Barrier(MPI_COMM_WORLD);
  flat_call(buf, m, rank, P, requests, 1, MPI_Wtime());
  for (int call = 0; call < 3; ++call) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    flat_call(buf, m, rank, P, requests, 0, t0);
    const double t1 = MPI_Wtime();
    const double own[1] = {t1 - t0};
    report(rank, call, t0, t1, own, 1, "");
  }
  free(requests);
  free(buf);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, P;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  const int m = argc > 2 ? atoi(argv[2]) : 256;
  if (argc > 1 && strcmp(argv[1], "alltoall") == 0) {
    alltoall(m, rank, P, 0);
  } else if (argc > 1 && strcmp(argv[1], "alltoall-mirrored") == 0) {
    alltoall(m, rank, P, 1);
  } else if (argc > 1 && strcmp(argv[1], "native-alltoall") == 0) {
    native_alltoall(m, rank, P);
  } else if (argc > 1 && strcmp(argv[1], "flat-sync") == 0) {
    flat_sync(m, rank, P);
  } else if (argc > 1 && strcmp(argv[1], "flat-sync-wait") == 0) {
    engine_pattern = 1;
    flat_sync(m, rank, P);
  } else if (argc > 1 && strcmp(argv[1], "chain-sync") == 0) {
    chain_sync(m, argc > 3 ? atoi(argv[3]) : m, rank, P);
  } else if (argc > 1 && strcmp(argv[1], "ring-sync") == 0) {
    ring_sync(m, rank, P);
  } else if (argc > 1 && strcmp(argv[1], "flat") == 0) {
    flat(m, rank, P);
  } else if (rank == 0) {
    fprintf(stderr, "usage: smpi_probe MODE BYTES [SEGMENT], MODE one of alltoall,\n"
                    "alltoall-mirrored, native-alltoall, flat, flat-sync, flat-sync-wait,\n"
                    "chain-sync, ring-sync (see the comment at its top)\n");
  }
  MPI_Finalize();
  return 0;
}
