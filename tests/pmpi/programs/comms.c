/* Communicators under collsel (issue 20 part 2), one case per run, run natively and under
   LD_PRELOAD=libcollsel.so by tests/pmpi/CMakeLists.txt:
     comms many    — holds the MPI library's limit of live communicators less a margin (at most
                     2000), a Bcast, Scatter and Alltoall on each, every byte checked;
     comms churn N — N cycles of split, Bcast + Scatter + Alltoall, free;
     comms threads — MPI_THREAD_MULTIPLE, 4 threads, each on its own duplicate of MPI_COMM_WORLD,
                     random Bcast / Scatter / Alltoall (sizes, roots) at once, every byte checked;
                     `threads race`: the first calls on the four race too;
     comms limit   — [runtime] max_private_comms = 1 (set by the test): MPI_COMM_WORLD is served,
                     a communicator over another group runs native, with correct results;
     comms exhaust — no context id left for collsel: a communicator's calls run native, no abort;
     comms from3   — [runtime] serve_from_call = 3 (set by the test): a new communicator's first
                     two calls run native, the third is served.
   Prints "COMMS OK ..." on rank 0 and exits 0, or names the first wrong byte and exits 1. */
#include <dlfcn.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef const char* (*last_algorithm_fn)(void);

static int g_rank, g_size;

/* The byte rank `from` puts at index i of the block it sends to `to`, in call `call`. */
static unsigned char byte_of(long call, int from, int to, long i) {
  return (unsigned char)(call * 31 + from * 7 + to * 13 + i * 3 + 1);
}

static int fail(const char* what, long call, long i, int got, int want) {
  fprintf(stderr, "COMMS FAIL rank %d: %s, call %ld, byte %ld: got %d, want %d\n", g_rank, what,
          call, i, got, want);
  return 1;
}

/* A Bcast, a Scatter and an Alltoall of `n` bytes per block on `comm`, root `root`; 0 if every
   byte is right. */
static int exercise(MPI_Comm comm, long call, int n, int root) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  unsigned char* a = malloc((size_t)n * (size_t)size + 1);
  unsigned char* b = malloc((size_t)n * (size_t)size + 1);
  int bad = 0;
  for (long i = 0; i < n; ++i) a[i] = rank == root ? byte_of(call, root, 0, i) : 0;
  MPI_Bcast(a, n, MPI_BYTE, root, comm);
  for (long i = 0; i < n && !bad; ++i) {
    if (a[i] != byte_of(call, root, 0, i)) bad = fail("bcast", call, i, a[i], byte_of(call, root, 0, i));
  }
  for (int to = 0; to < size; ++to) {
    for (long i = 0; i < n; ++i) a[(long)to * n + i] = byte_of(call + 1, root, to, i);
  }
  memset(b, 0, (size_t)n + 1);
  MPI_Scatter(a, n, MPI_BYTE, b, n, MPI_BYTE, root, comm);
  for (long i = 0; i < n && !bad; ++i) {
    if (b[i] != byte_of(call + 1, root, rank, i)) {
      bad = fail("scatter", call, i, b[i], byte_of(call + 1, root, rank, i));
    }
  }
  for (int to = 0; to < size; ++to) {
    for (long i = 0; i < n; ++i) a[(long)to * n + i] = byte_of(call + 2, rank, to, i);
  }
  memset(b, 0, (size_t)n * (size_t)size);
  MPI_Alltoall(a, n, MPI_BYTE, b, n, MPI_BYTE, comm);
  for (int from = 0; from < size && !bad; ++from) {
    for (long i = 0; i < n && !bad; ++i) {
      if (b[(long)from * n + i] != byte_of(call + 2, from, rank, i)) {
        bad = fail("alltoall", call, (long)from * n + i, b[(long)from * n + i],
                   byte_of(call + 2, from, rank, i));
      }
    }
  }
  free(a);
  free(b);
  return bad;
}

/* How many duplicates of MPI_COMM_WORLD this MPI lets a process hold, found by making them with
   errors returned until one fails (the same on all ranks: the library agrees on context ids). */
