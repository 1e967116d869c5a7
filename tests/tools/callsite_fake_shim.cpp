// Stands in for libcollsel.so in tests/tools/symbolize_test.cpp: a shared library holding its own
// copy of the call-site capture (collsel_callsite linked with --exclude-libs, as the shim's version
// script hides it), so CallSiteCapture skips this library's frames exactly as it skips the
// shim's, and the first frame it keeps is the test's line that called fake_mpi_bcast.
#include "pmpi/call_site.hpp"

extern "C" __attribute__((visibility("default"), noinline)) collsel::pmpi::CallSite
collsel_test_fake_mpi_bcast(int depth) {
  // Built per call: the tests ask for several depths, and the cost is no concern here.
  const collsel::pmpi::CallSiteCapture capture(depth);
  collsel::pmpi::CallSite site = capture.capture();
  asm volatile("" ::: "memory");  // no tail call: this frame must exist, as MPI_Bcast's does
  return site;
}
