// The All-to-All contention measurement of seed 000 (sections 6-8), at n' = every rank of the
// job: the direct exchange (Algorithm 1) and the every-message-at-once flood over a range of block
// sizes, and a local memory copy. From these and the pLogP pair measurement the contention
// signature (gamma, delta, M), beta_F, beta_C and rho are fitted (docs/MODELS.md, "All-to-All").
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "models/alltoall/contention.hpp"
#include "models/alltoall/signature_fit.hpp"

namespace collsel::calibrate {

struct AlltoallMeasureOptions {
  std::vector<std::uint64_t> sizes;  // block sizes, increasing; at least 4 for the fit
  int min_samples = 3;
  int max_samples = 9;
  double target_spread = 0.05;  // stop sampling a size when its 95 % interval is this tight
  double budget_s = 60.0;       // shared by the sizes in proportion to their bytes
  // Called on rank 0 after each size: (index, count, seconds so far).
  std::function<void(std::size_t, std::size_t, double)> progress;
};

struct AlltoallMeasurement {
  std::vector<models::alltoall::Sample> direct;  // median completion time per size
  std::vector<models::alltoall::Sample> flood;   // same, every message posted at once
  double copy_s_per_byte = 0.0;
};

// Collective over `comm`; the measurements are valid on rank 0.
AlltoallMeasurement measure_alltoall(MPI_Comm comm, const AlltoallMeasureOptions& options);

struct ContentionFit {
  models::alltoall::Contention contention;
  std::optional<std::string> error;  // the signature could not be fitted (and why)
  std::vector<double> direct_predicted;  // per direct sample, the fitted signature's prediction
};

// The [alltoall] section from the measurement and the pair's pLogP table (rank 0 only; pure).
// beta_F: Hockney beta of the pair; beta_C: the flood's per-byte time at its largest size,
// (T / ((n'-1) m)) -- the gap per byte of a saturated network; rho_single and rho_flood: eq. 3
// fitted to the direct exchange and to the flood at the sizes >= M (all sizes when no M).
ContentionFit fit_contention(const AlltoallMeasurement& m, const models::plogp::Params& pair,
                             int ranks);

}  // namespace collsel::calibrate
