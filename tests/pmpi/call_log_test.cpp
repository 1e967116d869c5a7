// The log's records at each level (docs/LOGS.md, format version 2), read back as raw JSON: the
// trace caps and traces_per_site hand later calls to the summary, level summary writes no call
// records, call sites (as `stack` records written before their first use) and modules are written,
// defaults are left out, the summary table's overflow is reported, and the notes are printed once,
// by rank 0 only.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pmpi/call_log.hpp"
#include "selector/policy.hpp"

namespace collsel::pmpi {
namespace {

using nlohmann::json;

struct Settings {
  LogLevel level = LogLevel::trace;
  int stack_depth = 4;
  std::uint64_t max_records = 1000;
  std::uint64_t max_bytes = 0;
  std::uint32_t summary_entries = 64;
  int world_rank = 0;
  std::uint64_t traces_per_site = 0;
};

class CallLogTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("collsel-call-log-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / "rank-00000.jsonl").string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::unique_ptr<CallLog> open(const Settings& s) {
    RunInfo info{"run-1",         s.world_rank,    2,       "host", "<built-in defaults>",
                 "none",          s.level,         s.stack_depth,   s.max_records,
                 "mpich",         s.max_bytes,     s.traces_per_site};
    std::string error;
    auto log = std::make_unique<CallLog>(path_, info, s.summary_entries, error);
    EXPECT_TRUE(error.empty()) << error;
    return log;
  }

  // Call i comes from one of `sites` call sites and has 1..3 bytes, independently of its site.
  static CallRecord call(std::uint64_t i, std::uint64_t sites = 3) {
    CallRecord r;
    std::snprintf(r.comm.data(), r.comm.size(), "0.0");
    r.comm_size = 2;
    r.seq = i;
    r.bytes = 1 + (i / 3) % 3;
    r.algorithm = "bcast.flat";
    r.rung = Rung::default_model;
    r.predicted_s = i % 2 == 0 ? 1e-6 : std::nan("");
    r.actual_s = 2e-6;
    r.site.depth = 2;
    r.site.pcs = {0x1000 + 16 * (i % sites), 0x2000};
    return r;
  }

  std::vector<json> records(std::string_view type) const {
    std::vector<json> out;
    for (json& j : all_records()) {
      if (j["type"] == type) out.push_back(std::move(j));
    }
    return out;
  }

  std::vector<json> all_records() const {
    std::vector<json> out;
    std::ifstream in(path_);
    for (std::string line; std::getline(in, line);) out.push_back(json::parse(line));
    return out;
  }

  // The call site a record names: the `pcs` of the `stack` record of its id, which must come
  // before it in the file and be the only one of that id.
  json site_of(const json& record) const {
    if (!record.contains("stack")) return json::array();
    json found;
    for (const json& r : all_records()) {
      if (r == record) break;
      if (r["type"] != "stack" || r["id"] != record["stack"]) continue;
      EXPECT_TRUE(found.is_null()) << "two stack records of id " << r["id"];
      found = r["pcs"];
    }
    EXPECT_FALSE(found.is_null()) << "no stack record before " << record;
    return found;
  }

