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
  // A trial's segment (selector/adapt.hpp, try_segments) is part of the name.
  a.chosen = "bcast.binomial_segmented@4096";
  a.calls = 200;
  a.explore_calls = 16;
  a.measured_s = {{"bcast.chain_segmented", 0.0021},
                  {"bcast.binomial_segmented", 0.00105},
                  {"bcast.binomial_segmented@4096", 0.00095}};
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
  expect_unusable("format_version = 7\nmodel = \"m\"\n", 0, "format_version must be 1 to 2");
  expect_unusable("format_version = 0\nmodel = \"m\"\n", 0, "format_version must be 1 to 2");
  expect_unusable(good, 4, "learned with model 'gige \"lab\"', but this run uses model 'ib'", "ib");
  std::string bad_alg = good;
  bad_alg.replace(bad_alg.find("\"bcast.binomial_segmented@4096\""), 31, "\"bcast.nonesuch\"");
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
  EXPECT_EQ(t.shapes[0].chosen, "bcast.binomial_segmented@4096");
  t.put(shorter);
  EXPECT_EQ(t.shapes[0].chosen, "bcast.chain_segmented");
  EXPECT_EQ(t.shapes.size(), 2u);
}

TEST(LearnedTable, FormatOneIsStillRead) {
  std::string v1 = format_learned(sample());
  v1.replace(v1.find("format_version = 2"), 18, "format_version = 1");
  const LearnedLoad l = parse_learned(v1, "old.toml", "");
  ASSERT_TRUE(l.table);
  EXPECT_EQ(l.table->shapes.size(), 2u);
}

TEST(LearnedLabel, NamesASegmentOfASegmentedAlgorithmOnly) {
  EXPECT_EQ(learned_label("bcast.chain_segmented", 6144), "bcast.chain_segmented@6144");
  EXPECT_EQ(learned_label("bcast.chain_segmented", std::nullopt), "bcast.chain_segmented");
  const auto l = parse_learned_label(Collective::bcast, "bcast.chain_segmented@6144");
  ASSERT_TRUE(l);
  EXPECT_EQ(l->algorithm, "bcast.chain_segmented");
  EXPECT_EQ(l->segment_bytes, 6144u);
  const auto plain = parse_learned_label(Collective::bcast, "bcast.binomial");
  ASSERT_TRUE(plain);
  EXPECT_FALSE(plain->segment_bytes);
  for (const char* bad : {"bcast.binomial@6144", "bcast.chain_segmented@0",
                          "bcast.chain_segmented@", "bcast.chain_segmented@12k",
                          "bcast.chain_segmented@-1", "scatter.flat", "bcast.nonesuch@8"}) {
    EXPECT_FALSE(parse_learned_label(Collective::bcast, bad)) << bad;
  }
  std::string bad_segment = format_learned(sample());
  const std::string good_key = "binomial_segmented@4096\" =";
  bad_segment.replace(bad_segment.find(good_key), good_key.size(), "binomial_segmented@4x\" =");
  expect_unusable(bad_segment, 0, "measured_s: 'bcast.binomial_segmented@4x'");
}

}  // namespace
}  // namespace collsel
