// Mirrors selector/bcast/tree_engine.cpp. A node's program, for segments i = 0..k-1:
//   [rendezvous: receive request i+1 from the parent, send it ready i+1]
//   wait for segment i from the parent;
//   [rendezvous: send a request to every child in turn (blocking sends)]
//   for each child in turn: [rendezvous: receive its ready], send segment i, wait for the send.
// The engine posts receive i+1 (with its handshake) before waiting for segment i: a chain then
// pipelines, and with rendezvous a node's ready i+1 precedes its own sends of segment i. With w
// receives ahead (bcast.chain_preposted) it posts receive i+w-1 instead, and a send depends on
// the child's receive being posted rather than on the node's previous send (window_send).
// Every message therefore depends on the node's previous message (program order) and, for the
// first after a wait, on what was waited for: segment i from the parent, or the child's ready.
//
// Emission order must be topological across ranks. The sends of segment i at a node of depth d
// are emitted in phase i + d, nodes in increasing vrank within a phase (every tree here has
// parent < child): segment i from the parent is emitted in phase i + d - 1; with rendezvous the
// parent's request i+1 and this node's ready i+1 belong to the parent's sends of segment i+1,
// which are in phase i + d too, at a smaller vrank. This order is also each rank's program order.
#include "selector/schedule/bcast_schedule.hpp"

#include <algorithm>
#include <array>
#include <initializer_list>
#include <vector>

#include "models/plogp/bcast.hpp"
#include "selector/schedule/chunks.hpp"

namespace collsel::schedule {
namespace {

using models::contention::Message;
using models::contention::Schedule;

constexpr int kNone = -1;

class TreeBroadcastBuilder {
 public:
  TreeBroadcastBuilder(const CallShape& call, const TreeBroadcast& options)
      : call_(call),
        options_(options),
        size_(call.comm_size),
        halves_(call.bytes),
        tree_(static_cast<std::size_t>(size_)),
        depth_(static_cast<std::size_t>(size_), 0),
        last_sent_(static_cast<std::size_t>(size_), kNone),
        received_(static_cast<std::size_t>(size_), {kNone, kNone}),
        sends_to_(options.receives_ahead > 2 ? static_cast<std::size_t>(size_) : 0) {
    for (int v = 0; v < size_; ++v) {
      tree_[idx(v)] = tree_node(options.shape, v, size_);
      if (v > 0) depth_[idx(v)] = depth_[idx(tree_[idx(v)].parent)] + 1;
    }
  }

  Schedule build() {
    schedule_.ranks = size_;
    const auto max_depth =
        static_cast<std::uint64_t>(*std::max_element(depth_.begin(), depth_.end()));
    const std::uint64_t rounds = std::max(count(part_to(1)), count(part_to(2)));
    for (std::uint64_t phase = 0; phase < rounds + max_depth; ++phase) {
      for (int v = 0; v < size_; ++v) {
        const auto d = static_cast<std::uint64_t>(depth_[idx(v)]);
        if (tree_[idx(v)].children.empty() || phase < d) continue;
        send_to_children(v, phase - d);
      }
    }
    if (options_.split) swap_halves();
    return std::move(schedule_);
  }

 private:
  static constexpr int kWhole = -1;
  static std::size_t idx(int v) { return static_cast<std::size_t>(v); }

  // What a message to vrank v > 0 carries: the whole message, or a split tree's half of v.
  int part_to(int v) const { return options_.split ? SplitHalves::half_of(v) : kWhole; }
  std::uint64_t bytes(int part) const {
    return part == kWhole ? call_.bytes : halves_.bytes(part);
  }
  std::uint64_t segment(int part) const {
    const std::uint64_t b = bytes(part);
    return options_.segment_bytes == 0 || options_.segment_bytes >= b ? b
                                                                      : options_.segment_bytes;
  }
  std::uint64_t count(int part) const { return segment_count(bytes(part), options_.segment_bytes); }
  std::uint64_t length(int part, std::uint64_t i) const {
    return std::min(segment(part), bytes(part) - i * segment(part));
  }

