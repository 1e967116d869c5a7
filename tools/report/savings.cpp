// The report's savings section: time saved or lost against the native collective per
// (collective, P, size bucket), measured (native calls of the same shape in this run or the
// baseline); and apart, for the shapes not measured, the model's estimates
// (tools/decisions/native_choice.hpp), with the multiplication they rest on (report.hpp,
// "SavingRow" and "EstimateRow").
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "common/duration_format.hpp"
#include "common/size_parse.hpp"
#include "tools/decisions/native_choice.hpp"
#include "tools/report/run_stats.hpp"

namespace collsel::report::detail {
namespace {

constexpr std::string_view kNative = "native";

// ---- savings ---------------------------------------------------------------------------------

using SavingKey = std::tuple<std::string, int, Bucket>;

// Calls and their total time (each call's time its slowest rank's).
struct CallSums {
  std::int64_t calls = 0;
  double time_s = 0.0;
};

// What collsel ran for one (coll, comm_size, bucket).
struct ServedSums {
  std::int64_t calls = 0;
  double time_s = 0.0;
  std::uint64_t bytes = 0;
  std::map<std::string, CallSums> by_algorithm;
};

// Native calls per (coll, comm_size, bucket) of one run.
std::map<SavingKey, CallSums> native_sums(const RunStats& stats) {
  std::map<SavingKey, CallSums> out;
  for (const auto& [key, k] : stats.keys) {
    if (std::get<1>(key) != kNative) continue;
    CallSums& n = out[{std::get<0>(key), std::get<3>(key), std::get<2>(key)}];
    n.calls += k.calls();
    n.time_s += k.time_s();
  }
  return out;
}

// The key and what ran, with the algorithm of the most calls (the first in name order on a tie).
ServedShape served_shape(const SavingKey& key, const ServedSums& served) {
  ServedShape shape;
  std::tie(shape.coll, shape.comm_size, shape.bucket) = key;
  shape.algorithm =
      std::max_element(served.by_algorithm.begin(), served.by_algorithm.end(),
                       [](const auto& a, const auto& b) { return a.second.calls < b.second.calls; })
          ->first;
  shape.calls = served.calls;
  shape.actual_s = served.time_s;
  return shape;
}

std::string measured_note(std::int64_t here, std::int64_t baseline) {
  if (baseline == 0) return fmt::format("mean of {} native call(s) of this run", here);
  if (here == 0) return fmt::format("mean of {} native call(s) of the baseline run", baseline);
  return fmt::format("mean of {} native call(s) of this run and {} of the baseline run", here,
                     baseline);
}

// The model's estimate of the native time of a shape no native call measured: the measured time
// scaled by the ratio of the model's predictions for the library's stand-in and for what ran, both at
// the calls' mean size (report.hpp, "EstimateRow": a raw prediction against a measurement would
// count the model's own error as time saved or lost).
EstimateRow estimate_row(const SavingKey& key, const ServedSums& served,
                         const native::NativeEstimator& estimator) {
  EstimateRow row;
  static_cast<ServedShape&>(row) = served_shape(key, served);
  row.native_predicted_s = row.ran_predicted_s = row.ratio = row.native_s = row.saved_s = kNaN;
  row.mean_bytes = static_cast<std::uint64_t>(
      std::llround(static_cast<double>(served.bytes) / static_cast<double>(served.calls)));
  const auto known = collective_from_name(row.coll);
  if (!known || row.comm_size < 1) {  // a log of a newer collsel, or a damaged one
    row.how = fmt::format("no estimate: the model cannot price {} on {} rank(s)", row.coll,
                          row.comm_size);
    return row;
  }
  const Collective coll = *known;
  const native::NativeEstimate estimate = estimator.estimate(coll, row.comm_size, row.mean_bytes);
  if (!estimate.predicted_s) {
    row.how = "no estimate: " + estimate.note;
    return row;
  }
  row.native_algorithm = estimate.algorithm;
  row.native_predicted_s = *estimate.predicted_s;
  const std::string size = common::format_size(row.mean_bytes);
  double native_s = 0.0;
  std::string factors;
  for (const auto& [algorithm, sums] : served.by_algorithm) {
    const native::NativePrice ran = estimator.price(coll, row.comm_size, row.mean_bytes, algorithm);
    if (!ran.predicted_s || !(*ran.predicted_s > 0.0)) {
      row.how = fmt::format(
          "no estimate: {}; {}",
          ran.predicted_s ? fmt::format("the model predicts no time for {} at {}, nothing to "
                                        "scale", algorithm, size)
                          : ran.why_not,
          estimate.note);
      return row;
    }
    native_s += sums.time_s * (*estimate.predicted_s / *ran.predicted_s);
    factors += fmt::format("{}{} measured for {} x ({} / {})", factors.empty() ? "" : " + ",
                           common::format_duration(sums.time_s), algorithm,
                           common::format_duration(*estimate.predicted_s),
                           common::format_duration(*ran.predicted_s));
    if (served.by_algorithm.size() == 1) row.ran_predicted_s = *ran.predicted_s;
  }
  row.native_s = native_s;
  row.saved_s = native_s - row.actual_s;
  if (row.actual_s > 0.0) row.ratio = native_s / row.actual_s;
  row.how = fmt::format(
      "{} = {}: the measured time x (the model's prediction per call for {}, {}'s choice, / "
      "its prediction for what ran), both at {}; {}",
      factors, common::format_duration(native_s), estimate.algorithm,
      native::library_name(estimator.rules().library), size, estimate.note);
  return row;
}

SavingRow saving_row(const SavingKey& key, const ServedSums& served, const CallSums& here,
                     const CallSums& baseline, bool have_baseline) {
  SavingRow row;
  static_cast<ServedShape&>(row) = served_shape(key, served);
  row.native_s = kNaN;
  const std::int64_t native_calls = here.calls + baseline.calls;
  if (native_calls > 0) {
    row.native_basis = "measured";
    row.native_calls = native_calls;
    row.native_s = (here.time_s + baseline.time_s) / static_cast<double>(native_calls) *
                   static_cast<double>(served.calls);
    row.native_note = measured_note(here.calls, baseline.calls);
  } else {
    row.native_note = have_baseline
                          ? "not measured: no native call of this shape in this run or the "
                            "baseline run"
                          : "not measured: no native call of this shape in this run and no "
                            "--baseline run";
  }
  if (served.by_algorithm.size() > 1) {
    row.native_note += fmt::format("; {} algorithms ran, {} the most", served.by_algorithm.size(),
                                   row.algorithm);
  }
  row.saved_s = row.native_s - row.actual_s;  // NaN stays NaN: not measured
  return row;
}

std::string saving_basis(const Report& r, bool have_baseline) {
  if (r.measured_saving_rows > 0) {
    return fmt::format(
        "measured: collsel's calls against native calls of the same collective, size and "
        "communicator size {} ({} of {} call shapes)",
        have_baseline ? fmt::format("in this run and the baseline run {}", r.baseline)
                      : std::string("in this run"),
        r.measured_saving_rows, r.savings.size());
  }
  return fmt::format(
      "no native baseline measured{}: run the program once more with COLLSEL_DISABLE=all "
      "(same COLLSEL_LOG_DIR or another) and pass that run's log directory with --baseline",
      have_baseline ? " (the baseline run has no native call of the shapes collsel served)" : "");
}

}  // namespace

void make_savings(const RunStats& stats, const RunStats* baseline,
                  const native::NativeEstimator* estimator, Report& r) {
  std::map<SavingKey, ServedSums> served;
  for (const auto& [key, k] : stats.keys) {
    if (std::get<1>(key) == kNative) continue;
    const std::int64_t calls = k.calls();
    if (calls == 0) continue;
    ServedSums& s = served[{std::get<0>(key), std::get<3>(key), std::get<2>(key)}];
    s.calls += calls;
    s.time_s += k.time_s();
    s.bytes += k.bytes();
    CallSums& by = s.by_algorithm[std::get<1>(key)];
    by.calls += calls;
    by.time_s += k.time_s();
  }
  const auto here = native_sums(stats);
  const auto there = baseline != nullptr ? native_sums(*baseline) : decltype(here){};
  const auto sums_of = [](const std::map<SavingKey, CallSums>& m, const SavingKey& key) {
    const auto it = m.find(key);
    return it == m.end() ? CallSums{} : it->second;
  };
  r.savings.clear();
  r.estimates.clear();
  r.measured_saving_rows = 0;
  double measured = 0.0, estimated = 0.0;
  int estimated_rows = 0;
  for (const auto& [key, s] : served) {  // map order: coll, comm_size, bucket
    r.savings.push_back(
        saving_row(key, s, sums_of(here, key), sums_of(there, key), baseline != nullptr));
    if (!std::isnan(r.savings.back().saved_s)) {
      measured += r.savings.back().saved_s;
      ++r.measured_saving_rows;
    } else if (estimator != nullptr) {
      r.estimates.push_back(estimate_row(key, s, *estimator));
      if (!std::isnan(r.estimates.back().saved_s)) {
        estimated += r.estimates.back().saved_s;
        ++estimated_rows;
      }
    }
  }
  r.saved_measured_s = r.measured_saving_rows > 0 ? measured : kNaN;
  r.saved_estimated_s = estimated_rows > 0 ? estimated : kNaN;
  r.saving_basis = saving_basis(r, baseline != nullptr);
}

}  // namespace collsel::report::detail
