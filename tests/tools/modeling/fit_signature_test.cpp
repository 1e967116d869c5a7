// `collsel fit-signature`: the CSV reader on its own, then the command as users run it.
#include "tools/modeling/fit_signature.hpp"

#include <cmath>
#include <cstdint>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "command.hpp"
#include "models/alltoall/contention.hpp"
#include "models/model_file.hpp"
#include "temp_dir.hpp"

namespace collsel::testing {
namespace {

using nlohmann::json;
namespace fit = collsel::tools::fit_signature;
namespace a2a = collsel::models::alltoall;

std::vector<std::string> messages(const Diagnostics& d) {
  std::vector<std::string> out;
  for (const auto& x : d) out.push_back(x.format());
  return out;
}

// Reading `text` fails with exactly this one message.
void expect_csv_error(const std::string& text, const std::string& message) {
  const fit::CsvRead read = fit::read_samples_csv(text, "d.csv");
  EXPECT_TRUE(read.rows.empty());
  ASSERT_EQ(read.diagnostics.size(), 1u) << ::testing::PrintToString(messages(read.diagnostics));
  EXPECT_EQ(read.diagnostics[0].severity, Diagnostic::Severity::error);
  EXPECT_EQ(read.diagnostics[0].format(), message);
}

const std::string kFormatFix =
    "the file needs a header line n,m_bytes,seconds (any order) and one measurement per line";

TEST(FitSignatureCsv, ColumnsInAnyOrderCommentsAndBlankLines) {
  const fit::CsvRead read = fit::read_samples_csv(
      "\xEF\xBB\xBF# measured on the emulated cluster\n"  // 1
      "\n"                                                 // 2
      "Seconds, n ,M_BYTES\r\n"                            // 3
      "0.0125,16,4096\r\n"                                 // 4
      "   # a comment between rows\n"                      // 5
      "1.5e-2 , 24, 8192\n"                                // 6
      "\n",                                                // 7
      "d.csv");
  EXPECT_TRUE(read.diagnostics.empty()) << ::testing::PrintToString(messages(read.diagnostics));
  ASSERT_EQ(read.rows.size(), 2u);
  EXPECT_EQ(read.rows[0].line, 4);
  EXPECT_EQ(read.rows[0].sample.n, 16);
  EXPECT_EQ(read.rows[0].sample.bytes, 4096u);
  EXPECT_EQ(read.rows[0].sample.seconds, 0.0125);
  EXPECT_EQ(read.rows[1].line, 6);
  EXPECT_EQ(read.rows[1].sample.n, 24);
  EXPECT_EQ(read.rows[1].sample.seconds, 1.5e-2);
}

TEST(FitSignatureCsv, UnusedColumnsWarn) {
  const fit::CsvRead read =
      fit::read_samples_csv("n,m_bytes,seconds,stddev\n8,1024,1e-3,1e-5\n", "d.csv");
  ASSERT_EQ(read.rows.size(), 1u);
  EXPECT_EQ(messages(read.diagnostics),
            (std::vector<std::string>{"collsel: d.csv:1: column 'stddev' is not used; only n, "
                                      "m_bytes and seconds are read"}));
}

TEST(FitSignatureCsv, ErrorsNameTheLineAndTheFix) {
  expect_csv_error("n,m,seconds\n8,1024,1e-3\n",
                   "collsel: d.csv:1: the header has no column 'm_bytes' (found 'n', 'm', "
                   "'seconds'); " + kFormatFix);
  expect_csv_error("8,1024,1e-3\n",
                   "collsel: d.csv:1: the header has no column 'n' (found '8', '1024', '1e-3'); " +
                       kFormatFix);
  expect_csv_error("n,m_bytes,seconds,n\n",
                   "collsel: d.csv:1: column 'n' appears twice in the header; keep one column of "
                   "each name");
  expect_csv_error("n,m_bytes,seconds\n8,1024,1e-3\n\n8,2048\n",
                   "collsel: d.csv:4: expected 3 comma-separated fields as in the header, found "
                   "2; give one value per header column");
  expect_csv_error("n,m_bytes,seconds\n1,1024,1e-3\n",
                   "collsel: d.csv:2: n is '1'; it must be a whole number of processes >= 2; "
                   "write the process count of the measured All-to-All, such as 16");
  expect_csv_error("n,m_bytes,seconds\n8,4k,1e-3\n",
                   "collsel: d.csv:2: m_bytes is '4k'; it must be a whole number of bytes >= 0; "
                   "write the bytes each process sends to each other one, such as 4096");
  expect_csv_error("n,m_bytes,seconds\n8,-1,1e-3\n",
                   "collsel: d.csv:2: m_bytes is '-1'; it must be a whole number of bytes >= 0; "
                   "write the bytes each process sends to each other one, such as 4096");
  for (const std::string bad : {"0", "-1e-3", "inf", "nan", "1ms", ""}) {
    expect_csv_error("n,m_bytes,seconds\n8,1024," + bad + "\n",
                     "collsel: d.csv:2: seconds is '" + bad +
                         "'; it must be a finite number > 0; write the measured completion time "
                         "in seconds, such as 0.0125 or 1.25e-2");
  }
  expect_csv_error("# nothing\n\n", "collsel: d.csv: no header line and no data; " + kFormatFix);
  expect_csv_error("n,m_bytes,seconds\n", "collsel: d.csv: a header but no measurements; " +
                                              kFormatFix);
}

// --- the command ---

const a2a::Hockney kHockney{5e-5, 8.5e-9};
const a2a::Signature kSignature{4.3628, 4.93e-3, 8192};  // seed 000 section 8.2, Gigabit Ethernet

std::string write_csv(const TempDir& dir, const std::string& text) {
  const std::string path = (dir.path() / "alltoall.csv").string();
  std::ofstream(path) << text;
  return path;
}

std::string known_csv() {
  std::ostringstream out;
  out << "# generated from gamma 4.3628, delta 4.93 ms, M 8192\nseconds,m_bytes,n\n";
  out << std::setprecision(17);
  for (int n : {16, 40}) {
    for (std::uint64_t m : {1024, 4096, 8192, 32768, 131072}) {
      out << a2a::signature_model(kHockney, kSignature, n, m) << "," << m << "," << n << "\n";
    }
  }
  return out.str();
}

::testing::AssertionResult within(double actual, double expected, double relative) {
  if (std::fabs(actual - expected) <= relative * std::fabs(expected)) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "got " << actual << ", expected " << expected;
}

TEST(FitSignatureCommand, RecoversKnownParametersAsJson) {
  const TempDir dir("fit");
  const std::string csv = write_csv(dir, known_csv());
  const CommandResult r = run_collsel(
      {"fit-signature", csv, "--alpha", "5e-5", "--beta", "8.5e-9", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const json doc = json::parse(r.out);
  EXPECT_EQ(doc.at("file"), csv);
  EXPECT_TRUE(within(doc.at("gamma").get<double>(), 4.3628, 1e-9));
  EXPECT_TRUE(within(doc.at("delta_s").get<double>(), 4.93e-3, 1e-9));
  EXPECT_EQ(doc.at("threshold_bytes").get<std::uint64_t>(), 8192u);
  EXPECT_EQ(doc.at("fit").at("points"), 10);
  EXPECT_LT(doc.at("fit").at("max_abs_rel").get<double>(), 1e-9);
  ASSERT_EQ(doc.at("rows").size(), 10u);
  EXPECT_EQ(doc.at("rows")[0].at("line"), 3);
  EXPECT_EQ(doc.at("rows")[0].at("n"), 16);
  EXPECT_EQ(doc.at("rows")[0].at("m_bytes"), 1024);
  // No delta, then each of the 5 sizes.
  ASSERT_EQ(doc.at("candidates").size(), 6u);
  EXPECT_TRUE(doc.at("candidates")[0].at("threshold_bytes").is_null());
}

TEST(FitSignatureCommand, TextEndsWithKeysTheModelFileReads) {
  const TempDir dir("fit");
  const CommandResult r = run_collsel({"fit-signature", write_csv(dir, known_csv()), "--alpha",
                                       "5e-5", "--beta", "8.5e-9"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("gamma:    4.3628\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("M:        8192 bytes\n"), std::string::npos) << r.out;
  // The [alltoall] keys it prints, under a valid model's other tables, parse to the fit.
  const std::string keys = r.out.substr(r.out.find("\n# for the model file's [alltoall]"));
  const std::string model =
      "format_version = 1\nname = \"x\"\n[plogp]\nlatency_s = 1e-6\nsizes_bytes = [0]\n"
      "gap_s = [1e-6]\nsend_overhead_s = [0]\nrecv_overhead_s = [0]\n[alltoall]" +
      keys;
  const models::ModelLoad load = models::parse_model(model, "pasted.toml");
  ASSERT_TRUE(load.model) << ::testing::PrintToString(messages(load.diagnostics)) << model;
  EXPECT_TRUE(load.diagnostics.empty()) << ::testing::PrintToString(messages(load.diagnostics));
  ASSERT_TRUE(load.model->alltoall);
  EXPECT_TRUE(within(load.model->alltoall->signature.gamma, 4.3628, 1e-9));
  EXPECT_EQ(load.model->alltoall->signature.threshold_bytes, 8192u);
  EXPECT_EQ(load.model->alltoall->hockney.beta_s_per_byte, 8.5e-9);
  EXPECT_EQ(load.model->alltoall->signature_fit.points, 10);
}

TEST(FitSignatureCommand, MalformedCsvIsOneLineWithFileAndLineAndExitTwo) {
  const TempDir dir("fit");
  const std::string csv = write_csv(dir, "n,m_bytes,seconds\n8,1024,0.001\n8,2048,fast\n");
  const CommandResult r =
      run_collsel({"fit-signature", csv, "--alpha", "5e-5", "--beta", "8.5e-9"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "collsel: " + csv +
                       ":3: seconds is 'fast'; it must be a finite number > 0; write the measured "
                       "completion time in seconds, such as 0.0125 or 1.25e-2\n");
}

TEST(FitSignatureCommand, DataThatCannotBeFittedExitsTwo) {
  const TempDir dir("fit");
  const std::string csv = write_csv(dir, "n,m_bytes,seconds\n8,1024,0.001\n8,2048,0.002\n");
  const CommandResult r =
      run_collsel({"fit-signature", csv, "--alpha", "5e-5", "--beta", "8.5e-9"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.find("collsel: " + csv + ": cannot fit the signature: 2 samples; the fit needs "
                       "at least 4"),
            0u)
      << r.err;
  const CommandResult missing = run_collsel(
      {"fit-signature", (dir.path() / "none.csv").string(), "--alpha", "5e-5", "--beta", "1e-9"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("none.csv: cannot read the file (No such file or directory)"),
            std::string::npos)
      << missing.err;
}

TEST(FitSignatureCommand, BadArgumentsExitTwo) {
  const TempDir dir("fit");
  const std::string csv = write_csv(dir, known_csv());
  const CommandResult negative =
      run_collsel({"fit-signature", csv, "--alpha", "-1", "--beta", "8.5e-9"});
  EXPECT_EQ(negative.exit_code, 2);
  EXPECT_NE(negative.err.find("--alpha must be a number >= 0, such as 6e-5, not '-1'"),
            std::string::npos)
      << negative.err;
  const CommandResult no_beta = run_collsel({"fit-signature", csv, "--alpha", "5e-5"});
  EXPECT_EQ(no_beta.exit_code, 2);
  EXPECT_NE(no_beta.err.find("--beta"), std::string::npos) << no_beta.err;
}

}  // namespace
}  // namespace collsel::testing