  // Appends a message between vranks; kNone entries of `after` are dropped.
  int emit(int from, int to, std::uint64_t bytes, std::initializer_list<int> after) {
    Message message;
    message.src = to_rank(from, call_.root, size_);
    message.dst = to_rank(to, call_.root, size_);
    message.bytes = bytes;
    for (int a : after) {
      if (a != kNone) message.after.push_back(a);
    }
    schedule_.messages.push_back(std::move(message));
    const int id = static_cast<int>(schedule_.messages.size()) - 1;
    last_sent_[idx(from)] = id;
    return id;
  }

  // With receives posted ahead (bcast.chain_preposted) an eager send completes at once: what
  // holds segment i back is the child's receive, posted once the child has received segment
  // i - w (the engine posts receive i + w - 1 before it waits for segment i). Without a
  // dependency the root's first w segments are a burst that shares the link, as SMPI's flows
  // do (docs/MODELS.md, "Two receives ahead"). A rendezvous send waits for its transfer, so
  // there the chain is the engine's pipeline (Message::when_send_waits).
  bool preposted() const { return options_.receives_ahead > 2; }
  int window_send(int child, std::uint64_t i) const {
    const auto w = static_cast<std::uint64_t>(options_.receives_ahead);
    return i >= w ? sends_to_[idx(child)][i - w] : kNone;
  }

  void unposted(int id) { schedule_.messages[static_cast<std::size_t>(id)].unposted = true; }
  void handshake(int id) {
    unposted(id);
    schedule_.messages[static_cast<std::size_t>(id)].handshake = true;
  }
  void pipelined(int id, bool forwarded) {
    Message& m = schedule_.messages[static_cast<std::size_t>(id)];
    m.pipelined = true;
    m.forwarded = forwarded;
  }

  void send_to_children(int v, std::uint64_t i) {
    // The children that get a segment i (a split root's halves may differ by one), in a buffer
    // reused across calls: this runs once per node and segment while decide() simulates.
    std::vector<int>& children = serving_;
    children.clear();
    for (int child : tree_[idx(v)].children) {
      if (i < count(part_to(child))) children.push_back(child);
    }
    if (children.empty()) return;
    // The wait for segment i precedes the node's first send of it only.
    int waited = v == 0 ? kNone : received_[idx(v)][i % 2];
    const auto next_after = [&] {
      const int w = waited;
      waited = kNone;
      return w;
    };
    std::vector<int> requests;
    if (options_.rendezvous) {
      for (int child : children) {
        requests.push_back(emit(v, child, 0, {next_after(), last_sent_[idx(v)]}));
      }
    }
    for (std::size_t j = 0; j < children.size(); ++j) {
      const int child = children[j];
      int ready = kNone;
      if (options_.rendezvous) {
        // The child's ready i follows request i and its own previous message. It also follows
        // the child's wait for segment i-2; request i implies that, as this node sends it only
        // after its send of segment i-1 to the child completed.
        ready = emit(child, v, 0, {requests[j], last_sent_[idx(child)]});
        handshake(requests[j]);
        handshake(ready);
      }
      const int prior = preposted() ? window_send(child, i) : last_sent_[idx(v)];
      const int previous = last_sent_[idx(v)];
      const int wait = next_after();
      const int sent = emit(v, child, length(part_to(child), i), {wait, ready, prior});
      if (preposted() && i > 0) {
        // At rendezvous sizes, bcast.chain_segmented's message (below).
        schedule_.messages[static_cast<std::size_t>(sent)].when_send_waits =
            Message::WhenSendWaits{
                .after = previous, .pipelined = true, .forwarded = wait != kNone};
      }
      // A rendezvous runs in lock-step: the stream pair. A pipeline's later segments follow one
      // another to their receiver, which keeps two receives posted: the pipeline gap; the first
      // send after the node's own receive of the segment is forwarded (it pays that receive
      // too). A whole message, a pipeline's first segment, or any segment of a preposted one
      // finds its receive posted (docs/MODELS.md, "Two gaps" and "Two receives ahead").
      if (options_.rendezvous) {
        unposted(sent);
      } else if (i > 0 && !preposted()) {
        pipelined(sent, wait != kNone);
      }
      received_[idx(child)][i % 2] = sent;
      if (preposted()) sends_to_[idx(child)].push_back(sent);
    }
  }

