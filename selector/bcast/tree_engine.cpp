// Schedule, at a node with parent p and children c_1..c_n, for segments 0..k-1:
//   post the receive of segment i+1 before waiting for segment i (so a chain pipelines; with
//   receives_ahead = w, segment i+w-1, the first w-1 posted on entry),
//   then send segment i to each child in turn, completing each send before the next.
// Sending to the children one at a time, largest subtree first (schedule::tree_node's order), is
// what the models assume (consecutive sends g(m) apart). Posting them all at once made them share
// the link: on the emulated cluster the binomial tree's first child, which has the most to
// forward, got its message only when all had, and a 4 MiB binomial Bcast at P = 8 took 6 g(m)
// instead of 3 (docs/BENCHMARKS.md, "Calibration").
// With rendezvous, every data message is preceded by a zero-byte request from the sender and a
// zero-byte ready from the receiver once its receive is posted: the 2 g(1) + 3 L of Table 1.
// Split (Open MPI's split binary tree): each of the root's two subtrees pipelines one half of the
// message, the root sending segment i of each half in turn, and then the twins swap halves.
#include "selector/bcast/tree_engine.hpp"

#include <algorithm>
#include <limits>
#include <vector>

#include "selector/bcast/broadcast_bytes.hpp"
#include "selector/byte_view.hpp"
#include "selector/schedule/chunks.hpp"

namespace collsel::bcast {
namespace {

using schedule::to_rank;
using schedule::to_vrank;

struct Segments {
  std::uint64_t total = 0;
  std::uint64_t segment = 0;
  std::uint64_t count = 0;

  std::uint64_t offset(std::uint64_t i) const { return i * segment; }
  int length(std::uint64_t i) const {
    return static_cast<int>(std::min(segment, total - offset(i)));
  }
};

Segments make_segments(std::uint64_t total, std::uint64_t segment_bytes) {
  Segments s;
  s.total = total;
  s.segment = (segment_bytes == 0 || segment_bytes >= total) ? total : segment_bytes;
  s.count = schedule::segment_count(total, segment_bytes);  // none for an empty half
  return s;
}

// The bytes a node receives or passes to one child, and their segments.
struct Part {
  std::byte* bytes = nullptr;
  Segments segments;
};

class Node {
 public:
  Node(const BcastCall& call, const EngineOptions& options, std::byte* bytes, std::uint64_t total)
      : call_(call),
        options_(options),
        vrank_(to_vrank(call.rank, call.root, call.size)),
        tree_(schedule::tree_node(options.shape, vrank_, call.size)),
        bytes_(bytes),
        halves_(total) {
    if (!options.split) {
      own_ = {bytes, make_segments(total, options.segment_bytes)};
      return;
    }
    const auto half = [&](int h) {
      return Part{bytes + halves_.begin(h), make_segments(halves_.bytes(h), options.segment_bytes)};
    };
    if (vrank_ != 0) {
      own_ = half(halves_.half_of(vrank_));
      return;
    }
    for (int child : tree_.children) root_parts_.push_back(half(halves_.half_of(child)));
  }

  int run() {
    std::uint64_t rounds = own_.segments.count;
    for (const Part& p : root_parts_) rounds = std::max(rounds, p.segments.count);
    // A ring of receive slots: segment i + w - 1 is posted into one while segment i completes
    // in another (w = 2: the next segment only).
    const std::uint64_t w = window();
    std::vector<Requests> receiving(static_cast<std::size_t>(w));
    const auto slot = [&](std::uint64_t i) -> Requests& {
      return receiving[static_cast<std::size_t>(i % w)];
    };
    if (has_parent()) {
      for (std::uint64_t i = 0; i + 1 < w && i < own_.segments.count; ++i) {
        if (int e = post_receive(i, slot(i)); e != MPI_SUCCESS) return e;
      }
    }
    for (std::uint64_t i = 0; i < rounds; ++i) {
      if (has_parent()) {
        if (const std::uint64_t ahead = i + w - 1; ahead < own_.segments.count) {
          if (int e = post_receive(ahead, slot(ahead)); e != MPI_SUCCESS) return e;
        }
        if (int e = slot(i).wait(); e != MPI_SUCCESS) return e;
      }
      if (int e = send_to_children(i); e != MPI_SUCCESS) return e;
    }
    return options_.split ? swap_halves() : MPI_SUCCESS;
  }

 private:
  bool has_parent() const { return tree_.parent >= 0; }
  // Receives kept posted: at least 2 (the current segment and the next), at most the segments.
  std::uint64_t window() const {
    if (options_.rendezvous) return 2;
    const auto ahead = static_cast<std::uint64_t>(std::max(options_.receives_ahead, 2));
    return std::max<std::uint64_t>(std::min(ahead, own_.segments.count), 2);
  }
  int rank_of(int vrank) const { return to_rank(vrank, call_.root, call_.size); }
  // What child j (in tree order) gets: the node's own bytes, or at a split root its half.
  const Part& part_for(std::size_t j) const {
    return options_.split && vrank_ == 0 ? root_parts_[j] : own_;
  }

