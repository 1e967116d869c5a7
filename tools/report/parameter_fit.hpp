// `collsel refit`'s first step: the model's parameters fitted to a run's logged calls
// (docs/MODELS.md, "Refitting the parameters"). Where a calibration went wrong as a whole (a
// bandwidth measured 3x too high, a latency from a quiet hour), one multiplier per group of
// parameters corrects every algorithm's prediction at once, which per-algorithm factors can only
// approximate size by size. Each logged call is replayed: its algorithm's closed-form model is
// evaluated on the scaled model file, with the segment size and window the call ran with.
#pragma once

#include <optional>
#include <vector>

#include "models/model_file.hpp"
#include "tools/report/report.hpp"

namespace collsel::report {

// One multiplier per group of parameters; each scales its group in every section of the file.
struct ParameterScales {
  // Start-up time: [plogp] latency_s (and [intra_node]), [alltoall] Hockney alpha, [logfp] L.
  double latency = 1.0;
  // Network time per message and per byte: [plogp] g(m), [alltoall] Hockney beta, beta_F, beta_C
  // and the signature's delta, [logfp] g, [contention] alpha (between and within nodes).
  double gap = 1.0;
  // Processor time: [plogp] o_s(m) and o_r(m), [logfp] o_min and o_max, [alltoall] the copy cost.
  double overhead = 1.0;

  friend bool operator==(const ParameterScales&, const ParameterScales&) = default;
};

models::ModelFile scale_parameters(const models::ModelFile& model, const ParameterScales& s);

// The model's closed-form prediction of a logged call, without the [corrections] factor. Nothing
// when the call cannot be replayed: native, an unknown collective or algorithm, no comm size, an
// algorithm not applicable to the shape, or a prediction that came from schedule simulation (it
// needs the communicator's placement, which the log does not carry).
std::optional<double> replay(const models::ModelFile& model, const MergedCall& call);

struct ParameterFit {
  ParameterScales scales;  // all 1 when not fitted
  bool fitted = false;     // false: too few calls, or no scaling improved the error by 1 %
  int calls = 0;           // replayed calls the fit used
  int shapes = 0;          // distinct (shape, algorithm, segment, window) among them
  int simulated_calls = 0;       // left out: predicted by simulation
  int replay_mismatches = 0;     // replays of the input model (x its factor) off the logged
                                 // prediction by more than 1 %: the run used another model
  double error_before = 0.0;     // calls-weighted mean |ln(predicted / actual)|, input model
  double error_after = 0.0;      // the same with the fitted scales
};

// Coordinate descent over the three scales on a grid of 2^(k/16), 1/32 to 32: each scale in turn
// takes the grid value minimising the calls-weighted mean |ln(predicted / actual)| over the
// shapes (actual: the median over the shape's calls), the value nearest 1 among those within
// 0.1 % of the minimum, until nothing moves. Log errors weigh a 3x over- and under-estimate
// alike. The scales are kept (fitted) only when they cut that error by at least 1 % and at least
// `min_calls` calls were replayed.
ParameterFit fit_parameters(const std::vector<MergedCall>& calls, const models::ModelFile& model,
                            int min_calls);

}  // namespace collsel::report
