// The communication schedule of a collective algorithm (who sends how many bytes to whom, after
// what), the placement of ranks on nodes, and the simulator that turns both into a predicted time
// through the contention solver (seed 002 section VI.A, seed 003). Pure C++.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/contention/graph.hpp"
#include "models/contention/params.hpp"
#include "models/plogp/params.hpp"

namespace collsel::models::contention {

// One point-to-point message of an algorithm, between ranks.
struct Message {
  int src = 0;
  int dst = 0;
  std::uint64_t bytes = 0;
  // Indices of messages that must have been received by `src` (or, for its own earlier sends,
  // completed) before this one is posted: the algorithm's data and ordering dependencies.
  std::vector<int> after;
  // Sent when its receiver is not already waiting for it: one of a pipeline's segments, which
  // follow one another to the same receiver, or a message of a lock-step exchange (a rendezvous,
  // a ring step). It costs the stream pair g(m), L; every other message finds its receive posted
  // and costs g_p(m), L_p (docs/MODELS.md, "Two gaps"; the same pair without a posted column).
  bool unposted = false;
  // One of a pipeline's later segments to a receiver that keeps two receives posted (the tree
  // engine's discipline): it costs the pipeline gap g_2(m) and the posted latency, so that a
  // pipeline's segments arrive g_2 apart behind its first (docs/MODELS.md, "Two receives ahead";
  // the stream pair without a pipeline_gap_s column, as before it). Wins over `unposted`.
  bool pipelined = false;
  // A pipelined segment sent right after its sender received it (a chain's or tree's inner node):
  // the sender pays the receive o_r(m) and the send o_s(m) for it, so its gap is at least
  // o_s(m) + o_r(m) (the forwarding gap, Params::forwarding_gap_s).
  bool forwarded = false;
  // A rendezvous's zero-byte request or ready (the tree engine's handshake). Priced o_s + L with
  // its link part dropped, as before the zero-byte wait (schedule.cpp, zero_byte_wait): its
  // ready's latency is paid at a receive the schedule does not place, and the data message's
  // link part stands in for it (the flat handshake Bcast at 8 per node on simulated gige: within
  // 7 % so, +75 % with the wait charged to each handshake's sender).
  bool handshake = false;
  // For an unposted message: a message its receiver must have received (seen: transfer end + L)
  // before it posts this one's receive, or -1. SMPI starts an unposted transfer when its receive
  // is posted, so a lock-step step waits for its receiver's previous step as well as its
  // sender's: collsel's scatter_allgather ring at 8 per node on eth25-fattree takes 4.01 us a
  // step on every rank, the node-crossing hop's, not 2.51 us where the hop stays in the node
  // (bench/smpi_probe.c ring-sync). Only the receiver's waits are priced this way; the message
  // then starts its fixed part g(m) - W(m) after the later of the two.
  int posted_after = -1;
  // What the message is instead where sending its bytes waits for the transfer
  // (plogp::Params::send_waits, a rendezvous): a preposted chain's segment (bcast.chain_preposted)
  // is sent as a detached burst below the eager limit, but above it each send waits for the
  // previous one, and the chain is the tree engine's pipeline (SMPI's gige at 1 MiB segments:
  // 40.129 ms for 4 MiB at P = 16, 8 per node, both chains; read as a burst, 36.8 ms predicted).
  struct WhenSendWaits {
    int after = -1;  // the sender's earlier send it then also waits for
    bool pipelined = false;
    bool forwarded = false;
  };
  std::optional<WhenSendWaits> when_send_waits{};
};

struct Schedule {
  int ranks = 0;
  std::vector<Message> messages;
};

// rank -> node index
struct Placement {
  std::vector<int> node_of_rank;
  [[nodiscard]] int nodes() const;
  [[nodiscard]] int max_ranks_per_node() const;
};

enum class PlacementKind {
  one_per_node,  // rank r on node r
  round_robin,   // RRN (seed 002): rank r on node r mod N
  filled,        // RRP (seed 002): nodes filled in turn, rank r on node r / k
  random,        // a seeded shuffle of the filled placement
};
std::string_view placement_name(PlacementKind kind);  // "one-per-node", "round-robin", "filled", "random"
std::optional<PlacementKind> placement_from_name(std::string_view name);
// ranks over ceil(ranks / ranks_per_node) nodes.
Placement make_placement(PlacementKind kind, int ranks, int ranks_per_node, std::uint64_t seed = 1);
// Ranks with equal names share a node; node indices in order of first appearance.
Placement placement_from_names(const std::vector<std::string>& processor_names);

struct SimulationResult {
  double completion_s = 0.0;             // the last message's arrival
  std::vector<Communication> graph;      // the node-level dynamic contention graph simulated
  Solution solution;
};

// What message `msg` costs its sender between `pair`'s consecutive sends, by its kind: the
// forwarding gap (pipelined and forwarded), g_2 (pipelined), g (unposted) or g_p (posted).
double message_gap_s(const Message& msg, const plogp::Params& pair);

// The repetition interval of `schedule`: the busiest rank's time, the larger of its sends' gaps
// and its receives' gaps summed (message_gap_s; a link carries both ways at once, as SimGrid's
// and TCP's do). In a loop of back-to-back calls the next call starts at a rank once that rank
// is done with the previous one, so a pipeline's calls overlap and follow one another at this
// interval, not at the schedule's completion time (docs/ADAPT.md, "Back-to-back calls").
// A message sent after a message from its own receiver back to its sender (a rendezvous's data
// after the receiver's ready, and that ready after the request) holds both its ends: a rank does
// not overlap it with anything, so its gap adds to both ranks' time on top of the larger side
// (simulated gige, Bcast 64 KiB, P = 16: chain_rendezvous repeats every 1.9 ms, two hops, where
// the larger side alone gives one hop).
// Messages within one node use `intra` where the placement puts both ends on one node.
double busiest_rank_s(const Schedule& schedule, const plogp::Params& plogp,
                      const Placement* placement = nullptr,
                      const plogp::Params* intra = nullptr);

// The busiest rank's CPU time in `schedule`: o_s(m) per send and o_r(m) per receive (LogP's
// overheads, which a rank pays one after the other, unlike its sends' and receives' gaps), with
// busiest_rank_s's choice of `intra` within a node. What a pipeline's rank that receives and
// forwards every segment pays per segment at least (decide()'s extrapolation past the cap).
double busiest_cpu_s(const Schedule& schedule, const plogp::Params& plogp,
                     const Placement* placement = nullptr,
                     const plogp::Params* intra = nullptr);

// What `schedule`'s messages between nodes load onto the links, at `contention.alpha_s_per_byte`:
// the busiest node's time, the larger of the bytes its ranks send to other nodes and the bytes
// they receive from other nodes (one link carries both ways at once), and how many messages
// between nodes the longest chain of dependencies holds (Message::after: a lock-step exchange's
// rounds, a mesh's two phases). Zero when the placement does not cover the schedule's ranks.
struct LinkLoad {
  double busiest_node_s = 0.0;
  int chain_crossings = 0;
  // No schedule on this placement ends sooner: however its messages overlap, the busiest node's
  // link moves them one byte after another, and a message that waits for another also waits for
  // that one's crossing, `latency_s` each. The closed forms of the All-to-All give every rank a
  // link of its own; at 8 per node they left the shared one out (SimGrid, eth25-fattree, P = 256,
  // 256 B blocks: the 2-D mesh predicted 61 us, simulated 268 us; docs/MODELS.md, "A node's
  // shared link").
  [[nodiscard]] double floor_s(double latency_s) const {
    return busiest_node_s + chain_crossings * latency_s;
  }
};
LinkLoad link_load(const Schedule& schedule, const Placement& placement, const Params& contention);

// The time of `schedule` with ranks placed by `placement`. Alone, a message of m bytes costs
// g(m) + L, as in seed 001's formulas (the posted pair g_p, L_p unless Message::unposted):
// after its dependencies complete (plus L each, except the sender's own earlier sends), a fixed
// part g(m) - W(m) that contention does not stretch, then W(m) = max(alpha m, g(m) - o_s(m)) on
// the network as a communication of the contention graph (penalty rule and alpha from
// `contention`), stretched by its penalties. A rank's messages without dependencies are posted
// one after the other, each a fixed part after the previous one's post; their transfers overlap.
// A posted message (its receive waiting) has its CPU and its link overlap: W(m) = g_p(m) where
// g_p(m) > o_s(m), else alpha m, and posts follow min(o_s(m), g_p(m)) apart where o_s(m) is a
// post's CPU cost (schedule.cpp, network_cost).
// Messages within one node pay max(0, g(m) - intra_alpha m), then intra_alpha m, never
// penalised: cheaper than a message between nodes.
// The completion is at least every rank's CPU time, the o_s of its sends and the o_r of its
// receives one after another (each read as the smallest message's where it grew past 1.5x of it:
// a blocking wait, not CPU work), so a rank receiving many small messages is not done at once.
// `intra`, when given (the model file's [intra_node] table), times the messages within a node:
// their fixed part max(0, g_intra(m) - intra_alpha m) and their L come from it instead of from
// `plogp`, which was measured between nodes.
SimulationResult simulate(const Schedule& schedule, const Placement& placement,
                          const Params& contention, const plogp::Params& plogp,
                          const plogp::Params* intra = nullptr);

}  // namespace collsel::models::contention
