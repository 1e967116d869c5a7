// The report's savings section: time saved or lost against the native collective per
// (collective, P, size bucket): measured (native calls of the same shape in this run or the
// baseline), else priced by the model (tools/decisions/native_choice.hpp), else none with the
// reason (report.hpp, "SavingRow").
#include <cmath>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "common/duration_format.hpp"
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

std::string measured_note(std::int64_t here, std::int64_t baseline) {
  if (baseline == 0) return fmt::format("mean of {} native call(s) of this run", here);
  if (here == 0) return fmt::format("mean of {} native call(s) of the baseline run", baseline);
  return fmt::format("mean of {} native call(s) of this run and {} of the baseline run", here,
                     baseline);
}

// The model prices MPICH's stand-in and what ran, under the same model at the calls' mean size;
// the native estimate is the measured time scaled by their ratio (report.hpp: a raw prediction
// against a measurement would count the model's own error as time saved or lost).
void price_with_model(const SavingKey& key, const ServedSums& served,
                      const native::NativeEstimator& estimator, SavingRow& row) {
  const auto known = collective_from_name(std::get<0>(key));
  if (!known || row.comm_size < 1) {  // a log of a newer collsel, or a damaged one
    row.native_note = fmt::format("the model cannot price {} on {} rank(s)", row.coll,
                                  row.comm_size);
    return;
  }
  const Collective coll = *known;
  const auto mean_bytes = static_cast<std::uint64_t>(
      std::llround(static_cast<double>(served.bytes) / static_cast<double>(served.calls)));
  const native::NativeEstimate estimate = estimator.estimate(coll, row.comm_size, mean_bytes);
  row.native_note = estimate.note;
  if (!estimate.predicted_s) return;
  double native_s = 0.0;
  for (const auto& [algorithm, sums] : served.by_algorithm) {
    const native::NativePrice ran = estimator.price(coll, row.comm_size, mean_bytes, algorithm);
    if (!ran.predicted_s || !(*ran.predicted_s > 0.0)) {
      row.native_note += fmt::format(
          "; no estimate: {}", ran.predicted_s ? fmt::format("the model predicts no time for {} "
                                                             "at this size, nothing to scale",
                                                             algorithm)
                                               : ran.why_not);
      return;
    }
    native_s += sums.time_s * (*estimate.predicted_s / *ran.predicted_s);
  }
  row.native_basis = "model:" + estimate.algorithm;
  row.native_s = native_s;
  row.native_note += fmt::format("; the model predicts {} per call for it",
                                 common::format_duration(*estimate.predicted_s));
  if (served.time_s > 0.0) {
    row.native_note += fmt::format(", x{:.3g} the measured time", native_s / served.time_s);
  }
}

SavingRow saving_row(const SavingKey& key, const ServedSums& served, const CallSums& here,
                     const CallSums& baseline, const native::NativeEstimator* estimator) {
  SavingRow row;
  std::tie(row.coll, row.comm_size, row.bucket) = key;
  row.algorithm = std::max_element(served.by_algorithm.begin(), served.by_algorithm.end(),
                                   [](const auto& a, const auto& b) {
                                     return a.second.calls < b.second.calls;
                                   })
                      ->first;
  row.calls = served.calls;
  row.actual_s = served.time_s;
  row.native_s = kNaN;
  const std::int64_t native_calls = here.calls + baseline.calls;
  if (native_calls > 0) {
    row.native_basis = "measured";
    row.native_calls = native_calls;
    row.native_s = (here.time_s + baseline.time_s) / static_cast<double>(native_calls) *
                   static_cast<double>(served.calls);
    row.native_note = measured_note(here.calls, baseline.calls);
  } else if (estimator != nullptr) {
    price_with_model(key, served, *estimator, row);
  } else {
    row.native_note = "no native call measured and no model given";
  }
  if (served.by_algorithm.size() > 1) {
    row.native_note += fmt::format("; {} algorithms ran, {} the most", served.by_algorithm.size(),
                                   row.algorithm);
  }
  row.saved_s = row.native_s - row.actual_s;  // NaN stays NaN: no estimate
  return row;
}

}  // namespace

std::vector<SavingRow> make_savings(const RunStats& stats, const RunStats* baseline,
                                    const native::NativeEstimator* estimator,
                                    double& saved_total) {
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
  std::vector<SavingRow> rows;
  saved_total = 0.0;
  for (const auto& [key, s] : served) {  // map order: coll, comm_size, bucket
    rows.push_back(saving_row(key, s, sums_of(here, key), sums_of(there, key), estimator));
    if (!std::isnan(rows.back().saved_s)) saved_total += rows.back().saved_s;
  }
  return rows;
}


}  // namespace collsel::report::detail
