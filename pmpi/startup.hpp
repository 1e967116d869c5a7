// The shim's start-up, collective over the communicator it starts on (MPI_COMM_WORLD, or the
// first intercepted call's when MPI_Init was not seen): rank 0 reads the config and the model file
// into strings and broadcasts them with the environment it saw and the run id, every rank parses
// the same bytes (STYLE.md 8.7 #28), rank 0 alone prints problems, and all ranks agree whether
// the run is logged. What it yields is read-only for the rest of the run.
#pragma once

#include <mpi.h>

#include <memory>
#include <optional>

#include "models/model_file.hpp"
#include "pmpi/call_log.hpp"
#include "pmpi/call_site.hpp"
#include "selector/config.hpp"
#include "selector/decide.hpp"
#include "selector/learned.hpp"

namespace collsel::pmpi {

// A test-only hook (tests/pmpi/e2e.py, case local_failure): COLLSEL_TEST_FAIL=STAGE@RANK makes
// world rank RANK throw std::bad_alloc at STAGE, to show that a failure on one rank never leaves
// ranks in different collectives. "bind": every preparation of a communicator's binding to a
// private communicator (pmpi/private_comms.cpp), agreed in the binding's allreduce; "context":
// every allocation of a communicator's context before that allreduce (runtime.cpp), the rank then
// keeping no context at all; "decide": every decision of a new call shape, which collsel agrees on
// before any schedule starts (in the binding's allreduce for a communicator's first shape);
// "schedule": every run of an algorithm, a failure inside a schedule its peers have entered. Read
// per rank on purpose: the failure it stands for is rank-local.
enum class InjectedFailure { none, bind, context, decide, schedule };

struct Startup {
  Config config;
  InjectedFailure inject = InjectedFailure::none;  // this rank's, from COLLSEL_TEST_FAIL
  std::optional<models::ModelFile> calibrated;
  std::optional<models::ModelFile> fallback;  // the embedded default model
  // The model in use simulates schedules ([contention] use != never): contexts then gather their
  // ranks' placement. Equal on all ranks, like the model it comes from.
  bool placement_wanted = false;
  std::unique_ptr<CallLog> log;                     // null: the run is not logged
  std::unique_ptr<const CallSiteCapture> sites;     // null: no call sites
  double time_origin = 0.0;                         // PMPI_Wtime() at start-up
  // [adapt] learned: the table this run starts from, when it loaded and matches the model.
  std::optional<LearnedTable> learned;
  std::string model_name;    // the name of the model in use (the learned table's key)
  std::string learned_out;   // where finalize writes what this run learned: LOG_DIR/RUN/learned.toml
  int tag_ub = 32767;        // MPI_TAG_UB, the smallest over the start-up communicator's ranks

  // Points into `calibrated` and `fallback`: valid while this object lives where it is.
  [[nodiscard]] ModelSet models() const {
    return {calibrated ? &*calibrated : nullptr, fallback ? &*fallback : nullptr};
  }
};

// Collective over `comm`; `world_rank` names this process in the log.
Startup start_up(MPI_Comm comm, int world_rank);

}  // namespace collsel::pmpi
