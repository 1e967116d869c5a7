#include "common/size_parse.hpp"

#include <limits>
#include <string>

#include <gtest/gtest.h>

#include "common/duration_format.hpp"

namespace collsel::tools {
namespace {

std::uint64_t size_of(std::string_view text) {
  const common::SizeParse p = common::parse_size(text);
  EXPECT_TRUE(p.bytes.has_value()) << text << ": " << p.error;
  return p.bytes.value_or(0);
}

TEST(ParseSize, PlainBytes) {
  EXPECT_EQ(size_of("0"), 0U);
  EXPECT_EQ(size_of("1024"), 1024U);
  EXPECT_EQ(size_of("4096B"), 4096U);
  EXPECT_EQ(size_of("7b"), 7U);
  EXPECT_EQ(size_of("18446744073709551615"), 18446744073709551615ULL);
}

TEST(ParseSize, SuffixesAreBinaryAndCaseInsensitive) {
  for (std::string_view s : {"4k", "4K", "4KiB", "4kib", "4KB", "4kb"}) {
    EXPECT_EQ(size_of(s), 4096U);
  }
  for (std::string_view s : {"1M", "1m", "1MiB", "1MB"}) EXPECT_EQ(size_of(s), 1048576U);
  for (std::string_view s : {"1G", "1GiB", "1gb"}) EXPECT_EQ(size_of(s), 1073741824U);
  EXPECT_EQ(size_of("2TiB"), 2ULL << 40);
  EXPECT_EQ(size_of("0k"), 0U);
}

void expect_error(std::string_view text, std::string_view why) {
  const common::SizeParse p = common::parse_size(text);
  EXPECT_FALSE(p.bytes.has_value()) << text;
  EXPECT_NE(p.error.find(why), std::string::npos) << text << ": " << p.error;
  // Every error shows the text and what would have been accepted.
  EXPECT_NE(p.error.find("'" + std::string(text) + "'"), std::string::npos) << p.error;
  EXPECT_NE(p.error.find("binary suffix"), std::string::npos) << p.error;
}

TEST(ParseSize, RejectsWithAReason) {
  expect_error("", "empty");
  expect_error("k", "does not start with a digit");
  expect_error("-1", "does not start with a digit");
  expect_error("+1", "does not start with a digit");
  expect_error(" 1", "does not start with a digit");
  expect_error("4x", "unknown suffix 'x'");
  expect_error("4 KiB", "unknown suffix ' KiB'");
  expect_error("4KiBB", "unknown suffix");
  expect_error("1.5M", "fractions");
  expect_error("18446744073709551616", "too large");
  expect_error("16777216TiB", "too large");
}

TEST(FormatSize, ExactUnitsOnly) {
  EXPECT_EQ(common::format_size(0), "0 B");
  EXPECT_EQ(common::format_size(1000), "1000 B");
  EXPECT_EQ(common::format_size(4096), "4 KiB");
  EXPECT_EQ(common::format_size(1536), "1536 B");
  EXPECT_EQ(common::format_size(3 * 1048576ULL), "3 MiB");
  EXPECT_EQ(common::format_size(1ULL << 30), "1 GiB");
}

TEST(FormatSize, RoundTripsThroughParse) {
  for (std::uint64_t b : {0ULL, 1ULL, 1000ULL, 4096ULL, 1ULL << 20, 5ULL << 30, 3ULL << 40}) {
    std::string text = common::format_size(b);
    std::erase(text, ' ');
    EXPECT_EQ(size_of(text), b) << text;
  }
}

TEST(FormatDuration, AdaptiveUnits) {
  EXPECT_EQ(common::format_duration(12.3e-6), "12.3 us");
  EXPECT_EQ(common::format_duration(0.5e-6), "0.50 us");
  EXPECT_EQ(common::format_duration(1.85e-3), "1.85 ms");
  EXPECT_EQ(common::format_duration(2.4), "2.40 s");
  EXPECT_EQ(common::format_duration(123e-6), "123 us");
  EXPECT_EQ(common::format_duration(std::numeric_limits<double>::quiet_NaN()), "-");
  EXPECT_EQ(common::format_signed_percent(-0.18), "-18.0%");
  EXPECT_EQ(common::format_signed_percent(0.5), "+50.0%");
  EXPECT_EQ(common::format_percent(0.25), "25.0%");
}

}  // namespace
}  // namespace collsel::tools