  std::filesystem::path dir_;
  std::string path_;
};

std::uint64_t sum_calls(const std::vector<json>& summaries) {
  std::uint64_t n = 0;
  for (const auto& s : summaries) n += s["calls"].get<std::uint64_t>();
  return n;
}

TEST_F(CallLogTest, TraceCapSummarisesTheRestAndNotesItOnce) {
  auto log = open({.max_records = 100});
  testing::internal::CaptureStderr();
  for (std::uint64_t i = 0; i < 300; ++i) log->add(call(i));
  log->close();
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(err,
            "collsel: rank 0 reached [log] max_records = 100 call records; later calls are "
            "summarised per call site in the log's summary records; raise max_records or use "
            "level = \"summary\"\n");

  const auto run = records("run");
  ASSERT_EQ(run.size(), 1u);
  EXPECT_EQ(run[0]["level"], "trace");
  EXPECT_EQ(run[0]["stack_depth"], 4);
  EXPECT_EQ(run[0]["max_records"], 100);
  const auto calls = records("call");
  ASSERT_EQ(calls.size(), 100u);
  EXPECT_EQ(calls[99]["seq"], 99);  // the first 100 calls, in order
  EXPECT_EQ(site_of(calls[4]), json::array({0x1000 + 16, 0x2000}));
  EXPECT_EQ(records("stack").size(), 3u);  // one per site, written once
  const auto summaries = records("summary");
  EXPECT_EQ(sum_calls(summaries), 200u);
  const auto end = records("end");
  ASSERT_EQ(end.size(), 1u);
  EXPECT_EQ(end[0]["calls"], 100);
  EXPECT_EQ(end[0]["summarised_calls"], 200);
  EXPECT_FALSE(end[0].contains("overflow_calls"));  // 0: left out
  EXPECT_FALSE(records("module").empty());  // stack_depth > 0: the objects to symbolise with
}

TEST_F(CallLogTest, SummaryLevelWritesOneRecordPerKey) {
  auto log = open({.level = LogLevel::summary, .max_records = 5});
  for (std::uint64_t i = 0; i < 300; ++i) log->add(call(i));
  log->close();
  EXPECT_TRUE(records("call").empty());
  const auto summaries = records("summary");
  // 3 sites x 3 sizes (1, 2, 3 bytes) but 2 and 3 share a bucket: 6 keys.
  ASSERT_EQ(summaries.size(), 6u);
  EXPECT_EQ(sum_calls(summaries), 300u);
  for (const auto& s : summaries) {
    EXPECT_FALSE(s.contains("run") || s.contains("world_rank")) << s;  // the run record's
    EXPECT_EQ(s["coll"], "bcast");
    EXPECT_EQ(s["algorithm"], "bcast.flat");
    EXPECT_EQ(s["rung"], "default_model");
    EXPECT_EQ(s["comm_size"], 2);
    EXPECT_FALSE(s.contains("overflow")) << s;  // false: left out
    EXPECT_EQ(site_of(s).size(), 2u);
    EXPECT_TRUE(s["bytes_lo"] == 1 || s["bytes_lo"] == 2) << s;
    EXPECT_EQ(s["bytes_hi"], s["bytes_lo"] == 1 ? 1 : 3);
    EXPECT_NEAR(s["actual_sum_s"].get<double>(), 2e-6 * s["calls"].get<double>(), 1e-15);
    EXPECT_EQ(s["actual_min_s"], 2e-6);
    EXPECT_GT(s["predicted_calls"], 0);
    EXPECT_EQ(s["predicted_min_s"], 1e-6);
  }
  const auto end = records("end");
  EXPECT_EQ(end[0]["calls"], 0);
  EXPECT_EQ(end[0]["summarised_calls"], 300);
  EXPECT_EQ(records("run")[0]["level"], "summary");
}

TEST_F(CallLogTest, NoCallSitesNoModules) {
  auto log = open({.stack_depth = 0});
  CallRecord r = call(1);
  r.site = {};
  log->add(r);
  log->close();
  const auto calls = records("call");
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_FALSE(calls[0].contains("stack")) << calls[0];
  EXPECT_TRUE(records("stack").empty());
  EXPECT_TRUE(records("module").empty());
}

TEST_F(CallLogTest, FullTableOverflowsPerCollectiveAndNotesItOnce) {
  auto log = open({.level = LogLevel::summary, .summary_entries = 16});
  testing::internal::CaptureStderr();
  for (std::uint64_t i = 0; i < 100; ++i) {
    CallRecord r = call(i, 100);
    r.predicted_s = std::nan("");
    log->add(r);
  }
  log->close();
  EXPECT_EQ(testing::internal::GetCapturedStderr(),
            "collsel: rank 0's summary table is full ([log] summary_entries = 16); calls with new "
            "keys are counted per collective in overflow entries; raise summary_entries\n");
  const auto summaries = records("summary");
  ASSERT_EQ(summaries.size(), 17u);
  const json& overflow = summaries.back();
  EXPECT_EQ(overflow["overflow"], true);
  EXPECT_EQ(overflow["algorithm"], "*");
  EXPECT_EQ(overflow["comm_size"], 0);
  EXPECT_FALSE(overflow.contains("stack"));
  EXPECT_EQ(overflow["calls"], 84);
  EXPECT_EQ(overflow["bytes_lo"], 1);
  EXPECT_EQ(overflow["bytes_hi"], 3);
  EXPECT_EQ(overflow["predicted_calls"], 0);
  EXPECT_FALSE(overflow.contains("predicted_min_s"));  // null: left out
  EXPECT_FALSE(overflow.contains("predicted_max_s"));
  const auto end = records("end");
  EXPECT_EQ(end[0]["summarised_calls"], 100);
  EXPECT_EQ(end[0]["overflow_calls"], 84);
}

// [log] traces_per_site: the first N calls of each key (call site x collective x algorithm x comm
// size x size bucket) are traced, the later ones summarised, and the end record says how many were
// summarised for that reason.
TEST_F(CallLogTest, TracesPerSiteTracesTheFirstCallsOfEachKey) {
  auto log = open({.max_records = 1000, .traces_per_site = 4});
  testing::internal::CaptureStderr();
  for (std::uint64_t i = 0; i < 300; ++i) log->add(call(i));
  log->close();
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");  // sampling is the default: no note
  // 3 sites x 2 buckets (1 byte; 2-3 bytes) = 6 keys, 4 calls traced of each.
  const auto calls = records("call");
  ASSERT_EQ(calls.size(), 24u);
  std::map<std::pair<json, bool>, int> per_key;
  for (const json& c : calls) ++per_key[{site_of(c), c["bytes"] == 1}];
  ASSERT_EQ(per_key.size(), 6u);
  for (const auto& [key, n] : per_key) EXPECT_EQ(n, 4) << key.first;
  EXPECT_EQ(records("stack").size(), 3u);
  const auto summaries = records("summary");
  EXPECT_EQ(summaries.size(), 6u);
  EXPECT_EQ(sum_calls(summaries), 300u - 24u);
  const auto end = records("end");
  EXPECT_EQ(end[0]["calls"], 24);
  EXPECT_EQ(end[0]["summarised_calls"], 276);
  EXPECT_EQ(end[0]["sampled_calls"], 276);
  EXPECT_EQ(records("run")[0]["traces_per_site"], 4);
}

// A key the full summary table has no entry for cannot be counted, so it is not traced: its calls
// go to the overflow entry, noted once.
TEST_F(CallLogTest, TracesPerSiteWithAFullTableSummarises) {
  auto log = open({.summary_entries = 16, .traces_per_site = 2});
  testing::internal::CaptureStderr();
  for (std::uint64_t i = 0; i < 100; ++i) log->add(call(i, 100));  // 100 keys
  log->close();
  EXPECT_EQ(testing::internal::GetCapturedStderr(),
            "collsel: rank 0's summary table is full ([log] summary_entries = 16); calls with new "
            "keys are counted per collective in overflow entries and not traced; raise "
            "summary_entries\n");
  EXPECT_EQ(records("call").size(), 16u);
  const auto end = records("end");
  EXPECT_EQ(end[0]["calls"], 16);
  EXPECT_EQ(end[0]["summarised_calls"], 84);
  EXPECT_EQ(end[0]["overflow_calls"], 84);
  EXPECT_EQ(end[0]["sampled_calls"], 84);  // not traced for traces_per_site's sake, not a cap
}

// Format version 2's call record: no run id or world rank (the run record's), and the fields at
// their defaults left out; times read from the clock rounded to the nanosecond.
TEST_F(CallLogTest, CallRecordsLeaveOutTheDefaults) {
  auto log = open({.stack_depth = 0});
  CallRecord plain = call(0);
  plain.site = {};
  plain.predicted_s = std::nan("");
  plain.actual_s = 9.764999958861154e-06;
  plain.start_s = 0.07453759400004856;
  log->add(plain);
  CallRecord full = plain;
  full.seq = 1;
  full.root = 1;
  full.segment_bytes = 8192;
  full.window = 3;
  full.simulated = true;
  full.predicted_s = 9.743949689888787e-07;
  full.setup_s = 0.035971383000060086;
  log->add(full);
  log->close();
  const auto run = records("run");
  EXPECT_EQ(run[0]["v"], 2);
  EXPECT_EQ(run[0]["run"], "run-1");
  EXPECT_EQ(run[0]["world_rank"], 0);
  const auto calls = records("call");
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0]["v"], 2);
  for (const char* key : {"run", "world_rank", "root", "segment_bytes", "window", "predicted_s",
                          "simulated", "setup_s", "stack"}) {
    EXPECT_FALSE(calls[0].contains(key)) << key << " in " << calls[0];
  }
  EXPECT_EQ(calls[1]["root"], 1);
  EXPECT_EQ(calls[1]["segment_bytes"], 8192);
  EXPECT_EQ(calls[1]["window"], 3);
  EXPECT_EQ(calls[1]["simulated"], true);
  EXPECT_EQ(calls[1]["predicted_s"], 9.743949689888787e-07);  // a model's output: all digits
  std::ifstream in(path_);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find(R"("actual_s":9.765e-06,)"), std::string::npos) << text;
  EXPECT_NE(text.find(R"("setup_s":0.035971383,)"), std::string::npos) << text;
  EXPECT_NE(text.find(R"("start_s":0.074537594)"), std::string::npos) << text;
}

