#include "models/plogp/bcast.hpp"

#include <algorithm>
#include <bit>

#include "models/plogp/scatter.hpp"

namespace collsel::models::plogp {
namespace {

// Nothing is sent for a lone rank or an empty message, so every model costs 0 there; this also
// keeps log2 and (P - 1) away from their degenerate values.
bool nothing_sent(int P, std::uint64_t m) { return P <= 1 || m == 0; }

// Segments of the segmented models. No segment size, or one at least as large as the message,
// is one segment of the whole message, so each segmented model reduces to its plain twin.
struct Segments {
  std::uint64_t size;
  double count;
};

Segments split(std::uint64_t m, std::uint64_t s) {
  if (s == 0 || s >= m) return {m, 1.0};
  return {s, static_cast<double>(ceil_div(m, s))};
}

double others(int P) { return static_cast<double>(P - 1); }

// Which gap (docs/MODELS.md, "Two gaps"): a message to a receiver already waiting for it (a
// tree's whole message, a pipeline's first segment: every receiver posts its first receive on
// entry) costs the posted pair (g_p, L_p); a pipeline's later segments follow one another to the
// same receiver, which keeps two receives posted (the next one posted as it waits for the
// current one: selector/bcast/tree_engine.cpp), so they cost the pipeline gap g_2, measured with
// exactly that discipline ("Two receives ahead"; the stream gap g without the column). One
// segment is then exactly the plain twin. Without a posted column the two pairs are equal.
double gp(const Params& p, std::uint64_t m) { return p.posted_gap_s(m); }
// L_p at the size of the message (or segment) a hop carries (docs/MODELS.md, "One-way time").
double Lp(const Params& p, std::uint64_t m) { return p.posted_latency_s(m); }

// A sender's k segments to one receiver: the first posted, the others pipelined (Table 1's
// g(s) k with the first g(s) read as g_p(s) and the others as g_2(s)).
double segments_to_one(const Params& p, const Segments& seg) {
  return gp(p, seg.size) + p.pipeline_gap_s(seg.size) * (seg.count - 1.0);
}

// A chain of k segments over P - 1 hops: the first segment crosses every hop at the posted pair,
// each later one arrives `spacing` behind it, and the first is held back `first_delay` at each of
// the P - 2 inner hops by the segments in flight with it (bcast_chain_segmented and
// bcast_chain_preposted, which differ in the spacing and in how many segments share a hop).
double chain_of_segments(const Params& p, int P, const Segments& seg, double spacing,
                         double first_delay) {
  return others(P) * (gp(p, seg.size) + Lp(p, seg.size)) + spacing * (seg.count - 1.0) +
         first_delay * (P - 2);
}

// The request and the acknowledgement are each a 1-byte message (g(1) + L each) before the data
// message's own L: 2 g(1) + 3 L per rendezvous hop (seed 001 Table 1). A rendezvous runs in
// lock-step: a parent posts the receive of a child's acknowledgement only once it has served the
// previous child, so every message of a rendezvous variant costs the stream pair.
double handshake(const Params& p) { return 2.0 * p.gap_s(1) + 3.0 * p.latency_s; }

// Shared fan-out (docs/MODELS.md, "Shared fan-out"): a binomial node with k children completes
// each send before the next, but where a completed send has not yet left the sender (an eager
// message copied into a buffer) its k messages share the link, and the first child, root of the
// largest subtree, waits sigma (k - 1) times a child's message more than seed 001's formula
// charges. Along the critical path (k = floor(log2 P), ..., 1) that adds sigma k (k - 1) / 2
// such messages. A pipeline's segments are in flight together too, but never more than two per
// child (each receiver keeps two receives posted, selector/bcast/tree_engine.cpp, and SMPI starts
// a transfer once its receive is posted), so a child's message is its first two segments
// (segments_to_one of at most two), at the segment's sigma: charging all its segments
// over-predicted 64 KiB in 8 segments on simulated fast-ethernet at 1 per node by 84-123 %,
// charging one segment under-predicted by 21-26 % (docs/BENCHMARKS.md, "At scale"). A binary
// node's two children already both cost 2 g(m) per level, and flat and chain have no first child
// to delay, so only the three binomial trees change; sigma = 0 (no column) is seed 001's formula.
double shared_fanout(const Params& p, int P, std::uint64_t unit, double per_child_s) {
  const double sigma = p.fanout_share(unit);
  if (sigma <= 0.0) return 0.0;
  const auto k = static_cast<double>(floor_log2(static_cast<std::uint64_t>(P)));
  return sigma * per_child_s * k * (k - 1.0) / 2.0;
}

// The most and the fewest set bits of an integer in [lo, hi), lo < hi. Most: below x = hi - 1, a
// number with more bits keeps x's bits above some set bit k of x, clears k and sets all below it;
// fewest: rounding lo up to ever larger powers of two (adding its lowest set bit) never adds bits,
// and some such rounding has no more bits than any number of the range.
int most_bits(std::uint64_t lo, std::uint64_t hi) {
  const std::uint64_t x = hi - 1;
  int best = std::popcount(x);
  for (int k = 0; k < 64; ++k) {
    const std::uint64_t bit = std::uint64_t{1} << k;
    if ((x & bit) == 0) continue;
    const std::uint64_t y = (x & ~bit) | (bit - 1);
    if (y >= lo) best = std::max(best, std::popcount(y));
  }
  return best;
}

int fewest_bits(std::uint64_t lo, std::uint64_t hi) {
  std::uint64_t x = lo;
  while (x != 0 && x + (x & (~x + 1)) < hi) x += x & (~x + 1);
  return std::popcount(x);
}

}  // namespace

int floor_log2(std::uint64_t x) { return x <= 1 ? 0 : std::bit_width(x) - 1; }

int ceil_log2(std::uint64_t x) { return x <= 1 ? 0 : std::bit_width(x - 1); }

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) {
  if (b == 0) b = 1;
  // a / b + remainder test: a + b - 1 would overflow near 2^64.
  return a / b + (a % b != 0 ? 1 : 0);
}