  // The message that brought vrank v its last segment (kNone: the root, or an empty half).
  int last_segment_to(int v) const {
    if (v == 0) return kNone;
    const std::uint64_t k = count(part_to(v));
    return k > 0 ? received_[idx(v)][(k - 1) % 2] : kNone;
  }

  // The split tree's swaps (SplitHalves::swap), after each side's last message and last segment
  // received; both sides of a swap post their receive with their send (the stream pair), so a
  // swap's receive is posted once its receiver has its own last segment (Message::posted_after,
  // as a ring step's).
  void swap_halves() {
    for (int v = 0; v < size_; ++v) {
      const SplitHalves::Swap swap = SplitHalves::swap(v, size_);
      if (swap.send < 0) continue;
      const int id = emit(v, swap.peer, halves_.bytes(swap.send),
                          {last_segment_to(v), last_sent_[idx(v)]});
      unposted(id);
      schedule_.messages[static_cast<std::size_t>(id)].posted_after = last_segment_to(swap.peer);
    }
  }

  const CallShape& call_;
  const TreeBroadcast& options_;
  int size_;
  SplitHalves halves_;  // split only
  std::vector<TreeNode> tree_;
  std::vector<int> depth_;
  std::vector<int> last_sent_;  // per vrank, its latest message: program order
  std::vector<int> serving_;    // send_to_children's children of this segment
  // Per vrank, segment i from the parent in slot i mod 2 (the engine's two receive slots): by the
  // time a node sends segment i, its parent may already have sent segment i+1, never i+2.
  std::vector<std::array<int, 2>> received_;
  std::vector<std::vector<int>> sends_to_;  // preposted only: per vrank, its segments' messages
  Schedule schedule_;
};

Schedule tree(TreeShape shape, const CallShape& call, std::uint64_t segment_bytes = 0,
              bool rendezvous = false) {
  return tree_broadcast(call,
                        {.shape = shape, .segment_bytes = segment_bytes, .rendezvous = rendezvous});
}

}  // namespace

Schedule tree_broadcast(const CallShape& call, const TreeBroadcast& options) {
  if (call.moves_nothing()) return {.ranks = call.comm_size, .messages = {}};
  return TreeBroadcastBuilder(call, options).build();
}

Schedule bcast_flat(const CallShape& call, const AlgoParams&) {
  return tree(TreeShape::flat, call);
}
Schedule bcast_flat_rendezvous(const CallShape& call, const AlgoParams&) {
  return tree(TreeShape::flat, call, 0, true);
}
Schedule bcast_flat_segmented(const CallShape& call, const AlgoParams& params) {
  return tree(TreeShape::flat, call, params.segment_bytes);
}
Schedule bcast_chain(const CallShape& call, const AlgoParams&) {
  return tree(TreeShape::chain, call);
}
Schedule bcast_chain_rendezvous(const CallShape& call, const AlgoParams&) {
  return tree(TreeShape::chain, call, 0, true);
}
Schedule bcast_chain_segmented(const CallShape& call, const AlgoParams& params) {
  return tree(TreeShape::chain, call, params.segment_bytes);
}
Schedule bcast_chain_preposted(const CallShape& call, const AlgoParams& params) {
  return tree_broadcast(call, {.shape = TreeShape::chain,
                               .segment_bytes = params.segment_bytes,
                               .receives_ahead = models::plogp::kChainPrepostedReceives});
}
Schedule bcast_binary(const CallShape& call, const AlgoParams&) {
  return tree(TreeShape::binary, call);
}
Schedule bcast_binomial(const CallShape& call, const AlgoParams&) {
  return tree(TreeShape::binomial, call);
}
Schedule bcast_binomial_rendezvous(const CallShape& call, const AlgoParams&) {
  return tree(TreeShape::binomial, call, 0, true);
}
Schedule bcast_binomial_segmented(const CallShape& call, const AlgoParams& params) {
  return tree(TreeShape::binomial, call, params.segment_bytes);
}

Schedule bcast_split_binary(const CallShape& call, const AlgoParams& params) {
  return tree_broadcast(call, {.shape = TreeShape::level_binary,
                               .segment_bytes = params.segment_bytes,
                               .split = true});
}

std::uint64_t bcast_segmented_tree_size(const CallShape& call, const AlgoParams& params) {
  if (call.moves_nothing()) return 0;
  return static_cast<std::uint64_t>(call.comm_size - 1) *
         segment_count(call.bytes, params.segment_bytes);
}

std::uint64_t bcast_split_binary_size(const CallShape& call, const AlgoParams& params) {
  const int size = call.comm_size;
  if (size <= 1 || call.bytes == 0) return 0;
  const SplitHalves halves(call.bytes);
  const auto segments = [&](int half) {
    return segment_count(halves.bytes(half), params.segment_bytes);
  };
  // Vranks 1, 3, ... carry the first half, 2, 4, ... the second; then P - 1 swaps.
  const auto odd = static_cast<std::uint64_t>(size / 2);
  const auto even = static_cast<std::uint64_t>((size - 1) / 2);
  return odd * segments(0) + even * segments(1) + static_cast<std::uint64_t>(size - 1);
}

std::uint64_t bcast_scatter_allgather_size(const CallShape& call, const AlgoParams&) {
  if (call.moves_nothing()) return 0;
  const auto hops = static_cast<std::uint64_t>(call.comm_size - 1);
  return hops + hops * hops;
}

namespace {

// The two scatter-allgather schedules: the binomial scatter of the chunks (blocking sends, one
// child after the other, as scatter_binomial), then what each vrank received and sent last.
class ChunkedBuilder {
 public:
  explicit ChunkedBuilder(const CallShape& call)
      : call_(call),
        size_(call.comm_size),
        chunks_(call.bytes, call.comm_size),
        received_(at(size_), kNone),
        last_(at(size_), kNone) {
    out_.ranks = size_;
    for (int v = 0; v < size_; ++v) {  // parent < child: topological
      for (int child : tree_node(TreeShape::binomial, v, size_).children) {
        const int span = binomial_subtree_size(child, size_);
        const int id =
            emit(v, child, chunks_.bytes(child, span), deps({received_[at(v)], last_[at(v)]}));
        last_[at(v)] = id;
        received_[at(child)] = id;
      }
    }
  }

