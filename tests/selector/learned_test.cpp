// The learned table's format (selector/learned.hpp): what format_learned() writes,
// parse_learned() reads back; anything wrong makes the whole file unusable with one message.
#include "selector/learned.hpp"

#include <algorithm>

#include <gtest/gtest.h>

namespace collsel {
namespace {

LearnedTable sample() {
  LearnedTable t;
  t.model = "gige \"lab\"";
  LearnedShape a;
  a.shape = {Collective::bcast, 8, 65536, 3};
  a.model_choice = "bcast.chain_segmented";
  a.chosen = "bcast.binomial_segmented";
  a.calls = 200;
  a.explore_calls = 12;
  a.measured_s = {{"bcast.chain_segmented", 0.0021}, {"bcast.binomial_segmented", 0.00105}};
  LearnedShape b;
  b.shape = {Collective::alltoall, 5, 16, 0};
  b.model_choice = b.chosen = "alltoall.pairwise";
  b.calls = 9;
  b.measured_s = {{"alltoall.pairwise", 1.5e-5}};
  t.shapes = {a, b};
  return t;
}

TEST(LearnedTable, RoundTripsThroughItsTextFormat) {
  const LearnedTable t = sample();
  const LearnedLoad l = parse_learned(format_learned(t), "learned.toml", t.model);
  ASSERT_TRUE(l.table) << (l.diagnostics.empty() ? "" : l.diagnostics[0].format());
  EXPECT_TRUE(l.diagnostics.empty());
  EXPECT_EQ(l.table->model, t.model);
  ASSERT_EQ(l.table->shapes.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    const LearnedShape& w = t.shapes[i];
    const LearnedShape& r = l.table->shapes[i];
    EXPECT_EQ(r.shape, w.shape);
    EXPECT_EQ(r.model_choice, w.model_choice);
    EXPECT_EQ(r.chosen, w.chosen);
    EXPECT_EQ(r.calls, w.calls);
    EXPECT_EQ(r.explore_calls, w.explore_calls);
    auto written = w.measured_s;  // written in name order
    std::sort(written.begin(), written.end());
    EXPECT_EQ(r.measured_s, written);
  }
  EXPECT_EQ(l.table->find({Collective::bcast, 8, 65536, 3}), &l.table->shapes[0]);
  EXPECT_EQ(l.table->find({Collective::bcast, 8, 65536, 0}), nullptr);
}

// One bad input, one error naming the file and the line, and no table.
void expect_unusable(const std::string& text, int line, const std::string& words,
                     const std::string& model = "") {
  const LearnedLoad l = parse_learned(text, "nightly.toml", model);
  EXPECT_FALSE(l.table) << text;
  ASSERT_EQ(l.diagnostics.size(), 1u) << text;
  const std::string m = l.diagnostics[0].format();
  EXPECT_NE(m.find("nightly.toml"), std::string::npos) << m;
  EXPECT_NE(m.find(words), std::string::npos) << m;
  EXPECT_NE(m.find("the learned table is ignored"), std::string::npos) << m;
  if (line > 0) {
    EXPECT_EQ(l.diagnostics[0].line, line) << m;
  }
}

TEST(LearnedTable, ACorruptOrMismatchedFileIsIgnoredWithOneMessage) {
  std::string good = format_learned(sample());
  expect_unusable("format_version = 1\nmodel = [", 2, "not valid TOML");
  expect_unusable("format_version = 7\nmodel = \"m\"\n", 0, "format_version must be 1");
  expect_unusable(good, 4, "learned with model 'gige \"lab\"', but this run uses model 'ib'", "ib");
  std::string bad_alg = good;
  bad_alg.replace(bad_alg.find("\"bcast.binomial_segmented\""), 26, "\"bcast.nonesuch\"");
  expect_unusable(bad_alg, 6, "chosen must name an algorithm of bcast");
  std::string bad_root = good;
  bad_root.replace(bad_root.find("root = 3"), 8, "root = 8");
  expect_unusable(bad_root, 6, "root must lie in 0 .. comm_size - 1");
  std::string no_time = good;
  no_time.replace(no_time.find("\"alltoall.pairwise\" = "), 22, "\"alltoall.bruck\" = ");
  expect_unusable(no_time, 0, "no time for the chosen algorithm");
}

TEST(LearnedTable, MergeKeepsTheLongerMeasurementAndPutReplaces) {
  LearnedTable t = sample();
  LearnedShape shorter = t.shapes[0];
  shorter.calls = 10;
  shorter.chosen = shorter.model_choice;
  t.merge(shorter);
  EXPECT_EQ(t.shapes[0].chosen, "bcast.binomial_segmented");
  t.put(shorter);
  EXPECT_EQ(t.shapes[0].chosen, "bcast.chain_segmented");
  EXPECT_EQ(t.shapes.size(), 2u);
}

}  // namespace
}  // namespace collsel
