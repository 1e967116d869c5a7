// The binary summary table a rank keeps beside its JSON log (common/summary_table_format.hpp):
// read back when the rank died before writing its summary records (docs/LOGS.md).
#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>

#include <fmt/format.h>

#include "common/summary_table_format.hpp"
#include "pmpi/size_bucket.hpp"
#include "tools/logs/log_reader.hpp"
#include "tools/logs/record_fields.hpp"

namespace collsel::logs {
namespace fs = std::filesystem;
using detail::summary_inconsistency;

fs::path summary_table_path(const fs::path& rank_file) {
  fs::path p = rank_file;
  p.replace_extension(".summary");
  return p;
}

std::optional<SummaryTable> read_summary_table(const fs::path& path, std::string& problem) {
  namespace st = summary_table;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    problem = "cannot be opened";
    return std::nullopt;
  }
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() < sizeof(st::Header)) {
    problem = fmt::format("{} bytes, shorter than the {}-byte header", bytes.size(),
                          sizeof(st::Header));
    return std::nullopt;
  }
  st::Header h;
  std::memcpy(&h, bytes.data(), sizeof h);
  if (h.magic != st::kMagic) {
    problem = "not a collsel summary table (wrong magic bytes)";
    return std::nullopt;
  }
  if (h.version < st::kOldestVersion || h.version > st::kVersion ||
      h.header_bytes != sizeof(st::Header) || h.entry_bytes != sizeof(st::Entry)) {
    problem = fmt::format("format version {} with {}-byte header and {}-byte entries, but this "
                          "collsel reads versions {} to {} ({} and {} bytes)",
                          h.version, h.header_bytes, h.entry_bytes, st::kOldestVersion,
                          st::kVersion, sizeof(st::Header), sizeof(st::Entry));
    return std::nullopt;
  }
  if (h.version == 1) h.uncovered_entries = 0;  // then a reserved field
  const std::uint64_t expected =
      st::file_bytes(h.capacity, h.overflow_entries, h.uncovered_entries);
  if (bytes.size() != expected) {
    problem = fmt::format("{} bytes where its header says {} (truncated?)", bytes.size(),
                          expected);
    return std::nullopt;
  }
  if (h.used > h.capacity || h.collective_count > st::kMaxCollectives ||
      h.rung_count > st::kMaxRungs || h.algorithm_count > st::kMaxAlgorithms) {
    problem = fmt::format("header out of range: {} of {} entries used, {} collectives, {} rungs, "
                          "{} algorithms",
                          h.used, h.capacity, h.collective_count, h.rung_count,
                          h.algorithm_count);
    return std::nullopt;
  }
  const auto name = [](const st::Name& n) {
    return std::string(n.data(), strnlen(n.data(), n.size()));
  };
  SummaryTable table;
  const auto read_entry = [&](std::size_t index, bool overflow_part) -> bool {
    st::Entry e;
    std::memcpy(&e, bytes.data() + sizeof(st::Header) + index * sizeof(st::Entry), sizeof e);
    if (e.calls == 0) return true;  // unused, or only traced
    const auto bad = [&](std::string_view what) {
      problem = fmt::format("entry {}: {}", index, what);
      return false;
    };
    if (e.calls > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) ||
        e.predicted_calls > e.calls) {
      return bad(fmt::format("{} calls, {} predicted", e.calls, e.predicted_calls));
    }
    if (e.coll >= h.collective_count || e.rung >= h.rung_count || e.depth > st::kMaxFrames ||
        e.bucket_lo > e.bucket_hi || e.bucket_hi > 64 || (e.overflow != 0) != overflow_part) {
      return bad("a field out of range");
    }
    if (!overflow_part && e.algorithm >= h.algorithm_count &&
        e.algorithm != st::kUnknownAlgorithm) {
      return bad(fmt::format("algorithm index {} of {}", e.algorithm, h.algorithm_count));
    }
    SummaryRecord r;
    r.comm_size = overflow_part ? 0 : e.comm_size;
    r.coll = name(h.collectives[e.coll]);
    r.algorithm = overflow_part                              ? "*"
                  : e.algorithm == st::kUnknownAlgorithm ? "?"
                                                         : name(h.algorithms[e.algorithm]);
    r.rung = name(h.rungs[e.rung]);
    r.bytes_lo = pmpi::bucket_low(e.bucket_lo);
    r.bytes_hi = pmpi::bucket_high(e.bucket_hi);
    r.stack.assign(e.pcs.begin(), e.pcs.begin() + e.depth);
    r.overflow = overflow_part;
    r.calls = static_cast<std::int64_t>(e.calls);
    r.bytes_sum = e.bytes_sum;
    r.actual_sum_s = e.actual_sum_s;
    r.actual_min_s = e.actual_min_s;
    r.actual_max_s = e.actual_max_s;
    r.predicted_calls = static_cast<std::int64_t>(e.predicted_calls);
    r.predicted_sum_s = e.predicted_sum_s;
    if (e.predicted_calls > 0) {
      r.predicted_min_s = e.predicted_min_s;
      r.predicted_max_s = e.predicted_max_s;
    }
    r.recovered = true;
    if (const std::string why = summary_inconsistency(r); !why.empty()) return bad(why);
    table.calls += r.calls;
    if (overflow_part) table.overflow_calls += r.calls;
    table.summaries.push_back(std::move(r));
    return true;
  };
  // Keyed entries first, as a clean ending writes them.
  for (std::uint32_t i = 0; i < h.used; ++i) {
    if (!read_entry(h.overflow_entries + i, false)) return std::nullopt;
  }
  for (std::uint32_t i = 0; i < h.overflow_entries; ++i) {
    if (!read_entry(i, true)) return std::nullopt;
  }
  table.sampled_calls =
      static_cast<std::int64_t>(std::min<std::uint64_t>(h.sampled_calls, table.calls));
  const std::uint64_t uncovered_at = st::uncovered_offset(h.capacity, h.overflow_entries);
  for (std::uint32_t i = 0; i < h.uncovered_entries; ++i) {
    st::Uncovered u;
    std::memcpy(&u, bytes.data() + uncovered_at + i * sizeof(st::Uncovered), sizeof u);
    if (u.counted == 0) continue;
    if (u.timing > st::kTimingInitiation || u.reason > st::kReasonBeforeServing ||
        u.calls > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      problem = fmt::format("uncovered entry {}: a field out of range", i);
      return std::nullopt;
    }
    if (u.reason == st::kReasonNotServed) table.uncovered_counted = true;
    if (u.calls == 0) continue;
    UncoveredRecord r;
    r.function = name(u.function);
    r.timing = u.timing == st::kTimingWhole ? "whole" : "initiation";
    r.reason = u.reason == st::kReasonNotServed ? std::string()
                                                : std::string(schema::kReasonBeforeServing);
    r.calls = static_cast<std::int64_t>(u.calls);
    r.time_s = static_cast<double>(u.ns) * 1e-9;
    table.uncovered.push_back(std::move(r));
  }
  return table;
}

}  // namespace collsel::logs
