// The per-rank summary table of `[log] level = "summary"` (and of the calls past the trace cap):
// one entry per call site x collective x algorithm x communicator size x size bucket, holding the
// count, sums, minima and maxima that docs/LOGS.md's `summary` record carries.
//
// Memory is fixed at construction: `capacity` entries in a dense array plus an open-addressing
// index of at least twice as many slots, so a lookup probes a short run and adding a call never
// allocates. A call whose key is new once the table is full is counted in its collective's
// overflow entry instead, so totals stay complete whatever the number of distinct keys.
//
// The entries live in a MAP_SHARED mapping of the rank's summary table file (layout:
// common/summary_table_format.hpp), created at start-up with its final size, so that the table
// outlives a process killed without a chance to write it (SIGKILL, a fatal signal): the reader
// turns the file back into summary records. Updating an entry is the same few stores as in
// ordinary memory: no system call, no allocation per call. A SIGKILL in the middle of one update
// can leave that entry torn (its count raised, its sums not yet): the bound is the one call being
// counted. Only the address of each entry's algorithm name (what keys compare) stays in ordinary
// memory.
//
// At level trace with [log] traces_per_site, the same entries also count the calls traced per key
// (`traced`): the first traces_per_site calls of a key are traced, the later ones summarised here,
// so one lookup per call decides both. An entry whose calls were all traced has calls == 0 and is
// written as no summary record.
//
// Not thread-safe by itself: its owner (CallLog) serialises calls under its mutex.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/summary_table_format.hpp"
#include "pmpi/call_site.hpp"
#include "pmpi/size_bucket.hpp"
#include "pmpi/uncovered_counts.hpp"
#include "selector/collective.hpp"
#include "selector/decide.hpp"

namespace collsel::pmpi {

struct SummaryKey {
  CallSite site;
  // A registered name or kNativeName. Both are static strings handed out by the registry, so the
  // same name always has the same address: keys compare and hash the pointer, not the text.
  std::string_view algorithm;
  Collective coll = Collective::bcast;
  int comm_size = 0;
  std::uint8_t bucket = 0;

  friend bool operator==(const SummaryKey& a, const SummaryKey& b) {
    return a.algorithm.data() == b.algorithm.data() && a.coll == b.coll &&
           a.comm_size == b.comm_size && a.bucket == b.bucket && a.site == b.site;
  }
};

static_assert(summary_table::kMaxFrames == kMaxStackDepth);

// One key's aggregate, laid out as the file's entry (summary_table::Entry); its key by index into
// the file's name tables (CallSummary::key() gives the key itself).
struct SummaryEntry : summary_table::Entry {
  [[nodiscard]] Rung first_rung() const { return static_cast<Rung>(rung); }
  [[nodiscard]] bool is_overflow() const { return overflow != 0; }

  void add(Rung call_rung, std::uint64_t bytes, double actual_s, double predicted_s);
};
static_assert(sizeof(SummaryEntry) == sizeof(summary_table::Entry));

class CallSummary {
 public:
  // In anonymous memory (the unit tests; a log without a file). Allocates everything the table
  // will ever use; throws std::bad_alloc like any allocation (the runtime turns that into "not
  // logged"). capacity >= 1.
  explicit CallSummary(std::uint32_t capacity);
  // In the file `path` (created or truncated, reserved with posix_fallocate at its final size, so
  // a full disk fails here and not at a later call); `error` receives a sentence when that fails,
  // and the table is then in anonymous memory.
  CallSummary(std::uint32_t capacity, const std::string& path, std::string& error);
  ~CallSummary();  // unmaps; the file stays (remove_file() deletes it)
  CallSummary(const CallSummary&) = delete;
  CallSummary& operator=(const CallSummary&) = delete;

  // Counts one call. predicted_s NaN: the call had no prediction. Returns false when the call
  // went to its collective's overflow entry (the key was new and the table full).
  bool add(const SummaryKey& key, Rung rung, std::uint64_t bytes, double actual_s,
           double predicted_s);
  // The entry of `key`, created empty when the key is new; nullptr when it is new and the table
  // full. The pointer stays valid for the table's life.
  SummaryEntry* entry(const SummaryKey& key);
  // Counts one call into `e`, an entry of this table, or when nullptr into the overflow entry of
  // `coll`. add() is entry() then count().
  void count(SummaryEntry* e, Collective coll, Rung rung, std::uint64_t bytes, double actual_s,
             double predicted_s);
  // Counts one call summarised for being past [log] traces_per_site (kept in the file's header).
  void count_sampled() { ++header_->sampled_calls; }

  [[nodiscard]] std::uint32_t capacity() const { return capacity_; }
  // Keyed entries in first-seen order (at most capacity()); calls == 0 in an entry that only
  // counted traces.
  [[nodiscard]] std::span<const SummaryEntry> entries() const { return {entries_, header_->used}; }
  // The overflow entries, one per collective in kCollectives order; calls == 0 when unused.
  [[nodiscard]] std::span<const SummaryEntry> overflow_entries() const {
    return {overflow_, kCollectives.size()};
  }
  // The key of an entry of this table (an overflow entry's: algorithm "*", no site, size 0).
  [[nodiscard]] SummaryKey key(const SummaryEntry& e) const;
  // Calls counted by count() or add() (not the traces of entry().traced).
  [[nodiscard]] std::uint64_t calls() const { return header_->calls; }
  [[nodiscard]] std::uint64_t overflow_calls() const { return header_->overflow_calls; }
  [[nodiscard]] std::uint64_t sampled_calls() const { return header_->sampled_calls; }
  // Bytes held by the table's storage, the mapping included: constant from construction on (the
  // tests check it).
  [[nodiscard]] std::size_t memory_bytes() const;
  // The table's file; empty when in anonymous memory.
  [[nodiscard]] const std::string& path() const { return path_; }
  // Deletes the file (a clean ending, once its records are written); the table stays usable.
  void remove_file();
  // Moves the counters of pmpi/uncovered_counts.hpp into this table's file, where a killed rank
  // leaves them for the reader (uncovered::attach); the destructor moves them back out.
  void keep_uncovered_counts(bool with_not_served) noexcept {
    uncovered::attach(std::span<summary_table::Uncovered, uncovered::kFunctions>(
                          uncovered_, uncovered::kFunctions),
                      with_not_served);
  }

 private:
  void map(int fd);  // throws std::bad_alloc when mmap fails
  void init();
  std::uint16_t algorithm_index(std::string_view name);

  std::uint32_t capacity_ = 0;
  std::string path_;
  void* map_ = nullptr;
  std::size_t map_bytes_ = 0;
  summary_table::Header* header_ = nullptr;  // in the mapping
  SummaryEntry* overflow_ = nullptr;          // in the mapping, kCollectives.size()
  SummaryEntry* entries_ = nullptr;           // in the mapping, capacity_
  summary_table::Uncovered* uncovered_ = nullptr;  // in the mapping, uncovered::kFunctions
  // The algorithm name of entries_[i] (static storage: SummaryKey); reserved, never reallocated.
  std::vector<std::string_view> algorithm_of_;
  std::vector<std::uint32_t> slots_;  // index + 1 into entries_, 0: free; size a power of two
  // The algorithm names copied into the header, by index (their static storage's address).
  std::array<const char*, summary_table::kMaxAlgorithms> algorithm_names_{};
};

}  // namespace collsel::pmpi
