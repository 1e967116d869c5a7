#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "models/logp_import.hpp"
#include "models/model_file.hpp"

namespace collsel::models {
namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(COLLSEL_MODELS_FIXTURES) + "/" + name);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(LogpImport, ReadsTheSampleFile) {
  const ModelLoad load = import_logp_mpi(fixture("sample.logp"), "sample.logp");
  ASSERT_TRUE(load.model) << (load.diagnostics.empty() ? "" : load.diagnostics[0].format());
  EXPECT_TRUE(load.diagnostics.empty());
  const ModelFile& m = *load.model;
  EXPECT_EQ(m.name, "sample cluster, Fast Ethernet");
  EXPECT_DOUBLE_EQ(m.plogp.latency_s, 0.0000421);
  ASSERT_EQ(m.plogp.table.size(), 4u);
  // Rows come sorted by size whatever their order in the file.
  EXPECT_EQ(m.plogp.table[0].bytes, 0u);
  EXPECT_EQ(m.plogp.table[1].bytes, 1u);
  EXPECT_EQ(m.plogp.table[3].bytes, 65536u);
  EXPECT_DOUBLE_EQ(m.plogp.table[2].gap_s, 0.0000980);           // G
  EXPECT_DOUBLE_EQ(m.plogp.table[2].send_overhead_s, 0.0000102);  // OS
  EXPECT_DOUBLE_EQ(m.plogp.table[2].recv_overhead_s, 0.0000121);  // OR
  EXPECT_FALSE(m.plogp.eager_limit_bytes);
  EXPECT_EQ(m.provenance.date, "2001-11-16T08:56:40Z");  // the earliest TIME, 1005901000
}

TEST(LogpImport, WrittenModelReadsBack) {
  const ModelLoad load = import_logp_mpi(fixture("sample.logp"), "sample.logp");
  ASSERT_TRUE(load.model);
  const ModelLoad back = parse_model(write_model(*load.model), "back.toml");
  ASSERT_TRUE(back.model);
  EXPECT_EQ(back.model->plogp.table.size(), 4u);
  EXPECT_EQ(back.model->plogp.latency_s, load.model->plogp.latency_s);
}

TEST(LogpImport, MissingLatencyIsAnError) {
  const ModelLoad load = import_logp_mpi("1005901000 1 0 0 0 0 0 0 0.00001\n", "x.logp");
  EXPECT_FALSE(load.model);
  ASSERT_EQ(load.diagnostics.size(), 1u);
  EXPECT_EQ(load.diagnostics[0].format(),
            "collsel: x.logp: no '# Latency = L' line; is this a logp_mpi parameter file "
            "(logp_save)?");
}

TEST(LogpImport, ShortRowNamesItsLine) {
  const ModelLoad load =
      import_logp_mpi("# Latency = 0.00001\n\n1005901000 1 0.1 0.1\n", "x.logp");
  EXPECT_FALSE(load.model);
  ASSERT_EQ(load.diagnostics.size(), 1u);
  EXPECT_EQ(load.diagnostics[0].line, 3);
}

TEST(LogpImport, DuplicateSizeNamesBothLines) {
  const ModelLoad load = import_logp_mpi(
      "# Latency = 0.00001\n1 8 0 0 0 0 0 0 0.1\n1 8 0 0 0 0 0 0 0.2\n", "x.logp");
  EXPECT_FALSE(load.model);
  ASSERT_EQ(load.diagnostics.size(), 1u);
  EXPECT_EQ(load.diagnostics[0].line, 3);
  EXPECT_NE(load.diagnostics[0].problem.find("also line 2"), std::string::npos);
}

TEST(LogpImport, NegativeValueIsRejected) {
  const ModelLoad load = import_logp_mpi("# Latency = 0.00001\n1 8 0 0 0 0 0 0 -0.1\n", "x.logp");
  EXPECT_FALSE(load.model);
}

}  // namespace
}  // namespace collsel::models
