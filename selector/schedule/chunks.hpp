// How bcast.scatter_allgather cuts its message and passes the pieces along its ring,
// bcast.scatter_doubling_allgather in doubling rounds, and how bcast.split_binary halves it,
// shared by the algorithms (selector/bcast/) and their schedules (bcast_schedule.cpp) so both cut
// and pass alike. Pure integers, vranks as in tree.hpp.
#pragma once

#include <algorithm>
#include <array>
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

// A round of bcast.scatter_doubling_allgather's allgather, for round distance d = 1, 2, 4, ...
// below `parts`: vrank v sends chunks [send_first, send_first + count) to `to` and receives
// [receive_first, receive_first + count) from `from`, indices mod parts. At a power of two this is
// recursive doubling (MPICH's MPIR_Bcast_intra_scatter_recursive_doubling_allgather, SMPI's
// scatter_rdb_allgather): v swaps its aligned group of d chunks with v ^ d. Otherwise Bruck's
// doubling, for any count of parts: v sends [v, v + c) to v - d and receives [v + d, v + d + c)
// from v + d, c = min(d, parts - d). Either way v holds chunks [v, v + min(2d, parts)) (or its
// aligned group of 2d) after round d, and the ranges sent and received never overlap.
struct DoublingRound {
  int to = 0;  // vranks
  int from = 0;
  int send_first = 0;  // chunk indices
  int receive_first = 0;
  int count = 0;  // chunks each way
};

inline DoublingRound doubling_round(int v, int parts, int d) {
  if ((parts & (parts - 1)) == 0) {
    const int peer = v ^ d;
    return {peer, peer, v & ~(d - 1), peer & ~(d - 1), d};
  }
  return {(v - d + parts) % parts, (v + d) % parts, v, (v + d) % parts, std::min(d, parts - d)};
}

// `count` chunks from `first`, mod parts, as at most two runs: to the last chunk, then from chunk
// 0 (count 0: no second run). Both ends of a message cut it alike, so its runs pair in order.
struct ChunkRun {
  int first = 0;
  int count = 0;
};

inline std::array<ChunkRun, 2> chunk_runs(int first, int count, int parts) {
  const int head = std::min(count, parts - first);
  return {{{first, head}, {0, count - head}}};
}

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
