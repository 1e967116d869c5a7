// `collsel refit`: per-algorithm correction factors fitted to a run's logged (prediction,
// measurement) pairs (docs/MODELS.md, "Corrections"). A factor is the median over the algorithm's
// calls of actual / predicted, multiplied into the model's existing factor (the logged predictions
// already carry it), so refitting a refitted model converges instead of compounding.
#pragma once

#include <string>
#include <vector>

#include "models/model_file.hpp"
#include "tools/report/report.hpp"

namespace collsel::report {

struct RefitRow {
  std::string algorithm;
  int calls = 0;                       // merged calls with a prediction and actual > 0
  double factor_before = 1.0;          // the model's factor when the run was logged
  double factor = 1.0;                 // the new factor written
  double median_abs_error_before = 0;  // median |E_rel| of the logged predictions
  double median_abs_error_after = 0;   // the same with predictions x (factor / factor_before)
  bool fitted = false;                 // false: too few calls, the factor is kept as it was
};

struct Refit {
  models::ModelFile model;  // the input model with the new [corrections]
  std::vector<RefitRow> rows;  // by algorithm name
};

// `calls`: a run's merged calls, logged with `model` (or a model whose factors `model` holds).
// Algorithms with fewer than min_calls usable calls keep their factor. Only calls the model
// priced count: rungs model, default_model, override, measured, explore (not native).
Refit refit(const std::vector<MergedCall>& calls, const models::ModelFile& model, int min_calls);

std::string format_refit_text(const Refit& r);

}  // namespace collsel::report
