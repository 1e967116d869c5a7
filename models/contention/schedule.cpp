// Placements of ranks on nodes and the schedule simulator (seed 002 section VI.A: an application's
// communication events, the cluster's nodes, the scheduling of tasks on nodes, and a network model;
// seed 003 section 3.2: the step-by-step solution of the dynamic contention graph).
//
// Timing of one message k of m bytes from rank s to rank d (pLogP, seed 001 section 2; alone it
// costs g(m) + L, as in seed 001's formulas):
//   posted   = g(m) - W(m) after the last of its dependencies is complete (the per-message
//              software cost; within a node max(0, g(m) - intra_alpha m));
//   transfer = W(m) rho over the network, W(m) = max(alpha m, g(m) - o_s(m) - w), w = g(0) -
//              o_s(0) if positive for an unposted message that is no handshake, else 0 (a
//              wait, not bytes: zero_byte_wait()), rho from the
//              penalty rule at every step (for a posted message, whose receive is waiting,
//              W(m) = max(alpha m, g_p(m)) where g_p(m) > o_s(m), else alpha m: network_cost()), or
//              m x intra_alpha when s and d share a node (no contention: outside the graph);
//   seen     = transfer end + L: by the receiver, and by every message that depends on k.
// A dependency on one of s's own earlier sends is complete at that send's transfer end, without
// L: a sender does not wait for its receiver to see the data (seed 001's flat tree charges
// (P-1) g(m) + L, not (P-1)(g(m) + L)). A rank's messages without dependencies (a flat
// Scatter's P-1 non-blocking sends, an All-to-All's first window) are posted one after the
// other, in schedule order, each F(m) after the previous one's post (F(m) = min(o_s(m), g_p(m))
// for a posted message whose o_s(m) is a CPU cost, else g(m) - W(m)): the sender's CPU pays the
// software cost of each (posting them all at F(m) predicted the P = 1024 flat Scatter of 16 B at
// 2.76 us against 822 us in closed form, docs/BENCHMARKS.md "At scale"). Their transfers, once
// posted, overlap: on the node's link they share by the penalty rule (seed 003's fair rule is
// the out-degree), and a copy within the node runs beside a transfer across the network.
// The collective completes when the last message is seen.
#include "models/contention/schedule.hpp"

#include <algorithm>
#include <optional>
#include <random>
#include <stdexcept>
#include <unordered_map>

#include <fmt/format.h>

#include "models/alltoall/contention.hpp"
#include "models/contention/rules.hpp"