  int post_receive(std::uint64_t i, Requests& requests) {
    const int parent = rank_of(tree_.parent);
    if (options_.rendezvous) {
      // Wait for the parent's request before announcing readiness: the handshake is part of
      // the cost model, so it must really take place in this order.
      if (int e = PMPI_Recv(nullptr, 0, MPI_BYTE, parent, request_tag(call_), call_.comm,
                            MPI_STATUS_IGNORE);
          e != MPI_SUCCESS) {
        return e;
      }
    }
    if (int e = PMPI_Irecv(own_.bytes + own_.segments.offset(i), own_.segments.length(i),
                           MPI_BYTE, parent, data_tag(call_), call_.comm, requests.add());
        e != MPI_SUCCESS) {
      return e;
    }
    if (options_.rendezvous) {
      return PMPI_Send(nullptr, 0, MPI_BYTE, parent, ready_tag(call_), call_.comm);
    }
    return MPI_SUCCESS;
  }

  // Segment i to every child that has one (a split root's halves may differ by one segment).
  int send_to_children(std::uint64_t i) {
    const auto& children = tree_.children;
    const auto serves = [&](std::size_t j) { return i < part_for(j).segments.count; };
    if (options_.rendezvous) {
      for (std::size_t j = 0; j < children.size(); ++j) {
        if (!serves(j)) continue;
        if (int e = PMPI_Send(nullptr, 0, MPI_BYTE, rank_of(children[j]), request_tag(call_),
                              call_.comm);
            e != MPI_SUCCESS) {
          return e;
        }
      }
    }
    for (std::size_t j = 0; j < children.size(); ++j) {
      if (!serves(j)) continue;
      const int child = rank_of(children[j]);
      if (options_.rendezvous) {
        if (int e = PMPI_Recv(nullptr, 0, MPI_BYTE, child, ready_tag(call_), call_.comm,
                              MPI_STATUS_IGNORE);
            e != MPI_SUCCESS) {
          return e;
        }
      }
      const Part& part = part_for(j);
      if (int e = PMPI_Isend(part.bytes + part.segments.offset(i), part.segments.length(i),
                             MPI_BYTE, child, data_tag(call_), call_.comm, sending_.add());
          e != MPI_SUCCESS) {
        return e;
      }
      if (int e = sending_.wait(); e != MPI_SUCCESS) return e;
    }
    return MPI_SUCCESS;
  }

  // The split tree's last step: twins swap halves; the one vrank without a twin (P even) gets
  // the second half from the root. The twin is never the node's parent or child in the tree, and
  // where the root is also the parent (P = 2) its half follows the tree's in send order, which
  // MPI's non-overtaking rule keeps.
  int swap_halves() {
    const schedule::SplitHalves::Swap swap = halves_.swap(vrank_, call_.size);
    if (swap.peer < 0) return MPI_SUCCESS;
    const int peer = rank_of(swap.peer);
    const auto at = [&](int h) { return bytes_ + halves_.begin(h); };
    const auto length = [&](int h) { return static_cast<int>(halves_.bytes(h)); };
    if (swap.send >= 0 && swap.receive >= 0) {
      return PMPI_Sendrecv(at(swap.send), length(swap.send), MPI_BYTE, peer, data_tag(call_),
                           at(swap.receive), length(swap.receive), MPI_BYTE, peer,
                           data_tag(call_), call_.comm, MPI_STATUS_IGNORE);
    }
    if (swap.send >= 0) {
      return PMPI_Send(at(swap.send), length(swap.send), MPI_BYTE, peer, data_tag(call_),
                       call_.comm);
    }
    return PMPI_Recv(at(swap.receive), length(swap.receive), MPI_BYTE, peer, data_tag(call_),
                     call_.comm, MPI_STATUS_IGNORE);
  }

  const BcastCall& call_;
  const EngineOptions& options_;
  int vrank_;
  schedule::TreeNode tree_;
  std::byte* bytes_;  // the whole message
  schedule::SplitHalves halves_;
  Part own_;                      // what this node receives from its parent (the root: all)
  std::vector<Part> root_parts_;  // split only: per child, the half it carries
  // One for the whole call, not one per segment: wait() empties it and keeps its storage, so a
  // message of many segments allocates once, not once a segment.
  Requests sending_;
};

}  // namespace

int tree_engine(const BcastCall& call, const EngineOptions& options) {
  // The root's tree has no parent, so the engine never writes into the root's bytes.
  return broadcast_bytes(call, [&](std::byte* bytes, std::uint64_t total) {
    Node node(call, options, bytes, total);
    return node.run();
  });
}

}  // namespace collsel::bcast
