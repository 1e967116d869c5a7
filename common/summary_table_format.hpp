// The binary layout of a rank's summary table file, rank-NNNNN.summary (docs/LOGS.md, "The
// summary table file"): declared once, here, for its writer (pmpi/call_summary.cpp, which keeps
// the table in a MAP_SHARED mapping of this file) and its reader (tools/logs/log_reader.cpp,
// which turns the entries of a rank that died before writing its `summary` records back into
// summary records).
//
// Why a file: the table is updated in place on every summarised call, and the pages of a shared
// file mapping belong to the file, so a SIGKILL (no handler runs) or a fatal signal (whose handler
// cannot format JSON) leaves the table in the page cache as the last completed call left it. A
// clean ending writes the table as JSON `summary` records and deletes the file.
//
// The file: one Header, then Header::overflow_entries Entry (one per collective, in the writer's
// collective order), then Header::capacity Entry (the keyed entries, the first Header::used of
// them in use, in first-seen order), then Header::uncovered_entries Uncovered (version 2: the
// counters of pmpi/uncovered_counts.hpp, which live here while the log is open, so that a killed
// rank's counts of the calls it ran without a record survive it too). Everything is in the writer's byte order and alignment
// (readers run on the same machine type); entry_bytes and header_bytes let a reader refuse a
// layout it does not know. A change of meaning bumps kVersion.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace collsel::summary_table {

inline constexpr std::array<char, 8> kMagic{'C', 'O', 'L', 'L', 'S', 'U', 'M', '\n'};
inline constexpr std::uint32_t kVersion = 2;
// Version 1 (no Uncovered entries; its Header::uncovered_entries, then reserved, is 0) still reads.
inline constexpr std::uint32_t kOldestVersion = 1;
// Call-site frames per entry: pmpi/call_site.hpp's kMaxStackDepth (checked there).
inline constexpr std::size_t kMaxFrames = 8;
// Names are NUL-padded; a longer name is cut (none of the registry's is near it).
inline constexpr std::size_t kNameBytes = 40;
inline constexpr std::size_t kMaxCollectives = 8;
inline constexpr std::size_t kMaxRungs = 8;
inline constexpr std::size_t kMaxAlgorithms = 96;
// Entry::algorithm of a name the algorithm table had no room for (read back as "?").
inline constexpr std::uint16_t kUnknownAlgorithm = 0xffff;

using Name = std::array<char, kNameBytes>;

// One key's aggregate: the fields of a `summary` record (docs/LOGS.md), its key by index into the
// Header's name tables.
struct Entry {
  std::array<std::uint64_t, kMaxFrames> pcs{};  // the call site, innermost first
  std::uint64_t calls = 0;
  std::uint64_t bytes_sum = 0;
  double actual_sum_s = 0.0;
  double actual_min_s = 0.0;
  double actual_max_s = 0.0;
  std::uint64_t predicted_calls = 0;  // calls with a finite prediction
  double predicted_sum_s = 0.0;
  double predicted_min_s = 0.0;  // meaningful when predicted_calls > 0
  double predicted_max_s = 0.0;
  std::uint64_t traced = 0;  // calls of this key traced instead (level trace, traces_per_site)
  std::int32_t comm_size = 0;
  std::uint16_t algorithm = 0;  // index into Header::algorithms; unused in an overflow entry
  std::uint8_t depth = 0;       // pcs used
  std::uint8_t coll = 0;        // index into Header::collectives
  std::uint8_t rung = 0;        // of the key's first call; index into Header::rungs
  std::uint8_t bucket = 0;      // the key's size bucket (pmpi/size_bucket.hpp)
  // The buckets of the calls seen, lowest and highest: the key's bucket in a keyed entry, any
  // range in an overflow entry.
  std::uint8_t bucket_lo = 0xff;
  std::uint8_t bucket_hi = 0;
  std::uint8_t overflow = 0;  // 1: the per-collective entry of calls that found the table full
  std::array<std::uint8_t, 3> reserved{};
};
static_assert(sizeof(Entry) == 160);

// Uncovered::timing: the time covers the whole call, or a non-blocking or persistent call's start.
inline constexpr std::uint8_t kTimingWhole = 0;
inline constexpr std::uint8_t kTimingInitiation = 1;
// Uncovered::reason: a collective collsel does not serve, or one it serves called before the
// communicator's serve_from_call-th call.
inline constexpr std::uint8_t kReasonNotServed = 0;
inline constexpr std::uint8_t kReasonBeforeServing = 1;

// One counter of pmpi/uncovered_counts.hpp: a function's calls that collsel ran without a record
// (not served, or before a communicator's serve_from_call-th call), updated in place by relaxed
// atomic adds (std::atomic_ref) on every such call.
struct Uncovered {
  std::uint64_t calls = 0;
  std::uint64_t ns = 0;  // their time, nanoseconds
  Name function{};       // "MPI_Allreduce", ...
  std::uint8_t timing = 0;   // kTimingWhole or kTimingInitiation
  std::uint8_t reason = 0;   // kReasonNotServed or kReasonBeforeServing
  std::uint8_t counted = 0;  // 1: this build counts it (the MPICH shim counts every function)
  std::array<std::uint8_t, 5> reserved{};
};
static_assert(sizeof(Uncovered) == 64);

struct Header {
  std::array<char, 8> magic = kMagic;
  std::uint32_t version = kVersion;
  std::uint32_t header_bytes = sizeof(Header);
  std::uint32_t entry_bytes = sizeof(Entry);
  std::uint32_t capacity = 0;          // keyed entries
  std::uint32_t overflow_entries = 0;  // one per collective, before the keyed ones
  std::uint32_t used = 0;              // keyed entries in use; raised after an entry's key is set
  std::uint32_t collective_count = 0;
  std::uint32_t rung_count = 0;
  std::uint32_t algorithm_count = 0;  // raised after the name is copied
  std::uint32_t uncovered_entries = 0;  // after the keyed entries; 0 in version 1
  std::uint64_t calls = 0;           // calls counted in the entries (not their traces)
  std::uint64_t overflow_calls = 0;  // of which in the overflow entries
  std::uint64_t sampled_calls = 0;   // summarised for being past [log] traces_per_site
  std::array<Name, kMaxCollectives> collectives{};
  std::array<Name, kMaxRungs> rungs{};
  std::array<Name, kMaxAlgorithms> algorithms{};
};

// Where the Uncovered counters start: after the header and every Entry.
constexpr std::uint64_t uncovered_offset(std::uint64_t capacity, std::uint64_t overflow_entries) {
  return sizeof(Header) + (capacity + overflow_entries) * sizeof(Entry);
}

// Bytes of the file of a table with these entries.
constexpr std::uint64_t file_bytes(std::uint64_t capacity, std::uint64_t overflow_entries,
                                   std::uint64_t uncovered_entries) {
  return uncovered_offset(capacity, overflow_entries) + uncovered_entries * sizeof(Uncovered);
}

}  // namespace collsel::summary_table
