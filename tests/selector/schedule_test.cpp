// The communication schedules every registered algorithm emits for the contention simulator
// (selector/schedule/{bcast,scatter,alltoall}_schedule.cpp), checked against what the algorithms
// really send: well-formed and topologically ordered, every byte delivered, nothing forwarded
// before it arrived, and the rounds, hops and message counts of the real code.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "models/alltoall/contention.hpp"
#include "selector/catalog.hpp"
#include "selector/schedule/alltoall_schedule.hpp"
#include "selector/schedule/bcast_schedule.hpp"
#include "selector/schedule/chunks.hpp"
#include "selector/schedule/scatter_schedule.hpp"
#include "selector/schedule/tree.hpp"

namespace collsel::schedule {
namespace {

using models::contention::Message;
using models::contention::Schedule;

constexpr int kSizes[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 17};
constexpr std::uint64_t kBytes[] = {0, 1, 1000, 1 << 20};
constexpr std::uint64_t kSegments[] = {0, 4, 333, 1000, 65536, 1 << 21};
constexpr int kWindows[] = {0, 1, 2, 3, 100};

std::vector<int> roots(int size) {
  std::set<int> r{0, 1 % size, size / 2, size - 1};
  return {r.begin(), r.end()};
}

std::size_t at(int i) { return static_cast<std::size_t>(i); }

bool is_data(const Message& m) { return m.bytes > 0; }

std::string describe(std::string_view name, const CallShape& call, const AlgoParams& params) {
  return std::string(name) + " P=" + std::to_string(call.comm_size) +
         " bytes=" + std::to_string(call.bytes) + " root=" + std::to_string(call.root) +
         " segment=" + std::to_string(params.segment_bytes) +
         " window=" + std::to_string(params.window);
}

// Ranks in range, no self-messages, dependencies on earlier messages only, none repeated.
void expect_well_formed(const Schedule& s, int size, const std::string& what) {
  EXPECT_EQ(s.ranks, size) << what;
  for (std::size_t i = 0; i < s.messages.size(); ++i) {
    const Message& m = s.messages[i];
    ASSERT_GE(m.src, 0) << what;
    ASSERT_LT(m.src, size) << what;
    ASSERT_GE(m.dst, 0) << what;
    ASSERT_LT(m.dst, size) << what;
    ASSERT_NE(m.src, m.dst) << what << " message " << i;
    std::set<int> seen;
    for (int a : m.after) {
      ASSERT_GE(a, 0) << what << " message " << i;
      ASSERT_LT(static_cast<std::size_t>(a), i) << what << " message " << i;
      ASSERT_TRUE(seen.insert(a).second) << what << " message " << i << " repeats " << a;
    }
  }
}

// Longest dependency chain, in messages: the rounds or hops the schedule serialises.
int depth(const Schedule& s) {
  std::vector<int> d(s.messages.size(), 1);
  int deepest = 0;
  for (std::size_t i = 0; i < s.messages.size(); ++i) {
    for (int a : s.messages[i].after) d[i] = std::max(d[i], d[at(a)] + 1);
    deepest = std::max(deepest, d[i]);
  }
  return deepest;
}

// What each message's sender (indeed every rank) is known to have received when it is posted:
// for message x and rank r, how many of r's data messages are among x's strict ancestors,
// counting a rank's data messages in the order they were emitted (a rank's segments or blocks
// come from one sender, in order). Linear in messages x ranks.
class Received {
 public:
  explicit Received(const Schedule& s)
      : ranks_(s.ranks),
        before_(s.messages.size() * at(s.ranks), 0),
        sequence_(s.messages.size(), 0) {
    std::vector<int> count(at(s.ranks), 0);
    std::vector<int> including(before_.size(), 0);
    for (std::size_t x = 0; x < s.messages.size(); ++x) {
      const Message& m = s.messages[x];
      int* mine = &before_[x * at(ranks_)];
      for (int a : m.after) {
        const int* theirs = &including[at(a) * at(ranks_)];
        for (int r = 0; r < ranks_; ++r) mine[r] = std::max(mine[r], theirs[r]);
      }
      std::copy_n(mine, ranks_, &including[x * at(ranks_)]);
      if (is_data(m)) {
        sequence_[x] = ++count[at(m.dst)];
        int& own = including[x * at(ranks_) + at(m.dst)];
        own = std::max(own, sequence_[x]);
      }
    }
  }
  // Data messages into `rank` known to have arrived before message x is posted.
  int before(std::size_t x, int rank) const { return before_[x * at(ranks_) + at(rank)]; }
  // 1-based position of data message x among its receiver's data messages.
  int sequence(std::size_t x) const { return sequence_[x]; }