static int communicator_limit(void) {
  enum { kCap = 100000 };
  MPI_Comm* held = malloc(sizeof(MPI_Comm) * kCap);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int n = 0;
  while (n < kCap && MPI_Comm_dup(MPI_COMM_WORLD, &held[n]) == MPI_SUCCESS) ++n;
  for (int i = 0; i < n; ++i) MPI_Comm_free(&held[i]);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  free(held);
  int least = n;
  MPI_Allreduce(&n, &least, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return least;
}

static int run_many(void) {
  /* The margin covers what the program itself holds besides the duplicates and what collsel may
     hold (one private communicator for the group, and a spare). */
  const int limit = communicator_limit();
  const int margin = 16;
  int n = limit - margin < 2000 ? limit - margin : 2000;
  MPI_Comm* comms = malloc(sizeof(MPI_Comm) * (size_t)n);
  int bad = 0;
  for (int i = 0; i < n; ++i) MPI_Comm_dup(MPI_COMM_WORLD, &comms[i]);
  typedef int (*held_fn)(void);
  held_fn held = (held_fn)dlsym(RTLD_DEFAULT, "collsel_private_comms");
  /* Every communicator is live while each is used, in two passes so the first calls and the
     later calls both meet the other 1999. */
  for (int pass = 0; pass < 2 && !bad; ++pass) {
    for (int i = 0; i < n && !bad; ++i) {
      bad = exercise(comms[i], (long)pass * n + i, 1 + (i % 7) * 50, i % g_size);
    }
  }
  /* MPI_COMM_WORLD is not used here: the duplicates share one private communicator. */
  if (held != NULL && held() != 1) {
    fprintf(stderr, "COMMS FAIL rank %d: %d duplicates of MPI_COMM_WORLD hold %d private "
            "communicators, not 1\n", g_rank, n, held());
    bad = 1;
  }
  for (int i = 0; i < n; ++i) MPI_Comm_free(&comms[i]);
  free(comms);
  int any = bad;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (g_rank == 0 && !any) printf("COMMS OK many live=%d limit=%d\n", n, limit);
  return any;
}

static int run_churn(long cycles) {
  int bad = 0;
  for (long c = 0; c < cycles && !bad; ++c) {
    MPI_Comm comm;
    /* Alternate the same group and a reversed one, so both reuse and new groups churn. */
    const int key = c % 2 == 0 ? g_rank : g_size - g_rank;
    MPI_Comm_split(MPI_COMM_WORLD, 0, key, &comm);
    bad = exercise(comm, c, 1 + (int)(c % 5) * 37, (int)(c % g_size));
    MPI_Comm_free(&comm);
  }
  int any = bad;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (g_rank == 0 && !any) printf("COMMS OK churn cycles=%ld\n", cycles);
  return any;
}

struct Worker {
  MPI_Comm comm;
  int index;
  int calls;
  int bad;
  int served;  /* calls collsel ran with one of its own algorithms */
};

static void* worker(void* arg) {
  struct Worker* w = arg;
  last_algorithm_fn last = (last_algorithm_fn)dlsym(RTLD_DEFAULT, "collsel_last_algorithm");
  /* The same seed on every rank: the threads of one index make the same calls everywhere. */
  unsigned int seed = 1234u + (unsigned int)w->index;
  for (int c = 0; c < w->calls && !w->bad; ++c) {
    const int n = rand_r(&seed) % 3 == 0 ? rand_r(&seed) % 70000 : rand_r(&seed) % 600;
    const int root = rand_r(&seed) % g_size;
    w->bad = exercise(w->comm, (long)w->index * 1000000 + c * 3, n, root);
    if (last != NULL && strcmp(last(), "native") != 0) ++w->served;
  }
  return NULL;
}

/* `race`: no first calls before the threads start, so the four bindings race each other, in
   different orders on different ranks (any number of private communicators is then right). */
static int run_threads(int race) {
  enum { kThreads = 4 };
  struct Worker w[kThreads];
  pthread_t t[kThreads];
  for (int i = 0; i < kThreads; ++i) {
    MPI_Comm_dup(MPI_COMM_WORLD, &w[i].comm);
    w[i].index = i;
    w[i].calls = 150;
    w[i].bad = 0;
    w[i].served = 0;
  }
  /* One first call per duplicate, in order, before the threads start: the four then share one
     private communicator under collsel, which the threads' calls meet concurrently. */
  int bad = 0;
  for (int i = 0; i < kThreads && !race; ++i) bad |= exercise(w[i].comm, 999999 + i, 8, 0);
  typedef int (*held_fn)(void);
  held_fn held = (held_fn)dlsym(RTLD_DEFAULT, "collsel_private_comms");
  if (!race && held != NULL && held() != 1) {
    fprintf(stderr, "COMMS FAIL rank %d: 4 duplicates of MPI_COMM_WORLD hold %d private "
            "communicators, not 1\n", g_rank, held());
    bad = 1;
  }
  for (int i = 0; i < kThreads; ++i) pthread_create(&t[i], NULL, worker, &w[i]);
  int served = 0;
  for (int i = 0; i < kThreads; ++i) {
    pthread_join(t[i], NULL);
    bad |= w[i].bad;
    served += w[i].served;
  }
  for (int i = 0; i < kThreads; ++i) MPI_Comm_free(&w[i].comm);
  int any = bad;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (g_rank == 0 && !any) printf("COMMS OK threads%s served=%d\n", race ? " race" : "", served);
  return any;
}

static int run_limit(void) {
  last_algorithm_fn last = (last_algorithm_fn)dlsym(RTLD_DEFAULT, "collsel_last_algorithm");
  int bad = exercise(MPI_COMM_WORLD, 1, 100, 0);
  const char* world = last ? last() : "native";
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, g_rank % 2, g_rank, &half);
  bad |= exercise(half, 10, 100, 0);
  const char* other = last ? last() : "native";
  int world_served = strcmp(world, "native") != 0;
  int other_native = strcmp(other, "native") == 0;
  /* Only meaningful under collsel; natively both read "native". */
  if (last != NULL && (!world_served || !other_native)) {
    fprintf(stderr, "COMMS FAIL rank %d: limit: world ran %s, the other group ran %s\n", g_rank,
            world, other);
    bad = 1;
  }
  /* The other group's later calls stay native; MPI_COMM_WORLD stays served. */
  bad |= exercise(half, 20, 3000, 0);
  if (last != NULL && strcmp(last(), "native") != 0) bad = 1;
  MPI_Comm_free(&half);
  int any = bad;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (g_rank == 0 && !any) printf("COMMS OK limit world=%s other=%s\n", world, other);
  return any;
}

