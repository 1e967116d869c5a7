// How bcast.scatter_allgather cuts its message and passes the pieces along its ring, shared by
// the algorithm (selector/bcast/scatter_allgather.cpp) and its schedule (bcast_schedule.cpp) so
// both cut and pass alike. Pure integers, vranks as in tree.hpp.
#pragma once

#include <algorithm>
#include <cstdint>

namespace collsel::schedule {

// `total` bytes in `parts` chunks of ceil(total / parts) bytes: chunk v is bytes
// [begin(v), begin(v + 1)), the last ones shorter or empty.
class Chunks {
 public:
  Chunks(std::uint64_t total, int parts)
      : total_(total),
        parts_(parts),
        chunk_(parts > 0 ? (total + static_cast<std::uint64_t>(parts) - 1) /
                               static_cast<std::uint64_t>(parts)
                         : 0) {}

  std::uint64_t begin(int v) const {
    return std::min(total_, static_cast<std::uint64_t>(v) * chunk_);
  }
  // Bytes of chunks [first, first + count).
  std::uint64_t bytes(int first, int count) const { return begin(first + count) - begin(first); }
  // The chunk vrank v passes to v + 1 at ring step `step`, (v - step) mod parts: the one it
  // received at step - 1 (its own at step 0). It receives ring_chunk(v, step + 1).
  int ring_chunk(int v, int step) const { return ((v - step) % parts_ + parts_) % parts_; }

 private:
  std::uint64_t total_;
  int parts_;
  std::uint64_t chunk_;
};

}  // namespace collsel::schedule
