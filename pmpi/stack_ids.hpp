// The ids of a rank's call sites in its log (format version 2, docs/LOGS.md): each distinct site
// is written once, as a `stack` record, before the first `call` or `summary` record that refers to
// it by id. This table remembers which sites have an id.
//
// Memory is fixed at construction, like the summary table's (call_summary.hpp): `capacity` sites
// in a dense array plus an open-addressing index of at least twice as many slots; looking a site
// up never allocates. A site that is new once the table is full still gets an id, a fresh one each
// time it is looked up (its `stack` record is then written before every record that uses it): the
// log stays correct, only larger. Sized like the summary table, it fills only when tracing without
// a per-site limit ([log] traces_per_site = 0) from more distinct sites than summary_entries.
//
// Not thread-safe by itself: its owner (CallLog) serialises calls under its mutex.
#pragma once

#include <cstdint>
#include <vector>

#include "pmpi/call_site.hpp"

namespace collsel::pmpi {

class StackIds {
 public:
  // Allocates everything the table will ever use; throws std::bad_alloc like any allocation.
  explicit StackIds(std::uint32_t capacity);

  struct Id {
    std::uint64_t id = 0;  // from 1; 0 only for an empty site
    bool fresh = false;    // not written yet: write its `stack` record before using the id
  };
  // The id of a non-empty `site`; {0, false} for an empty one (no call site captured).
  Id find_or_add(const CallSite& site);
  // True once a site found the table full.
  [[nodiscard]] bool overflowed() const { return overflowed_; }
  [[nodiscard]] std::size_t memory_bytes() const;

 private:
  std::uint32_t capacity_ = 0;
  std::vector<CallSite> sites_;      // reserved to capacity_, never reallocated; id = index + 1
  std::vector<std::uint32_t> slots_;  // index + 1 into sites_, 0: free; size a power of two
  std::uint64_t next_unremembered_ = 0;  // ids handed out past a full table
  bool overflowed_ = false;
};

}  // namespace collsel::pmpi