namespace collsel::models::contention {
namespace {

// An unbiased draw in [0, bound) by rejection, written out rather than taken from
// std::uniform_int_distribution (whose algorithm the standard leaves to the library), so every
// rank of a job, and every build, derives the same random placement from the same seed.
std::uint64_t draw_below(std::mt19937_64& rng, std::uint64_t bound) {
  const std::uint64_t limit = std::mt19937_64::max() - std::mt19937_64::max() % bound;
  std::uint64_t x = rng();
  while (x >= limit) x = rng();
  return x % bound;
}

// What an unposted message's g has beyond o_s at zero bytes: a wait, not bytes on a link. In
// SMPI's stream pair a transfer starts when its receive is posted, so gige's g(1) = 53.5 us is
// o_s = 3 us and 50.5 us of latency; read as link time it was shared between a node's ranks,
// and the recursive-doubling rounds of a 1-byte Bcast at P = 16, 8 per node, were predicted
// 428 us where SMPI took 154 us (docs/BENCHMARKS.md, "The zero-byte wait"). The wait stays in
// the message's fixed part, so alone it still costs g(m) + L. Not for a handshake
// (Message::handshake) nor a pipeline's later segment, whose g_2 keeps the serial reading: both
// measured (docs/MODELS.md, "Less the zero-byte wait").
double zero_byte_wait(const plogp::Params& pair, const Message& msg) {
  if (!msg.unposted || msg.pipelined || msg.handshake) return 0.0;
  return std::max(0.0, pair.gap_s(0) - pair.send_overhead_s(0));
}

// A message between nodes: its link time and, where o_s(m) is the CPU's cost of a post, how long
// the post keeps the sender's CPU (none: the posts follow the fixed part, g(m) - link time,
// apart).
// - Unposted and pipelined messages (a handshake or a pipeline's waiting receiver in their g):
//   the serial reading, the link carries what g(m) has beyond the sender's o_s(m) and beyond
//   the wait a zero-byte message has there (zero_byte_wait), if that is more than alpha m.
// - A posted message (its receive waiting): the CPU and the link overlap, as a NIC and SMPI
//   move it, so a burst's g_p(m) is max(o_s(m), link time). Where g_p(m) > o_s(m) the link paces
//   the burst and carries g_p(m) per message (at least alpha m); otherwise the CPU does: the
//   link carries alpha m and the posts follow g_p(m) apart, not g_p(m) - alpha m apart
//   (ib-fattree's 4 KiB sends: 0.5 us, where 0.17 us predicted a flat Scatter of them at
//   P = 256 and 8 per node 36 % short).
//   o_s(m) is a post's CPU cost only while it stays near the smallest message's (within 1.5x):
//   a blocking send that took longer waited for its transfer (a rendezvous: SMPI's
//   fast-ethernet o_s(64 KiB) = 6.3 ms, where smpi/ois charges an MPI_Isend 10 us), and there
//   the posts keep the serial reading's spacing.
struct NetworkCost {
  double wire_s = 0.0;
  std::optional<double> spacing_s;
};

NetworkCost network_cost(const plogp::Params& pair, const Message& msg, double gap,
                         double alpha_m) {
  const double o_s = pair.send_overhead_s(msg.bytes);
  if (msg.unposted || msg.pipelined) {
    return {std::max(alpha_m, gap - o_s - zero_byte_wait(pair, msg)), std::nullopt};
  }
  NetworkCost cost;
  cost.wire_s = gap > o_s ? std::max(alpha_m, gap) : alpha_m;
  if (!pair.send_waits(msg.bytes)) cost.spacing_s = std::min(o_s, gap);
  return cost;
}

int node_count(int ranks, int ranks_per_node) {
  return ranks == 0 ? 0 : (ranks + ranks_per_node - 1) / ranks_per_node;
}

}  // namespace

int Placement::nodes() const {
  int most = -1;
  for (int n : node_of_rank) most = std::max(most, n);
  return most + 1;
}

int Placement::max_ranks_per_node() const {
  std::unordered_map<int, int> count;
  int most = 0;
  for (int n : node_of_rank) most = std::max(most, ++count[n]);
  return most;
}

std::string_view placement_name(PlacementKind kind) {
  switch (kind) {
    case PlacementKind::one_per_node:
      return "one-per-node";
    case PlacementKind::round_robin:
      return "round-robin";
    case PlacementKind::filled:
      return "filled";
    case PlacementKind::random:
      return "random";
  }
  return "?";
}

std::optional<PlacementKind> placement_from_name(std::string_view name) {
  for (PlacementKind k : {PlacementKind::one_per_node, PlacementKind::round_robin,
                          PlacementKind::filled, PlacementKind::random}) {
    if (placement_name(k) == name) return k;
  }
  return std::nullopt;
}

Placement make_placement(PlacementKind kind, int ranks, int ranks_per_node, std::uint64_t seed) {
  if (ranks < 0) throw std::invalid_argument(fmt::format("ranks = {} must be >= 0", ranks));
  if (ranks_per_node < 1) {
    throw std::invalid_argument(fmt::format("ranks per node = {} must be >= 1", ranks_per_node));
  }
  Placement p;
  p.node_of_rank.resize(static_cast<std::size_t>(ranks));
  const int nodes = node_count(ranks, ranks_per_node);
  for (int r = 0; r < ranks; ++r) {
    int node = r / ranks_per_node;  // filled, and the starting point of random
    if (kind == PlacementKind::one_per_node) node = r;
    if (kind == PlacementKind::round_robin) node = r % nodes;
    p.node_of_rank[static_cast<std::size_t>(r)] = node;
  }
  if (kind == PlacementKind::random) {
    // Fisher-Yates over the filled placement: the same number of ranks on each node as filled,
    // at random positions.
    std::mt19937_64 rng(seed);
    for (std::size_t i = p.node_of_rank.size(); i > 1; --i) {
      std::swap(p.node_of_rank[i - 1], p.node_of_rank[draw_below(rng, i)]);
    }
  }
  return p;
}

Placement placement_from_names(const std::vector<std::string>& processor_names) {
  Placement p;
  p.node_of_rank.reserve(processor_names.size());
  std::unordered_map<std::string, int> index;
  for (const std::string& name : processor_names) {
    const auto [it, added] = index.try_emplace(name, static_cast<int>(index.size()));
    p.node_of_rank.push_back(it->second);
  }
  return p;
}

namespace {

// `msg` as sent between `pair`'s ends: its Message::when_send_waits reading where a send of its
// bytes waits for the transfer, else itself. `scratch` holds the reading.
const Message& as_sent(const Message& msg, const plogp::Params& pair, Message& scratch) {
  if (!msg.when_send_waits || !pair.send_waits(msg.bytes)) return msg;
  scratch = msg;
  scratch.when_send_waits.reset();
  if (msg.when_send_waits->after >= 0) scratch.after.push_back(msg.when_send_waits->after);
  scratch.pipelined = msg.when_send_waits->pipelined;
  scratch.forwarded = msg.when_send_waits->forwarded;
  return scratch;
}

// The pLogP table of a message's pair of ranks: `intra` where the placement puts both ends on one
// node and `intra` was measured, else `plogp`. Checks that both ends are ranks of the schedule.
class PairOf {
 public:
  PairOf(const Schedule& schedule, const plogp::Params& plogp, const Placement* placement,
         const plogp::Params* intra)
      : ranks_(static_cast<std::size_t>(std::max(schedule.ranks, 0))),
        plogp_(plogp),
        placement_(placement),
        intra_(intra),
        placed_(placement != nullptr && placement->node_of_rank.size() >= ranks_ &&
                intra != nullptr && !intra->table.empty()) {}

