// The summary table of [log] level = "summary": buckets, aggregation per key, and the memory bound
// (a million calls over far more keys than entries never grow it, and every call is counted).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <numeric>
#include <string>

#include "pmpi/call_summary.hpp"
#include "selector/policy.hpp"

namespace collsel::pmpi {
namespace {

constexpr std::string_view kFlat = "bcast.flat";
constexpr std::string_view kBinomial = "bcast.binomial";
const double kNone = std::nan("");

CallSite site(std::uint64_t pc, std::uint8_t depth = 2) {
  CallSite s;
  s.depth = depth;
  for (std::uint8_t i = 0; i < depth; ++i) s.pcs[i] = pc + i * 0x100;
  return s;
}

SummaryKey key(CallSite s, std::uint64_t bytes, std::string_view algorithm = kFlat,
               Collective coll = Collective::bcast, int comm_size = 4) {
  return {s, algorithm, coll, comm_size, size_bucket(bytes)};
}

std::uint64_t total_calls(const CallSummary& t) {
  std::uint64_t n = 0;
  for (const auto& e : t.entries()) n += e.calls;
  for (const auto& e : t.overflow_entries()) n += e.calls;
  return n;
}

TEST(CallSummary, BucketsArePowersOfTwo) {
  EXPECT_EQ(size_bucket(0), 0);
  EXPECT_EQ(size_bucket(1), 1);
  EXPECT_EQ(size_bucket(2), 2);
  EXPECT_EQ(size_bucket(3), 2);
  EXPECT_EQ(size_bucket(4), 3);
  EXPECT_EQ(size_bucket(7), 3);
  EXPECT_EQ(size_bucket(65536), 17);
  EXPECT_EQ(size_bucket(std::numeric_limits<std::uint64_t>::max()), 64);
  for (std::uint8_t b = 0; b <= 64; ++b) {
    EXPECT_EQ(size_bucket(bucket_low(b)), b) << int(b);
    EXPECT_EQ(size_bucket(bucket_high(b)), b) << int(b);
    if (b > 0) {
      EXPECT_EQ(bucket_low(b), bucket_high(b - 1) + 1) << int(b);  // no gaps
    }
  }
  EXPECT_EQ(bucket_high(64), std::numeric_limits<std::uint64_t>::max());
}

TEST(CallSummary, AggregatesOneKey) {
  CallSummary t(16);
  ASSERT_TRUE(t.add(key(site(0x4000), 5), Rung::default_model, 5, 2e-6, 1e-6));
  ASSERT_TRUE(t.add(key(site(0x4000), 7), Rung::override_algorithm, 7, 1e-6, kNone));
  ASSERT_TRUE(t.add(key(site(0x4000), 4), Rung::default_model, 4, 3e-6, 4e-6));
  ASSERT_EQ(t.entries().size(), 1u);
  const SummaryEntry& e = t.entries()[0];
  EXPECT_FALSE(e.is_overflow());
  EXPECT_EQ(e.first_rung(), Rung::default_model);  // the first call's
  EXPECT_EQ(e.calls, 3u);
  EXPECT_EQ(e.bytes_sum, 16u);
  EXPECT_EQ(bucket_low(e.bucket_lo), 4u);
  EXPECT_EQ(bucket_high(e.bucket_hi), 7u);
  EXPECT_DOUBLE_EQ(e.actual_sum_s, 6e-6);
  EXPECT_DOUBLE_EQ(e.actual_min_s, 1e-6);
  EXPECT_DOUBLE_EQ(e.actual_max_s, 3e-6);
  EXPECT_EQ(e.predicted_calls, 2u);  // the NaN (no prediction) is not counted
  EXPECT_DOUBLE_EQ(e.predicted_sum_s, 5e-6);
  EXPECT_DOUBLE_EQ(e.predicted_min_s, 1e-6);
  EXPECT_DOUBLE_EQ(e.predicted_max_s, 4e-6);
  EXPECT_EQ(t.calls(), 3u);
  EXPECT_EQ(t.overflow_calls(), 0u);
}

TEST(CallSummary, EveryKeyFieldSeparatesEntries) {
  CallSummary t(64);
  const CallSite s = site(0x4000);
  t.add(key(s, 8), Rung::default_model, 8, 1e-6, 1e-6);
  t.add(key(site(0x5000), 8), Rung::default_model, 8, 1e-6, 1e-6);      // another site
  t.add(key(site(0x4000, 1), 8), Rung::default_model, 8, 1e-6, 1e-6);   // another depth
  t.add(key(s, 16), Rung::default_model, 16, 1e-6, 1e-6);               // another bucket
  t.add(key(s, 8, kBinomial), Rung::default_model, 8, 1e-6, 1e-6);      // another algorithm
  t.add(key(s, 8, kNativeName), Rung::native, 8, 1e-6, kNone);
  t.add(key(s, 8, kFlat, Collective::scatter), Rung::default_model, 8, 1e-6, 1e-6);
  t.add(key(s, 8, kFlat, Collective::bcast, 8), Rung::default_model, 8, 1e-6, 1e-6);
  t.add(key(s, 9), Rung::default_model, 9, 1e-6, 1e-6);                // same bucket as 8
  EXPECT_EQ(t.entries().size(), 8u);
  EXPECT_EQ(t.entries()[0].calls, 2u);
  EXPECT_EQ(total_calls(t), 9u);
}

// The memory bound: a million calls over 50,000 distinct keys into a 4096-entry table. The table
// holds the first 4096 keys, every later key's calls land in the overflow entries, and nothing is
// allocated after construction; counts and byte sums stay exact.
TEST(CallSummary, AMillionCallsOverManyKeysNeverGrowTheTable) {
  constexpr std::uint32_t kCapacity = 4096;
  constexpr std::uint64_t kCalls = 1'000'000;
  constexpr std::uint64_t kKeys = 50'000;
  CallSummary t(kCapacity);
  const std::size_t memory = t.memory_bytes();
  const SummaryEntry* storage = t.entries().data();
  std::uint64_t bytes_total = 0;
  std::uint64_t rejected = 0;
  std::uint64_t in_scatter = 0;
  for (std::uint64_t i = 0; i < kCalls; ++i) {
    const std::uint64_t k = (i * 7919) % kKeys;  // keys revisited out of order
    const std::uint64_t bytes = k % 13;
    const Collective coll = k % 5 == 0 ? Collective::scatter : Collective::bcast;
    bytes_total += bytes;
    in_scatter += coll == Collective::scatter;
    if (!t.add(key(site(0x400000 + 16 * k), bytes, kFlat, coll), Rung::default_model, bytes,
               1e-6, 2e-6)) {
      ++rejected;
    }
  }
  EXPECT_EQ(t.memory_bytes(), memory);
  EXPECT_EQ(t.entries().data(), storage);  // never reallocated
  EXPECT_EQ(t.entries().size(), kCapacity);
  EXPECT_EQ(t.capacity(), kCapacity);
  EXPECT_EQ(t.calls(), kCalls);
  EXPECT_EQ(t.overflow_calls(), rejected);
  EXPECT_GT(rejected, kCalls / 2);
  EXPECT_EQ(total_calls(t), kCalls);
  std::uint64_t bytes_seen = 0;
  for (const auto& e : t.entries()) bytes_seen += e.bytes_sum;
  for (const auto& e : t.overflow_entries()) bytes_seen += e.bytes_sum;
  EXPECT_EQ(bytes_seen, bytes_total);

  // One overflow entry per collective, in kCollectives order: algorithm "*", no site, no size.
  const auto overflow = t.overflow_entries();
  ASSERT_EQ(overflow.size(), kCollectives.size());
  std::uint64_t scatter_kept = 0;
  for (const auto& e : t.entries()) scatter_kept += t.key(e).coll == Collective::scatter ? e.calls : 0;
  EXPECT_EQ(overflow[1].calls, in_scatter - scatter_kept);
  for (std::size_t i = 0; i < overflow.size(); ++i) {
    EXPECT_TRUE(overflow[i].is_overflow());
    EXPECT_EQ(t.key(overflow[i]).coll, kCollectives[i]);
    EXPECT_EQ(t.key(overflow[i]).algorithm, "*");
    EXPECT_EQ(t.key(overflow[i]).comm_size, 0);
    EXPECT_EQ(t.key(overflow[i]).site.depth, 0);
  }
  EXPECT_EQ(overflow[2].calls, 0u);  // no Alltoall calls
  EXPECT_EQ(bucket_low(overflow[0].bucket_lo), 0u);
  EXPECT_EQ(bucket_high(overflow[0].bucket_hi), 15u);  // sizes 0..12
  EXPECT_DOUBLE_EQ(overflow[0].actual_min_s, 1e-6);
  EXPECT_EQ(overflow[0].predicted_calls, overflow[0].calls);
}

TEST(CallSummary, KnownKeysStillAggregateWhenFull) {
  CallSummary t(16);
  for (std::uint64_t k = 0; k < 16; ++k) {
    t.add(key(site(k + 1), 1), Rung::default_model, 1, 1e-6, kNone);
  }
  EXPECT_FALSE(t.add(key(site(999), 1), Rung::default_model, 1, 1e-6, kNone));
  EXPECT_TRUE(t.add(key(site(3), 1), Rung::default_model, 1, 1e-6, kNone));
  EXPECT_EQ(t.entries()[2].calls, 2u);
  EXPECT_EQ(t.overflow_calls(), 1u);
  EXPECT_EQ(t.overflow_entries()[0].predicted_calls, 0u);
}

// The table lives in its file (common/summary_table_format.hpp) from the first call on: what a
// SIGKILL would leave is on disk as each call is counted, without any write or sync call.
TEST(CallSummary, EachCallIsInTheTablesFileAsItIsCounted) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("collsel-summary-" + std::to_string(::getpid()) + ".summary");
  std::string error;
  CallSummary t(8, path.string(), error);
  ASSERT_TRUE(error.empty()) << error;
  EXPECT_EQ(t.path(), path.string());
  EXPECT_EQ(std::filesystem::file_size(path), summary_table::file_bytes(8, kCollectives.size(), uncovered::kFunctions));
  ASSERT_TRUE(t.add(key(site(0x4000), 5, kBinomial), Rung::default_model, 5, 2e-6, 1e-6));
  ASSERT_TRUE(t.add(key(site(0x4000), 5, kBinomial), Rung::default_model, 5, 4e-6, 1e-6));
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  ASSERT_EQ(bytes.size(), summary_table::file_bytes(8, kCollectives.size(), uncovered::kFunctions));
  summary_table::Header h;
  std::memcpy(&h, bytes.data(), sizeof h);
  EXPECT_EQ(h.magic, summary_table::kMagic);
  EXPECT_EQ(h.used, 1u);
  EXPECT_EQ(h.calls, 2u);
  EXPECT_EQ(h.algorithm_count, 1u);
  EXPECT_STREQ(h.algorithms[0].data(), "bcast.binomial");
  EXPECT_STREQ(h.rungs[static_cast<std::size_t>(Rung::default_model)].data(), "default_model");
  summary_table::Entry e;
  std::memcpy(&e, bytes.data() + sizeof h + kCollectives.size() * sizeof e, sizeof e);
  EXPECT_EQ(e.calls, 2u);
  EXPECT_DOUBLE_EQ(e.actual_sum_s, 6e-6);
  EXPECT_EQ(e.depth, 2);
  EXPECT_EQ(e.pcs[1], 0x4100u);
  EXPECT_EQ(t.key(t.entries()[0]), key(site(0x4000), 5, kBinomial));
  t.remove_file();
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_TRUE(t.path().empty());
}

}  // namespace
}  // namespace collsel::pmpi
