// The report's self-correction section: rows from the run's learned table, saved and trial cost
// from the run's merged calls and the measured means, exactly.
#include "tools/report/self_correction.hpp"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "selector/learned.hpp"

namespace collsel::report {
namespace {

class SelfCorrectionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("collsel-selfcorr-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void write(const std::string& text) { std::ofstream(dir_ / "learned.toml") << text; }
  std::filesystem::path dir_;
};

MergedCall call(const std::string& rung, double actual_s) {
  MergedCall c;
  c.coll = "bcast";
  c.comm_size = 8;
  c.bytes = 65536;
  c.rung = rung;
  c.actual_s = actual_s;
  return c;
}

TEST_F(SelfCorrectionTest, NoLearnedTableNoSection) {
  EXPECT_FALSE(self_correction(dir_, {}).has_value());
}

TEST_F(SelfCorrectionTest, SavedAndTrialCostFromMeasuredTimes) {
  LearnedTable t;
  t.model = "m";
  LearnedShape s;
  s.shape = {Collective::bcast, 8, 65536, 0};
  s.model_choice = "bcast.chain_segmented";
  s.chosen = "bcast.binomial_segmented";
  s.calls = 20;
  s.explore_calls = 2;
  s.measured_s = {{"bcast.chain_segmented", 0.004}, {"bcast.binomial_segmented", 0.001}};
  t.shapes = {s};
  write(format_learned(t));
  // 8 calls of the model's choice, 2 trials (3 ms and 1 ms), 10 calls of the chosen (1 ms each).
  std::vector<MergedCall> calls;
  for (int i = 0; i < 8; ++i) calls.push_back(call("model", 0.004));
  calls.push_back(call("explore", 0.003));
  calls.push_back(call("explore", 0.001));
  for (int i = 0; i < 10; ++i) calls.push_back(call("measured", 0.001));
  const auto sc = self_correction(dir_, calls);
  ASSERT_TRUE(sc.has_value());
  ASSERT_TRUE(sc->problems.empty());
  ASSERT_EQ(sc->rows.size(), 1u);
  const CorrectionRow& r = sc->rows[0];
  EXPECT_EQ(r.trial_calls, 2);
  EXPECT_EQ(r.measured_calls, 10);
  EXPECT_DOUBLE_EQ(*r.saved_s, 10 * 0.004 - 10 * 0.001);
  EXPECT_DOUBLE_EQ(*r.trial_cost_s, 0.004 - 2 * 0.004);
  const std::string text = format_self_correction_text(*sc);
  EXPECT_NE(text.find("bcast.binomial_segmented"), std::string::npos) << text;
  EXPECT_NE(text.find("saved 30.0 ms, trials cost -4.00 ms, net 34.0 ms"), std::string::npos)
      << text;
}

TEST_F(SelfCorrectionTest, AnUnreadableTableIsAProblemNotACrash) {
  write("format_version = 9\n");
  const auto sc = self_correction(dir_, {});
  ASSERT_TRUE(sc.has_value());
  ASSERT_EQ(sc->problems.size(), 1u);
  EXPECT_TRUE(sc->rows.empty());
}

}  // namespace
}  // namespace collsel::report
