// The endings other than MPI_Finalize that must still close the rank's log (docs/LOGS.md, "How a
// rank ended"): exit() without MPI_Finalize (an atexit handler finalizes the runtime) and the
// fatal signals SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM and SIGINT (a handler writes the
// `end` record with async-signal-safe code, then hands the signal on exactly as it would have gone
// without collsel). MPI_Abort is intercepted in entry.cpp. SIGKILL runs no code at all; the
// log's records survive it because they are written to a shared file mapping (log_file.hpp).
#pragma once

namespace collsel::pmpi {

class CallLog;

// Once, at start-up, when the rank is logged: remembers `log` for the signal handler, installs the
// handlers (keeping whatever handler the program installed before, to chain to) and the atexit
// handler. `log` must outlive the process (the runtime is never destroyed).
void install_endings(CallLog* log);

}  // namespace collsel::pmpi