TEST_F(CallLogTest, OnlyRankZeroPrintsNotes) {
  auto log = open({.max_records = 1, .summary_entries = 16, .world_rank = 1});
  testing::internal::CaptureStderr();
  for (std::uint64_t i = 0; i < 100; ++i) log->add(call(i, 100));
  log->close();
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ(records("end")[0]["overflow_calls"], 99 - 16);
}

// [log] max_bytes: traces stop at 3/4 of it with one note, the later calls are summarised, and
// the file, closing records included, stays within it.
TEST_F(CallLogTest, MaxBytesBoundsTheFile) {
  constexpr std::uint64_t kMaxBytes = 256 * 1024;
  auto log = open({.max_records = 1'000'000, .max_bytes = kMaxBytes});
  testing::internal::CaptureStderr();
  constexpr std::uint64_t kCalls = 20'000;  // ~4 MB of call records unbounded
  for (std::uint64_t i = 0; i < kCalls; ++i) log->add(call(i));
  log->close();
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("reached 3/4 of [log] max_bytes = 262144"), std::string::npos) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_LE(std::filesystem::file_size(path_), kMaxBytes);
  const auto calls = records("call");
  EXPECT_GT(calls.size(), 100u);
  EXPECT_LT(calls.size(), kCalls);
  const auto end = records("end");
  ASSERT_EQ(end.size(), 1u);
  EXPECT_EQ(end[0]["calls"].get<std::uint64_t>() + end[0]["summarised_calls"].get<std::uint64_t>(),
            kCalls);
  EXPECT_EQ(end[0]["ending"], "finalize");
}

