/* The MPI program of tests/tools/export_mpich_test.py: runs one Bcast, Scatter or Alltoall under
 * whatever selection MPICH was given, checks the data, and reports which messages the collective
 * exchanged, so the test can tell which of MPICH's algorithms ran.
 *
 *   export_probe bcast|scatter|alltoall BYTES [inplace]
 *
 * Rank 0 prints one JSON line:
 *   {"coll": ..., "bytes": B, "ranks": P, "errors": E, "ucx_calls": N,
 *    "sends": [per rank], "recv_from": [[sources of rank 0's receives, in posting order], ...]}
 *
 * How the messages are seen: MPICH's ch4:ucx device sends every point-to-point message of its
 * collectives through UCX's tagged API, which libmpich reaches through its PLT. This program
 * defines those UCX functions itself, so the dynamic linker binds libmpich's calls to them; each
 * counts the call and forwards it to UCX (dlsym RTLD_NEXT). The receive tag carries the sender's
 * rank in bits 32-47 (MPIDI_UCX_init_tag, src/mpid/ch4/netmod/ucx/ucx_impl.h), so the sources of a
 * rank's receives, in order, identify the algorithm. No MPICH symbol is needed: Debian's libmpich
 * exports none of its MPIR_ algorithm functions. "ucx_calls" counts every call seen since start-up:
 * 0 means MPICH did not use UCX and the test cannot conclude anything. The prototypes are UCX's
 * (ucp.h) with its handle types spelled as the pointers they are, to need no UCX headers. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kMaxEvents = 256 };

typedef void *(*send_fn)(void *ep, const void *buffer, size_t count, uint64_t tag,
                         const void *param);
typedef void *(*recv_fn)(void *worker, void *buffer, size_t count, uint64_t tag, uint64_t mask,
                         const void *param);

static int recording;
static long ucx_calls;
static int sends;
static int receives;
static int sources[kMaxEvents];

static void *next_symbol(const char *name) {
  void *f = dlsym(RTLD_NEXT, name);
  if (f == NULL) {
    fprintf(stderr, "export_probe: %s not found after this program: %s\n", name, dlerror());
    abort();
  }
  return f;
}

/* Both tagged sends of UCX: counted, then forwarded to UCX's own function `name`. */
static void *send_through(send_fn *real, const char *name, void *ep, const void *buffer,
                          size_t count, uint64_t tag, const void *param) {
  if (*real == NULL) *real = (send_fn)next_symbol(name);
  ++ucx_calls;
  if (recording) ++sends;
  return (*real)(ep, buffer, count, tag, param);
}

void *ucp_tag_send_nbx(void *ep, const void *buffer, size_t count, uint64_t tag,
                       const void *param) {
  static send_fn real;
  return send_through(&real, "ucp_tag_send_nbx", ep, buffer, count, tag, param);
}

void *ucp_tag_send_sync_nbx(void *ep, const void *buffer, size_t count, uint64_t tag,
                            const void *param) {
  static send_fn real;
  return send_through(&real, "ucp_tag_send_sync_nbx", ep, buffer, count, tag, param);
}

void *ucp_tag_recv_nbx(void *worker, void *buffer, size_t count, uint64_t tag, uint64_t mask,
                       const void *param) {
  static recv_fn real;
  if (real == NULL) real = (recv_fn)next_symbol("ucp_tag_recv_nbx");
  ++ucx_calls;
  if (recording && receives < kMaxEvents) sources[receives++] = (int)((tag >> 32) & 0xffff);
  return real(worker, buffer, count, tag, mask, param);
}

/* The byte rank `from` puts at offset i of the block it sends to rank `to`. */
static unsigned char pattern(int from, int to, size_t i) {
  return (unsigned char)(from * 31 + to * 7 + i * 13 + 1);
}

static int usage(void) {
  fprintf(stderr, "usage: export_probe bcast|scatter|alltoall BYTES [inplace]\n");
  return 2;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 3) {
    MPI_Finalize();
    return usage();
  }
  const char *coll = argv[1];
  const size_t n = (size_t)strtoull(argv[2], NULL, 10);
  const int in_place = argc > 3 && strcmp(argv[3], "inplace") == 0;
  const int count = (int)n;

  unsigned char *send = malloc(n * size + 1);
  unsigned char *recv = malloc(n * size + 1);
  for (int to = 0; to < size; ++to) {
    for (size_t i = 0; i < n; ++i) {
      send[to * n + i] = pattern(rank, to, i);
      recv[to * n + i] = 0;
    }
  }

  long errors = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  recording = 1;
  if (strcmp(coll, "bcast") == 0) {
    /* The root broadcasts the block it would send to itself. */
    unsigned char *buffer = rank == 0 ? send : recv;
    MPI_Bcast(buffer, count, MPI_BYTE, 0, MPI_COMM_WORLD);
    recording = 0;
    for (size_t i = 0; i < n; ++i) errors += buffer[i] != pattern(0, 0, i);
  } else if (strcmp(coll, "scatter") == 0) {
    MPI_Scatter(send, count, MPI_BYTE, recv, count, MPI_BYTE, 0, MPI_COMM_WORLD);
    recording = 0;
    for (size_t i = 0; i < n; ++i) errors += recv[i] != pattern(0, rank, i);
  } else if (strcmp(coll, "alltoall") == 0) {
    unsigned char *result = in_place ? send : recv;
    MPI_Alltoall(in_place ? MPI_IN_PLACE : send, count, MPI_BYTE, result, count, MPI_BYTE,
                 MPI_COMM_WORLD);
    recording = 0;
    for (int from = 0; from < size; ++from) {
      for (size_t i = 0; i < n; ++i) errors += result[from * n + i] != pattern(from, rank, i);
    }
  } else {
    MPI_Finalize();
    return usage();
  }

  /* Collectives the export does not decide must still work: the file carries MPICH's own rules
   * for them. */
  long total_errors = 0;
  MPI_Allreduce(&errors, &total_errors, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  int mine[2 + kMaxEvents] = {sends, receives};
  memcpy(mine + 2, sources, sizeof sources);
  int *all = rank == 0 ? malloc(sizeof mine * size) : NULL;
  MPI_Gather(mine, 2 + kMaxEvents, MPI_INT, all, 2 + kMaxEvents, MPI_INT, 0, MPI_COMM_WORLD);
  long calls = 0;
  MPI_Reduce(&ucx_calls, &calls, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);

  if (rank == 0) {
    printf("{\"coll\": \"%s\", \"bytes\": %zu, \"ranks\": %d, \"errors\": %ld, \"ucx_calls\": %ld, "
           "\"sends\": [",
           coll, n, size, total_errors, calls);
    for (int r = 0; r < size; ++r) printf("%s%d", r ? ", " : "", all[r * (2 + kMaxEvents)]);
    printf("], \"recv_from\": [");
    for (int r = 0; r < size; ++r) {
      const int *row = all + r * (2 + kMaxEvents);
      printf("%s[", r ? ", " : "");
      for (int i = 0; i < row[1]; ++i) printf("%s%d", i ? ", " : "", row[2 + i]);
      printf("]");
    }
    printf("]}\n");
    fflush(stdout);
    free(all);
  }
  free(send);
  free(recv);
  MPI_Finalize();
  return total_errors == 0 ? 0 : 1;
}
