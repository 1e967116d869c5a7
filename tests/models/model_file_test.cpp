#include "models/model_file.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace collsel::models {
namespace {

using Severity = Diagnostic::Severity;

// A valid file whose line numbers the tests below rely on.
const std::vector<std::string> kValidLines = {
    "format_version = 1",                            // 1
    "name = \"test cluster\"",                       // 2
    "description = \"two nodes\"",                   // 3
    "",                                              // 4
    "[provenance]",                                  // 5
    "command = \"mpiexec -n 2 collsel-calibrate\"",  // 6
    "date = \"2026-11-23T07:00:00Z\"",               // 7
    "mpi_library = \"MPICH 4.0.2\"",                 // 8
    "hosts = [\"n1\", \"n2\"]",                      // 9
    "ranks = 2",                                     // 10
    "notes = \"quick\"",                             // 11
    "",                                              // 12
    "[plogp]",                                       // 13
    "latency_s = 5e-6",                              // 14
    "eager_limit_bytes = 16384",                     // 15
    "sizes_bytes = [0, 1, 1024]",                    // 16
    "gap_s = [1e-6, 1e-6, 2e-6]",                    // 17
    "send_overhead_s = [1e-7, 1e-7, 3e-7]",          // 18
    "recv_overhead_s = [1e-7, 1e-7, 4e-7]",          // 19
};

constexpr std::string_view kSource = "m.toml";
constexpr std::string_view kRegen = "re-run collsel-calibrate to regenerate the file";

std::string join(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

// The valid file with line `n` (1-based) replaced; "" blanks it and keeps later lines in place.
std::string with_line(int n, const std::string& replacement) {
  auto lines = kValidLines;
  lines.at(static_cast<std::size_t>(n - 1)) = replacement;
  return join(lines);
}

std::vector<std::string> messages(const ModelLoad& load) {
  std::vector<std::string> out;
  for (const auto& d : load.diagnostics) out.push_back(d.format());
  return out;
}

// Parsing `text` rejects the model with exactly this one error message.
void expect_error(const std::string& text, const std::string& message) {
  const ModelLoad load = parse_model(text, kSource);
  EXPECT_FALSE(load.model.has_value());
  ASSERT_EQ(load.diagnostics.size(), 1u) << ::testing::PrintToString(messages(load));
  EXPECT_EQ(load.diagnostics[0].severity, Severity::error);
  EXPECT_EQ(load.diagnostics[0].format(), message);
}

// Parsing `text` keeps the model and says exactly this one warning.
void expect_warning(const std::string& text, const std::string& message) {
  const ModelLoad load = parse_model(text, kSource);
  EXPECT_TRUE(load.model.has_value());
  ASSERT_EQ(load.diagnostics.size(), 1u) << ::testing::PrintToString(messages(load));
  EXPECT_EQ(load.diagnostics[0].severity, Severity::warning);
  EXPECT_EQ(load.diagnostics[0].format(), message);
}

std::string regen(const std::string& first) { return first + ", or " + std::string(kRegen); }

void expect_same(const ModelFile& a, const ModelFile& b) {
  EXPECT_EQ(a.format_version, b.format_version);
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.description, b.description);
  EXPECT_EQ(a.provenance.command, b.provenance.command);
  EXPECT_EQ(a.provenance.date, b.provenance.date);
  EXPECT_EQ(a.provenance.mpi_library, b.provenance.mpi_library);
  EXPECT_EQ(a.provenance.hosts, b.provenance.hosts);
  EXPECT_EQ(a.provenance.ranks, b.provenance.ranks);
  EXPECT_EQ(a.provenance.notes, b.provenance.notes);
  // Bitwise equality of the doubles: the writer promises an exact round trip.
  EXPECT_EQ(a.plogp.latency_s, b.plogp.latency_s);
  EXPECT_EQ(a.plogp.eager_limit_bytes, b.plogp.eager_limit_bytes);
  ASSERT_EQ(a.plogp.table.size(), b.plogp.table.size());
  for (std::size_t i = 0; i < a.plogp.table.size(); ++i) {
    EXPECT_EQ(a.plogp.table[i].bytes, b.plogp.table[i].bytes) << i;
    EXPECT_EQ(a.plogp.table[i].gap_s, b.plogp.table[i].gap_s) << i;
    EXPECT_EQ(a.plogp.table[i].send_overhead_s, b.plogp.table[i].send_overhead_s) << i;
    EXPECT_EQ(a.plogp.table[i].recv_overhead_s, b.plogp.table[i].recv_overhead_s) << i;
  }
}

// --- valid files ---

TEST(ModelFile, ReadsEveryKey) {
  const ModelLoad load = parse_model(join(kValidLines), kSource);
  ASSERT_TRUE(load.model.has_value()) << ::testing::PrintToString(messages(load));
  EXPECT_TRUE(load.diagnostics.empty()) << ::testing::PrintToString(messages(load));
  const ModelFile& m = *load.model;
  EXPECT_EQ(m.format_version, 1);
  EXPECT_EQ(m.name, "test cluster");
  EXPECT_EQ(m.description, "two nodes");
  EXPECT_EQ(m.provenance.command, "mpiexec -n 2 collsel-calibrate");
  EXPECT_EQ(m.provenance.date, "2026-11-23T07:00:00Z");
  EXPECT_EQ(m.provenance.mpi_library, "MPICH 4.0.2");
  EXPECT_EQ(m.provenance.hosts, (std::vector<std::string>{"n1", "n2"}));
  EXPECT_EQ(m.provenance.ranks, 2);
  EXPECT_EQ(m.provenance.notes, "quick");
  EXPECT_EQ(m.plogp.latency_s, 5e-6);
  EXPECT_EQ(m.plogp.eager_limit_bytes, 16384u);
  ASSERT_EQ(m.plogp.table.size(), 3u);
  EXPECT_EQ(m.plogp.table[2].bytes, 1024u);
  EXPECT_EQ(m.plogp.table[2].gap_s, 2e-6);
  EXPECT_EQ(m.plogp.table[2].send_overhead_s, 3e-7);
  EXPECT_EQ(m.plogp.table[2].recv_overhead_s, 4e-7);
}

TEST(ModelFile, OptionalKeysMayBeLeftOut) {
  auto lines = kValidLines;
  lines.erase(lines.begin() + 14);                     // eager_limit_bytes
  lines.erase(lines.begin() + 2, lines.begin() + 12);  // description and [provenance]
  const ModelLoad load = parse_model(join(lines), kSource);
  ASSERT_TRUE(load.model.has_value()) << ::testing::PrintToString(messages(load));
  EXPECT_TRUE(load.diagnostics.empty());
  EXPECT_EQ(load.model->description, "");
  EXPECT_EQ(load.model->provenance.ranks, 0);
  EXPECT_TRUE(load.model->provenance.hosts.empty());
  EXPECT_FALSE(load.model->plogp.eager_limit_bytes.has_value());
}

TEST(ModelFile, IntegersAreAcceptedAsNumbers) {
  auto lines = kValidLines;
  lines[13] = "latency_s = 0";
  lines[16] = "gap_s = [1, 2, 3]";
  const ModelLoad load = parse_model(join(lines), kSource);
  ASSERT_TRUE(load.model.has_value()) << ::testing::PrintToString(messages(load));
  EXPECT_EQ(load.model->plogp.latency_s, 0.0);
  EXPECT_EQ(load.model->plogp.table[1].gap_s, 2.0);
}

TEST(ModelFile, UnquotedDateIsAccepted) {
  const ModelLoad load = parse_model(with_line(7, "date = 2026-11-23T07:00:00Z"), kSource);
  ASSERT_TRUE(load.model.has_value()) << ::testing::PrintToString(messages(load));
  EXPECT_EQ(load.model->provenance.date, "2026-11-23T07:00:00Z");
}

TEST(ModelFile, ShippedDefaultModelIsClean) {
  const std::string path = std::string(COLLSEL_SOURCE_DIR) + "/conf/default_model.toml";
  const ModelLoad load = load_model_file(path);
  EXPECT_TRUE(load.model.has_value());
  EXPECT_TRUE(load.diagnostics.empty()) << ::testing::PrintToString(messages(load));
}

// --- writing ---

ModelFile sample_model() {
  ModelFile m;
  m.name = "cluster \"A\" \\ north";
  m.description = "line one\nline two\ttabbed, caf\xc3\xa9, bell \x07, del \x7f";
  m.provenance.command = "mpiexec -n 2 collsel-calibrate --quick -o 'conf/x.toml'";
  m.provenance.date = "2026-11-23T07:00:00Z";
  m.provenance.mpi_library = "MPICH 4.0.2 ch4:ucx";
  m.provenance.hosts = {"node1", "node-2", "n\"3"};
  m.provenance.ranks = 64;
  m.provenance.notes = "";
  m.plogp.latency_s = 1.0 / 3.0;
  m.plogp.eager_limit_bytes = 16384;
  const double tricky[] = {0.1,
                           1.0,
                           0.0,
                           5e-324,                   // smallest subnormal
                           2.2250738585072014e-308,  // smallest normal
                           1.7976931348623157e308,   // largest
                           123456789.125,
                           1.5e-6};
  std::uint64_t bytes = 0;
  for (double v : tricky) {
    m.plogp.table.push_back({bytes, v, v / 7.0, v * 0.3});
    bytes = bytes * 2 + 1;
  }
  m.plogp.table.push_back({std::uint64_t{1} << 40, 2.0, 3.0, 4.0});
  return m;
}

TEST(ModelFile, WriteThenParseGivesTheSameModel) {
  const ModelFile m = sample_model();
  const std::string text = write_model(m);
  const ModelLoad load = parse_model(text, kSource);
  ASSERT_TRUE(load.model.has_value()) << ::testing::PrintToString(messages(load)) << "\n" << text;
  EXPECT_TRUE(load.diagnostics.empty()) << ::testing::PrintToString(messages(load));
  expect_same(*load.model, m);
}

TEST(ModelFile, WriteThenParseWithoutOptionalValues) {
  ModelFile m;
  m.name = "bare";
  m.plogp.latency_s = 2e-6;
  m.plogp.table.push_back({0, 1e-6, 1e-7, 1e-7});
  const std::string text = write_model(m);
  EXPECT_EQ(text.find("eager_limit_bytes"), std::string::npos) << text;
  const ModelLoad load = parse_model(text, kSource);
  ASSERT_TRUE(load.model.has_value()) << ::testing::PrintToString(messages(load)) << "\n" << text;
  EXPECT_TRUE(load.diagnostics.empty());
  expect_same(*load.model, m);
}

TEST(ModelFile, WrittenLayout) {
  const std::string text = write_model(sample_model());
  EXPECT_EQ(text.find("format_version = 1\n"), text.find("format_version"));
  const auto provenance = text.find("\n[provenance]\n");
  const auto plogp = text.find("\n[plogp]\n");
  ASSERT_NE(provenance, std::string::npos) << text;
  ASSERT_NE(plogp, std::string::npos) << text;
  EXPECT_LT(provenance, plogp);
  EXPECT_NE(text.find("\nranks = 64\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\neager_limit_bytes = 16384"), std::string::npos) << text;
  EXPECT_NE(text.find("\nsizes_bytes = [0, 1, 3, 7, 15, 31, 63, 127, 1099511627776]\n"),
            std::string::npos)
      << text;
  // 1.0 stays a float, the shortest round-trip text is used.
  EXPECT_NE(text.find("gap_s = [0.1, 1.0, 0.0, 5e-324, "), std::string::npos) << text;
}

// --- errors ---

TEST(ModelFileErrors, TomlSyntax) {
  expect_error(with_line(10, "ranks = = 2"),
               "collsel: m.toml:10: not valid TOML: Error while parsing value: could not "
               "determine value type; " +
                   regen("fix the syntax"));
}

TEST(ModelFileErrors, EmptyFile) {
  expect_error("", "collsel: m.toml: the file is empty; " + std::string(kRegen));
  expect_error("# only a comment\n", "collsel: m.toml: the file is empty; " + std::string(kRegen));
}

TEST(ModelFileErrors, MissingTopLevelKeys) {
  expect_error(with_line(1, ""),
               "collsel: m.toml: missing required key 'format_version' at the top level; " +
                   regen("add format_version = 1 at the top level"));
  expect_error(with_line(2, ""), "collsel: m.toml: missing required key 'name' at the top level; " +
                                     regen("add name = \"my cluster\" at the top level"));
  auto lines = kValidLines;
  lines.resize(12);  // no [plogp]
  expect_error(join(lines), "collsel: m.toml: missing required table [plogp]; " +
                                regen("add a [plogp] section (docs/MODELS.md, \"Model file\")"));
}

TEST(ModelFileErrors, MissingPlogpKeysNameTheTableLine) {
  const std::pair<int, std::string> cases[] = {
      {14, "latency_s = 1.5e-6"},
      {16, "sizes_bytes = [0, 1, 1024]"},
      {17, "gap_s = [1e-6, 1e-6, 2e-6]"},
      {18, "send_overhead_s = [1e-7, 1e-7, 3e-7]"},
      {19, "recv_overhead_s = [1e-7, 1e-7, 3e-7]"},
  };
  for (const auto& [line, example] : cases) {
    const std::string key = example.substr(0, example.find(' '));
    SCOPED_TRACE(key);
    expect_error(with_line(line, ""), "collsel: m.toml:13: missing required key '" + key +
                                          "' in [plogp]; " +
                                          regen("add " + example + " in [plogp]"));
  }
}

TEST(ModelFileErrors, WrongTypes) {
  expect_error(with_line(1, "format_version = \"1\""),
               "collsel: m.toml:1: format_version at the top level must be an integer, not a "
               "string; " +
                   regen("write it as format_version = 1"));
  expect_error(with_line(1, "format_version = 1.0"),
               "collsel: m.toml:1: format_version at the top level must be an integer, not a "
               "float; " +
                   regen("write it as format_version = 1"));
  expect_error(with_line(2, "name = 3"),
               "collsel: m.toml:2: name at the top level must be a string, not an integer; " +
                   regen("write it as name = \"my cluster\""));
  expect_error(with_line(10, "ranks = 2.5"),
               "collsel: m.toml:10: ranks in [provenance] must be an integer, not a float; " +
                   regen("write it as ranks = 2"));
  expect_error(with_line(9, "hosts = \"n1\""),
               "collsel: m.toml:9: hosts in [provenance] must be an array of strings, not a "
               "string; " +
                   regen("write it as hosts = [\"node1\", \"node2\"]"));
  expect_error(with_line(14, "latency_s = \"fast\""),
               "collsel: m.toml:14: latency_s in [plogp] must be a number, not a string; " +
                   regen("write it as latency_s = 1.5e-6"));
  expect_error(with_line(15, "eager_limit_bytes = 16384.0"),
               "collsel: m.toml:15: eager_limit_bytes in [plogp] must be an integer, not a "
               "float; " +
                   regen("write it as eager_limit_bytes = 16384"));
  expect_error(with_line(17, "gap_s = 1e-6"),
               "collsel: m.toml:17: gap_s in [plogp] must be an array of numbers, not a float; " +
                   regen("write it as gap_s = [1e-6, 1e-6, 2e-6]"));
}

TEST(ModelFileErrors, WrongTypesOfTables) {
  auto lines = kValidLines;
  lines.resize(12);        // no [plogp] table
  lines[3] = "plogp = 3";  // line 4, before [provenance] opens
  expect_error(join(lines),
               "collsel: m.toml:4: plogp at the top level must be a table, not an integer; " +
                   regen("write it as a [plogp] section"));
  auto prov = kValidLines;
  prov.erase(prov.begin() + 4, prov.begin() + 11);       // lines 5-11: the [provenance] table
  prov.insert(prov.begin() + 3, "provenance = \"me\"");  // line 4
  expect_error(join(prov),
               "collsel: m.toml:4: provenance at the top level must be a table, not a string; " +
                   regen("write it as a [provenance] section"));
}

TEST(ModelFileErrors, WrongElementTypes) {
  expect_error(with_line(9, "hosts = [\"n1\", 2]"),
               "collsel: m.toml:9: hosts[1] in [provenance] must be a string, not an integer; " +
                   regen("write it as hosts = [\"node1\", \"node2\"]"));
  expect_error(with_line(16, "sizes_bytes = [0, 1.5, 1024]"),
               "collsel: m.toml:16: sizes_bytes[1] in [plogp] must be an integer, not a float; " +
                   regen("write it as sizes_bytes = [0, 1, 1024]"));
  expect_error(with_line(18, "send_overhead_s = [1e-7, true, 3e-7]"),
               "collsel: m.toml:18: send_overhead_s[1] in [plogp] must be a number, not a "
               "boolean; " +
                   regen("write it as send_overhead_s = [1e-7, 1e-7, 3e-7]"));
}

TEST(ModelFileErrors, UnsupportedFormatVersion) {
  expect_error(with_line(1, "format_version = 2"),
               "collsel: m.toml:1: format_version = 2 is not supported; this collsel reads "
               "format_version = 1; re-run this collsel's collsel-calibrate to regenerate the "
               "file");
}

TEST(ModelFileErrors, ArraysOfDifferentLengths) {
  expect_error(with_line(17, "gap_s = [1e-6, 1e-6]"),
               "collsel: m.toml:17: gap_s in [plogp] has 2 values but sizes_bytes has 3; " +
                   regen("give one value per entry of sizes_bytes"));
  expect_error(with_line(19, "recv_overhead_s = [1e-7, 1e-7, 3e-7, 4e-7]"),
               "collsel: m.toml:19: recv_overhead_s in [plogp] has 4 values but sizes_bytes has "
               "3; " +
                   regen("give one value per entry of sizes_bytes"));
}

TEST(ModelFileErrors, SizesNotStrictlyIncreasing) {
  const std::string fix = regen(
      "list each size once, in increasing order, with gap_s, send_overhead_s and "
      "recv_overhead_s in the same order");
  expect_error(with_line(16, "sizes_bytes = [0, 1024, 1024]"),
               "collsel: m.toml:16: sizes_bytes in [plogp] is not strictly increasing at index 2 "
               "(1024 after 1024); " +
                   fix);
  expect_error(with_line(16, "sizes_bytes = [0, 2, 1]"),
               "collsel: m.toml:16: sizes_bytes in [plogp] is not strictly increasing at index 2 "
               "(1 after 2); " +
                   fix);
  // In an array written over several lines, the line of the offending element.
  expect_error(with_line(16, "sizes_bytes = [\n  4,\n  2,\n  1024]"),
               "collsel: m.toml:18: sizes_bytes in [plogp] is not strictly increasing at index 1 "
               "(2 after 4); " +
                   fix);
}

TEST(ModelFileErrors, NegativeOrNonFiniteValues) {
  const std::string fix = regen("correct it");
  expect_error(with_line(14, "latency_s = -5e-6"),
               "collsel: m.toml:14: latency_s in [plogp] is -5e-06; times must be finite and "
               ">= 0; " +
                   fix);
  expect_error(
      with_line(14, "latency_s = inf"),
      "collsel: m.toml:14: latency_s in [plogp] is inf; times must be finite and >= 0; " + fix);
  expect_error(with_line(17, "gap_s = [1e-6, -1e-6, 2e-6]"),
               "collsel: m.toml:17: gap_s[1] in [plogp] is -1e-06; times must be finite and "
               ">= 0; " +
                   fix);
  expect_error(with_line(18, "send_overhead_s = [1e-7, nan, 3e-7]"),
               "collsel: m.toml:18: send_overhead_s[1] in [plogp] is nan; times must be finite "
               "and >= 0; " +
                   fix);
  expect_error(with_line(19, "recv_overhead_s = [1e-7, 1e-7, -inf]"),
               "collsel: m.toml:19: recv_overhead_s[2] in [plogp] is -inf; times must be finite "
               "and >= 0; " +
                   fix);
  expect_error(with_line(16, "sizes_bytes = [-1, 1, 1024]"),
               "collsel: m.toml:16: sizes_bytes[0] in [plogp] is -1; sizes must be >= 0; " + fix);
  expect_error(with_line(15, "eager_limit_bytes = -1"),
               "collsel: m.toml:15: eager_limit_bytes in [plogp] is -1; it must be >= 0; " + fix);
  expect_error(with_line(10, "ranks = -2"),
               "collsel: m.toml:10: ranks in [provenance] is -2; it must be between 0 and "
               "2147483647; " +
                   fix);
}

TEST(ModelFileErrors, EmptyArrays) {
  expect_error(with_line(16, "sizes_bytes = []"),
               "collsel: m.toml:16: sizes_bytes in [plogp] is empty; " +
                   regen("give at least one value, as in sizes_bytes = [0, 1, 1024]"));
  expect_error(with_line(17, "gap_s = []"),
               "collsel: m.toml:17: gap_s in [plogp] is empty; " +
                   regen("give at least one value, as in gap_s = [1e-6, 1e-6, 2e-6]"));
}

TEST(ModelFileErrors, EveryErrorIsReportedOnce) {
  auto lines = kValidLines;
  lines[1] = "name = 3";
  lines[13] = "latency_s = \"fast\"";
  const ModelLoad load = parse_model(join(lines), kSource);
  EXPECT_FALSE(load.model.has_value());
  EXPECT_EQ(messages(load),
            (std::vector<std::string>{
                "collsel: m.toml:2: name at the top level must be a string, not an integer; " +
                    regen("write it as name = \"my cluster\""),
                "collsel: m.toml:14: latency_s in [plogp] must be a number, not a string; " +
                    regen("write it as latency_s = 1.5e-6")}));
}

// --- warnings ---

TEST(ModelFileWarnings, UnknownKeysNameTheirTableAndTheValidKeys) {
  expect_warning(with_line(4, "colour = \"red\""),
                 "collsel: m.toml:4: unknown key 'colour' at the top level; remove it; valid keys "
                 "at the top level: format_version, name, description, provenance, plogp, "
                 "intra_node, alltoall, contention, logfp, corrections");
  expect_warning(with_line(12, "user = \"me\""),
                 "collsel: m.toml:12: unknown key 'user' in [provenance]; remove it; valid keys in "
                 "[provenance]: command, date, mpi_library, hosts, ranks, ranks_per_node, "
                 "duration_s, notes");
  expect_warning(join(kValidLines) + "latency_us = 5\n",
                 "collsel: m.toml:20: unknown key 'latency_us' in [plogp]; remove it; valid keys "
                 "in [plogp]: latency_s, eager_limit_bytes, sizes_bytes, gap_s, send_overhead_s, "
                 "recv_overhead_s, posted_gap_s, fanout_share, pipeline_gap_s, pair_share, "
                 "one_way_s, latency_spread, gap_spread, send_overhead_spread, "
                 "recv_overhead_spread, posted_gap_spread");
}

TEST(ModelFileRoundTrip, SpreadsAndCalibrationFactsSurvive) {
  ModelFile m;
  m.name = "spread";
  m.provenance.ranks_per_node = 2;
  m.provenance.duration_s = 12.5;
  m.plogp.latency_s = 1e-6;
  m.plogp.latency_spread = 0.02;
  m.plogp.table = {{0, 1e-6, 2e-7, 3e-7, 0.01, 0.02, 0.03}, {1024, 2e-6, 3e-7, 4e-7, 0.04, 0.05, 0.06}};
  const ModelLoad back = parse_model(write_model(m), "spread.toml");
  ASSERT_TRUE(back.model) << ::testing::PrintToString(messages(back));
  EXPECT_TRUE(back.diagnostics.empty()) << ::testing::PrintToString(messages(back));
  EXPECT_EQ(back.model->provenance.ranks_per_node, 2);
  EXPECT_EQ(back.model->provenance.duration_s, 12.5);
  EXPECT_EQ(back.model->plogp.latency_spread, 0.02);
  EXPECT_EQ(back.model->plogp.table[1].gap_spread, 0.04);
  EXPECT_EQ(back.model->plogp.table[1].send_overhead_spread, 0.05);
  EXPECT_EQ(back.model->plogp.table[1].recv_overhead_spread, 0.06);
}

// A two-size model without the optional columns; checks that it is written without `column`
// and read back without the flag the column would set.
ModelFile without_optional_column(const std::string& column, bool plogp::Params::*flag) {
  ModelFile m;
  m.name = "without an optional column";
  m.plogp.latency_s = 1e-6;
  m.plogp.table = {{0, 1e-6, 2e-7, 3e-7}, {1024, 2e-6, 3e-7, 4e-7}};
  const std::string without = write_model(m);
  EXPECT_EQ(without.find(column), std::string::npos) << without;
  const ModelLoad old = parse_model(without, "old.toml");
  EXPECT_TRUE(old.model) << ::testing::PrintToString(messages(old));
  if (old.model) EXPECT_FALSE(old.model->plogp.*flag);
  return m;
}

TEST(ModelFileRoundTrip, ThePostedGapColumnSurvivesAndIsOptional) {
  ModelFile m = without_optional_column("posted_gap", &plogp::Params::posted_gaps);

  m.plogp.posted_gaps = true;
  m.plogp.table[0].posted_gap_s = 4e-7;
  m.plogp.table[1].posted_gap_s = 1.5e-6;
  m.plogp.table[1].posted_gap_spread = 0.07;
  const ModelLoad back = parse_model(write_model(m), "new.toml");
  ASSERT_TRUE(back.model) << ::testing::PrintToString(messages(back));
  EXPECT_TRUE(back.diagnostics.empty()) << ::testing::PrintToString(messages(back));
  EXPECT_TRUE(back.model->plogp.posted_gaps);
  EXPECT_EQ(back.model->plogp.table[0].posted_gap_s, 4e-7);
  EXPECT_EQ(back.model->plogp.table[1].posted_gap_s, 1.5e-6);
  EXPECT_EQ(back.model->plogp.table[1].posted_gap_spread, 0.07);
}

TEST(ModelFileRoundTrip, TheFanoutShareColumnSurvivesAndIsOptional) {
  ModelFile m = without_optional_column("fanout_share", &plogp::Params::fanout_shares);

  m.plogp.fanout_shares = true;
  m.plogp.table[1].fanout_share = 0.75;
  const ModelLoad back = parse_model(write_model(m), "new.toml");
  ASSERT_TRUE(back.model) << ::testing::PrintToString(messages(back));
  EXPECT_TRUE(back.diagnostics.empty()) << ::testing::PrintToString(messages(back));
  EXPECT_TRUE(back.model->plogp.fanout_shares);
  EXPECT_EQ(back.model->plogp.table[0].fanout_share, 0.0);
  EXPECT_EQ(back.model->plogp.table[1].fanout_share, 0.75);
}

TEST(ModelFileRoundTrip, ThePipelineGapAndPairShareColumnsSurviveAndAreOptional) {
  without_optional_column("pipeline_gap_s", &plogp::Params::pipeline_gaps);
  ModelFile m = without_optional_column("pair_share", &plogp::Params::pair_shares);

  m.plogp.pipeline_gaps = true;
  m.plogp.pair_shares = true;
  m.plogp.table[0].pipeline_gap_s = 6e-7;
  m.plogp.table[1].pipeline_gap_s = 1.7e-6;
  m.plogp.table[1].pair_share = 0.25;
  const ModelLoad back = parse_model(write_model(m), "new.toml");
  ASSERT_TRUE(back.model) << ::testing::PrintToString(messages(back));
  EXPECT_TRUE(back.diagnostics.empty()) << ::testing::PrintToString(messages(back));
  EXPECT_TRUE(back.model->plogp.pipeline_gaps);
  EXPECT_TRUE(back.model->plogp.pair_shares);
  EXPECT_FALSE(back.model->plogp.fanout_shares);  // each column sets its own flag
  EXPECT_EQ(back.model->plogp.table[0].pipeline_gap_s, 6e-7);
  EXPECT_EQ(back.model->plogp.table[1].pipeline_gap_s, 1.7e-6);
  EXPECT_EQ(back.model->plogp.table[0].pair_share, 0.0);
  EXPECT_EQ(back.model->plogp.table[1].pair_share, 0.25);
}

TEST(ModelFileRoundTrip, TheOneWayColumnSurvivesAndIsOptional) {
  ModelFile m = without_optional_column("one_way_s", &plogp::Params::one_way_times);
  m.plogp.one_way_times = true;
  m.plogp.table[0].one_way_s = 5e-6;
  m.plogp.table[1].one_way_s = 7.5e-6;
  const ModelLoad back = parse_model(write_model(m), "new.toml");
  ASSERT_TRUE(back.model) << ::testing::PrintToString(messages(back));
  EXPECT_TRUE(back.diagnostics.empty()) << ::testing::PrintToString(messages(back));
  EXPECT_TRUE(back.model->plogp.one_way_times);
  EXPECT_FALSE(back.model->plogp.pipeline_gaps);
  EXPECT_EQ(back.model->plogp.table[1].one_way_s, 7.5e-6);
}

TEST(ModelFileErrors, APairShareAboveOne) {
  expect_error(join(kValidLines) + "pair_share = [0.0, 2.0, 1.0]\n",
               "collsel: m.toml:20: pair_share in [plogp] is 2 at 1 bytes, but it is a "
               "fraction; give values between 0 and 1, or re-run collsel-calibrate to regenerate "
               "the file");
}

TEST(ModelFileErrors, AFanoutShareAboveOne) {
  expect_error(join(kValidLines) + "fanout_share = [0.0, 0.5, 1.5]\n",
               "collsel: m.toml:20: fanout_share in [plogp] is 1.5 at 1024 bytes, but it is a "
               "fraction; give values between 0 and 1, or re-run collsel-calibrate to regenerate "
               "the file");
}

TEST(ModelFileErrors, APostedGapColumnOfTheWrongLength) {
  expect_error(join(kValidLines) + "posted_gap_s = [1e-6]\n",
               "collsel: m.toml:20: posted_gap_s in [plogp] has 1 values but sizes_bytes has 3; "
               "give one value per entry of sizes_bytes, or re-run collsel-calibrate to "
               "regenerate the file");
}

TEST(ModelFileRoundTrip, IntraNodeTableSurvivesAndIsCheckedLikePlogp) {
  ModelFile m;
  m.name = "two levels";
  m.plogp.latency_s = 5e-6;
  m.plogp.table = {{0, 1e-5, 1e-6, 1e-6}, {65536, 5e-3, 1e-5, 1e-5}};
  m.intra_node = plogp::Params{};
  m.intra_node->latency_s = 2e-7;
  m.intra_node->table = {{0, 2e-7, 1e-7, 1e-7}, {65536, 4e-6, 2e-6, 2e-6}};
  const std::string text = write_model(m);
  const ModelLoad back = parse_model(text, "two.toml");
  ASSERT_TRUE(back.model) << ::testing::PrintToString(messages(back));
  ASSERT_TRUE(back.model->intra_node);
  EXPECT_EQ(back.model->intra_node->latency_s, 2e-7);
  EXPECT_EQ(back.model->intra_node->table[1].gap_s, 4e-6);
  EXPECT_EQ(back.model->plogp.table[1].gap_s, 5e-3);
  // A bad value in [intra_node] is reported as being there.
  const std::string bad = text.substr(0, text.rfind("latency_s")) + "latency_s = -1\n" +
                          text.substr(text.find('\n', text.rfind("latency_s")) + 1);
  const ModelLoad rejected = parse_model(bad, "two.toml");
  EXPECT_FALSE(rejected.model);
  ASSERT_FALSE(rejected.diagnostics.empty());
  EXPECT_NE(rejected.diagnostics[0].problem.find("latency_s in [intra_node] is -1"),
            std::string::npos)
      << rejected.diagnostics[0].format();
}

TEST(ModelFileErrors, SpreadArrayOfTheWrongLength) {
  expect_error(join(kValidLines) + "gap_spread = [0.1]\n",
               "collsel: m.toml:20: gap_spread in [plogp] has 1 values but sizes_bytes has 3; give "
               "one value per entry of sizes_bytes, or re-run collsel-calibrate to regenerate the "
               "file");
}

TEST(ModelFileWarnings, WarningsComeWithErrorsToo) {
  auto lines = kValidLines;
  lines[3] = "colour = 1";
  lines[13] = "latency_s = -1";
  const ModelLoad load = parse_model(join(lines), kSource);
  EXPECT_FALSE(load.model.has_value());
  ASSERT_EQ(load.diagnostics.size(), 2u) << ::testing::PrintToString(messages(load));
  EXPECT_EQ(load.diagnostics[0].severity, Severity::warning);
  EXPECT_EQ(load.diagnostics[1].severity, Severity::error);
}

// --- [alltoall] ---

alltoall::Contention sample_contention() {
  alltoall::Contention c;
  c.sample_ranks = 24;
  c.hockney = {1.0 / 3.0 * 1e-4, 8.502e-9};
  c.signature = {4.3628, 4.93e-3, 8192};
  c.signature_fit = {12, 0.031, 0.0875};
  c.beta_free_s_per_byte = 8.502e-9;
  c.beta_contention_s_per_byte = 8.498189e-8;
  c.rho_single = 0.1;
  c.rho_flood = 0.5;
  c.copy_s_per_byte = 2.5e-10;
  return c;
}

void expect_same_contention(const alltoall::Contention& a, const alltoall::Contention& b) {
  EXPECT_EQ(a.sample_ranks, b.sample_ranks);
  EXPECT_EQ(a.hockney.alpha_s, b.hockney.alpha_s);
  EXPECT_EQ(a.hockney.beta_s_per_byte, b.hockney.beta_s_per_byte);
  EXPECT_EQ(a.signature.gamma, b.signature.gamma);
  EXPECT_EQ(a.signature.delta_s, b.signature.delta_s);
  EXPECT_EQ(a.signature.threshold_bytes, b.signature.threshold_bytes);
  EXPECT_EQ(a.signature_fit.points, b.signature_fit.points);
  EXPECT_EQ(a.signature_fit.rms_rel, b.signature_fit.rms_rel);
  EXPECT_EQ(a.signature_fit.max_abs_rel, b.signature_fit.max_abs_rel);
  EXPECT_EQ(a.beta_free_s_per_byte, b.beta_free_s_per_byte);
  EXPECT_EQ(a.beta_contention_s_per_byte, b.beta_contention_s_per_byte);
  EXPECT_EQ(a.rho_single, b.rho_single);
  EXPECT_EQ(a.rho_flood, b.rho_flood);
  EXPECT_EQ(a.copy_s_per_byte, b.copy_s_per_byte);
}

TEST(ModelFileAlltoall, AbsentSectionLeavesNoContention) {
  const ModelLoad load = parse_model(join(kValidLines), kSource);
  ASSERT_TRUE(load.model.has_value());
  EXPECT_FALSE(load.model->alltoall.has_value());
  EXPECT_EQ(write_model(*load.model).find("[alltoall]"), std::string::npos);
}

TEST(ModelFileAlltoall, RoundTripIsExact) {
  ModelFile m = sample_model();
  m.alltoall = sample_contention();
  const std::string text = write_model(m);
  const ModelLoad load = parse_model(text, kSource);
  ASSERT_TRUE(load.model.has_value()) << ::testing::PrintToString(messages(load)) << "\n" << text;
  EXPECT_TRUE(load.diagnostics.empty()) << ::testing::PrintToString(messages(load));
  expect_same(*load.model, m);
  ASSERT_TRUE(load.model->alltoall.has_value());
  expect_same_contention(*load.model->alltoall, *m.alltoall);
  EXPECT_NE(text.find("\n[alltoall]\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\ndelta_from_bytes = 8192"), std::string::npos) << text;

  // No threshold: delta_from_bytes is left out and comes back as none.
  m.alltoall->signature = {2.49754, 0.0, alltoall::kNoThreshold};
  m.alltoall->sample_ranks = 0;
  const std::string bare = write_model(m);
  EXPECT_EQ(bare.find("\ndelta_from_bytes"), std::string::npos) << bare;
  const ModelLoad back = parse_model(bare, kSource);
  ASSERT_TRUE(back.model.has_value()) << ::testing::PrintToString(messages(back));
  EXPECT_TRUE(back.diagnostics.empty()) << ::testing::PrintToString(messages(back));
  expect_same_contention(*back.model->alltoall, *m.alltoall);
}

// The valid file plus an [alltoall] section starting at line 20.
std::string with_alltoall(const std::vector<std::string>& section) {
  auto lines = kValidLines;
  lines.push_back("[alltoall]");  // 20
  lines.insert(lines.end(), section.begin(), section.end());
  return join(lines);
}

TEST(ModelFileAlltoall, OptionalKeysTakeTheContentionFreeDefaults) {
  const ModelLoad load = parse_model(
      with_alltoall({"alpha_s = 6e-5", "beta_s_per_byte = 8.5e-9", "gamma = 1.0195"}), kSource);
  ASSERT_TRUE(load.model.has_value()) << ::testing::PrintToString(messages(load));
  EXPECT_TRUE(load.diagnostics.empty()) << ::testing::PrintToString(messages(load));
  ASSERT_TRUE(load.model->alltoall.has_value());
  const alltoall::Contention& c = *load.model->alltoall;
  EXPECT_EQ(c.sample_ranks, 0);
  EXPECT_EQ(c.hockney.alpha_s, 6e-5);
  EXPECT_EQ(c.signature.gamma, 1.0195);
  EXPECT_EQ(c.signature.delta_s, 0.0);
  EXPECT_EQ(c.signature.threshold_bytes, alltoall::kNoThreshold);
  EXPECT_EQ(c.signature_fit.points, 0);
  EXPECT_EQ(c.beta_free_s_per_byte, 8.5e-9);
  EXPECT_EQ(c.beta_contention_s_per_byte, 8.5e-9);
  EXPECT_EQ(c.rho_single, 0.0);
  EXPECT_EQ(c.rho_flood, 0.0);
  EXPECT_EQ(c.copy_s_per_byte, alltoall::kDefaultCopySecondsPerByte);
  // Integers are numbers here too; rho_flood defaults to rho_single, beta_C to beta_F.
  const ModelLoad ints = parse_model(
      with_alltoall({"alpha_s = 0", "beta_s_per_byte = 0", "gamma = 2", "rho_single = 1",
                     "beta_free_s_per_byte = 1e-9"}),
      kSource);
  ASSERT_TRUE(ints.model.has_value()) << ::testing::PrintToString(messages(ints));
  EXPECT_EQ(ints.model->alltoall->signature.gamma, 2.0);
  EXPECT_EQ(ints.model->alltoall->rho_flood, 1.0);
  EXPECT_EQ(ints.model->alltoall->beta_contention_s_per_byte, 1e-9);
}

TEST(ModelFileAlltoall, MissingRequiredKeyNamesTheSectionLine) {
  expect_error(with_alltoall({"alpha_s = 6e-5", "gamma = 1.0195"}),
               "collsel: m.toml:20: missing required key 'beta_s_per_byte' in [alltoall]; " +
                   regen("add beta_s_per_byte = 8.5e-9 in [alltoall]"));
}

TEST(ModelFileAlltoall, WrongTypesAndValuesRejectTheModel) {
  const std::vector<std::string> base = {"alpha_s = 6e-5", "beta_s_per_byte = 8.5e-9",
                                         "gamma = 1.0195"};  // lines 21-23
  const auto with = [&](const std::string& extra) {
    auto lines = base;
    lines.push_back(extra);  // line 24
    return with_alltoall(lines);
  };
  expect_error(with("delta_from_bytes = 2048.0"),
               "collsel: m.toml:24: delta_from_bytes in [alltoall] must be an integer, not a "
               "float; " +
                   regen("write it as delta_from_bytes = 2048"));
  expect_error(with("rho_flood = \"half\""),
               "collsel: m.toml:24: rho_flood in [alltoall] must be a number, not a string; " +
                   regen("write it as rho_flood = 0.5"));
  expect_error(with("rho_flood = 1.5"),
               "collsel: m.toml:24: rho_flood in [alltoall] is 1.5; it must be between 0 and 1; " +
                   regen("correct it"));
  expect_error(with("rho_single = nan"),
               "collsel: m.toml:24: rho_single in [alltoall] is nan; it must be between 0 and 1; " +
                   regen("correct it"));
  expect_error(with("delta_s = -1e-3"),
               "collsel: m.toml:24: delta_s in [alltoall] is -0.001; it must be a finite number "
               ">= 0; " +
                   regen("correct it"));
  expect_error(with("copy_s_per_byte = inf"),
               "collsel: m.toml:24: copy_s_per_byte in [alltoall] is inf; it must be a finite "
               "number >= 0; " +
                   regen("correct it"));
  expect_error(with("delta_from_bytes = -1"),
               "collsel: m.toml:24: delta_from_bytes in [alltoall] is -1; it must be >= 0; " +
                   regen("correct it"));
  expect_error(with("sample_ranks = 1"),
               "collsel: m.toml:24: sample_ranks in [alltoall] is 1; it must be 0 (not measured) "
               "or between 2 and 2147483647; " +
                   regen("correct it"));
  expect_error(with("fit_points = -3"),
               "collsel: m.toml:24: fit_points in [alltoall] is -3; it must be between 0 and "
               "2147483647; " +
                   regen("correct it"));
  expect_error(with_alltoall({"alpha_s = 6e-5", "beta_s_per_byte = 8.5e-9", "gamma = 0"}),
               "collsel: m.toml:23: gamma in [alltoall] is 0; it must be a finite number > 0; " +
                   regen("correct it"));
  expect_error(with_line(4, "alltoall = 3"),
               "collsel: m.toml:4: alltoall at the top level must be a table, not an integer; " +
                   regen("write it as a [alltoall] section"));
}

TEST(ModelFileAlltoall, UnknownKeysAndAnInertDeltaWarn) {
  expect_warning(with_alltoall({"alpha_s = 6e-5", "beta_s_per_byte = 8.5e-9", "gamma = 1.0195",
                                "delta_ms = 8.23"}),
                 "collsel: m.toml:24: unknown key 'delta_ms' in [alltoall]; remove it; valid keys "
                 "in [alltoall]: sample_ranks, alpha_s, beta_s_per_byte, gamma, delta_s, "
                 "delta_from_bytes, fit_points, fit_rms_rel, fit_max_abs_rel, "
                 "beta_free_s_per_byte, beta_contention_s_per_byte, rho_single, rho_flood, "
                 "copy_s_per_byte");
  expect_warning(with_alltoall({"alpha_s = 6e-5", "beta_s_per_byte = 8.5e-9", "gamma = 1.0195",
                                "delta_s = 8.23e-3"}),
                 "collsel: m.toml:24: delta_s in [alltoall] is 0.00823 but there is no "
                 "delta_from_bytes, so delta never applies; add delta_from_bytes = M (the "
                 "smallest message size it applies to), or remove delta_s");
}

// --- [contention] and [logfp] ---

contention::Params sample_contention_params() {
  contention::Params c;
  c.rule = contention::RuleKind::gige;
  c.use = contention::Use::always;
  c.alpha_s_per_byte = 1.0 / 11.8e6;  // 100 Mbit/s emulated links, no short decimal form
  c.intra_alpha_s_per_byte = 2.5e-10;
  c.reference_bytes = 1048576;
  c.gige = {0.7512345678901234, -0.0125, 0.115};
  // Seed 002 Fig. 2: 1.5 for each edge of an outgoing conflict of 2 on Gigabit Ethernet.
  c.measured.push_back({"out-star-2", {{0, 1}, {0, 2}}, {1.5, 1.5}});
  // A measured penalty may come out below 1 (penalty_fit.hpp): the file keeps it as measured.
  c.measured.push_back({"fig1 \"mix\"", {{0, 1}, {0, 2}, {2, 1}, {2, 1}}, {1.75, 1.0 / 3.0, 0.97, 2}});
  return c;
}

void expect_same_contention_params(const contention::Params& a, const contention::Params& b) {
  EXPECT_EQ(a.rule, b.rule);
  EXPECT_EQ(a.use, b.use);
  EXPECT_EQ(a.alpha_s_per_byte, b.alpha_s_per_byte);
  EXPECT_EQ(a.intra_alpha_s_per_byte, b.intra_alpha_s_per_byte);
  EXPECT_EQ(a.reference_bytes, b.reference_bytes);
  EXPECT_EQ(a.gige, b.gige);
  ASSERT_EQ(a.measured.size(), b.measured.size());
  for (std::size_t i = 0; i < a.measured.size(); ++i) {
    EXPECT_EQ(a.measured[i].name, b.measured[i].name) << i;
    EXPECT_EQ(a.measured[i].edges, b.measured[i].edges) << i;
    EXPECT_EQ(a.measured[i].penalties, b.measured[i].penalties) << i;
  }
}

logfp::Params sample_logfp() {
  logfp::Params p;
  // Seed 004 section 5.1: o_min = 0.18 us, o(1) = o_min + o_max = 1.6 us.
  p.latency_s = 4.6e-6;
  p.o_min_s = 0.18e-6;
  p.o_max_s = 1.42e-6;
  p.gap_s = 1.0 / 7.0 * 1e-5;
  p.f = 9;
  p.max_bytes = 1;
  return p;
}

TEST(ModelFileContention, AbsentSectionsLeaveNothing) {
  const ModelLoad load = parse_model(join(kValidLines), kSource);
  ASSERT_TRUE(load.model.has_value());
  EXPECT_FALSE(load.model->contention.has_value());
  EXPECT_FALSE(load.model->logfp.has_value());
  const std::string text = write_model(*load.model);
  EXPECT_EQ(text.find("[contention]"), std::string::npos) << text;
  EXPECT_EQ(text.find("[logfp]"), std::string::npos) << text;
}

TEST(ModelFileContention, RoundTripIsExact) {
  ModelFile m = sample_model();
  m.alltoall = sample_contention();
  m.contention = sample_contention_params();
  m.logfp = sample_logfp();
  const std::string text = write_model(m);
  const ModelLoad load = parse_model(text, kSource);
  ASSERT_TRUE(load.model.has_value()) << ::testing::PrintToString(messages(load)) << "\n" << text;
  EXPECT_TRUE(load.diagnostics.empty()) << ::testing::PrintToString(messages(load));
  expect_same(*load.model, m);
  expect_same_contention(*load.model->alltoall, *m.alltoall);
  ASSERT_TRUE(load.model->contention.has_value());
  expect_same_contention_params(*load.model->contention, *m.contention);
  ASSERT_TRUE(load.model->logfp.has_value());
  const logfp::Params& lf = *load.model->logfp;
  EXPECT_EQ(lf.latency_s, m.logfp->latency_s);
  EXPECT_EQ(lf.o_min_s, m.logfp->o_min_s);
  EXPECT_EQ(lf.o_max_s, m.logfp->o_max_s);
  EXPECT_EQ(lf.gap_s, m.logfp->gap_s);
  EXPECT_EQ(lf.f, 9);
  EXPECT_EQ(lf.max_bytes, 1u);
  // The layout people read: the rule by name, edges as one line, graphs as an array of tables.
  EXPECT_NE(text.find("\n[contention]\nrule = \"gige\""), std::string::npos) << text;
  EXPECT_NE(text.find("\nuse = \"always\""), std::string::npos) << text;
  EXPECT_NE(text.find("\n[[contention.graph]]\nname = \"out-star-2\"\nedges = \"0>1 0>2\"\n"
                      "penalties = [1.5, 1.5]"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\nedges = \"0>1 0>2 2>1 2>1\"\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\n[logfp]\nlatency_s = 4.6e-06"), std::string::npos) << text;
  EXPECT_LT(text.find("[alltoall]"), text.find("[contention]"));
  EXPECT_LT(text.find("[[contention.graph]]"), text.find("[logfp]"));

  // Without measured graphs, every use and every rule survive too.
  for (const auto rule : {contention::RuleKind::fair, contention::RuleKind::infiniband,
                          contention::RuleKind::myrinet}) {
    for (const auto use : {contention::Use::automatic, contention::Use::never}) {
      m.contention->rule = rule;
      m.contention->use = use;
      m.contention->measured.clear();
      const ModelLoad back = parse_model(write_model(m), kSource);
      ASSERT_TRUE(back.model.has_value()) << ::testing::PrintToString(messages(back));
      expect_same_contention_params(*back.model->contention, *m.contention);
    }
  }
}

// The valid file plus a section starting at line 20 (its header is `header`).
std::string with_section(const std::string& header, const std::vector<std::string>& section) {
  auto lines = kValidLines;
  lines.push_back(header);  // 20
  lines.insert(lines.end(), section.begin(), section.end());
  return join(lines);
}

TEST(ModelFileContention, HandWrittenSectionTakesTheDefaults) {
  const ModelLoad load = parse_model(
      with_section("[contention]",
                   {"rule = \"infiniband\"", "alpha_s_per_byte = 5.105e-10",  // seed 003 sec. 5
                    "[[contention.graph]]", "edges = [[0, 1], [0, 2], [3, 1]]",
                    "penalties = [2, 2, 1]", "[[contention.graph]]", "name = \"in\"",
                    "edges = \"  1>0\t2>0 \"", "penalties = [2, 2.0]"}),
      kSource);
  ASSERT_TRUE(load.model.has_value()) << ::testing::PrintToString(messages(load));
  EXPECT_TRUE(load.diagnostics.empty()) << ::testing::PrintToString(messages(load));
  ASSERT_TRUE(load.model->contention.has_value());
  const contention::Params& c = *load.model->contention;
  EXPECT_EQ(c.rule, contention::RuleKind::infiniband);
  EXPECT_EQ(c.use, contention::Use::automatic);
  EXPECT_EQ(c.alpha_s_per_byte, 5.105e-10);
  EXPECT_EQ(c.intra_alpha_s_per_byte, 0.0);
  EXPECT_EQ(c.reference_bytes, 0.0);
  // Absent Gigabit Ethernet parameters are seed 002's own (section V.A, Fig. 4).
  EXPECT_EQ(c.gige.beta, 0.75);
  EXPECT_EQ(c.gige.gamma_i, 0.036);
  EXPECT_EQ(c.gige.gamma_o, 0.115);
  ASSERT_EQ(c.measured.size(), 2u);
  EXPECT_EQ(c.measured[0].name, "");
  EXPECT_EQ(c.measured[0].edges,
            (std::vector<contention::Edge>{{0, 1}, {0, 2}, {3, 1}}));
  EXPECT_EQ(c.measured[0].penalties, (std::vector<double>{2, 2, 1}));
  EXPECT_EQ(c.measured[1].name, "in");
  EXPECT_EQ(c.measured[1].edges, (std::vector<contention::Edge>{{1, 0}, {2, 0}}));
}

TEST(ModelFileContention, BadValuesRejectTheModelWithTheirLine) {
  const auto with = [](const std::vector<std::string>& extra) {
    std::vector<std::string> lines = {"rule = \"gige\"", "alpha_s_per_byte = 8.5e-9"};  // 21-22
    lines.insert(lines.end(), extra.begin(), extra.end());                               // 23-
    return with_section("[contention]", lines);
  };
  expect_error(with_section("[contention]", {"rule = \"ethernet\"", "alpha_s_per_byte = 8.5e-9"}),
               "collsel: m.toml:21: rule in [contention] is \"ethernet\"; it must be one of fair, "
               "infiniband, gige, myrinet; " +
                   regen("correct it"));
  expect_error(with_section("[contention]", {"rule = \"gige\""}),
               "collsel: m.toml:20: missing required key 'alpha_s_per_byte' in [contention]; " +
                   regen("add alpha_s_per_byte = 8.5e-9 in [contention]"));
  expect_error(with_section("[contention]", {"rule = 3", "alpha_s_per_byte = 8.5e-9"}),
               "collsel: m.toml:21: rule in [contention] must be a string, not an integer; " +
                   regen("write it as rule = \"gige\""));
  expect_error(with({"use = \"sometimes\""}),
               "collsel: m.toml:23: use in [contention] is \"sometimes\"; it must be one of auto, "
               "always, never; " +
                   regen("correct it"));
  expect_error(with_section("[contention]", {"rule = \"gige\"", "alpha_s_per_byte = 0"}),
               "collsel: m.toml:22: alpha_s_per_byte in [contention] is 0; it must be a finite "
               "number > 0; " +
                   regen("correct it"));
  expect_error(with({"intra_alpha_s_per_byte = -1e-10"}),
               "collsel: m.toml:23: intra_alpha_s_per_byte in [contention] is -1e-10; it must be "
               "a finite number >= 0; " +
                   regen("correct it"));
  expect_error(with({"gige_gamma_o = nan"}),
               "collsel: m.toml:23: gige_gamma_o in [contention] is nan; it must be a finite "
               "number; " +
                   regen("correct it"));
  expect_error(with({"graph = 3"}),
               "collsel: m.toml:23: graph in [contention] must be an array of tables, not an "
               "integer; " +
                   regen("write each entry as a [[contention.graph]] section"));
  const std::string edges_fix =
      regen("write edges as \"0>1 0>2\" or [[0, 1], [0, 2]] (node indices)");
  // [[contention.graph]] at line 23, its keys from line 24.
  expect_error(with({"[[contention.graph]]", "edges = \"0>1 0-2\"", "penalties = [1, 1]"}),
               "collsel: m.toml:24: edges in [[contention.graph]] has '0-2', which is not SRC>DST "
               "with node indices (e.g. 0>1); " +
                   edges_fix);
  expect_error(with({"[[contention.graph]]", "edges = \"0>1 2>2\"", "penalties = [1, 1]"}),
               "collsel: m.toml:24: edges in [[contention.graph]] has the self-loop 2>2; an edge "
               "joins two different nodes; " +
                   edges_fix);
  expect_error(with({"[[contention.graph]]", "edges = \"\"", "penalties = [1]"}),
               "collsel: m.toml:24: edges in [[contention.graph]] is empty; a measured graph has "
               "at least one edge; " +
                   edges_fix);
  expect_error(with({"[[contention.graph]]", "edges = [[0, 1],", "  [0, -2]]",
                     "penalties = [1, 1]"}),
               "collsel: m.toml:25: edges in [[contention.graph]] [1] is not a [src, dst] pair of "
               "node indices (integers >= 0); " +
                   edges_fix);
  expect_error(with({"[[contention.graph]]", "edges = 7", "penalties = [1]"}),
               "collsel: m.toml:24: edges in [[contention.graph]] must be a string of SRC>DST "
               "edges or an array of [src, dst] pairs, not an integer; " +
                   regen("write it as edges = \"0>1 0>2\""));
  expect_error(with({"[[contention.graph]]", "edges = \"0>1 0>2\"", "penalties = [1.5]"}),
               "collsel: m.toml:25: penalties in [[contention.graph]] has 1 values but edges has "
               "2 edges; " +
                   regen("give one penalty per edge, in the order of edges"));
  expect_error(with({"[[contention.graph]]", "edges = \"0>1 0>2\"", "penalties = [1.5, 0]"}),
               "collsel: m.toml:25: penalties[1] in [[contention.graph]] is 0; it must be a "
               "finite number > 0; " +
                   regen("correct it"));
  // Both missing keys are named, at the line of the graph's header.
  const ModelLoad missing = parse_model(with({"[[contention.graph]]", "name = \"x\""}), kSource);
  EXPECT_FALSE(missing.model.has_value());
  EXPECT_EQ(messages(missing),
            (std::vector<std::string>{
                "collsel: m.toml:23: missing required key 'edges' in [[contention.graph]]; " +
                    regen("add edges = \"0>1 0>2\" in [[contention.graph]]"),
                "collsel: m.toml:23: missing required key 'penalties' in [[contention.graph]]; " +
                    regen("add penalties = [1.5, 1.5] in [[contention.graph]]")}));
}

TEST(ModelFileContention, UnknownKeysWarnWithTheValidOnes) {
  expect_warning(with_section("[contention]", {"rule = \"fair\"", "alpha_s_per_byte = 1e-8",
                                               "beta = 0.75"}),
                 "collsel: m.toml:23: unknown key 'beta' in [contention]; remove it; valid keys "
                 "in [contention]: rule, use, alpha_s_per_byte, intra_alpha_s_per_byte, "
                 "reference_bytes, gige_beta, gige_gamma_i, gige_gamma_o, graph");
  expect_warning(with_section("[contention]",
                              {"rule = \"fair\"", "alpha_s_per_byte = 1e-8", "[[contention.graph]]",
                               "edges = \"0>1\"", "penalties = [1]", "times_s = [0.1]"}),
                 "collsel: m.toml:26: unknown key 'times_s' in [[contention.graph]]; remove it; "
                 "valid keys in [[contention.graph]]: name, edges, penalties");
}

TEST(ModelFileLogfp, HandWrittenSectionIsRead) {
  const ModelLoad load = parse_model(
      with_section("[logfp]", {"latency_s = 4.6e-6", "o_min_s = 0", "o_max_s = 1.6e-6",
                               "gap_s = 2e-6", "f = 8", "max_bytes = 1"}),
      kSource);
  ASSERT_TRUE(load.model.has_value()) << ::testing::PrintToString(messages(load));
  EXPECT_TRUE(load.diagnostics.empty()) << ::testing::PrintToString(messages(load));
  ASSERT_TRUE(load.model->logfp.has_value());
  EXPECT_EQ(load.model->logfp->latency_s, 4.6e-6);
  EXPECT_EQ(load.model->logfp->o_min_s, 0.0);
  EXPECT_EQ(load.model->logfp->o_max_s, 1.6e-6);
  EXPECT_EQ(load.model->logfp->gap_s, 2e-6);
  EXPECT_EQ(load.model->logfp->f, 8);
  EXPECT_EQ(load.model->logfp->max_bytes, 1u);
}

TEST(ModelFileLogfp, BadValuesRejectTheModelWithTheirLine) {
  const auto with = [](int at, const std::string& line) {
    std::vector<std::string> lines = {"latency_s = 4.6e-6", "o_min_s = 1.8e-7", "o_max_s = 1.6e-6",
                                      "gap_s = 2e-6", "f = 8", "max_bytes = 1"};  // 21-26
    lines.at(static_cast<std::size_t>(at - 21)) = line;
    return with_section("[logfp]", lines);
  };
  expect_error(with(25, "f = 0"),
               "collsel: m.toml:25: f in [logfp] is 0; it must be between 1 and 2147483647; " +
                   regen("correct it"));
  expect_error(with(25, "f = 2.5"),
               "collsel: m.toml:25: f in [logfp] must be an integer, not a float; " +
                   regen("write it as f = 8"));
  expect_error(with(22, "o_min_s = -1e-7"),
               "collsel: m.toml:22: o_min_s in [logfp] is -1e-07; it must be a finite number >= "
               "0; " +
                   regen("correct it"));
  expect_error(with(26, "max_bytes = -1"),
               "collsel: m.toml:26: max_bytes in [logfp] is -1; it must be >= 0; " +
                   regen("correct it"));
  expect_error(with(24, ""),
               "collsel: m.toml:20: missing required key 'gap_s' in [logfp]; " +
                   regen("add gap_s = 2e-6 in [logfp]"));
  expect_warning(with(24, "gap_s = 2e-6\ng_s = 2e-6"),
                 "collsel: m.toml:25: unknown key 'g_s' in [logfp]; remove it; valid keys in "
                 "[logfp]: latency_s, o_min_s, o_max_s, gap_s, f, max_bytes");
}

// --- files ---

class ModelFileOnDisk : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("collsel_model_file_test_" +
            std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(ModelFileOnDisk, MissingFile) {
  const std::string path = (dir_ / "no-such-model.toml").string();
  const ModelLoad load = load_model_file(path);
  EXPECT_FALSE(load.model.has_value());
  EXPECT_EQ(messages(load),
            (std::vector<std::string>{"collsel: " + path +
                                      ": cannot read the model file (No such file or directory); "
                                      "check COLLSEL_MODEL or [model] path in the config"}));
}

TEST_F(ModelFileOnDisk, Directory) {
  const ModelLoad load = load_model_file(dir_.string());
  EXPECT_FALSE(load.model.has_value());
  EXPECT_EQ(messages(load),
            (std::vector<std::string>{"collsel: " + dir_.string() +
                                      ": cannot read the model file (Is a directory); check "
                                      "COLLSEL_MODEL or [model] path in the config"}));
}

TEST_F(ModelFileOnDisk, ReadsAndNamesThePath) {
  const std::string path = (dir_ / "model.toml").string();
  std::ofstream(path) << with_line(14, "latency_s = \"fast\"");
  const ModelLoad load = load_model_file(path);
  EXPECT_FALSE(load.model.has_value());
  EXPECT_EQ(messages(load),
            (std::vector<std::string>{"collsel: " + path +
                                      ":14: latency_s in [plogp] must be a number, not a string; " +
                                      regen("write it as latency_s = 1.5e-6")}));
  std::ofstream(path) << write_model(sample_model());
  const ModelLoad good = load_model_file(path);
  ASSERT_TRUE(good.model.has_value());
  expect_same(*good.model, sample_model());
}

}  // namespace
}  // namespace collsel::models
