// collsel refit's parameter step: scaling, replaying a logged call as decide() priced it, and
// recovering a parameter calibrated 3x wrong from the calls a right model would have measured.
#include "tools/report/parameter_fit.hpp"

#include <cmath>

#include <gtest/gtest.h>

#include "conf/embedded.hpp"
#include "selector/decide.hpp"
#include "tools/report/refit.hpp"

namespace collsel::report {
namespace {

models::ModelFile default_model() {
  const models::ModelLoad l =
      models::parse_model(conf::embedded_default_model(), conf::kEmbeddedModelName);
  EXPECT_TRUE(l.model);
  return *l.model;
}

// The calls a run would log: for each shape, the algorithm decide() chose with `priced_by` (its
// prediction logged), run `repeats` times, each measured as `truth` predicts it, off by a
// deterministic +-3 % so the fit sees noise.
std::vector<MergedCall> run_calls(const models::ModelFile& priced_by,
                                  const models::ModelFile& truth, int repeats) {
  std::vector<MergedCall> calls;
  const ModelSet set{.calibrated = &priced_by, .fallback = nullptr};
  int n = 0;
  for (Collective coll : {Collective::bcast, Collective::scatter, Collective::alltoall}) {
    for (int p : {8, 16, 64}) {
      for (std::uint64_t bytes : {64ULL, 4096ULL, 65536ULL, 1048576ULL}) {
        const CallShape shape{.coll = coll, .comm_size = p, .bytes = bytes, .root = 0};
        const Decision d = decide(shape, set, Policy{});
        // Every applicable algorithm, as a monitor's trials or forced runs would log them.
        for (const CostEntry& e : d.table) {
          if (e.not_applicable || !std::isfinite(e.predicted_s)) continue;
          for (int r = 0; r < repeats; ++r) {
            MergedCall c;
            c.coll = std::string(collective_name(coll));
            c.comm_size = p;
            c.bytes = bytes;
            c.algorithm = std::string(e.name);
            c.segment_bytes = e.params.segment_bytes;
            c.window = e.params.window;
            c.rung = "model";
            c.predicted_s = e.predicted_s;
            const std::optional<double> t = replay(truth, c);
            EXPECT_TRUE(t) << e.name;
            c.actual_s = *t * (1.0 + 0.03 * ((n++ % 3) - 1));
            calls.push_back(c);
          }
        }
      }
    }
  }
  return calls;
}

TEST(ParameterFit, ScalingTouchesEachGroupInEverySection) {
  const models::ModelFile m = default_model();
  const models::ModelFile s =
      scale_parameters(m, {.latency = 2.0, .gap = 3.0, .overhead = 5.0});
  EXPECT_DOUBLE_EQ(s.plogp.latency_s, 2.0 * m.plogp.latency_s);
  ASSERT_EQ(s.plogp.table.size(), m.plogp.table.size());
  for (std::size_t i = 0; i < m.plogp.table.size(); ++i) {
    EXPECT_DOUBLE_EQ(s.plogp.table[i].gap_s, 3.0 * m.plogp.table[i].gap_s);
    EXPECT_DOUBLE_EQ(s.plogp.table[i].send_overhead_s, 5.0 * m.plogp.table[i].send_overhead_s);
    EXPECT_DOUBLE_EQ(s.plogp.table[i].recv_overhead_s, 5.0 * m.plogp.table[i].recv_overhead_s);
  }
  if (m.alltoall) {
    EXPECT_DOUBLE_EQ(s.alltoall->hockney.alpha_s, 2.0 * m.alltoall->hockney.alpha_s);
    EXPECT_DOUBLE_EQ(s.alltoall->beta_free_s_per_byte, 3.0 * m.alltoall->beta_free_s_per_byte);
  }
  EXPECT_EQ(scale_parameters(m, {}).plogp.table[3].gap_s, m.plogp.table[3].gap_s);
}

TEST(ParameterFit, AReplayIsWhatDecidePricedWithoutTheFactor) {
  models::ModelFile m = default_model();
  m.corrections = {{"bcast.binomial", 2.0}};
  const ModelSet set{.calibrated = &m, .fallback = nullptr};
  int checked = 0;
  for (Collective coll : {Collective::bcast, Collective::scatter, Collective::alltoall}) {
    const CallShape shape{.coll = coll, .comm_size = 12, .bytes = 100000, .root = 3};
    for (const CostEntry& e : decide(shape, set, Policy{}).table) {
      if (e.not_applicable) continue;
      MergedCall c;
      c.coll = std::string(collective_name(coll));
      c.comm_size = 12;
      c.bytes = 100000;
      c.root = 3;
      c.algorithm = std::string(e.name);
      c.segment_bytes = e.params.segment_bytes;
      c.window = e.params.window;
      const std::optional<double> r = replay(m, c);
      ASSERT_TRUE(r) << e.name;
      EXPECT_NEAR(*r * m.correction(e.name), e.predicted_s, 1e-12 * e.predicted_s) << e.name;
      ++checked;
    }
  }
  EXPECT_GE(checked, 15);
  MergedCall native;
  native.coll = "bcast";
  native.comm_size = 4;
  native.algorithm = "native";
  EXPECT_FALSE(replay(m, native));
  MergedCall simulated = native;
  simulated.algorithm = "bcast.flat";
  simulated.simulated = true;
  EXPECT_FALSE(replay(m, simulated));
}

TEST(ParameterFit, FindsAGapCalibrated3xTooLow) {
  const models::ModelFile truth = default_model();
  const models::ModelFile wrong = scale_parameters(truth, {.gap = 1.0 / 3.0});
  const ParameterFit f = fit_parameters(run_calls(wrong, truth, 3), wrong, 5);
  ASSERT_TRUE(f.fitted);
  // Within one step of the grid (4.4 %) of 3, the others within two steps of 1.
  EXPECT_NEAR(std::log2(f.scales.gap), std::log2(3.0), 1.0 / 16) << f.scales.gap;
  EXPECT_NEAR(std::log2(f.scales.latency), 0.0, 2.0 / 16) << f.scales.latency;
  EXPECT_NEAR(std::log2(f.scales.overhead), 0.0, 2.0 / 16) << f.scales.overhead;
  EXPECT_LT(f.error_after, f.error_before / 5);
  EXPECT_EQ(f.replay_mismatches, 0);
}

TEST(ParameterFit, FindsALatencyCalibrated3xTooHigh) {
  const models::ModelFile truth = default_model();
  const models::ModelFile wrong = scale_parameters(truth, {.latency = 3.0});
  const ParameterFit f = fit_parameters(run_calls(wrong, truth, 3), wrong, 5);
  ASSERT_TRUE(f.fitted);
  EXPECT_NEAR(std::log2(f.scales.latency), std::log2(1.0 / 3.0), 2.0 / 16) << f.scales.latency;
  EXPECT_NEAR(std::log2(f.scales.gap), 0.0, 2.0 / 16) << f.scales.gap;
  EXPECT_LT(f.error_after, f.error_before / 2);
}

TEST(ParameterFit, ARightModelIsKept) {
  const models::ModelFile truth = default_model();
  const ParameterFit f = fit_parameters(run_calls(truth, truth, 3), truth, 5);
  EXPECT_FALSE(f.fitted);
  EXPECT_EQ(f.scales, ParameterScales{});
  EXPECT_GT(f.calls, 100);
}

TEST(ParameterFit, TooFewCallsFitNothing) {
  const models::ModelFile truth = default_model();
  const models::ModelFile wrong = scale_parameters(truth, {.gap = 3.0});
  std::vector<MergedCall> calls = run_calls(wrong, truth, 1);
  calls.resize(4);
  const ParameterFit f = fit_parameters(calls, wrong, 5);
  EXPECT_FALSE(f.fitted);
  EXPECT_EQ(f.calls, 4);
}

TEST(ParameterFit, SimulatedCallsAreLeftOutAndCounted) {
  const models::ModelFile truth = default_model();
  std::vector<MergedCall> calls = run_calls(truth, truth, 1);
  for (std::size_t i = 0; i < calls.size(); i += 2) calls[i].simulated = true;
  const ParameterFit f = fit_parameters(calls, truth, 5);
  EXPECT_EQ(f.simulated_calls + f.calls, static_cast<int>(calls.size()));
  EXPECT_EQ(f.simulated_calls, static_cast<int>((calls.size() + 1) / 2));
}

TEST(ParameterFit, ALogFromAnotherModelIsNamed) {
  const models::ModelFile truth = default_model();
  const models::ModelFile other = scale_parameters(truth, {.gap = 2.0});
  // Logged (predicted) with `other`, refitted against `truth`: every prediction differs.
  const ParameterFit f = fit_parameters(run_calls(other, truth, 1), truth, 5);
  EXPECT_GT(f.replay_mismatches, f.calls / 2);
}

TEST(Refit, ParametersThenFactorsWriteAModelThatPredictsTheRun) {
  const models::ModelFile truth = default_model();
  models::ModelFile wrong = scale_parameters(truth, {.gap = 1.0 / 3.0});
  wrong.corrections = {{"bcast.flat", 1.5}};
  const std::vector<MergedCall> calls = run_calls(wrong, truth, 3);
  const Refit r = refit(calls, wrong, {.min_calls = 5});
  ASSERT_TRUE(r.parameters && r.parameters->fitted);
  EXPECT_GT(r.rows.size(), 15u);
  EXPECT_NEAR(r.model.correction("bcast.flat"), 1.0, 0.08);
  EXPECT_NEAR(r.model.plogp.table.back().gap_s / truth.plogp.table.back().gap_s, 1.0, 0.05);
  for (const RefitRow& row : r.rows) {
    // With the parameters right, a factor is at most what the +-3 % noise leaves: near 1; the
    // old factor of bcast.flat is dropped, not compounded.
    EXPECT_NEAR(row.factor, 1.0, 0.08) << row.algorithm;
    EXPECT_LE(row.median_abs_error_after, row.median_abs_error_parameters + 1e-12)
        << row.algorithm;
    EXPECT_LT(row.median_abs_error_after, 0.06) << row.algorithm;
  }
  // Without the parameter step, the factors alone are what refit fitted before.
  const Refit factors_only = refit(calls, wrong, {.min_calls = 5, .parameters = false});
  EXPECT_FALSE(factors_only.parameters);
  EXPECT_EQ(factors_only.model.plogp.table.back().gap_s, wrong.plogp.table.back().gap_s);
}

}  // namespace
}  // namespace collsel::report
