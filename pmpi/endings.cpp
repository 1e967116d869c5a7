#include "pmpi/endings.hpp"

#include <signal.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdlib>

#include "pmpi/call_log.hpp"
#include "pmpi/runtime.hpp"

namespace collsel::pmpi {
namespace {

constexpr std::array kSignals{SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGINT};

// The one piece of global mutable state of the shim outside its runtime object: a signal handler
// receives nothing but the signal, so the log it writes to and the handlers it hands on to must
// be reachable from a global. Written once at start-up, before the handlers are installed; read
// only by the handler.
struct SignalState {
  std::atomic<CallLog*> log{nullptr};
  std::array<struct sigaction, kSignals.size()> previous{};
};
SignalState g_signals;

void on_fatal_signal(int signal, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  if (CallLog* log = g_signals.log.load()) log->end_from_signal(signal);
  std::size_t i = 0;
  while (i < kSignals.size() && kSignals[i] != signal) ++i;
  if (i == kSignals.size()) return;
  // Whatever was there before us takes over for good, so a second signal goes straight to it.
  const struct sigaction& previous = g_signals.previous[i];
  sigaction(signal, &previous, nullptr);
  errno = saved_errno;
  if ((previous.sa_flags & SA_SIGINFO) != 0 && previous.sa_sigaction != nullptr) {
    previous.sa_sigaction(signal, info, context);
  } else if (previous.sa_handler == SIG_IGN) {
    // Ignored before we came: ignored still (for a fault the instruction runs again, as it would).
  } else if (previous.sa_handler != SIG_DFL && previous.sa_handler != nullptr) {
    previous.sa_handler(signal);
  } else {
    // The default action: the signal is blocked while this handler runs, so raise() leaves it
    // pending and it is delivered, with its default action (termination, a core dump), when the
    // handler returns; the exit status is what it would have been without collsel. A fault
    // re-executes its instruction and faults again, to the same effect.
    raise(signal);
  }
}

void at_exit() {
  // After MPI_Finalize this does nothing: the log is closed already.
  try {
    runtime().finalize(Ending::exit, 0);
  } catch (...) {
    // Nothing may escape an atexit handler; the log then simply has no `end` record.
  }
}

}  // namespace

void install_endings(CallLog* log) {
  g_signals.log.store(log);
  struct sigaction ours {};
  ours.sa_sigaction = on_fatal_signal;
  // SA_ONSTACK: on the alternate stack where the thread has one (a program catching stack
  // overflows sets one up); on the usual stack otherwise.
  ours.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
  sigemptyset(&ours.sa_mask);
  for (std::size_t i = 0; i < kSignals.size(); ++i) {
    sigaction(kSignals[i], &ours, &g_signals.previous[i]);
  }
  std::atexit(at_exit);
}

}  // namespace collsel::pmpi