double bcast_flat(const Params& p, int P, std::uint64_t m) {
  if (nothing_sent(P, m)) return 0.0;
  return others(P) * gp(p, m) + Lp(p, m);
}

double bcast_flat_rendezvous(const Params& p, int P, std::uint64_t m) {
  if (nothing_sent(P, m)) return 0.0;
  return others(P) * p.gap_s(m) + handshake(p);
}

double bcast_flat_segmented(const Params& p, int P, std::uint64_t m, std::uint64_t s) {
  if (nothing_sent(P, m)) return 0.0;
  const Segments seg = split(m, s);
  return others(P) * segments_to_one(p, seg) + Lp(p, seg.size);
}

double bcast_chain(const Params& p, int P, std::uint64_t m) {
  if (nothing_sent(P, m)) return 0.0;
  return others(P) * (gp(p, m) + Lp(p, m));
}

double bcast_chain_rendezvous(const Params& p, int P, std::uint64_t m) {
  if (nothing_sent(P, m)) return 0.0;
  return others(P) * (p.gap_s(m) + handshake(p));
}

double bcast_chain_segmented(const Params& p, int P, std::uint64_t m, std::uint64_t s) {
  if (nothing_sent(P, m)) return 0.0;
  const Segments seg = split(m, s);
  // The first segment crosses P - 1 hops; each further one arrives one pipeline gap later. With
  // two receives posted, the first two segments are in flight to each node together; where they
  // share the link (pair share tau) the first one reaches each of the P - 1 nodes tau g_p(s)
  // later, and the second one with it, which takes one share off the tail: (P - 2) tau g_p(s)
  // in all (docs/MODELS.md, "Two receives ahead"). tau = 0 (no column) is seed 001's formula.
  // From P = 3 on, the last node's segments come from a node that forwards them: each costs it
  // o_s + o_r at least (the forwarding gap).
  const double pair = seg.count >= 2.0 ? p.pair_share(seg.size) * gp(p, seg.size) : 0.0;
  const double spacing = P >= 3 ? p.forwarding_gap_s(seg.size) : p.pipeline_gap_s(seg.size);
  return chain_of_segments(p, P, seg, spacing, pair);
}

double bcast_chain_preposted(const Params& p, int P, std::uint64_t m, std::uint64_t s) {
  if (nothing_sent(P, m)) return 0.0;
  const Segments seg = split(m, s);
  // bcast_chain_segmented's terms, each later segment finding its receive posted: it follows the
  // previous one g_p(s) later, and from P = 3 on no less than the forwarder's o_s + o_r. But up
  // to w = min(k, 64) segments are in flight to a node, not two, and where they share the link
  // (pair share tau) the first one reaches each node (w - 1) tau g_p(s) late, less one such delay
  // off the tail: (P - 2) (w - 1) tau g_p(s), which is chain_segmented's pair term at w = 2. On
  // simulated gige and fast-ethernet at P = 16, 1 per node, charging two segments' pair term
  // only predicted 64 KiB-4 MiB 27-84 % short; with every segment in flight charged, within
  // 4-15 % (docs/BENCHMARKS.md, "At scale").
  const double in_flight = std::min(seg.count, static_cast<double>(kChainPrepostedReceives));
  const double shared = p.pair_share(seg.size) * gp(p, seg.size) * (in_flight - 1.0);
  const double spacing =
      P >= 3 ? std::max(gp(p, seg.size), p.send_overhead_s(seg.size) + p.recv_overhead_s(seg.size))
             : gp(p, seg.size);
  return chain_of_segments(p, P, seg, spacing, shared);
}

