// collsel refit's fit: the median ratio per algorithm, composed with the model's factor, kept
// when too few calls, and written into a model file that reads back with the factors.
#include "tools/report/refit.hpp"

#include <gtest/gtest.h>

namespace collsel::report {
namespace {

MergedCall call(const std::string& algorithm, double predicted, double actual) {
  MergedCall c;
  c.coll = "bcast";
  c.algorithm = algorithm;
  c.predicted_s = predicted;
  c.actual_s = actual;
  return c;
}

// A valid model up to its [corrections] header (line 9); the tests add the entries.
constexpr std::string_view kModelUpToCorrections = R"(format_version = 1
name = "t"
[plogp]
latency_s = 1e-5
sizes_bytes = [0, 1024]
gap_s = [1e-6, 2e-6]
send_overhead_s = [1e-7, 2e-7]
recv_overhead_s = [1e-7, 2e-7]
[corrections]
)";

models::ModelLoad with_corrections(const std::string& entries) {
  return models::parse_model(std::string(kModelUpToCorrections) + entries, "t.toml");
}

models::ModelFile a_model() {
  const models::ModelLoad l = with_corrections("\"bcast.chain\" = 2.0\n");
  EXPECT_TRUE(l.model) << (l.diagnostics.empty() ? "" : l.diagnostics[0].format());
  return *l.model;
}

TEST(Refit, MedianRatioComposedWithTheModelsFactor) {
  const models::ModelFile m = a_model();
  ASSERT_DOUBLE_EQ(m.correction("bcast.chain"), 2.0);
  std::vector<MergedCall> calls;
  // chain: predictions (already x2) half the measured time: the factor doubles again.
  for (double a : {2.0, 2.0, 2.2, 1.8, 2.0}) calls.push_back(call("bcast.chain", 1.0, a));
  // flat: 3x optimistic, one outlier; the median is 3.
  for (double a : {3.0, 3.0, 3.0, 3.0, 30.0}) calls.push_back(call("bcast.flat", 1.0, a));
  // binomial: too few calls, kept.
  for (double a : {5.0, 5.0}) calls.push_back(call("bcast.binomial", 1.0, a));
  calls.push_back(call("native", 1.0, 9.0));
  const Refit r = refit(calls, m, {.min_calls = 5, .parameters = false});
  ASSERT_EQ(r.rows.size(), 3u);
  EXPECT_EQ(r.rows[0].algorithm, "bcast.binomial");
  EXPECT_FALSE(r.rows[0].fitted);
  EXPECT_DOUBLE_EQ(r.rows[1].factor, 4.0);  // bcast.chain: 2 x 2
  EXPECT_DOUBLE_EQ(r.rows[2].factor, 3.0);  // bcast.flat
  EXPECT_DOUBLE_EQ(r.rows[2].median_abs_error_before, 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(r.rows[2].median_abs_error_after, 0.0);
  EXPECT_DOUBLE_EQ(r.model.correction("bcast.chain"), 4.0);
  EXPECT_DOUBLE_EQ(r.model.correction("bcast.flat"), 3.0);
  EXPECT_DOUBLE_EQ(r.model.correction("bcast.binomial"), 1.0);

  const models::ModelLoad back = models::parse_model(models::write_model(r.model), "w.toml");
  ASSERT_TRUE(back.model);
  EXPECT_EQ(back.model->corrections, r.model.corrections);
}

TEST(Refit, AFactorOutsideTheFilesBoundsIsAnError) {
  const models::ModelLoad l = with_corrections("\"bcast.chain\" = 5000.0\n");
  EXPECT_FALSE(l.model);
  ASSERT_FALSE(l.diagnostics.empty());
  EXPECT_NE(l.diagnostics[0].format().find("t.toml:10: [corrections] bcast.chain"),
            std::string::npos)
      << l.diagnostics[0].format();
}

}  // namespace
}  // namespace collsel::report
