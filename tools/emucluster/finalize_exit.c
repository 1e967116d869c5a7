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
 *   4. fflush(NULL) and _exit(0).
 * Consequences: atexit handlers and destructors do not run, and nothing that a program does after
 * MPI_Finalize happens. Programs run this way print their results before MPI_Finalize.
 * EMUCLUSTER_FINALIZE_EXIT_VERBOSE=1 makes every rank say on stderr that it took this path.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int MPI_Finalize(void) {
    int finalized = 0;
    PMPI_Finalized(&finalized);
    if (!finalized) {
        PMPI_Barrier(MPI_COMM_WORLD);
        void (*flush)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "collsel_flush");
        if (flush != NULL) flush();
        PMPI_Barrier(MPI_COMM_WORLD);
    }
    const char* verbose = getenv("EMUCLUSTER_FINALIZE_EXIT_VERBOSE");
    if (verbose != NULL && verbose[0] == '1') {
        int rank = -1;
        if (!finalized) PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
        fprintf(stderr, "emucluster: rank %d: MPI_Finalize replaced by barrier + flush + _exit(0)\n",
                rank);
    }
    fflush(NULL);
    _exit(0);
}

/* Fortran's `use mpi` / mpif.h MPI_FINALIZE reaches the C MPI_Finalize on MPICH; mpi_f08 calls
   PMPI_Finalize directly and is NOT covered (it may hang; the timeout still bounds it). */