double bcast_binary(const Params& p, int P, std::uint64_t m) {
  if (nothing_sent(P, m)) return 0.0;
  // Each level sends to two children one after the other: 2 g(m), then L to the deeper one.
  const auto depth = static_cast<double>(floor_log2(static_cast<std::uint64_t>(P)));
  return depth * (2.0 * gp(p, m) + Lp(p, m));
}

double bcast_binomial(const Params& p, int P, std::uint64_t m) {
  if (nothing_sent(P, m)) return 0.0;
  const auto P64 = static_cast<std::uint64_t>(P);
  return floor_log2(P64) * gp(p, m) + ceil_log2(P64) * Lp(p, m) + shared_fanout(p, P, m, gp(p, m));
}

double bcast_binomial_rendezvous(const Params& p, int P, std::uint64_t m) {
  if (nothing_sent(P, m)) return 0.0;
  const auto P64 = static_cast<std::uint64_t>(P);
  // The handshake staggers the sends by no more than the children's ready messages, which all
  // arrive about together: the data messages share the link as the plain tree's do.
  return floor_log2(P64) * p.gap_s(m) + ceil_log2(P64) * handshake(p) +
         shared_fanout(p, P, m, gp(p, m));
}

double bcast_binomial_segmented(const Params& p, int P, std::uint64_t m, std::uint64_t s) {
  if (nothing_sent(P, m)) return 0.0;
  const auto P64 = static_cast<std::uint64_t>(P);
  const Segments seg = split(m, s);
  const Segments in_flight{seg.size, std::min(seg.count, 2.0)};
  // Segment-major, as the tree engine sends (each segment to every child in turn, then the
  // next): the root's k children each take a posted send of every segment, so its segments
  // leave k g_p(s) apart at least. Its first child keeps two receives posted and posts the one
  // for segment i + 2 only once segment i has come and it has sent it on to its own k - 1
  // children: two segments per pipeline gap g_2(s) (measured with that very discipline between
  // two ranks) plus (k - 1) g_p(s) of forwarding, g_2(s) + (k - 1) g_p(s) / 2 per segment (on
  // simulated gige, 192-byte segments at P = 256 and 1024: 38 and 43 us measured, 37.8 and
  // 40.8 us so; k g_p(s) or g_2(s) alone, 24-30 us, predicted 4-16 KiB in 40-86 such segments
  // 15-25 % short). The first segment's path down the first children is seed 001's k (g + L);
  // every later segment follows it one spacing behind. With one gap (g_p = g_2 = g) the spacing
  // is k g and this is Table 1's log P (n g(s) + L) for P a power of two. Charging every level
  // n pipeline gaps (log P (g_p + (n - 1) g_2)), as before, predicted the tree in 10 segments at
  // P = 1024 on simulated gige 89 % long, and in 176-byte segments on fast-ethernet 35-60 %
  // long (docs/BENCHMARKS.md, "At scale").
  const auto k = static_cast<double>(floor_log2(P64));
  const double posted = gp(p, seg.size);
  const double spacing =
      std::max(k * posted, p.pipeline_gap_s(seg.size) + (k - 1.0) * posted / 2.0);
  return k * posted + ceil_log2(P64) * Lp(p, seg.size) + spacing * (seg.count - 1.0) +
         shared_fanout(p, P, seg.size, segments_to_one(p, in_flight));
}

double bcast_scatter_allgather(const Params& p, int P, std::uint64_t m) {
  if (nothing_sent(P, m)) return 0.0;
  const std::uint64_t c = ceil_div(m, static_cast<std::uint64_t>(P));
  // The scatter's receivers wait idle (posted pair); each ring step's receive is posted with its
  // send, as the neighbour's message comes (stream pair).
  return scatter_binomial(p, P, c) + (P - 1) * (p.gap_s(c) + p.latency_s);
}

double bcast_scatter_doubling_allgather(const Params& p, int P, std::uint64_t m) {
  if (nothing_sent(P, m)) return 0.0;
  const std::uint64_t c = ceil_div(m, static_cast<std::uint64_t>(P));
  // As the ring: the scatter's receivers wait idle (posted pair); a round's receive is posted
  // with its send, as the partner's message comes (stream pair).
  double rounds = 0.0;
  const auto P64 = static_cast<std::uint64_t>(P);
  for (std::uint64_t d = 1; d < P64; d *= 2) {
    rounds += p.gap_s(std::min(d, P64 - d) * c) + p.latency_s;
  }
  return scatter_binomial(p, P, c) + rounds;
}

