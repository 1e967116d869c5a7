// Schedule, at a node with parent p and children c_1..c_n, for segments 0..k-1:
//   post the receive of segment i+1 before waiting for segment i (so a chain pipelines),
//   then send segment i to each child in turn, completing each send before the next.
// Sending to the children one at a time, largest subtree first (schedule::tree_node's order), is
// what the models assume (consecutive sends g(m) apart). Posting them all at once made them share
// the link: on the emulated cluster the binomial tree's first child, which has the most to
// forward, got its message only when all had, and a 4 MiB binomial Bcast at P = 8 took 6 g(m)
// instead of 3 (docs/BENCHMARKS.md, "Calibration").
// With rendezvous, every data message is preceded by a zero-byte request from the sender and a
// zero-byte ready from the receiver once its receive is posted: the 2 g(1) + 3 L of Table 1.
#include "selector/bcast/tree_engine.hpp"

#include <algorithm>
#include <limits>

#include "selector/byte_view.hpp"

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
  s.count = (total + s.segment - 1) / s.segment;
  return s;
}

class Node {
 public:
  Node(const BcastCall& call, const EngineOptions& options, std::byte* bytes,
       const Segments& segments)
      : call_(call),
        options_(options),
        bytes_(bytes),
        segments_(segments),
        tree_(schedule::tree_node(options.shape, to_vrank(call.rank, call.root, call.size),
                                  call.size)) {}

  int run() {
    // Two receive slots: segment i+1 is posted into one while segment i completes in the other.
    Requests receiving[2];
    if (has_parent() && segments_.count > 0) {
      if (int e = post_receive(0, receiving[0]); e != MPI_SUCCESS) return e;
    }
    for (std::uint64_t i = 0; i < segments_.count; ++i) {
      if (has_parent()) {
        if (i + 1 < segments_.count) {
          if (int e = post_receive(i + 1, receiving[(i + 1) % 2]); e != MPI_SUCCESS) return e;
        }
        if (int e = receiving[i % 2].wait(); e != MPI_SUCCESS) return e;
      }
      if (int e = send_to_children(i); e != MPI_SUCCESS) return e;
    }
    return MPI_SUCCESS;
  }

  bool has_parent() const { return tree_.parent >= 0; }
  int rank_of(int vrank) const { return to_rank(vrank, call_.root, call_.size); }

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
    if (int e = PMPI_Irecv(bytes_ + segments_.offset(i), segments_.length(i), MPI_BYTE, parent,
                           data_tag(call_), call_.comm, requests.add());
        e != MPI_SUCCESS) {
      return e;
    }
    if (options_.rendezvous) {
      return PMPI_Send(nullptr, 0, MPI_BYTE, parent, ready_tag(call_), call_.comm);
    }
    return MPI_SUCCESS;
  }

  int send_to_children(std::uint64_t i) {
    Requests sending;
    if (options_.rendezvous) {
      for (int child : tree_.children) {
        if (int e = PMPI_Send(nullptr, 0, MPI_BYTE, rank_of(child), request_tag(call_), call_.comm);
            e != MPI_SUCCESS) {
          return e;
        }
      }
    }
    for (int child : tree_.children) {
      if (options_.rendezvous) {
        if (int e = PMPI_Recv(nullptr, 0, MPI_BYTE, rank_of(child), ready_tag(call_), call_.comm,
                              MPI_STATUS_IGNORE);
            e != MPI_SUCCESS) {
          return e;
        }
      }
      if (int e = PMPI_Isend(bytes_ + segments_.offset(i), segments_.length(i), MPI_BYTE,
                             rank_of(child), data_tag(call_), call_.comm, sending.add());
          e != MPI_SUCCESS) {
        return e;
      }
      if (int e = sending.wait(); e != MPI_SUCCESS) return e;
    }
    return MPI_SUCCESS;
  }

  const BcastCall& call_;
  const EngineOptions& options_;
  std::byte* bytes_;
  Segments segments_;
  schedule::TreeNode tree_;
};

}  // namespace

int tree_engine(const BcastCall& call, const EngineOptions& options) {
  if (call.size <= 1 || call.count == 0) return MPI_SUCCESS;
  if (call.rank == call.root) {
    int error = MPI_SUCCESS;
    const SendBytes bytes(call.buffer, call.count, call.type, call.comm, error);
    if (error != MPI_SUCCESS) return error;
    if (bytes.size() == 0) return MPI_SUCCESS;  // count > 0 of a zero-size type
    // The root only reads: its tree has no parent, so the engine never writes into bytes.
    Node node(call, options, const_cast<std::byte*>(bytes.data()),
              make_segments(bytes.size(), options.segment_bytes));
    return node.run();
  }
  RecvBytes bytes(call.buffer, call.count, call.type, call.comm);
  if (bytes.size() == 0) return MPI_SUCCESS;
  Node node(call, options, bytes.data(), make_segments(bytes.size(), options.segment_bytes));
  if (int e = node.run(); e != MPI_SUCCESS) return e;
  return bytes.finish();
}

}  // namespace collsel::bcast
