// The per-rank summary table of `[log] level = "summary"` (and of the calls past the trace cap):
// one entry per call site x collective x algorithm x communicator size x size bucket, holding the
// count, sums, minima and maxima that docs/LOGS.md's `summary` record carries.
//
// Memory is fixed at construction: `capacity` entries in a dense array plus an open-addressing
// index of at least twice as many slots, so a lookup probes a short run and adding a call never
// allocates. A call whose key is new once the table is full is counted in its collective's
// overflow entry instead, so totals stay complete whatever the number of distinct keys.
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
#include <limits>
#include <span>
#include <string_view>
#include <vector>

#include "pmpi/call_site.hpp"
#include "pmpi/size_bucket.hpp"
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

struct SummaryEntry {
  SummaryKey key;
  bool overflow = false;     // the per-collective entry of calls that found the table full
  Rung rung = Rung::native;  // of the entry's first call
  // The buckets of the calls seen, lowest and highest: equal to key.bucket in a keyed entry, any
  // range in an overflow entry.
  std::uint8_t bucket_lo = std::numeric_limits<std::uint8_t>::max();
  std::uint8_t bucket_hi = 0;
  std::uint64_t calls = 0;
  std::uint64_t bytes_sum = 0;
  double actual_sum_s = 0.0;
  double actual_min_s = 0.0;
  double actual_max_s = 0.0;
  std::uint64_t predicted_calls = 0;  // calls with a finite prediction
  double predicted_sum_s = 0.0;
  double predicted_min_s = 0.0;       // meaningful when predicted_calls > 0
  double predicted_max_s = 0.0;
  std::uint64_t traced = 0;  // calls of this key traced instead (level trace, traces_per_site)

  void add(Rung call_rung, std::uint64_t bytes, double actual_s, double predicted_s);
};

class CallSummary {
 public:
  // Allocates everything the table will ever use; throws std::bad_alloc like any allocation (the
  // runtime turns that into "not logged"). capacity >= 1.
  explicit CallSummary(std::uint32_t capacity);

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

  [[nodiscard]] std::uint32_t capacity() const { return capacity_; }
  // Keyed entries in first-seen order (at most capacity()); calls == 0 in an entry that only
  // counted traces.
  [[nodiscard]] std::span<const SummaryEntry> entries() const { return entries_; }
  // The overflow entries, one per collective in kCollectives order; calls == 0 when unused.
  [[nodiscard]] std::span<const SummaryEntry> overflow_entries() const { return overflow_; }
  // Calls counted by count() or add() (not the traces of entry().traced).
  [[nodiscard]] std::uint64_t calls() const { return calls_; }
  [[nodiscard]] std::uint64_t overflow_calls() const { return overflow_calls_; }
  // Bytes held by the table's storage: constant from construction on (the tests check it).
  [[nodiscard]] std::size_t memory_bytes() const;

 private:
  std::uint32_t capacity_ = 0;
  std::vector<SummaryEntry> entries_;  // reserved to capacity_, never reallocated
  std::vector<std::uint32_t> slots_;   // index + 1 into entries_, 0: free; size a power of two
  std::array<SummaryEntry, kCollectives.size()> overflow_{};
  std::uint64_t calls_ = 0;
  std::uint64_t overflow_calls_ = 0;
};

}  // namespace collsel::pmpi
