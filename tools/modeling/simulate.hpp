// `collsel simulate`: the contention simulator on the command line. GRAPH mode solves a dynamic
// contention graph written by hand (seed 003 section 3.2, printed as its Fig. 3); algorithm mode
// simulates a registered algorithm's schedule on a placement of its ranks on nodes (seed 002
// section VI.A) and sets the result beside the closed-form model's. No MPI.
// File format and output: docs/TOOLS.md, "collsel simulate".
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/contention/graph.hpp"
#include "models/contention/params.hpp"
#include "models/contention/schedule.hpp"
#include "models/diagnostic.hpp"
#include "selector/algo_params.hpp"
#include "selector/collective.hpp"

namespace collsel::tools::simulate {

// ---- GRAPH mode ------------------------------------------------------------------------------

struct GraphRead {
  std::vector<models::contention::Communication> comms;  // empty when the file has an error
  std::vector<std::string> nodes;                        // node index -> its name in the file
  Diagnostics diagnostics;                               // every error, one per bad line
};

// One communication per line: NAME SRC DST BYTES [START_SECONDS], separated by blanks; '#'
// starts a comment; blank lines are skipped. SRC and DST are node names (any word), numbered in
// order of first appearance. BYTES is a whole number with an optional binary suffix (20MiB) or a
// decimal number (2e7); START_SECONDS a number >= 0 (default 0). Names are unique; SRC != DST.
GraphRead read_graph(std::string_view text, std::string_view source);

// --bandwidth: bytes per second, as a number (1.82e9) or a size (1GiB = 2^30 B/s). Empty with
// the message when it is not a number > 0.
struct BandwidthParse {
  std::optional<double> bytes_per_s;
  std::string error;
};
BandwidthParse parse_bandwidth(std::string_view text);

struct GraphResult {
  std::string source;
  models::contention::Params network;  // rule, gige, alpha
  std::string penalties_from;          // the rule given instead of network.rule; empty: none
  std::vector<models::contention::Communication> comms;
  std::vector<std::string> nodes;
  models::contention::Solution solution;
};

// Solves `read` (no errors) under `network`'s rule and alpha, or under `given` (the penalties of
// `collsel simulate --penalties`, step_penalties.hpp) instead of the rule when not null. Throws
// std::invalid_argument when the rule's penalties do not fit the graph.
GraphResult solve_graph(GraphRead read, std::string source,
                        const models::contention::Params& network,
                        const models::contention::Rule* given = nullptr);

// The Fig. 3 table (step, com, penalty, data remaining [bytes], time [s]), a blank line, then
// one line "NAME SECONDS" per communication, its completion time, in file order.
std::string format_graph_text(const GraphResult& r);
std::string format_graph_json(const GraphResult& r);

// ---- algorithm mode --------------------------------------------------------------------------

struct AlgorithmRequest {
  std::string algorithm;  // a registered name, e.g. "bcast.binomial"
  int comm_size = 1;
  std::uint64_t bytes = 0;
  int root = 0;
  models::contention::PlacementKind placement = models::contention::PlacementKind::filled;
  int ranks_per_node = 1;
  std::uint64_t seed = 1;
  std::optional<std::string> model_path;  // none: the embedded default model
  std::optional<models::contention::RuleKind> rule;
  std::optional<double> bandwidth_bytes_per_s;
  std::optional<double> gige_beta;
  std::optional<double> gige_gamma_i;
  std::optional<double> gige_gamma_o;
};

struct AlgorithmResult {
  AlgorithmRequest request;
  Collective coll = Collective::bcast;
  std::string model_name;
  std::string model_source;
  AlgoParams params;           // the closed-form model's choice, used for the schedule
  double closed_form_s = 0.0;  // the closed-form model's prediction
  models::contention::Params network;
  std::string rule_source;   // where the rule came from
  std::string alpha_source;  // where alpha came from
  std::string intra_source;  // where the intra-node copy rate came from
  models::contention::Placement placement;
  std::size_t inter_node_messages = 0;
  models::contention::SimulationResult simulation;
};

struct AlgorithmOutcome {
  std::optional<AlgorithmResult> result;
  Diagnostics diagnostics;  // problems of the model file
  std::string usage_error;  // a bad argument (exit 2); empty otherwise
};

AlgorithmOutcome simulate_algorithm(const AlgorithmRequest& request);

// `steps`: append the step table, with only the communications active in each step.
std::string format_algorithm_text(const AlgorithmResult& r, bool steps);
std::string format_algorithm_json(const AlgorithmResult& r, bool steps);

}  // namespace collsel::tools::simulate
