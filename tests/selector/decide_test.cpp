// decide() on hand-made cost tables (STYLE.md 8.9 #33): ties, n/a entries, the precedence of
// the rungs, and the notes users see. No MPI.
#include <gtest/gtest.h>

#include <cmath>

#include "selector/decide.hpp"

namespace collsel {
namespace {

// Fake models read the prediction off the latency field, scaled per algorithm, so each test sets
// the cost table it needs through the model it passes.
Prediction cost_1x(const models::ModelFile& f, const CallShape&, const Policy&) {
  return {f.plogp.latency_s, {}};
}
Prediction cost_2x(const models::ModelFile& f, const CallShape&, const Policy&) {
  return {2 * f.plogp.latency_s, {}};
}
Prediction cost_half_segmented(const models::ModelFile& f, const CallShape& s,
                               const Policy& policy) {
  return {0.5 * f.plogp.latency_s, {policy.segment_bytes.value_or(s.bytes / 2)}};
}
std::optional<std::string> always(const CallShape&) { return std::nullopt; }
std::optional<std::string> small_only(const CallShape& s) {
  if (s.bytes > 100) return "too big";
  return std::nullopt;
}

const AlgorithmView kTable[] = {
    {"bcast.a", "first", cost_1x, always, false},
    {"bcast.b", "same cost as a", cost_1x, always, false},
    {"bcast.c", "twice as slow", cost_2x, always, false},
    {"bcast.d", "fastest, small messages only", cost_half_segmented, small_only, true},
};

models::ModelFile params(double latency) {
  models::ModelFile f;
  f.plogp.latency_s = latency;
  f.plogp.table = {{0, 1e-6, 1e-7, 1e-7}};
  return f;
}

CallShape shape(std::uint64_t bytes) { return {Collective::bcast, 8, bytes, 0}; }

TEST(Decide, PicksTheArgminAndReportsTheWholeTable) {
  const auto p = params(1.0);
  const Decision d = decide(shape(50), kTable, {nullptr, &p}, Policy{});
  ASSERT_EQ(d.table.size(), 4u);
  EXPECT_EQ(d.algorithm(), "bcast.d");
  EXPECT_EQ(d.rung, Rung::default_model);
  EXPECT_DOUBLE_EQ(d.predicted_s(), 0.5);
  EXPECT_EQ(d.params().segment_bytes, 25u);
  EXPECT_DOUBLE_EQ(d.table[2].predicted_s, 2.0);
}

TEST(Decide, CorrectionFactorsMultiplyThePredictionsAndMoveTheChoice) {
  auto p = params(1.0);
  p.corrections = {{"bcast.d", 4.0}, {"bcast.x", 0.001}};  // an unknown name never matches
  const Decision d = decide(shape(50), kTable, {nullptr, &p}, Policy{});
  EXPECT_DOUBLE_EQ(d.table[3].predicted_s, 2.0);
  EXPECT_DOUBLE_EQ(d.table[0].predicted_s, 1.0);
  EXPECT_EQ(d.algorithm(), "bcast.a");
}

TEST(Decide, TiesGoToRegistryOrder) {
  const auto p = params(1.0);
  const Decision d = decide(shape(500), kTable, {nullptr, &p}, Policy{});
  EXPECT_EQ(d.algorithm(), "bcast.a");  // a and b cost the same; d is n/a at 500 bytes
}

TEST(Decide, NotApplicableEntriesCarryTheirReasonAndNeverWin) {
  const auto p = params(1.0);
  const Decision d = decide(shape(500), kTable, {nullptr, &p}, Policy{});
  ASSERT_TRUE(d.table[3].not_applicable.has_value());
  EXPECT_EQ(*d.table[3].not_applicable, "too big");
  EXPECT_TRUE(std::isnan(d.table[3].predicted_s));
}

TEST(Decide, CalibratedModelOutranksTheFallback) {
  const auto calibrated = params(3.0);
  const auto fallback = params(1.0);
  const Decision d = decide(shape(50), kTable, {&calibrated, &fallback}, Policy{});
  EXPECT_EQ(d.rung, Rung::calibrated_model);
  EXPECT_DOUBLE_EQ(d.predicted_s(), 1.5);
}

TEST(Decide, OverrideOutranksTheModelAndKeepsItsPrediction) {
  const auto p = params(1.0);
  Policy policy;
  policy.of(Collective::bcast).force = "bcast.c";
  const Decision d = decide(shape(50), kTable, {nullptr, &p}, policy);
  EXPECT_EQ(d.algorithm(), "bcast.c");
  EXPECT_EQ(d.rung, Rung::override_algorithm);
  EXPECT_DOUBLE_EQ(d.predicted_s(), 2.0);
  EXPECT_TRUE(d.note.empty());
}

TEST(Decide, OverrideWorksWithoutAnyModel) {
  Policy policy;
  policy.of(Collective::bcast).force = "bcast.b";
  const Decision d = decide(shape(50), kTable, {nullptr, nullptr}, policy);
  EXPECT_EQ(d.algorithm(), "bcast.b");
  EXPECT_EQ(d.rung, Rung::override_algorithm);
  EXPECT_TRUE(std::isnan(d.predicted_s()));
}

TEST(Decide, NotApplicableOverrideFallsBackToTheModelAndSaysWhy) {
  const auto p = params(1.0);
  Policy policy;
  policy.of(Collective::bcast).force = "bcast.d";
  const Decision d = decide(shape(500), kTable, {nullptr, &p}, policy);
  EXPECT_EQ(d.algorithm(), "bcast.a");
  EXPECT_EQ(d.rung, Rung::default_model);
  EXPECT_EQ(d.note, "override bcast.d cannot serve this call (too big); ignored");
}

TEST(Decide, UnknownOverrideIsIgnoredWithANote) {
  const auto p = params(1.0);
  Policy policy;
  policy.of(Collective::bcast).force = "bcast.zzz";
  const Decision d = decide(shape(50), kTable, {nullptr, &p}, policy);
  EXPECT_EQ(d.algorithm(), "bcast.d");
  EXPECT_EQ(d.note, "override 'bcast.zzz' is not a bcast algorithm; ignored");
}

TEST(Decide, NativeOverrideAndDisabledCollectiveRunNative) {
  const auto p = params(1.0);
  Policy forced;
  forced.of(Collective::bcast).force = std::string(kNativeName);
  const Decision d1 = decide(shape(50), kTable, {nullptr, &p}, forced);
  EXPECT_EQ(d1.algorithm(), "native");
  EXPECT_EQ(d1.rung, Rung::override_algorithm);

  Policy disabled;
  disabled.of(Collective::bcast).enabled = false;
  disabled.of(Collective::bcast).force = "bcast.a";  // disabling wins over an override
  const Decision d2 = decide(shape(50), kTable, {nullptr, &p}, disabled);
  EXPECT_EQ(d2.algorithm(), "native");
  EXPECT_EQ(d2.rung, Rung::native);
  EXPECT_EQ(d2.note, "bcast is disabled in the configuration");
}

TEST(Decide, NoModelMeansNative) {
  const Decision d = decide(shape(50), kTable, {nullptr, nullptr}, Policy{});
  EXPECT_EQ(d.algorithm(), "native");
  EXPECT_EQ(d.rung, Rung::native);
}

TEST(Decide, PolicySegmentReachesTheModel) {
  const auto p = params(1.0);
  Policy policy;
  policy.segment_bytes = 7;
  const Decision d = decide(shape(50), kTable, {nullptr, &p}, policy);
  EXPECT_EQ(d.params().segment_bytes, 7u);
}

TEST(Decide, RungNamesAreTheLoggedOnes) {
  EXPECT_EQ(rung_name(Rung::override_algorithm), "override");
  EXPECT_EQ(rung_name(Rung::calibrated_model), "model");
  EXPECT_EQ(rung_name(Rung::default_model), "default_model");
  EXPECT_EQ(rung_name(Rung::native), "native");
}

}  // namespace
}  // namespace collsel
