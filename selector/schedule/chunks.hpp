// How bcast.scatter_allgather cuts its message and passes the pieces along its ring, and how
// bcast.split_binary halves it, shared by the algorithms (selector/bcast/) and their schedules
// (bcast_schedule.cpp) so both cut and pass alike. Pure integers, vranks as in tree.hpp.
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

// Segments of `bytes` cut at `segment_bytes` as the tree engine cuts them: none for no bytes, one
// for no segment size or one at least as large, ceil(bytes / segment_bytes) otherwise.
inline std::uint64_t segment_count(std::uint64_t bytes, std::uint64_t segment_bytes) {
  if (bytes == 0) return 0;
  if (segment_bytes == 0 || segment_bytes >= bytes) return 1;
  return bytes / segment_bytes + (bytes % segment_bytes != 0 ? 1 : 0);
}

// bcast.split_binary's halves (Open MPI's split binary tree): the first holds ceil(total / 2)
// bytes, the second the rest. Open MPI cuts at an element (ceil(count / 2) of them); collsel cuts
// the packed bytes, because ranks may pass different datatypes of one type signature (4 pairs of
// ints at the root, 8 ints elsewhere), and only the byte count is the same on every rank. The
// bytes are unpacked whole at the end (byte_view.hpp), so a cut element is never seen. On the
// level_binary tree vrank 1's subtree (the odd vranks) carries the first half and vrank 2's (the
// even ones) the second; then v and v + 1 (v odd) swap them. For P even the last vrank, odd, has
// no twin: the root sends it the second half.
class SplitHalves {
 public:
  explicit SplitHalves(std::uint64_t total) : total_(total), first_(total / 2 + total % 2) {}

  std::uint64_t begin(int half) const { return half == 0 ? 0 : first_; }
  std::uint64_t bytes(int half) const { return half == 0 ? first_ : total_ - first_; }
  // The half vrank v > 0 receives down the tree.
  static int half_of(int vrank) { return vrank % 2 == 1 ? 0 : 1; }

  struct Swap {
    int peer = -1;     // vrank, -1: nothing to swap
    int send = -1;     // half sent to peer, -1: none
    int receive = -1;  // half received from peer, -1: none
  };
  static Swap swap(int vrank, int size) {
    if (size <= 1) return {};
    if (vrank == 0) return size % 2 == 0 ? Swap{size - 1, 1, -1} : Swap{};
    if (vrank % 2 == 0) return {vrank - 1, 1, 0};
    if (vrank + 1 < size) return {vrank + 1, 0, 1};
    return {0, -1, 1};
  }

 private:
  std::uint64_t total_;
  std::uint64_t first_;
};

}  // namespace collsel::schedule
