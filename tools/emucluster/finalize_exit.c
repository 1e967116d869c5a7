/* libemucluster_finalize.so: a TEST-ONLY preload that replaces MPI_Finalize.
 *
 * MPICH 4.0.2 over UCX 1.13's TCP transport often hangs inside MPI_Finalize (see
 * shared/TESTBED.md and docs/EMUCLUSTER.md). `emucluster mpiexec` builds this file with mpicc
 * and puts it FIRST in the ranks' LD_PRELOAD, so its MPI_Finalize wins over libmpi's and over
 * libcollsel.so's. It never calls PMPI_Finalize (that is what hangs). Instead:
 *   1. PMPI_Barrier on MPI_COMM_WORLD, so no rank leaves while another still talks to it;
 *   2. collsel_flush() if libcollsel.so is loaded (found with dlsym, so this library does not
 *      depend on collsel), which writes collsel's logs, as its own MPI_Finalize would;
 *   3. a second barrier, so every rank's logs are written before any rank exits (the launcher
 *      kills the job's other ranks once one has gone, on some paths);
 *   4. tells hydra's process manager that this rank finalized (pmi_finalize() below), so that
 *      its exit is not taken for a crash;
 *   5. fflush(NULL) and _exit(0).
 * Consequences: atexit handlers and destructors do not run, and nothing that a program does after
 * MPI_Finalize happens. Programs run this way print their results before MPI_Finalize.
 * EMUCLUSTER_FINALIZE_EXIT_VERBOSE=1 makes every rank say on stderr that it took this path.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <poll.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Hydra cleans up a job when one of its processes closes its PMI socket without having said
 * "finalize" (mpiexec's auto-cleanup): it kills the others. Without this, a rank that leaves the
 * last barrier first and exits had the ranks still in that barrier, or still flushing, killed
 * (SIGKILL, or SIGHUP reported as "EXIT CODE: 1"): emucluster.calibrate_two_levels failed once
 * in CI and about once in 15 runs with both cores busy. So each rank says it, in the words
 * MPICH's own PMI_Finalize uses (the PMI-1 wire protocol on the PMI_FD socket hydra passes):
 * "cmd=finalize", answered by "cmd=finalize_ack". Not under hydra (no PMI_FD): nothing. */
static void pmi_finalize(void) {
    const char* fd_text = getenv("PMI_FD");
    if (fd_text == NULL || fd_text[0] == '\0') return;
    const int fd = atoi(fd_text);
    static const char cmd[] = "cmd=finalize\n";
    if (write(fd, cmd, sizeof cmd - 1) != (ssize_t)(sizeof cmd - 1)) return;
    char reply[256];
    size_t got = 0;
    struct pollfd p = {.fd = fd, .events = POLLIN};
    /* The answer, up to its newline; 10 s at most, and exiting without it is what happened
       before. */
    while (got < sizeof reply - 1 && poll(&p, 1, 10000) > 0) {
        const ssize_t n = read(fd, reply + got, sizeof reply - 1 - got);
        if (n <= 0) break;
        got += (size_t)n;
        if (memchr(reply, '\n', got) != NULL) break;
    }
}

int MPI_Finalize(void) {
    int finalized = 0;
    PMPI_Finalized(&finalized);
    if (!finalized) {
        PMPI_Barrier(MPI_COMM_WORLD);
        void (*flush)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "collsel_flush");
        if (flush != NULL) flush();
        PMPI_Barrier(MPI_COMM_WORLD);
        pmi_finalize();
    }
    const char* verbose = getenv("EMUCLUSTER_FINALIZE_EXIT_VERBOSE");
    if (verbose != NULL && verbose[0] == '1') {
        int rank = -1;
        if (!finalized) PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
        fprintf(stderr,
                "emucluster: rank %d: MPI_Finalize replaced by barrier + flush + PMI finalize + "
                "_exit(0)\n",
                rank);
    }
    fflush(NULL);
    _exit(0);
}

/* Fortran's `use mpi` / mpif.h MPI_FINALIZE reaches the C MPI_Finalize on MPICH; mpi_f08 calls
   PMPI_Finalize directly and is NOT covered (it may hang; the timeout still bounds it). */
