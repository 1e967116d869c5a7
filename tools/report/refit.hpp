// `collsel refit`: a model fitted to a run's logged (prediction, measurement) pairs in two steps
// (docs/MODELS.md, "Refitting the parameters" and "Corrections"). First the parameters: three
// multipliers (latency, gap, overhead) over the whole file (tools/report/parameter_fit.hpp). Then
// per-algorithm correction factors for what the parameters cannot express: a factor is the
// median over the algorithm's calls of actual / predicted. Without a parameter change the
// predictions are the logged ones, which already carry the model's factor, so the new factor is
// multiplied into the old one and refitting a refitted model converges instead of compounding;
// after a parameter change they are replayed on the new parameters without any factor, and the
// new factor replaces the old.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "models/model_file.hpp"
#include "tools/report/parameter_fit.hpp"
#include "tools/report/report.hpp"

namespace collsel::report {

struct RefitRow {
  std::string algorithm;
  int calls = 0;                       // merged calls with a prediction and actual > 0
  double factor_before = 1.0;          // the model's factor when the run was logged
  double factor = 1.0;                 // the new factor written
  double median_abs_error_before = 0;  // median |E_rel| of the logged predictions
  double median_abs_error_parameters = 0;  // with the refitted parameters, before the factor
  double median_abs_error_after = 0;   // with the refitted parameters and the new factor
  bool fitted = false;  // a new factor was written; false: too few calls, or it would not cut
                        // the median |E_rel| (the old factor is kept; after a parameter
                        // change, none)
};

struct RefitOptions {
  int min_calls = 5;        // calls an algorithm (and the parameter fit) needs
  bool parameters = true;   // fit the three parameter scales first
  bool factors = true;      // fit per-algorithm factors
};

struct Refit {
  models::ModelFile model;  // the input model with the new parameters and [corrections]
  std::optional<ParameterFit> parameters;  // when RefitOptions::parameters
  std::vector<RefitRow> rows;  // by algorithm name
};

// `calls`: a run's merged calls, logged with `model` (or a model whose factors `model` holds).
// Algorithms with fewer than min_calls usable calls keep their factor. Only calls the model
// priced count: rungs model, default_model, override, measured, explore (not native). After a
// parameter change, only calls that can be replayed (tools/report/parameter_fit.hpp: not
// simulated) count for the factors.
Refit refit(const std::vector<MergedCall>& calls, const models::ModelFile& model,
            const RefitOptions& options);

std::string format_refit_text(const Refit& r);

}  // namespace collsel::report
