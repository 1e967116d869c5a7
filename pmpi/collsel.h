/* collsel's public C interface. Programs need none of it: collsel works by LD_PRELOAD alone.
   Tests and tools look these up with dlsym(RTLD_DEFAULT, ...) to see what the shim did. */
#ifndef COLLSEL_H
#define COLLSEL_H

#ifdef __cplusplus
extern "C" {
#endif

/* The algorithm the calling thread's last intercepted collective ran: a registered name such as
   "bcast.binomial", or "native". The pointer stays valid for the life of the process. */
const char* collsel_last_algorithm(void);

/* Writes collsel's logs now and stops serving (later calls go to the MPI library). For
   launchers that must end a job without MPI_Finalize, e.g. tools/emucluster's workaround for
   MPI_Finalize hangs over UCX's TCP transport. */
void collsel_flush(void);

/* The private communicators collsel holds now in this process (bound to user communicators or
   kept idle for reuse): user communicators over one group share one. */
int collsel_private_comms(void);

/* "0.1.0" */
const char* collsel_version(void);

#ifdef __cplusplus
}
#endif

#endif
