/* Ends badly on purpose (tests/pmpi/e2e_endings.py): every rank makes ENDINGS_N broadcasts and
 * says so on stdout, then the run ends as ENDINGS_MODE says:
 *   finalize  all ranks call MPI_Finalize (the reference ending)
 *   exit      all ranks call exit(0) without MPI_Finalize
 *   abort     rank ENDINGS_VICTIM calls MPI_Abort(MPI_COMM_WORLD, 3); the others wait in a
 *             barrier until the launcher kills them (MPICH: SIGKILL)
 *   segv      rank ENDINGS_VICTIM writes through a null pointer; the others wait likewise
 *   kill      rank ENDINGS_VICTIM sends itself SIGKILL; the others wait likewise
 *   handler   the program installs a SIGTERM handler before MPI_Init (it says so and _exits
 *             with 42); rank ENDINGS_VICTIM sends itself SIGTERM; the others wait likewise
 * The same program runs natively and under collsel: the test compares the exit statuses. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void on_term(int signal) {
  static const char kSaid[] = "ENDINGS user handler ran\n";
  (void)signal;
  (void)!write(STDOUT_FILENO, kSaid, sizeof kSaid - 1);
  _exit(42);
}

static int env_int(const char* name, int fallback) {
  const char* v = getenv(name);
  return v != NULL && *v != '\0' ? atoi(v) : fallback;
}

int main(int argc, char** argv) {
  const char* early_mode = getenv("ENDINGS_MODE");
  if (early_mode != NULL && strcmp(early_mode, "handler") == 0) {
    struct sigaction term;
    memset(&term, 0, sizeof term);
    term.sa_handler = on_term;
    sigemptyset(&term.sa_mask);
    sigaction(SIGTERM, &term, NULL);
  }
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const char* mode = getenv("ENDINGS_MODE");
  if (mode == NULL) mode = "finalize";
  const int n = env_int("ENDINGS_N", 6000);
  const int victim = env_int("ENDINGS_VICTIM", 1);
  int value = 0;
  for (int i = 0; i < n; ++i) {
    value = rank == 0 ? i : -1;
    MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (value != i) {
      printf("ENDINGS rank=%d wrong value %d in call %d\n", rank, value, i);
      fflush(stdout);
    }
  }
  /* Every rank has completed its n calls before any rank ends: each log must hold all of them. */
  MPI_Barrier(MPI_COMM_WORLD);
  printf("ENDINGS rank=%d calls=%d\n", rank, n);
  fflush(stdout);
  if (strcmp(mode, "exit") == 0) exit(0);
  if (strcmp(mode, "finalize") != 0) {
    if (rank == victim) {
      if (strcmp(mode, "abort") == 0) MPI_Abort(MPI_COMM_WORLD, 3);
      if (strcmp(mode, "segv") == 0) *(volatile int*)NULL = 1;
      if (strcmp(mode, "kill") == 0) raise(SIGKILL);
      if (strcmp(mode, "handler") == 0) raise(SIGTERM);
    }
    MPI_Barrier(MPI_COMM_WORLD); /* never completes: the victim is gone */
  }
  MPI_Finalize();
  return 0;
}