  static std::size_t at(int v) { return static_cast<std::size_t>(v); }
  static std::vector<int> deps(std::initializer_list<int> ids) {
    std::vector<int> after;
    for (int id : ids) {
      if (id != kNone) after.push_back(id);
    }
    return after;
  }
  // A message of the allgather: lock-step (Sendrecv), its receive posted with the receiver's own
  // send (the stream pair, as in the formulas), once the receiver has `receiver_has`
  // (Message::posted_after; kNone: no such wait).
  int emit_step(int from, int to, std::uint64_t bytes, std::vector<int> after,
                int receiver_has = kNone) {
    const int id = emit(from, to, bytes, std::move(after));
    out_.messages[at(id)].unposted = true;
    out_.messages[at(id)].posted_after = receiver_has;
    return id;
  }

  // The latest of `ids` that vrank v received (kNone if none).
  int last_received(const std::vector<int>& ids, int v) const {
    const int rank = to_rank(v, call_.root, size_);
    int latest = kNone;
    for (int id : ids) {
      if (out_.messages[at(id)].dst == rank) latest = std::max(latest, id);
    }
    return latest;
  }

  const Chunks& chunks() const { return chunks_; }
  int received(int v) const { return received_[at(v)]; }
  int last(int v) const { return last_[at(v)]; }
  Schedule take() { return std::move(out_); }

