/* Many small collectives, for the log levels' end-to-end tests (tests/pmpi/e2e_levels.py).

   The mode and N come from the arguments, else from MANY_CALLS_MODE and MANY_CALLS_N (the test
   driver passes environment variables, not arguments).

   many_calls bcast N: N MPI_Bcast of 1 to 128 bytes on MPI_COMM_WORLD from 8 call statements
   (8 call sites x 8 size buckets = 64 summary keys), after a warm-up of 64 calls. Reads VmHWM
   (the peak resident set) after the warm-up and at the end; rank 0 prints every rank's as
   "MANY rank=R hwm_start_kb=A hwm_end_kb=B", then "E2E calls=C errors=E colls=bcast" with C the
   collectives per rank (warm-up included).

   many_calls sweep: Bcast, Scatter and Alltoall over a range of sizes and roots; rank 0 prints
   "DECISION i coll bytes algorithm" per call, the algorithm from collsel_last_algorithm() (looked
   up with dlsym, "none" without the shim), then the E2E line. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long hwm_kb(void) {
  FILE* f = fopen("/proc/self/status", "r");
  char line[256];
  long kb = -1;
  while (f && fgets(line, sizeof line, f)) {
    if (strncmp(line, "VmHWM:", 6) == 0) kb = strtol(line + 6, NULL, 10);
  }
  if (f) fclose(f);
  return kb;
}

/* One of 8 distinct call statements (distinct return addresses: distinct call sites). The offset
   differs per case so the compiler cannot merge the calls into one. */
static void bcast_from_site(int site, unsigned char* buf, int n) {
  switch (site) {
    case 0: MPI_Bcast(buf + 0, n, MPI_BYTE, 0, MPI_COMM_WORLD); break;
    case 1: MPI_Bcast(buf + 1, n, MPI_BYTE, 0, MPI_COMM_WORLD); break;
    case 2: MPI_Bcast(buf + 2, n, MPI_BYTE, 0, MPI_COMM_WORLD); break;
    case 3: MPI_Bcast(buf + 3, n, MPI_BYTE, 0, MPI_COMM_WORLD); break;
    case 4: MPI_Bcast(buf + 4, n, MPI_BYTE, 0, MPI_COMM_WORLD); break;
    case 5: MPI_Bcast(buf + 5, n, MPI_BYTE, 0, MPI_COMM_WORLD); break;
    case 6: MPI_Bcast(buf + 6, n, MPI_BYTE, 0, MPI_COMM_WORLD); break;
    default: MPI_Bcast(buf + 7, n, MPI_BYTE, 0, MPI_COMM_WORLD); break;
  }
}

static long run_bcasts(long n, int rank, int size, long* errors) {
  unsigned char buf[8 + 128];
  long calls = 0;
  long start_kb = 0;
  for (long i = -64; i < n; ++i) {
    if (i == 0) start_kb = hwm_kb(); /* after the warm-up: every key seen once */
    const int key = (int)((i + 64) % 64), site = key % 8, bytes = 1 << (key / 8);
    const unsigned char value = (unsigned char)(i * 31 + key);
    if (rank == 0) memset(buf + site, value, (size_t)bytes);
    bcast_from_site(site, buf, bytes);
    if (buf[site] != value || buf[site + bytes - 1] != value) ++*errors;
    ++calls;
  }
  long mine[2] = {start_kb, hwm_kb()};
  long* all = malloc(sizeof(long) * 2 * (size_t)size);
  MPI_Gather(mine, 2, MPI_LONG, all, 2, MPI_LONG, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    for (int r = 0; r < size; ++r) {
      printf("MANY rank=%d hwm_start_kb=%ld hwm_end_kb=%ld\n", r, all[2 * r], all[2 * r + 1]);
    }
  }
  free(all);
  return calls;
}

static long run_sweep(int rank, int size, long* errors) {
  typedef const char* (*last_algorithm_fn)(void);
  last_algorithm_fn last = (last_algorithm_fn)dlsym(RTLD_DEFAULT, "collsel_last_algorithm");
  static const int sizes[] = {0, 1, 8, 100, 1024, 5000, 40000, 300000, 1 << 20};
  const int nsizes = (int)(sizeof sizes / sizeof sizes[0]);
  char* send = malloc((size_t)(1 << 20) * (size_t)size);
  char* recv = malloc((size_t)(1 << 20) * (size_t)size);
  long calls = 0;
  for (int s = 0; s < nsizes; ++s) {
    for (int coll = 0; coll < 3; ++coll) {
      const int n = sizes[s], root = s % size;
      const char value = (char)(s * 3 + coll + 1);
      const char* name = "bcast";
      memset(send, rank == root ? value : 0, (size_t)n * (size_t)size);
      memset(recv, 0, (size_t)n * (size_t)size);
      if (coll == 0) {
        MPI_Bcast(send, n, MPI_CHAR, root, MPI_COMM_WORLD);
        if (n > 0 && (send[0] != value || send[n - 1] != value)) ++*errors;
      } else if (coll == 1) {
        name = "scatter";
        MPI_Scatter(send, n, MPI_CHAR, recv, n, MPI_CHAR, root, MPI_COMM_WORLD);
        if (n > 0 && (recv[0] != value || recv[n - 1] != value)) ++*errors;
      } else {
        name = "alltoall";
        memset(send, value, (size_t)n * (size_t)size);
        MPI_Alltoall(send, n, MPI_CHAR, recv, n, MPI_CHAR, MPI_COMM_WORLD);
        if (n > 0 && (recv[0] != value || recv[(size_t)n * (size_t)size - 1] != value)) ++*errors;
      }
      if (rank == 0) printf("DECISION %ld %s %d %s\n", calls, name, n, last ? last() : "none");
      ++calls;
    }
  }
  free(send);
  free(recv);
  return calls;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* mode = argc > 1 ? argv[1] : getenv("MANY_CALLS_MODE");
  const char* count = argc > 2 ? argv[2] : getenv("MANY_CALLS_N");
  if (mode == NULL) mode = "bcast";
  long errors = 0, calls = 0;
  if (strcmp(mode, "sweep") == 0) {
    calls = run_sweep(rank, size, &errors);
  } else {
    calls = run_bcasts(count ? atol(count) : 1000000, rank, size, &errors);
  }
  long total = 0;
  MPI_Reduce(&errors, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("E2E calls=%ld errors=%ld colls=%s\n", calls, total,
           strcmp(mode, "sweep") == 0 ? "bcast,scatter,alltoall" : "bcast");
  }
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