// A vrank of level l at offset o = v - (2^l - 1) is reached through one edge per bit of o below
// l: bit j set, a second child on level j + 1 (selector/schedule/tree.cpp: a node's children keep
// its offset, or add 2^l). Levels 0 to D - 1, D = floor(log2 P), are full, so every first child
// there has its sibling and every path exists; the last level holds offsets [0, n),
// n = P - 2^D + 1, its first children (bit D - 1 clear) with a sibling when o + 2^(D-1) < n.
// So the latest arrival is the most (or the fewest, when a first child costs more) second-child
// edges over a range of offsets: O(log P), where walking the P vranks cost ~200 model
// evaluations x P per decision (1 ms at P = 1024; docs/BENCHMARKS.md, "At scale").
double level_binary_last_arrival(int P, double first_shared, double first_alone, double second) {
  const int D = floor_log2(static_cast<std::uint64_t>(P));
  if (D == 0) return 0.0;
  const std::uint64_t h = std::uint64_t{1} << (D - 1);
  const std::uint64_t n = static_cast<std::uint64_t>(P) - ((std::uint64_t{1} << D) - 1);
  const auto inner = static_cast<double>(D - 1);
  // Edges into levels 1 .. D - 1 of the offsets [lo, hi) on level D (their bits below D - 1).
  const auto path = [&](std::uint64_t lo, std::uint64_t hi) {
    const int ones = second >= first_shared ? most_bits(lo, hi) : fewest_bits(lo, hi);
    return ones * second + (inner - ones) * first_shared;
  };
  double last = inner * std::max(first_shared, second);  // level D - 1, every offset there
  if (n > h) {
    last = std::max(last, path(0, n - h) + std::max(second, first_shared));
  }
  const std::uint64_t lo = n > h ? n - h : 0;
  const std::uint64_t hi = std::min(n, h);
  if (lo < hi) last = std::max(last, path(lo, hi) + first_alone);
  return last;
}

double bcast_split_binary(const Params& p, int P, std::uint64_t m, std::uint64_t s) {
  if (nothing_sent(P, m)) return 0.0;
  // Phase one is a segmented binary tree carrying half the message, on Open MPI's level-order
  // tree (selector/schedule/tree.hpp, level_binary): every node, the root included, sends each
  // segment to its children in turn (the root one segment of each half), so the first segment
  // reaches a first child g_p(s) + L_p(s) after its parent had it and a second child one g_p(s)
  // later (level_binary_last_arrival). The tree is floor(log2 P) deep, but its deepest vranks
  // are first children, so charging 2 g_p(s) + L_p(s) per level predicted P = 16 on the fat
  // trees 22-27 % long (docs/BENCHMARKS.md, "The split binary tree"). A first child whose
  // sibling's message shares the link waits for it too (sigma, as bcast_binomial's shared
  // fan-out). Later segments follow at the spacing of bcast_binomial_segmented with d = 2
  // children. Phase two is one swap of a half with a twin, its receive posted with its send as
  // both reach it (the stream pair).
  // P even adds the root's send of the second half to the last vrank, which runs while the trees
  // still pipeline: not on the critical path.
  const std::uint64_t half = ceil_div(m, 2);
  const Segments seg = split(half, s);
  const double posted = gp(p, seg.size);
  const double hop = Lp(p, seg.size);
  const double sigma = p.fanout_share(seg.size);
  const Segments in_flight{seg.size, std::min(seg.count, 2.0)};
  const double shared = sigma > 0.0 ? sigma * segments_to_one(p, in_flight) : 0.0;
  const double first_segment =
      level_binary_last_arrival(P, posted + hop + shared, posted + hop, 2.0 * posted + hop);
  // From P = 5 on a first child forwards every segment to two children of its own: its CPU pays
  // o_r(s) + 2 o_s(s) a segment, which binds where the link is faster than the overheads
  // (simulated ib-fattree, 6320-byte segments: 1.53 us against 2 g_p(s) = 1.03 us; 1 MiB at
  // P = 16 took 174.8 us timed alone, predicted 134.3 us without it and 175.5 us with it).
  const double forwarding =
      P >= 5 ? p.recv_overhead_s(seg.size) + 2.0 * p.send_overhead_s(seg.size) : 0.0;
  const double spacing =
      std::max({2.0 * posted, p.pipeline_gap_s(seg.size) + posted / 2.0, forwarding});
  return first_segment + spacing * (seg.count - 1.0) + p.gap_s(half) + p.latency_s;
}

}  // namespace collsel::models::plogp
