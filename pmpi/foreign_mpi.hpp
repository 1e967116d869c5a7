// Whether the shim serves this process: not when the program runs another MPI than the one the
// shim is built for (flavour::foreign_mpi), where its handles and constants would be wrong.
#pragma once

namespace collsel::pmpi {

// Decided on the first call (one message from rank 0 naming the library to preload instead);
// when false, every entry point passes its arguments untouched to the program's own MPI.
bool serves_this_process();

// The same answer, decided when the library is loaded (a constructor) and read without a call:
// a pass-through wrapper that only tests it can hand its registers on untouched, as a tail call
// (pmpi/uncovered.cpp). Written once, before main(), and only read afterwards.
extern bool g_serves_this_process;

}  // namespace collsel::pmpi