 private:
  int ranks_;
  std::vector<int> before_;
  std::vector<int> sequence_;
};

struct Totals {
  std::vector<std::uint64_t> in, out;
  explicit Totals(const Schedule& s) : in(at(s.ranks), 0), out(at(s.ranks), 0) {
    for (const Message& m : s.messages) {
      in[at(m.dst)] += m.bytes;
      out[at(m.src)] += m.bytes;
    }
  }
};

// --- every registered algorithm ---

TEST(Schedule, EveryRegisteredAlgorithmHasOne) {
  for (Collective c : kCollectives) {
    for (const auto& a : catalog(c)) EXPECT_NE(a.schedule, nullptr) << a.name;
  }
}

// Where the registry gives a message count, it is the schedule's, past the cap too.
TEST(Schedule, EveryGivenMessageCountIsTheSchedules) {
  for (Collective c : kCollectives) {
    for (const auto& a : catalog(c)) {
      if (a.schedule_size == nullptr) continue;
      for (int size : {1, 2, 7, 65, 100}) {
        for (std::uint64_t bytes : {std::uint64_t{0}, std::uint64_t{1000}}) {
          // Whole, and (segmented ones) in 7 segments, the last one short.
          for (std::uint64_t segment : {std::uint64_t{0}, std::uint64_t{150}}) {
            if (segment > 0 && !a.segmented) continue;
            const CallShape call{c, size, bytes, 0};
            const AlgoParams params{.segment_bytes = segment};
            EXPECT_EQ(a.schedule_size(call, params), a.schedule(call, params).messages.size())
                << a.name << " P=" << size << " bytes=" << bytes << " segment=" << segment;
          }
        }
      }
    }
  }
  EXPECT_NE(find_algorithm(Collective::bcast, "bcast.scatter_allgather")->schedule_size, nullptr);
  // Every segmented Bcast: at P = 1024 their (P - 1) x segments are what a cap must refuse unbuilt.
  for (const auto& a : catalog(Collective::bcast)) {
    if (a.segmented) {
      EXPECT_NE(a.schedule_size, nullptr) << a.name;
    }
  }
  // Every All-to-All: the exchanges' P (P - 1) messages are what a cap must refuse unbuilt.
  for (const auto& a : catalog(Collective::alltoall)) EXPECT_NE(a.schedule_size, nullptr) << a.name;
}

// Two gaps (docs/MODELS.md): a message is unposted (the stream pair) when its receiver is not
// already waiting for it: a pipeline's segments after the first to each receiver, a rendezvous's
// messages, the ring steps of scatter_allgather. Every other message, of every algorithm, finds
// its receive posted: a whole message, or a pipeline's first segment.
// A pipeline's later segments are `pipelined` (g_2), a rendezvous's and the ring's messages
// `unposted` (g); every other message finds its receive posted (docs/MODELS.md, "Two gaps"),
// bcast.chain_preposted's later segments included.
TEST(Schedule, PipelinedAreThePipelinesUnpostedTheRendezvousAndTheRing) {
  const auto lockstep = [](std::string_view name) {
    return name.ends_with("_rendezvous") || name == "bcast.scatter_allgather" ||
           name == "bcast.scatter_doubling_allgather";
  };
  for (Collective c : kCollectives) {
    for (const auto& a : catalog(c)) {
      if (a.name == "bcast.split_binary") continue;  // halves, then swaps: its own test below
      for (std::uint64_t segment : {std::uint64_t{100}, std::uint64_t{1000}}) {
        const CallShape call{c, 9, 1000, 2};
        const Schedule s = a.schedule(call, {.segment_bytes = segment});
        ASSERT_FALSE(s.messages.empty()) << a.name;
        // The preposted chain's segments all find their receive posted (up to 64 ahead).
        const bool preposted = a.name == "bcast.chain_preposted";
        const bool pipeline = a.segmented && segment < call.bytes && !preposted;
        std::size_t unposted = 0;
        std::size_t pipelined = 0;
        std::size_t forwarded = 0;
        std::size_t data = 0;
        for (const Message& m : s.messages) {
          unposted += m.unposted ? 1 : 0;
          pipelined += m.pipelined ? 1 : 0;
          forwarded += m.forwarded ? 1 : 0;
          if (m.forwarded) { EXPECT_TRUE(m.pipelined && m.src != call.root) << a.name; }
          data += is_data(m) ? 1 : 0;
          if (m.unposted) { EXPECT_TRUE(lockstep(a.name)) << a.name; }
          if (m.posted_after >= 0) {
            // The receiver's own earlier receive (Message::posted_after), of a Sendrecv step.
            const auto here = static_cast<int>(&m - s.messages.data());
            EXPECT_TRUE(m.unposted && !m.handshake) << a.name;
            EXPECT_LT(m.posted_after, here) << a.name;
            EXPECT_EQ(s.messages[static_cast<std::size_t>(m.posted_after)].dst, m.dst) << a.name;
          }
          if (m.pipelined) { EXPECT_TRUE(is_data(m) && pipeline) << a.name; }
        }
        if (pipeline) {
          // 8 receivers, each receives its first of the 10 segments posted.
          EXPECT_EQ(data, 80u) << a.name;
          EXPECT_EQ(pipelined, 72u) << a.name;
          EXPECT_EQ(unposted, 0u) << a.name;
          // Later segments sent on by an inner node: the chain's 7 inner nodes, 9 each; none
          // in the flat tree; the binomial tree's inner nodes, once per segment each.
          if (a.name == "bcast.chain_segmented") { EXPECT_EQ(forwarded, 63u); }
          if (a.name == "bcast.flat_segmented") { EXPECT_EQ(forwarded, 0u); }
          if (a.name == "bcast.binomial_segmented") { EXPECT_GT(forwarded, 0u); }
        } else if (preposted && segment < call.bytes) {
          EXPECT_EQ(data, 80u);
          EXPECT_EQ(pipelined + unposted + forwarded, 0u);
        } else if (a.name == "bcast.scatter_allgather") {
          // The 8 scatter messages of the binomial tree are posted; the 8 x 8 ring steps not.
          EXPECT_EQ(unposted, 64u);
          EXPECT_EQ(s.messages.size(), 72u);
        } else if (a.name == "bcast.scatter_doubling_allgather") {
          // The scatter's 8 posted; every round's message in lock-step.
          EXPECT_EQ(unposted, s.messages.size() - 8u);
        } else if (lockstep(a.name)) {
          EXPECT_EQ(unposted, s.messages.size()) << a.name;
        } else if (!pipeline) {
          EXPECT_EQ(unposted, 0u) << a.name << " segment " << segment;
        }
      }
    }
  }
}

// The preposted chain's sends wait for the child's receive, posted once the child has received
// the segment 64 before: the root's first 64 segments go as a burst, with no dependency, except
// where sends wait for their transfer (when_send_waits: then it is chain_segmented's message).
TEST(Schedule, APrepostedChainsSendsWaitForTheChildsReceiveNotForTheLastSend) {
  const CallShape call{Collective::bcast, 3, 1000, 0};
  const Schedule s = bcast_chain_preposted(call, {.segment_bytes = 10});  // k = 100
  ASSERT_EQ(s.messages.size(), 200u);
  std::vector<int> root_sends;
  std::vector<int> relay_sends;
  for (std::size_t id = 0; id < s.messages.size(); ++id) {
    const Message& m = s.messages[id];
    EXPECT_FALSE(m.pipelined || m.unposted || m.forwarded);
    (m.src == 0 ? root_sends : relay_sends).push_back(static_cast<int>(id));
  }
  ASSERT_EQ(root_sends.size(), 100u);
  ASSERT_EQ(relay_sends.size(), 100u);
  for (std::size_t i = 0; i < 100; ++i) {
    const std::vector<int>& root_after = s.messages[root_sends[i]].after;
    if (i < 64) {
      EXPECT_TRUE(root_after.empty()) << i;
    } else {
      EXPECT_EQ(root_after, std::vector<int>{root_sends[i - 64]}) << i;
    }
    // Rank 1 forwards segment i once it has it, and once rank 2 has received segment i - 64.
    std::vector<int> relay_after = s.messages[relay_sends[i]].after;
    std::vector<int> expected{root_sends[i]};
    if (i >= 64) expected.push_back(relay_sends[i - 64]);
    EXPECT_EQ(relay_after, expected) << i;
    // At rendezvous sizes each later segment is bcast.chain_segmented's: after the node's
    // previous send, pipelined, and forwarded where the node relays it.
    const auto& root_waits = s.messages[root_sends[i]].when_send_waits;
    const auto& relay_waits = s.messages[relay_sends[i]].when_send_waits;
    ASSERT_EQ(root_waits.has_value(), i > 0) << i;
    ASSERT_EQ(relay_waits.has_value(), i > 0) << i;
    if (i > 0) {
      EXPECT_EQ(root_waits->after, root_sends[i - 1]) << i;
      EXPECT_TRUE(root_waits->pipelined && !root_waits->forwarded) << i;
      EXPECT_EQ(relay_waits->after, relay_sends[i - 1]) << i;
      EXPECT_TRUE(relay_waits->pipelined && relay_waits->forwarded) << i;
    }
  }
}

TEST(Schedule, NothingToSendForOneRankOrZeroBytes) {
  for (Collective c : kCollectives) {
    for (const auto& a : catalog(c)) {
      for (int size : kSizes) {
        const Schedule s = a.schedule({c, size, 0, size - 1}, {.segment_bytes = 4, .window = 1});
        EXPECT_EQ(s.ranks, size) << a.name;
        EXPECT_TRUE(s.messages.empty()) << a.name << " P=" << size;
      }
      EXPECT_TRUE(a.schedule({c, 1, 1000, 0}, {}).messages.empty()) << a.name;
    }
  }
}

// Bcast: every non-root rank receives the whole message exactly once, cut as the engine cuts it,
// and forwards segment s only after segment s has reached it.
// `cut` is the segment length the engine uses (the whole message when unsegmented).
void check_bcast(const Schedule& s, const CallShape& call, std::uint64_t cut, bool rendezvous,
                 const std::string& what) {
  expect_well_formed(s, call.comm_size, what);
  const std::uint64_t segments =
      call.comm_size == 1 || call.bytes == 0 ? 0 : (call.bytes + cut - 1) / cut;
  const Totals totals(s);
  const Received received(s);
  std::vector<std::vector<std::uint64_t>> incoming(at(call.comm_size));
  std::vector<int> sent(at(call.comm_size) * at(call.comm_size), 0);  // data messages per edge
  std::size_t data = 0;
  for (std::size_t x = 0; x < s.messages.size(); ++x) {
    const Message& m = s.messages[x];
    if (!is_data(m)) {
      EXPECT_TRUE(rendezvous) << what << ": a zero-byte message without rendezvous";
      // Priced as a handshake (Message::handshake: no zero-byte wait on the link).
      EXPECT_TRUE(m.handshake && m.unposted) << what << " message " << x;
      continue;
    }
    EXPECT_FALSE(m.handshake) << what << " message " << x;
    ++data;
    incoming[at(m.dst)].push_back(m.bytes);
    if (m.src != call.root) {
      // The s-th segment to each child is the s-th the sender received, of the same length.
      const int seq = ++sent[at(m.src) * at(call.comm_size) + at(m.dst)];
      EXPECT_GE(received.before(x, m.src), seq) << what << " message " << x;
      ASSERT_LE(at(seq), incoming[at(m.src)].size()) << what << " message " << x;
      EXPECT_EQ(incoming[at(m.src)][at(seq - 1)], m.bytes) << what << " message " << x;
    }
    if (rendezvous) {
      // data <- ready from the receiver <- request from the sender
      const auto ready = std::find_if(m.after.begin(), m.after.end(), [&](int a) {
        const Message& r = s.messages[at(a)];
        return r.bytes == 0 && r.src == m.dst && r.dst == m.src;
      });
      ASSERT_NE(ready, m.after.end()) << what << " message " << x << " has no ready";
      const Message& r = s.messages[at(*ready)];
      EXPECT_TRUE(std::any_of(r.after.begin(), r.after.end(), [&](int a) {
        const Message& q = s.messages[at(a)];
        return q.bytes == 0 && q.src == m.src && q.dst == m.dst;
      })) << what << " message " << x << ": its ready follows no request";
    }
  }
  EXPECT_EQ(data, at(call.comm_size - 1) * segments) << what;
  EXPECT_EQ(s.messages.size(), rendezvous ? 3 * data : data) << what;
  for (int r = 0; r < call.comm_size; ++r) {
    EXPECT_EQ(totals.in[at(r)], r == call.root ? 0 : call.bytes) << what << " rank " << r;
    if (r == call.root) continue;
    ASSERT_EQ(incoming[at(r)].size(), segments) << what << " rank " << r;
    // Cut as tree_engine.cpp's make_segments: equal segments, the last one shorter.
    for (std::size_t i = 0; i + 1 < incoming[at(r)].size(); ++i) {
      EXPECT_EQ(incoming[at(r)][i], cut) << what << " rank " << r << " segment " << i;
    }
  }
}

// Every (P, root, bytes, segment) of the tables above, but for more than 4096 segments.
template <class F>
void for_each_bcast_call(F check) {
  for (int size : kSizes) {
    for (int root : roots(size)) {
      for (std::uint64_t bytes : kBytes) {
        for (std::uint64_t segment : kSegments) {
          if (segment != 0 && bytes / segment > 4096) continue;  // keeps the test fast
          check(CallShape{Collective::bcast, size, bytes, root},
                AlgoParams{.segment_bytes = segment, .window = 0});
        }
      }
    }
  }
}

TEST(BcastSchedule, DeliversEverySegmentOnceAndForwardsOnlyWhatArrived) {
  for (const auto& a : catalog(Collective::bcast)) {
    // Not a tree of whole segments: their own tests below.
    if (a.name == "bcast.scatter_allgather" || a.name == "bcast.split_binary" ||
        a.name == "bcast.scatter_doubling_allgather") {
      continue;
    }
    const bool rendezvous = a.name.find("_rendezvous") != std::string_view::npos;
    for_each_bcast_call([&](const CallShape& call, const AlgoParams& params) {
      const std::uint64_t segment = params.segment_bytes;
      const std::uint64_t cut =
          a.segmented && segment != 0 && segment < call.bytes ? segment : call.bytes;
      check_bcast(a.schedule(call, params), call, cut, rendezvous, describe(a.name, call, params));
    });
  }
}

// scatter_allgather.cpp: a binomial scatter of P chunks of ceil(n / P) bytes, then P - 1 ring
// steps in which vrank v sends vrank v + 1 one chunk (the root's left neighbour sends nothing).
// Every non-root rank gets its subtree's chunks from its parent, then every chunk but its own in
// the ring, and sends only after its scatter message has arrived.
TEST(BcastSchedule, ScatterAllgatherScattersThenPassesEveryChunkAlongTheRing) {
  for (int size : kSizes) {
    for (int root : roots(size)) {
      for (std::uint64_t bytes : {std::uint64_t{1}, std::uint64_t{7}, std::uint64_t{1000},
                                  std::uint64_t{1} << 20}) {
        const CallShape call{Collective::bcast, size, bytes, root};
        const std::string what = describe("bcast.scatter_allgather", call, {});
        const Schedule s = bcast_scatter_allgather(call, {});
        expect_well_formed(s, size, what);
        if (size == 1) {
          EXPECT_TRUE(s.messages.empty()) << what;
          continue;
        }
        const std::uint64_t chunk = (bytes + at(size) - 1) / at(size);
        const auto length = [&](int first, int count) {
          return std::min(bytes, at(first + count) * chunk) - std::min(bytes, at(first) * chunk);
        };
        const std::size_t scatter = at(size - 1);
        ASSERT_EQ(s.messages.size(), scatter + at(size - 1) * at(size - 1)) << what;
        const Received received(s);
        std::vector<std::uint64_t> ring_in(at(size), 0);
        for (std::size_t x = 0; x < s.messages.size(); ++x) {
          const Message& m = s.messages[x];
          const int from = to_vrank(m.src, root, size);
          const int to = to_vrank(m.dst, root, size);
          if (x < scatter) {
            EXPECT_EQ(tree_node(TreeShape::binomial, to, size).parent, from) << what;
            EXPECT_EQ(m.bytes, length(to, binomial_subtree_size(to, size))) << what;
          } else {
            const int step = static_cast<int>((x - scatter) / at(size - 1));
            EXPECT_EQ(to, from + 1) << what << " message " << x;
            const int chunk_index = ((from - step) % size + size) % size;
            EXPECT_EQ(m.bytes, length(chunk_index, 1)) << what << " message " << x;
            ring_in[at(to)] += m.bytes;
          }
          // A non-root sender has received its scatter message (when that carries bytes).
          if (from != 0 && length(from, binomial_subtree_size(from, size)) > 0) {
            EXPECT_GE(received.before(x, m.src), 1) << what << " message " << x;
          }
        }
        for (int v = 1; v < size; ++v) {
          EXPECT_EQ(ring_in[at(v)], bytes - length(v, 1)) << what << " vrank " << v;
        }
        // Rounds: the scatter's depth, then P - 1 ring steps along the chain.
        EXPECT_GE(depth(s), size - 1) << what;
        // The count decide() checks before building it is the count built.
        EXPECT_EQ(bcast_scatter_allgather_size(call, {}), s.messages.size()) << what;
      }
    }
  }
}

// split_binary (tree_engine.cpp, split): every non-root rank receives its half
// (SplitHalves::half_of) from its level_binary parent, cut as the engine cuts it, and forwards a
// segment only once it has arrived; then one swap message each (P - 1 in all, the stream pair),
// sent once the sender holds its whole half. Every rank ends with the whole message.
// chunks.hpp doubling_round, the rounds of scatter_doubling_allgather.cpp: at every size (powers
// of two by recursive doubling, the others by Bruck's doubling), a vrank sends only chunks it
// holds, never into the range it receives, the two ends of a message agree on its chunks, and
// after ceil(log2 P) rounds every vrank holds every chunk, although nothing is sent to the root.
TEST(Chunks, DoublingRoundsGiveEveryVrankEveryChunk) {
  for (int size = 1; size <= 70; ++size) {
    std::vector<std::vector<bool>> holds(at(size), std::vector<bool>(at(size), false));
    for (int v = 0; v < size; ++v) holds[at(v)][at(v)] = true;
    holds[0].assign(at(size), true);  // the root
    int rounds = 0;
    for (int d = 1; d < size; d *= 2) {
      ++rounds;
      auto next = holds;
      for (int v = 0; v < size; ++v) {
        const std::string what = "P=" + std::to_string(size) + " d=" + std::to_string(d) +
                                 " vrank " + std::to_string(v);
        const DoublingRound r = doubling_round(v, size, d);
        ASSERT_NE(r.to, v) << what;
        ASSERT_GE(r.count, 1) << what;
        const DoublingRound peer = doubling_round(r.to, size, d);
        EXPECT_EQ(peer.from, v) << what;
        EXPECT_EQ(peer.receive_first, r.send_first) << what;
        EXPECT_EQ(peer.count, r.count) << what;
        std::set<int> sent;
        std::set<int> received;
        for (const ChunkRun run : chunk_runs(r.send_first, r.count, size)) {
          for (int c = run.first; c < run.first + run.count; ++c) sent.insert(c);
        }
        for (const ChunkRun run : chunk_runs(r.receive_first, r.count, size)) {
          for (int c = run.first; c < run.first + run.count; ++c) received.insert(c);
        }
        EXPECT_EQ(sent.size(), at(r.count)) << what;
        EXPECT_EQ(received.size(), at(r.count)) << what;
        for (int c : sent) {
          EXPECT_TRUE(holds[at(v)][at(c)]) << what << " sends chunk " << c;
          EXPECT_FALSE(received.contains(c)) << what << " sends and receives chunk " << c;
          if (r.to != 0) next[at(r.to)][at(c)] = true;
        }
      }
      holds = std::move(next);
    }
    int expected_rounds = 0;
    while ((1 << expected_rounds) < size) ++expected_rounds;
    EXPECT_EQ(rounds, expected_rounds) << "P=" << size;
    for (int v = 0; v < size; ++v) {
      for (int c = 0; c < size; ++c) {
        EXPECT_TRUE(holds[at(v)][at(c)]) << "P=" << size << " vrank " << v << " chunk " << c;
      }
    }
  }
}

// scatter_doubling_allgather.cpp: the ring's scatter (checked above), then each round's messages,
// a run that wraps past the last chunk as two, none into the root, each in lock-step and after
// everything its sender sent and received the round before.
TEST(BcastSchedule, ScatterDoublingAllgatherScattersThenDoubles) {
  for (int size : kSizes) {
    for (int root : roots(size)) {
      for (std::uint64_t bytes : {std::uint64_t{1}, std::uint64_t{7}, std::uint64_t{1000},
                                  std::uint64_t{1} << 20}) {
        const CallShape call{Collective::bcast, size, bytes, root};
        const std::string what = describe("bcast.scatter_doubling_allgather", call, {});
        const Schedule s = bcast_scatter_doubling_allgather(call, {});
        expect_well_formed(s, size, what);
        EXPECT_EQ(bcast_scatter_doubling_allgather_size(call, {}), s.messages.size()) << what;
        if (size == 1) {
          EXPECT_TRUE(s.messages.empty()) << what;
          continue;
        }
        const Chunks chunks(bytes, size);
        const Schedule ring = bcast_scatter_allgather(call, {});
        std::size_t x = 0;
        std::vector<std::set<int>> waits(at(size));
        for (; x + 1 < at(size); ++x) {  // the same scatter as the ring's
          const Message& m = s.messages[x];
          EXPECT_EQ(m.src, ring.messages[x].src) << what;
          EXPECT_EQ(m.dst, ring.messages[x].dst) << what;
          EXPECT_EQ(m.bytes, ring.messages[x].bytes) << what;
          EXPECT_FALSE(m.unposted) << what;
          waits[at(to_vrank(m.dst, root, size))] = {static_cast<int>(x)};
        }
        for (std::size_t y = 0; y < x; ++y) {
          waits[at(to_vrank(s.messages[y].src, root, size))].insert(static_cast<int>(y));
        }
        for (int d = 1; d < size; d *= 2) {
          std::vector<std::set<int>> next(at(size));
          for (int v = 0; v < size; ++v) {
            const DoublingRound r = doubling_round(v, size, d);
            if (r.to == 0) continue;
            for (const ChunkRun run : chunk_runs(r.send_first, r.count, size)) {
              if (run.count == 0) continue;
              ASSERT_LT(x, s.messages.size()) << what;
              const Message& m = s.messages[x];
              EXPECT_EQ(to_vrank(m.src, root, size), v) << what << " message " << x;
              EXPECT_EQ(to_vrank(m.dst, root, size), r.to) << what << " message " << x;
              EXPECT_EQ(m.bytes, chunks.bytes(run.first, run.count)) << what << " message " << x;
              EXPECT_TRUE(m.unposted) << what << " message " << x;
              // The first round waits for the scatter message and the sender's last scatter
              // send (its earlier sends precede it); a later one for the whole round before.
              const std::set<int> after(m.after.begin(), m.after.end());
              if (d == 1) {
                EXPECT_TRUE(std::includes(waits[at(v)].begin(), waits[at(v)].end(),
                                          after.begin(), after.end()))
                    << what << " message " << x;
                if (v != 0) { EXPECT_FALSE(after.empty()) << what << " message " << x; }
              } else {
                EXPECT_EQ(after, waits[at(v)]) << what << " message " << x;
              }
              next[at(v)].insert(static_cast<int>(x));
              next[at(r.to)].insert(static_cast<int>(x));
              ++x;
            }
          }
          waits = std::move(next);
        }
        EXPECT_EQ(x, s.messages.size()) << what;
      }
    }
  }
}

TEST(BcastSchedule, SplitBinarySendsEachHalfDownItsSubtreeThenSwaps) {
  const AlgorithmView* a = find_algorithm(Collective::bcast, "bcast.split_binary");
  ASSERT_NE(a, nullptr);
  for_each_bcast_call([&](const CallShape& call, const AlgoParams& params) {
    const int size = call.comm_size;
    const int root = call.root;
    const std::uint64_t bytes = call.bytes;
    const std::uint64_t segment = params.segment_bytes;
    const std::string what = describe(a->name, call, params);
    const Schedule s = a->schedule(call, params);
    expect_well_formed(s, size, what);
    if (size == 1 || bytes == 0) {
      EXPECT_TRUE(s.messages.empty()) << what;
      return;
    }
    const SplitHalves halves(bytes);
    const auto cut = [&](int half) {
      const std::uint64_t b = halves.bytes(half);
      return segment == 0 || segment >= b ? b : segment;
    };
    const auto segments = [&](int half) {
      const std::uint64_t b = halves.bytes(half);
      return b == 0 ? 0 : static_cast<int>((b + cut(half) - 1) / cut(half));
    };
    const Totals totals(s);
    const Received received(s);
    std::vector<int> sent(at(size) * at(size), 0);  // tree messages per edge
    int swaps = 0;
    for (std::size_t x = 0; x < s.messages.size(); ++x) {
      const Message& m = s.messages[x];
      const int from = to_vrank(m.src, root, size);
      const int to = to_vrank(m.dst, root, size);
      if (m.unposted) {
        ++swaps;
        const SplitHalves::Swap swap = SplitHalves::swap(from, size);
        EXPECT_EQ(swap.peer, to) << what << " message " << x;
        EXPECT_EQ(m.bytes, halves.bytes(swap.send)) << what << " message " << x;
        if (from != 0) {
          EXPECT_EQ(received.before(x, m.src), segments(SplitHalves::half_of(from)))
              << what << " message " << x;
        }
        // Its receive is posted with the receiver's own swap, once it has its last segment (the
        // root and a receiver of an empty half have none).
        if (to == 0 || segments(SplitHalves::half_of(to)) == 0) {
          EXPECT_EQ(m.posted_after, -1) << what << " message " << x;
        } else {
          ASSERT_GE(m.posted_after, 0) << what << " message " << x;
          const auto last = static_cast<std::size_t>(m.posted_after);
          EXPECT_EQ(s.messages[last].dst, m.dst) << what << " message " << x;
          int through_last = 0;  // tree messages to the receiver up to that one
          for (std::size_t y = 0; y <= last; ++y) {
            const Message& n = s.messages[y];
            through_last += n.dst == m.dst && !n.unposted ? 1 : 0;
          }
          EXPECT_FALSE(s.messages[last].unposted) << what << " message " << x;
          EXPECT_EQ(through_last, segments(SplitHalves::half_of(to))) << what << " message " << x;
        }
        continue;
      }
      EXPECT_EQ(tree_node(TreeShape::level_binary, to, size).parent, from)
          << what << " message " << x;
      const int half = SplitHalves::half_of(to);
      const int seq = ++sent[at(from) * at(size) + at(to)];
      EXPECT_LE(seq, segments(half)) << what << " message " << x;
      if (seq < segments(half)) {
        EXPECT_EQ(m.bytes, cut(half)) << what << " message " << x;
      }
      if (from != 0) {
        EXPECT_GE(received.before(x, m.src), seq) << what << " message " << x;
      }
    }
    EXPECT_EQ(swaps, size - 1) << what;
    EXPECT_EQ(a->schedule_size(call, params), s.messages.size()) << what;
    for (int r = 0; r < size; ++r) {
      EXPECT_EQ(totals.in[at(r)], r == root ? 0 : bytes) << what << " rank " << r;
    }
  });
}

// The engine supports rendezvous with segments although no registered algorithm uses both: its
// schedule must still be ordered and causal (a node's ready i+1 precedes its sends of segment i).
TEST(BcastSchedule, SegmentedRendezvousIsOrderedAndCausal) {
  for (TreeShape shape :
       {TreeShape::flat, TreeShape::chain, TreeShape::binary, TreeShape::binomial}) {
    for (int size : kSizes) {
      for (int root : roots(size)) {
        const CallShape call{Collective::bcast, size, 1000, root};
        const Schedule s = tree_broadcast(call, {shape, 300, true});
        const std::string what = "rendezvous segmented shape " +
                                 std::to_string(static_cast<int>(shape)) + " P=" +
                                 std::to_string(size) + " root " + std::to_string(root);
        check_bcast(s, call, 300, true, what);
        // A rank sends ready i while it waits for segment i-1 (the engine's two receive slots),
        // so not before segment i-2 has arrived, leaves included.
        const Received received(s);
        std::vector<int> readies(at(size), 0);
        for (std::size_t x = 0; x < s.messages.size(); ++x) {
          const Message& m = s.messages[x];
          const int child = to_vrank(m.src, root, size);
          if (m.bytes != 0 || tree_node(shape, child, size).parent != to_vrank(m.dst, root, size)) {
            continue;
          }
          const int i = readies[at(m.src)]++;
          EXPECT_GE(received.before(x, m.src), i - 1) << what << " ready " << i;
        }
      }
    }
  }
}

int ceil_log2(int p) {
  int j = 0;
  while ((1 << j) < p) ++j;
  return j;
}

// Children are served one at a time (tree_engine.cpp): child j of a node receives j messages
// after the node did. The schedule must serialise exactly that.
int sequential_tree_depth(TreeShape shape, int size) {
  std::vector<int> arrival(at(size), 0);
  int deepest = 0;
  for (int v = 0; v < size; ++v) {
    const TreeNode node = tree_node(shape, v, size);
    for (std::size_t j = 0; j < node.children.size(); ++j) {
      arrival[at(node.children[j])] = arrival[at(v)] + static_cast<int>(j) + 1;
      deepest = std::max(deepest, arrival[at(node.children[j])]);
    }
  }
  return deepest;
}

TEST(BcastSchedule, UnsegmentedTreesSerialiseEachNodesSends) {
  const std::pair<std::string_view, TreeShape> trees[] = {{"bcast.flat", TreeShape::flat},
                                                          {"bcast.chain", TreeShape::chain},
                                                          {"bcast.binary", TreeShape::binary},
                                                          {"bcast.binomial", TreeShape::binomial}};
  for (const auto& [name, shape] : trees) {
    const AlgorithmView* a = find_algorithm(Collective::bcast, name);
    ASSERT_NE(a, nullptr);
    for (int size : kSizes) {
      const Schedule s = a->schedule({Collective::bcast, size, 1000, size / 2}, {});
      EXPECT_EQ(depth(s), sequential_tree_depth(shape, size)) << name << " P=" << size;
    }
  }
  for (int size : kSizes) {
    const CallShape call{Collective::bcast, size, 1000, 0};
    EXPECT_EQ(depth(bcast_flat(call, {})), size - 1);
    EXPECT_EQ(depth(bcast_chain(call, {})), size - 1);
    // Table 1's ceil(log2 P) rounds: the root's children, one after the other.
    EXPECT_EQ(depth(bcast_binomial(call, {})), ceil_log2(size)) << "P=" << size;
  }
}

TEST(BcastSchedule, BinomialAtEightRanks) {
  const Schedule s = bcast_binomial({Collective::bcast, 8, 4096, 3}, {});
  ASSERT_EQ(s.messages.size(), 7u);
  // The root (rank 3) serves vranks 4, 2, 1, i.e. ranks 7, 5, 4, in that order, each after the
  // previous one completed.
  EXPECT_EQ(s.messages[0].src, 3);
  EXPECT_EQ(s.messages[0].dst, 7);
  EXPECT_TRUE(s.messages[0].after.empty());
  EXPECT_EQ(s.messages[1].dst, 5);
  EXPECT_EQ(s.messages[1].after, std::vector<int>{0});
  EXPECT_EQ(s.messages[2].dst, 4);
  EXPECT_EQ(s.messages[2].after, std::vector<int>{1});
  for (const Message& m : s.messages) EXPECT_EQ(m.bytes, 4096u);
  EXPECT_EQ(depth(s), 3);
}

TEST(BcastSchedule, FlatSegmentedIsSegmentMajorAndSerial) {
  const Schedule s = bcast_flat_segmented({Collective::bcast, 4, 10, 0}, {.segment_bytes = 4});
  ASSERT_EQ(s.messages.size(), 9u);
  const std::uint64_t bytes[] = {4, 4, 4, 4, 4, 4, 2, 2, 2};
  for (std::size_t i = 0; i < 9; ++i) {
    EXPECT_EQ(s.messages[i].src, 0);
    EXPECT_EQ(s.messages[i].dst, static_cast<int>(i % 3) + 1);
    EXPECT_EQ(s.messages[i].bytes, bytes[i]) << i;
  }
  EXPECT_EQ(depth(s), 9);  // (P-1) k sends, each after the previous: Table 1's (P-1) g(s) k
}

TEST(BcastSchedule, ChainSegmentedPipelines) {
  // (P-1) + (k-1) steps: Table 1's (P-1)(g(s) + L) + g(s)(k-1).
  for (int size : {2, 3, 5, 9}) {
    const Schedule s =
        bcast_chain_segmented({Collective::bcast, size, 1000, 1 % size}, {.segment_bytes = 100});
    EXPECT_EQ(s.messages.size(), at(size - 1) * 10);
    EXPECT_EQ(depth(s), size - 1 + 9) << "P=" << size;
  }
}

TEST(BcastSchedule, RendezvousHandshakes) {
  for (int size : {2, 3, 5, 8}) {
    const CallShape call{Collective::bcast, size, 1000, 0};
    // chain: request, ready, data per hop, hop after hop
    const Schedule chain = bcast_chain_rendezvous(call, {});
    EXPECT_EQ(chain.messages.size(), at(3 * (size - 1)));
    EXPECT_EQ(depth(chain), 3 * (size - 1)) << "P=" << size;
    // flat: P-1 requests in a row, then each child's ready and data in turn, the first data
    // after the last request: 2(P-1) steps, and 3 for the lone handshake at P = 2
    EXPECT_EQ(depth(bcast_flat_rendezvous(call, {})), std::max(3, 2 * (size - 1))) << "P=" << size;
  }
  const Schedule s = bcast_flat_rendezvous({Collective::bcast, 3, 1000, 0}, {});
  // requests to 1 and 2, ready from 1, data to 1, ready from 2, data to 2
  ASSERT_EQ(s.messages.size(), 6u);
  EXPECT_EQ(s.messages[0].bytes, 0u);
  EXPECT_EQ(s.messages[1].after, std::vector<int>{0});
  EXPECT_EQ(s.messages[2].src, 1);
  EXPECT_EQ(s.messages[2].after, std::vector<int>{0});
  EXPECT_EQ(s.messages[3].bytes, 1000u);
  EXPECT_EQ(s.messages[3].after, (std::vector<int>{2, 1}));
}

// --- Scatter ---

TEST(ScatterSchedule, EveryRankKeepsItsBlockAndForwardsOnlyWhatArrived) {
  for (const auto& a : catalog(Collective::scatter)) {
    for (int size : kSizes) {
      for (int root : roots(size)) {
        for (std::uint64_t bytes : kBytes) {
          const CallShape call{Collective::scatter, size, bytes, root};
          const std::string what = describe(a.name, call, {});
          const Schedule s = a.schedule(call, {});
          expect_well_formed(s, size, what);
          if (bytes == 0 || size == 1) continue;
          const Totals totals(s);
          const Received received(s);
          EXPECT_EQ(s.messages.size(), at(size - 1)) << what;
          for (int r = 0; r < size; ++r) {
            if (r == root) {
              EXPECT_EQ(totals.in[at(r)], 0u) << what;
              EXPECT_EQ(totals.out[at(r)], at(size - 1) * bytes) << what;
            } else {
              EXPECT_EQ(totals.in[at(r)] - totals.out[at(r)], bytes) << what << " rank " << r;
            }
          }
          for (std::size_t x = 0; x < s.messages.size(); ++x) {
            if (s.messages[x].src != root) {
              EXPECT_EQ(received.before(x, s.messages[x].src), 1) << what << " message " << x;
            }
          }
        }
      }
    }
  }
}

TEST(ScatterSchedule, Shapes) {
  const std::uint64_t m = 100;
  // flat: P-1 sends posted at once
  const Schedule flat = scatter_flat({Collective::scatter, 6, m, 2}, {});
  for (const Message& msg : flat.messages) {
    EXPECT_EQ(msg.src, 2);
    EXPECT_EQ(msg.bytes, m);
    EXPECT_TRUE(msg.after.empty());
  }
  EXPECT_EQ(depth(flat), 1);
  // chain: hop v carries the P-v blocks of vranks v..P-1
  const Schedule chain = scatter_chain({Collective::scatter, 6, m, 2}, {});
  ASSERT_EQ(chain.messages.size(), 5u);
  for (int v = 1; v < 6; ++v) {
    EXPECT_EQ(chain.messages[at(v - 1)].dst, (v + 2) % 6);
    EXPECT_EQ(chain.messages[at(v - 1)].bytes, at(6 - v) * m);
  }
  EXPECT_EQ(depth(chain), 5);
  // binomial, P = 8: the root sends 4, 2, 1 blocks to vranks 4, 2, 1, one after the other;
  // Table 2's sum of g(2^j m) over ceil(log2 P) = 3 steps
  const Schedule binomial = scatter_binomial({Collective::scatter, 8, m, 3}, {});
  ASSERT_EQ(binomial.messages.size(), 7u);
  const int dst[] = {7, 5, 4};
  const std::uint64_t blocks[] = {4, 2, 1};
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(binomial.messages[i].src, 3);
    EXPECT_EQ(binomial.messages[i].dst, dst[i]);
    EXPECT_EQ(binomial.messages[i].bytes, blocks[i] * m);
  }
  EXPECT_EQ(depth(binomial), 3);
}

// --- All-to-All ---

std::uint64_t bruck_blocks(int size) {
  std::uint64_t total = 0;
  for (int d = 1; d < size; d <<= 1) {
    for (int i = 0; i < size; ++i) total += (i & d) ? 1 : 0;
  }
  return total;
}

int effective_window(int window, int size) {
  return window <= 0 || window > size - 1 ? size - 1 : window;
}

TEST(AlltoallSchedule, EveryRankReceivesWhatTheAlgorithmMoves) {
  for (const auto& a : catalog(Collective::alltoall)) {
    const bool bruck = a.name == "alltoall.bruck";
    const bool mesh = a.name == "alltoall.mesh2d";
    for (int size : kSizes) {
      for (std::uint64_t bytes : kBytes) {
        for (int window : kWindows) {
          const CallShape call{Collective::alltoall, size, bytes, 0};
          const AlgoParams params{.segment_bytes = 0, .window = window};
          const std::string what = describe(a.name, call, params);
          const Schedule s = a.schedule(call, params);
          expect_well_formed(s, size, what);
          if (bytes == 0 || size == 1) continue;
          const auto [rows, cols] = models::alltoall::mesh_grid(size);
          std::uint64_t moved = bruck ? bruck_blocks(size) * bytes : at(size - 1) * bytes;
          if (mesh) moved = at((cols - 1) * rows + (rows - 1) * cols) * bytes;
          const Totals totals(s);
          for (int r = 0; r < size; ++r) {
            EXPECT_EQ(totals.in[at(r)], moved) << what << " rank " << r;
            EXPECT_EQ(totals.out[at(r)], moved) << what << " rank " << r;
          }
          if (!bruck && !mesh) {
            // one block from every other rank
            std::set<std::pair<int, int>> pairs;
            for (const Message& m : s.messages) {
              EXPECT_EQ(m.bytes, bytes) << what;
              EXPECT_TRUE(pairs.insert({m.src, m.dst}).second) << what;
            }
            EXPECT_EQ(pairs.size(), at(size) * at(size - 1)) << what;
          }
          int rounds = size - 1;
          if (a.name == "alltoall.all_at_once") rounds = 1;
          if (a.name == "alltoall.windowed") {
            const int k = effective_window(window, size);
            rounds = (size - 1 + k - 1) / k;
          }
          if (bruck) rounds = ceil_log2(size);
          if (mesh) rounds = rows == 1 ? 1 : 2;
          EXPECT_EQ(depth(s), rounds) << what;
        }
      }
    }
  }
}

TEST(AlltoallSchedule, DirectExchangeRounds) {
  const int n = 5;
  const Schedule s = alltoall_direct_exchange({Collective::alltoall, n, 10, 0}, {});
  ASSERT_EQ(s.messages.size(), at(n * (n - 1)));
  for (int t = 1; t < n; ++t) {
    for (int r = 0; r < n; ++r) {
      const Message& m = s.messages[at((t - 1) * n + r)];
      EXPECT_EQ(m.src, r);
      EXPECT_EQ(m.dst, (r + t) % n);
      if (t == 1) {
        EXPECT_TRUE(m.after.empty());
      } else {
        // the Sendrecv of round t-1: this rank's send and the block it received from r-(t-1)
        const Message& own = s.messages[at(m.after.at(0))];
        const Message& in = s.messages[at(m.after.at(1))];
        EXPECT_EQ(own.src, r);
        EXPECT_EQ(own.dst, (r + t - 1) % n);
        EXPECT_EQ(in.src, (r - (t - 1) + n) % n);
        EXPECT_EQ(in.dst, r);
      }
    }
  }
}

TEST(AlltoallSchedule, PairwiseMatchesPairsWhenPowerOfTwo) {
  const int n = 8;
  const Schedule s = alltoall_pairwise({Collective::alltoall, n, 10, 0}, {});
  for (std::size_t i = 0; i < s.messages.size(); ++i) {
    const int t = static_cast<int>(i) / n + 1;
    const Message& m = s.messages[i];
    EXPECT_EQ(m.dst, m.src ^ t);
    for (int a : m.after) {  // the previous round's exchange of this rank, either direction
      const Message& p = s.messages[at(a)];
      EXPECT_TRUE(p.src == m.src || p.dst == m.src);
      EXPECT_EQ(p.src ^ p.dst, t - 1);
    }
  }
  // not a power of two: direct exchange's rounds
  const CallShape six{Collective::alltoall, 6, 10, 0};
  const Schedule a = alltoall_pairwise(six, {});
  const Schedule b = alltoall_direct_exchange(six, {});
  ASSERT_EQ(a.messages.size(), b.messages.size());
  for (std::size_t i = 0; i < a.messages.size(); ++i) {
    EXPECT_EQ(a.messages[i].dst, b.messages[i].dst);
    EXPECT_EQ(a.messages[i].after, b.messages[i].after);
  }
}

TEST(AlltoallSchedule, WindowedReusesTheSlotOfExchangeTMinusK) {
  const int n = 9, k = 3;
  const Schedule s = alltoall_windowed({Collective::alltoall, n, 10, 0}, {.window = k});
  for (int t = 1; t < n; ++t) {
    for (int r = 0; r < n; ++r) {
      const Message& m = s.messages[at((t - 1) * n + r)];
      if (t <= k) {
        EXPECT_TRUE(m.after.empty()) << "t=" << t;
        continue;
      }
      ASSERT_EQ(m.after.size(), 2u);
      EXPECT_EQ(s.messages[at(m.after[0])].dst, (r + t - k) % n);
      EXPECT_EQ(s.messages[at(m.after[1])].src, (r - (t - k) + n) % n);
      EXPECT_EQ(s.messages[at(m.after[1])].dst, r);
    }
  }
  // All at once: every message free to go, in MPICH's and Open MPI's order (round t to r-t).
  const Schedule all = alltoall_all_at_once({Collective::alltoall, n, 10, 0}, {});
  ASSERT_EQ(all.messages.size(), at(n * (n - 1)));
  for (std::size_t i = 0; i < all.messages.size(); ++i) {
    const Message& m = all.messages[i];
    const int t = static_cast<int>(i) / n + 1;
    EXPECT_TRUE(m.after.empty());
    EXPECT_EQ(m.dst, (m.src - t + n) % n) << "t=" << t;
  }
}

TEST(AlltoallSchedule, BruckSendsThePackedRoundSizes) {
  // Blocks per round: slots i in [0, n) with bit j set.
  const std::pair<int, std::vector<std::uint64_t>> cases[] = {
      {5, {2, 2, 1}}, {6, {3, 2, 2}}, {8, {4, 4, 4}}, {2, {1}}};
  for (const auto& [n, blocks] : cases) {
    const Schedule s = alltoall_bruck({Collective::alltoall, n, 10, 0}, {});
    ASSERT_EQ(s.messages.size(), at(n) * blocks.size()) << "n=" << n;
    for (std::size_t i = 0; i < s.messages.size(); ++i) {
      const std::size_t j = i / at(n);
      const Message& m = s.messages[i];
      EXPECT_EQ(m.bytes, blocks[j] * 10) << "n=" << n << " round " << j;
      EXPECT_EQ(m.dst, (m.src + (1 << j)) % n);
    }
  }
}

TEST(AlltoallSchedule, MeshGoesAlongTheRowThenAlongTheColumn) {
  const int n = 12, rows = 3, cols = 4;
  const Schedule s = alltoall_mesh2d({Collective::alltoall, n, 10, 0}, {});
  ASSERT_EQ(s.messages.size(), at(n * (cols - 1 + rows - 1)));
  EXPECT_EQ(alltoall_mesh2d_size({Collective::alltoall, n, 10, 0}, {}), s.messages.size());
  const std::size_t first = at(n * (cols - 1));
  for (std::size_t i = 0; i < s.messages.size(); ++i) {
    const Message& m = s.messages[i];
    const int t = static_cast<int>(i < first ? i : i - first) / n + 1;
    if (i < first) {  // the row's rows-block messages, all free to go, to column k - t
      EXPECT_EQ(m.dst / cols, m.src / cols);
      EXPECT_EQ(m.dst % cols, (m.src % cols - t + cols) % cols);
      EXPECT_EQ(m.bytes, at(rows) * 10);
      EXPECT_TRUE(m.after.empty());
      continue;
    }
    // the column's cols-block messages, to row i - t, after all of the rank's phase-1 messages
    EXPECT_EQ(m.dst % cols, m.src % cols);
    EXPECT_EQ(m.dst / cols, (m.src / cols - t + rows) % rows);
    EXPECT_EQ(m.bytes, at(cols) * 10);
    ASSERT_EQ(m.after.size(), at(2 * (cols - 1)));
    for (int a : m.after) {
      const Message& p = s.messages[at(a)];
      EXPECT_LT(at(a), first);
      EXPECT_TRUE(p.src == m.src || p.dst == m.src);
    }
  }
  // A prime P is one row: one phase, every message free.
  const Schedule prime = alltoall_mesh2d({Collective::alltoall, 7, 10, 0}, {});
  EXPECT_EQ(prime.messages.size(), 42u);
  EXPECT_EQ(depth(prime), 1);
}

TEST(AlltoallSchedule, SixtyFourRanksStayCheap) {
  // Emitted at decision time: P (P-1) messages with two dependencies each.
  const Schedule s = alltoall_windowed({Collective::alltoall, 64, 1000, 0}, {.window = 4});
  EXPECT_EQ(s.messages.size(), 64u * 63u);
  EXPECT_EQ(depth(s), 16);
}

}  // namespace
}  // namespace collsel::schedule