  [[nodiscard]] std::size_t ranks() const { return ranks_; }

  const plogp::Params& operator()(const Message& msg) const {
    if (msg.src < 0 || msg.dst < 0 || static_cast<std::size_t>(msg.src) >= ranks_ ||
        static_cast<std::size_t>(msg.dst) >= ranks_) {
      throw std::invalid_argument(fmt::format("a message goes from rank {} to rank {}, outside "
                                              "0..{}", msg.src, msg.dst, ranks_ - 1));
    }
    const bool local = placed_ && placement_->node_of_rank[static_cast<std::size_t>(msg.src)] ==
                                      placement_->node_of_rank[static_cast<std::size_t>(msg.dst)];
    return local ? *intra_ : plogp_;
  }

 private:
  std::size_t ranks_;
  const plogp::Params& plogp_;
  const Placement* placement_;
  const plogp::Params* intra_;
  bool placed_;
};

// Per message, whether it is a pipeline's first segment to its receiver: the next message of the
// schedule between the same two ranks is one of the pipeline's later segments
// (Message::pipelined). The solver sends a rank's messages to one receiver one after the other,
// but the receiver keeps two receives posted, so the first two segments are in flight together,
// and where they share the sender's link (the pair share tau, measured by collsel-calibrate) the
// first one arrives tau g_p(s) late, as in bcast_chain_segmented's closed form (docs/MODELS.md,
// "Two receives ahead"). SMPI's fast-ethernet at 8 ranks per node: a 2 KiB segment crosses a
// node boundary in 372 us alone, 623-665 us as a chain's first (bench/smpi_probe.c chain-sync),
// 635 us so; without it the 8-per-node chains were predicted 10-22 % short (docs/BENCHMARKS.md,
// "SMPI shares a rank's link among its messages to one peer").
std::vector<bool> first_of_pairs(const Schedule& schedule) {
  std::vector<bool> first(schedule.messages.size(), false);
  std::unordered_map<std::uint64_t, std::size_t> last;  // (src, dst) -> its latest message
  const auto ranks = static_cast<std::uint64_t>(std::max(schedule.ranks, 0));
  for (std::size_t k = 0; k < schedule.messages.size(); ++k) {
    const Message& msg = schedule.messages[k];
    if (msg.src < 0 || msg.dst < 0) continue;  // simulate() reports it
    const std::uint64_t key = static_cast<std::uint64_t>(msg.src) * ranks +
                              static_cast<std::uint64_t>(msg.dst);
    const auto [it, added] = last.try_emplace(key, k);
    if (!added) {
      if (msg.pipelined && !schedule.messages[it->second].pipelined) first[it->second] = true;
      it->second = k;
    }
  }
  return first;
}

}  // namespace

double message_gap_s(const Message& msg, const plogp::Params& pair) {
  if (msg.pipelined) {
    return msg.forwarded ? pair.forwarding_gap_s(msg.bytes) : pair.pipeline_gap_s(msg.bytes);
  }
  return msg.unposted ? pair.gap_s(msg.bytes) : pair.posted_gap_s(msg.bytes);
}

double busiest_rank_s(const Schedule& schedule, const plogp::Params& plogp,
                      const Placement* placement, const plogp::Params* intra) {
  const PairOf pair_of(schedule, plogp, placement, intra);
  const std::size_t ranks = pair_of.ranks();
  std::vector<double> sent(ranks, 0.0);
  std::vector<double> received(ranks, 0.0);
  std::vector<double> held(ranks, 0.0);  // lock-step messages, on both their ends
  const auto answers_its_receiver = [&](const Message& msg) {
    return std::any_of(msg.after.begin(), msg.after.end(), [&](int i) {
      if (i < 0 || static_cast<std::size_t>(i) >= schedule.messages.size()) return false;
      const Message& before = schedule.messages[static_cast<std::size_t>(i)];
      return before.src == msg.dst && before.dst == msg.src;
    });
  };
  Message scratch;
  for (const Message& msg : schedule.messages) {
    const plogp::Params& pair = pair_of(msg);
    const double gap = message_gap_s(as_sent(msg, pair, scratch), pair);
    if (answers_its_receiver(msg)) {
      held[static_cast<std::size_t>(msg.src)] += gap;
      held[static_cast<std::size_t>(msg.dst)] += gap;
    } else {
      sent[static_cast<std::size_t>(msg.src)] += gap;
      received[static_cast<std::size_t>(msg.dst)] += gap;
    }
  }
  double busiest = 0.0;
  for (std::size_t r = 0; r < ranks; ++r) {
    busiest = std::max(busiest, std::max(sent[r], received[r]) + held[r]);
  }
  return busiest;
}

double busiest_cpu_s(const Schedule& schedule, const plogp::Params& plogp,
                     const Placement* placement, const plogp::Params* intra) {
  const PairOf pair_of(schedule, plogp, placement, intra);
  std::vector<double> cpu(pair_of.ranks(), 0.0);
  for (const Message& msg : schedule.messages) {
    const plogp::Params& pair = pair_of(msg);
    cpu[static_cast<std::size_t>(msg.src)] += pair.send_overhead_s(msg.bytes);
    cpu[static_cast<std::size_t>(msg.dst)] += pair.recv_overhead_s(msg.bytes);
  }
  return cpu.empty() ? 0.0 : *std::max_element(cpu.begin(), cpu.end());
}

LinkLoad link_load(const Schedule& schedule, const Placement& placement,
                   const Params& contention) {
  if (schedule.ranks < 0 ||
      placement.node_of_rank.size() < static_cast<std::size_t>(schedule.ranks)) {
    return {};
  }
  const auto nodes = static_cast<std::size_t>(std::max(placement.nodes(), 0));
  std::vector<double> out(nodes, 0.0), in(nodes, 0.0);
  // crossings[i]: messages between nodes on the longest chain of dependencies that ends with
  // message i. Messages depend on earlier ones only (every schedule builder emits them so).
  std::vector<int> crossings(schedule.messages.size(), 0);
  LinkLoad load;
  for (std::size_t i = 0; i < schedule.messages.size(); ++i) {
    const Message& msg = schedule.messages[i];
    const int from = placement.node_of_rank[static_cast<std::size_t>(msg.src)];
    const int to = placement.node_of_rank[static_cast<std::size_t>(msg.dst)];
    int before = 0;
    for (int j : msg.after) {
      if (j >= 0 && static_cast<std::size_t>(j) < i) {
        before = std::max(before, crossings[static_cast<std::size_t>(j)]);
      }
    }
    crossings[i] = before + (from == to ? 0 : 1);
    load.chain_crossings = std::max(load.chain_crossings, crossings[i]);
    if (from == to) continue;
    out[static_cast<std::size_t>(from)] += static_cast<double>(msg.bytes);
    in[static_cast<std::size_t>(to)] += static_cast<double>(msg.bytes);
  }
  double busiest = 0.0;
  for (std::size_t n = 0; n < nodes; ++n) busiest = std::max({busiest, out[n], in[n]});
  load.busiest_node_s = busiest * contention.alpha_s_per_byte;
  return load;
}

SimulationResult simulate(const Schedule& schedule, const Placement& placement,
                          const Params& contention, const plogp::Params& plogp,
                          const plogp::Params* intra) {
  if (schedule.ranks < 0 ||
      placement.node_of_rank.size() < static_cast<std::size_t>(schedule.ranks)) {
    throw std::invalid_argument(fmt::format(
        "the placement places {} ranks; the schedule has {}", placement.node_of_rank.size(),
        schedule.ranks));
  }
  // A model without a measured intra-node copy cost gets the All-to-All model's default memcpy
  // rate (4 GB/s), so intra-node messages are cheap but not free.
  const double intra_alpha = contention.intra_alpha_s_per_byte > 0.0
                                 ? contention.intra_alpha_s_per_byte
                                 : alltoall::kDefaultCopySecondsPerByte;
  const int count = static_cast<int>(schedule.messages.size());
  // Per rank, when its latest message without dependencies was posted.
  std::vector<double> posted_s(static_cast<std::size_t>(schedule.ranks), 0.0);
  // Per rank, the CPU time of posting its sends and handling its receives (o_s, o_r each).
  std::vector<double> cpu_s(static_cast<std::size_t>(schedule.ranks), 0.0);
  SimulationResult result;
  result.graph.reserve(schedule.messages.size());
  // Without a pair share column (every model file before the twelfth session, the embedded
  // default model) tau is 0: the shim's decisions skip the lookup.
  const bool pair_shared = plogp.pair_shares || (intra != nullptr && intra->pair_shares);
  const std::vector<bool> shared_first =
      pair_shared ? first_of_pairs(schedule) : std::vector<bool>{};
  Message scratch;  // as_sent's reading of the message at hand
  for (int k = 0; k < count; ++k) {
    const Message& msg = schedule.messages[static_cast<std::size_t>(k)];
    if (msg.src < 0 || msg.src >= schedule.ranks || msg.dst < 0 || msg.dst >= schedule.ranks) {
      throw std::invalid_argument(fmt::format("message {} goes from rank {} to rank {}, outside "
                                              "0..{}", k, msg.src, msg.dst, schedule.ranks - 1));
    }
    Communication c;
    c.name = fmt::format("m{}:{}>{}", k, msg.src, msg.dst);
    c.src = placement.node_of_rank[static_cast<std::size_t>(msg.src)];
    c.dst = placement.node_of_rank[static_cast<std::size_t>(msg.dst)];
    c.bytes = static_cast<double>(msg.bytes);
    // Alone, a message costs what seed 001's formulas charge it: g(m) at the sender, then L. Only
    // the link part is shared under contention (stretched by the penalty); the rest of g(m), the
    // per-message software cost, is not. Charging o_s and o_r on top of the
    // transfer would count a large message three times, since o_s(m) ~ o_r(m) ~ g(m) there.
    // Within a node the transfer is intra_alpha m, outside the graph, and the fixed part what
    // g(m) has beyond it.
    // Within a node, with an [intra_node] table, the node's own pLogP: on gige its L is 3.5 us
    // where the network's is 28 us.
    // Message::unposted ones cost the stream pair (g, L), Message::pipelined ones (g_2, L_p),
    // every other message the posted pair (g_p, L_p): docs/MODELS.md, "Two gaps" and "Two
    // receives ahead".
    const bool local = c.src == c.dst && intra != nullptr && !intra->table.empty();
    const plogp::Params& pair = local ? *intra : plogp;
    const Message& sent = as_sent(msg, pair, scratch);
    cpu_s[static_cast<std::size_t>(msg.src)] += pair.send_cpu_s(msg.bytes);
    cpu_s[static_cast<std::size_t>(msg.dst)] += pair.recv_cpu_s(msg.bytes);
    const double gap = message_gap_s(sent, pair);
    // On the network, the link carries what g(m) has beyond the sender's own cost o_s(m), if that
    // is more than alpha m: a message size that moves slower than the network's bandwidth (on
    // SMPI's fast-ethernet 16 KiB at 0.70 of it, 1 MiB at 0.94) occupies the link longer, and a
    // burst of them from one rank then costs the g(m) each that pLogP measured for a burst, not
    // alpha m each with the rest overlapped (the flat Scatter of 16 KiB at 8 ranks per node was
    // predicted 79 ms where it took 106 ms, docs/BENCHMARKS.md).
    // A posted message (neither Message::unposted nor pipelined: its receive is waiting) is read
    // the other way, as a NIC and SMPI move it: the sender's CPU posts it in o_s(m), then the link
    // carries it while the CPU posts the next (network_cost). Read serially, gige's 256-byte
    // sends (g_p 6.5 us, o_s 3 us) took 3.5 us of link each, and a flat Scatter of them at 8
    // ranks per node was predicted 396 us where SMPI took 818 us (docs/BENCHMARKS.md, "The
    // posted burst").
    double fixed = 0.0;
    std::optional<double> spacing;  // a posted message's CPU cost, where network_cost knows it
    if (local) {
      fixed = std::max(0.0, gap - intra_alpha * c.bytes);
    } else {
      const double alpha_m = contention.alpha_s_per_byte * c.bytes;
      const NetworkCost cost = network_cost(pair, sent, gap, alpha_m);
      spacing = cost.spacing_s;
      if (alpha_m > 0.0) c.wire_scale = cost.wire_s / alpha_m;
      fixed = std::max(0.0, gap - cost.wire_s);
    }
    for (int a : sent.after) {
      // An index out of range is the solver's to report, with the message's name.
      const bool own = a >= 0 && a < count &&
                       schedule.messages[static_cast<std::size_t>(a)].src == msg.src;
      (own ? c.after_sent : c.after).push_back(a);
    }
    if (sent.after.empty()) {
      double& posted = posted_s[static_cast<std::size_t>(msg.src)];
      if (spacing) {
        // The CPU is free again after the post; the transfer starts `fixed` after it, so that
        // alone the message still costs g(m) + L.
        c.start_s = posted + fixed;
        posted += *spacing;
      } else {
        posted += fixed;
        c.start_s = posted;
      }
    } else {
      c.after_delay_s = fixed;
    }
    if (sent.posted_after >= 0) {
      // Its receive is posted once the receiver has that message (Message::posted_after): the
      // transfer waits for the later of both sides, then the fixed part.
      c.after.push_back(sent.posted_after);
      c.after_delay_s = fixed;
    }
    c.tail_s = sent.pipelined  ? pair.pipeline_latency_s(msg.bytes)
               : sent.unposted ? pair.latency_s
                               : pair.posted_latency_s(msg.bytes);
    if (!shared_first.empty() && shared_first[static_cast<std::size_t>(k)] && !sent.pipelined &&
        !sent.unposted) {
      c.tail_s += pair.pair_share(msg.bytes) * pair.posted_gap_s(msg.bytes);
    }
    result.graph.push_back(std::move(c));
  }

  SolveOptions options;
  options.alpha_s_per_byte = contention.alpha_s_per_byte;
  options.intra_alpha_s_per_byte = intra_alpha;
  const Rule rule = make_rule(contention.rule, contention.gige);
  result.solution = solve(result.graph, rule, options);
  for (std::size_t k = 0; k < result.graph.size(); ++k) {
    result.completion_s =
        std::max(result.completion_s, result.solution.end_s[k] + result.graph[k].tail_s);
  }
  // The messages above cost a receiver nothing, so a rank that receives many small ones (an
  // All-to-All's P - 1 blocks) would handle them all at once. Its CPU does them one after
  // another, as it does its posts: SMPI's all_at_once of 256-byte blocks at P = 16, 8 ranks per
  // node on eth25-fattree took (P - 1)(o_s + o_r) = 30 us, simulated 18 us without this floor,
  // so it was chosen where Bruck was 1.3x faster (docs/BENCHMARKS.md, "At scale").
  for (double busy : cpu_s) result.completion_s = std::max(result.completion_s, busy);
  return result;
}

}  // namespace collsel::models::contention