/* [runtime] serve_from_call = 3 (set by the test): on a new duplicate the first two calls run
   native and the third is served; MPI_COMM_WORLD is served from its first, and so is every call
   when the test forces a Bcast algorithm (COLLSEL_FORCE_BCAST). */
static int run_from3(void) {
  last_algorithm_fn last = (last_algorithm_fn)dlsym(RTLD_DEFAULT, "collsel_last_algorithm");
  const int forced = getenv("COLLSEL_FORCE_BCAST") != NULL;
  int bad = 0;
  char buf[64] = {0};
  MPI_Bcast(buf, 8, MPI_BYTE, 0, MPI_COMM_WORLD);
  if (last != NULL && strcmp(last(), "native") == 0) {
    fprintf(stderr, "COMMS FAIL rank %d: MPI_COMM_WORLD's first call ran native\n", g_rank);
    bad = 1;
  }
  for (int round = 0; round < 3; ++round) {
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    for (int call = 0; call < 4; ++call) {
      for (int i = 0; i < 64; ++i) buf[i] = g_rank == 0 ? (char)(i + call + round) : 0;
      MPI_Bcast(buf, 64, MPI_BYTE, 0, c);
      for (int i = 0; i < 64; ++i) bad |= buf[i] != (char)(i + call + round);
      const int native = last == NULL || strcmp(last(), "native") == 0;
      if (last != NULL && native != (!forced && call < 2)) {
        fprintf(stderr, "COMMS FAIL rank %d: call %d on a new communicator ran %s\n", g_rank,
                call, last());
        bad = 1;
      }
    }
    MPI_Comm_free(&c);
  }
  int any = bad;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (g_rank == 0 && !any) printf("COMMS OK from3\n");
  return any;
}

/* The program takes every context id but one, then splits a communicator over a new group (the
   last id): collsel cannot make a private communicator for it, so its calls run native on every
   rank, correctly, with one message and no abort. */
static int run_exhaust(void) {
  last_algorithm_fn last = (last_algorithm_fn)dlsym(RTLD_DEFAULT, "collsel_last_algorithm");
  const int limit = communicator_limit();
  MPI_Comm* held = malloc(sizeof(MPI_Comm) * (size_t)limit);
  for (int i = 0; i < limit - 1; ++i) MPI_Comm_dup(MPI_COMM_WORLD, &held[i]);
  MPI_Comm reversed;
  MPI_Comm_split(MPI_COMM_WORLD, 0, g_size - g_rank, &reversed);
  int bad = exercise(reversed, 5, 300, 0);
  if (last != NULL && strcmp(last(), "native") != 0) {
    fprintf(stderr, "COMMS FAIL rank %d: with no context id left collsel ran %s\n", g_rank,
            last());
    bad = 1;
  }
  MPI_Comm_free(&reversed);
  for (int i = 0; i < limit - 1; ++i) MPI_Comm_free(&held[i]);
  free(held);
  /* With the ids back, a new communicator over that group is served again. */
  MPI_Comm_split(MPI_COMM_WORLD, 0, g_size - g_rank, &reversed);
  bad |= exercise(reversed, 6, 300, 0);
  if (last != NULL && strcmp(last(), "native") == 0) {
    fprintf(stderr, "COMMS FAIL rank %d: with ids free again collsel still ran native\n", g_rank);
    bad = 1;
  }
  MPI_Comm_free(&reversed);
  int any = bad;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (g_rank == 0 && !any) printf("COMMS OK exhaust limit=%d\n", limit);
  return any;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: comms many|churn N|threads [race]|limit|from3|exhaust\n");
    return 2;
  }
  const int threads = strcmp(argv[1], "threads") == 0;
  if (threads) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE) {
      fprintf(stderr, "COMMS FAIL: MPI_THREAD_MULTIPLE not provided\n");
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  } else {
    MPI_Init(&argc, &argv);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  int bad = 1;
  if (strcmp(argv[1], "many") == 0) {
    bad = run_many();
  } else if (strcmp(argv[1], "churn") == 0) {
    bad = run_churn(argc > 2 ? atol(argv[2]) : 5000);
  } else if (threads) {
    bad = run_threads(argc > 2 && strcmp(argv[2], "race") == 0);
  } else if (strcmp(argv[1], "limit") == 0) {
    bad = run_limit();
  } else if (strcmp(argv[1], "from3") == 0) {
    bad = run_from3();
  } else if (strcmp(argv[1], "exhaust") == 0) {
    bad = run_exhaust();
  }
  MPI_Finalize();
  return bad;
}