// The signal path writes the end record after the last whole record and counts what the summary
// table held as unwritten; a later close() adds nothing.
TEST_F(CallLogTest, EndFromSignalWritesTheEndingOnly) {
  auto log = open({.max_records = 10});
  testing::internal::CaptureStderr();
  for (std::uint64_t i = 0; i < 25; ++i) log->add(call(i));
  log->end_from_signal(11);
  log->add(call(99));
  log->close();
  testing::internal::GetCapturedStderr();
  std::string text;
  {
    std::ifstream in(path_, std::ios::binary);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  // The file was not truncated (the signal path may not): the records, then NUL bytes.
  const std::size_t records_end = text.find('\0');
  ASSERT_NE(records_end, std::string::npos);
  EXPECT_EQ(text.find_first_not_of('\0', records_end), std::string::npos);
  text.resize(records_end);
  std::vector<json> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(json::parse(line));
  ASSERT_FALSE(lines.empty());
  const json& end = lines.back();
  EXPECT_EQ(end["type"], "end");
  EXPECT_EQ(end["ending"], "signal");
  EXPECT_EQ(end["code"], 11);
  EXPECT_EQ(end["calls"], 10);
  EXPECT_EQ(end["unwritten_calls"], 15);
  EXPECT_EQ(std::count_if(lines.begin(), lines.end(),
                          [](const json& j) { return j["type"] == "call"; }),
            10);
}

TEST_F(CallLogTest, CloseSaysHowTheProcessEnded) {
  auto log = open({});
  log->add(call(0));
  log->close(Ending::abort, 7);
  const auto end = records("end");
  ASSERT_EQ(end.size(), 1u);
  EXPECT_EQ(end[0]["ending"], "abort");
  EXPECT_EQ(end[0]["code"], 7);
  EXPECT_FALSE(end[0].contains("cause")) << end[0];  // the user's MPI_Abort: collsel knows no why
}

// collsel's own abort (a failure inside a schedule) says what failed in the log too: the
// launcher may drop the rank's last line on stderr when it kills the job.
TEST_F(CallLogTest, CollselsOwnAbortSaysWhatFailed) {
  auto log = open({});
  log->close(Ending::abort, 34, "bcast.binomial failed inside its schedule (std::bad_alloc)");
  const auto end = records("end");
  ASSERT_EQ(end.size(), 1u);
  EXPECT_EQ(end[0]["ending"], "abort");
  EXPECT_EQ(end[0]["code"], 34);
  EXPECT_EQ(end[0]["cause"], "bcast.binomial failed inside its schedule (std::bad_alloc)");
}

}  // namespace
}  // namespace collsel::pmpi