 private:
  int emit(int from, int to, std::uint64_t bytes, std::vector<int> after) {
    out_.messages.push_back({.src = to_rank(from, call_.root, size_),
                             .dst = to_rank(to, call_.root, size_),
                             .bytes = bytes,
                             .after = std::move(after)});
    return static_cast<int>(out_.messages.size()) - 1;
  }

  const CallShape& call_;
  int size_;
  Chunks chunks_;
  Schedule out_;
  std::vector<int> received_;  // per vrank: the scatter message it received
  std::vector<int> last_;      // per vrank: its last scatter send (program order)
};

}  // namespace

Schedule bcast_scatter_allgather(const CallShape& call, const AlgoParams&) {
  const int size = call.comm_size;
  if (size <= 1 || call.bytes == 0) return Schedule{.ranks = size, .messages = {}};
  ChunkedBuilder b(call);
  const auto at = ChunkedBuilder::at;
  const auto deps = ChunkedBuilder::deps;
  // Ring step s, vrank v -> v + 1 (the root's left neighbour sends nothing: it has every chunk).
  std::vector<int> previous(at(size), kNone);  // what each vrank received last
  std::vector<int> last(at(size), kNone);
  for (int v = 0; v < size; ++v) {
    previous[at(v)] = b.received(v);
    last[at(v)] = b.last(v);
  }
  for (int s = 0; s + 1 < size; ++s) {
    std::vector<int> now(at(size), kNone);
    for (int v = 0; v + 1 < size; ++v) {
      // Its receiver posts the receive when its own previous step is done (Sendrecv).
      const int id = b.emit_step(v, v + 1, b.chunks().bytes(b.chunks().ring_chunk(v, s), 1),
                                 deps({previous[at(v)], last[at(v)]}), previous[at(v + 1)]);
      last[at(v)] = id;
      now[at(v + 1)] = id;
    }
    previous = std::move(now);
  }
  return b.take();
}

std::uint64_t bcast_scatter_doubling_allgather_size(const CallShape& call, const AlgoParams&) {
  if (call.moves_nothing()) return 0;
  const int size = call.comm_size;
  auto messages = static_cast<std::uint64_t>(size - 1);  // the scatter
  for (int d = 1; d < size; d = d > size / 2 ? size : 2 * d) {
    for (int v = 0; v < size; ++v) {
      const DoublingRound round = doubling_round(v, size, d);
      if (round.to == 0) continue;
      for (const ChunkRun run : chunk_runs(round.send_first, round.count, size)) {
        if (run.count > 0) ++messages;
      }
    }
  }
  return messages;
}

Schedule bcast_scatter_doubling_allgather(const CallShape& call, const AlgoParams&) {
  const int size = call.comm_size;
  if (size <= 1 || call.bytes == 0) return Schedule{.ranks = size, .messages = {}};
  ChunkedBuilder b(call);
  const auto at = ChunkedBuilder::at;
  // Per vrank, what its next round waits for (PMPI_Waitall of the round before): every message
  // it sent and received then; before the first round, its scatter receive and last send.
  std::vector<std::vector<int>> waits(at(size));
  for (int v = 0; v < size; ++v) waits[at(v)] = ChunkedBuilder::deps({b.received(v), b.last(v)});
  for (int d = 1; d < size; d = d > size / 2 ? size : 2 * d) {
    std::vector<std::vector<int>> next(at(size));
    for (int v = 0; v < size; ++v) {
      const DoublingRound round = doubling_round(v, size, d);
      if (round.to == 0) continue;  // the root has every chunk: nothing is sent to it
      for (const ChunkRun run : chunk_runs(round.send_first, round.count, size)) {
        if (run.count == 0) continue;
        const int id = b.emit_step(v, round.to, b.chunks().bytes(run.first, run.count),
                                   waits[at(v)], b.last_received(waits[at(round.to)], round.to));
        next[at(v)].push_back(id);
        next[at(round.to)].push_back(id);
      }
    }
    waits = std::move(next);
  }
  return b.take();
}

}  // namespace collsel::schedule
