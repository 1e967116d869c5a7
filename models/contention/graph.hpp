// Dynamic contention graphs (seed 003, Martinasso & Mehaut): communications between cluster nodes
// that start at given times or after others, and the step-by-step solver of their completion
// times (eq. 1-3, Fig. 3). Readings chosen where the converted text is garbled: docs/MODELS.md,
// "Contention graphs". Pure C++: this target must never see <mpi.h>.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace collsel::models::contention {

// One edge of a static contention graph step: a communication from node `src` to node `dst`
// (node indices, src != dst; parallel edges allowed, they are distinct communications).
struct Edge {
  int src = 0;
  int dst = 0;
  friend bool operator==(const Edge&, const Edge&) = default;
};

// A penalty rule (seed 003 section 3.3, seed 002 section V): the penalty rho >= 1 of every edge of
// one static graph step, in the order of `edges`. A communication alone on the network has 1.
using PenaltyFn = std::function<std::vector<double>(std::span<const Edge>)>;

struct Rule {
  std::string name;  // "fair", "infiniband", "gige", "myrinet", or a test's own
  PenaltyFn penalties;
};

// One communication of a dynamic contention graph.
struct Communication {
  std::string name;
  int src = 0;  // node index
  int dst = 0;  // node index; == src: an intra-node copy, outside the graph (no self-loops)
  double bytes = 0.0;
  // The link time of each byte, in units of alpha: above 1 where the message's size moves at
  // less than the network's bandwidth (SimGrid's bandwidth factors, per-packet costs), so that
  // messages sharing a link stretch each other by their real occupancy. 1 in seed 003.
  double wire_scale = 1.0;
  double start_s = 0.0;     // earliest start
  std::vector<int> after;   // indices of communications that must complete before this starts
  // Indices of communications this one follows without their tail: the same sender's earlier
  // sends, complete for the sender when their transfer ends (the receiver sees them tail_s
  // later, the sender does not wait for that).
  std::vector<int> after_sent;
  double after_delay_s = 0.0;  // added to the completion of the last of `after`, `after_sent`
  // Time from the end of the transfer until dependants in `after` see it complete (latency,
  // receive overhead): a dependant starts at max(over `after` of end + tail, over `after_sent`
  // of end) + after_delay_s.
  double tail_s = 0.0;
};

struct SolveOptions {
  double alpha_s_per_byte = 0.0;        // inverse of the network bandwidth (seed 003 eq. 1)
  double intra_alpha_s_per_byte = 0.0;  // intra-node copies: bytes x this, no contention
};

// The state of one communication during one step (one row of seed 003 Fig. 3).
struct StepRow {
  int comm = 0;
  enum class State { waiting, active, done } state = State::waiting;
  double penalty = 0.0;          // rho during the step; 0 unless active
  double bytes_remaining = 0.0;  // at the end of the step
  double time_s = 0.0;           // completion time if done, else the step's end
};

struct Step {
  double start_s = 0.0;
  double end_s = 0.0;
  // The communications in the step's graph (running, or finishing at its end), in input order;
  // a row for every communication in every step would cost steps x n.
  std::vector<StepRow> rows;
};

struct Solution {
  std::vector<double> start_s;  // when each communication started
  std::vector<double> end_s;    // when its transfer completed (without tail_s)
  std::vector<Step> steps;      // every step with at least one active inter-node communication
};

// rule.penalties(edges), checked: one finite penalty >= 1 per edge (a penalty below 1 would make a
// communication faster than alone on the network, eq. 1). Throws std::invalid_argument naming the
// rule otherwise, or when the rule has no function.
std::vector<double> checked_penalties(const Rule& rule, std::span<const Edge> edges);

// Solves the graph: at each step, the penalties of the current graph (the active inter-node
// communications) from `rule`; each active communication transfers at 1 / (alpha rho) bytes per
// second; the step ends at the next completion or start. Throws std::invalid_argument on a
// dependency cycle, an index out of range, negative bytes or times, or a rule returning a
// penalty below 1 or the wrong count.
Solution solve(std::span<const Communication> comms, const Rule& rule, const SolveOptions& options);

}  // namespace collsel::models::contention
