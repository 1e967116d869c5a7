// Static-synchronous contention graphs (seed 003 section 3.3): every communication of a graph
// between nodes starts at once with the same bytes; each one's completion is measured, and the
// penalties of the graph's first step follow by reverse solving. From a set of such graphs the
// calibration fits the Gigabit Ethernet parameters (seed 002 section V.A), picks the penalty rule
// that predicts them best and fills the model file's [contention] section. The random-graph
// benchmark (bench/contention_graphs.cpp) reuses the runner. Method: docs/MODELS.md,
// "How collsel-calibrate measures".
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "calibrate/node_layout.hpp"
#include "models/contention/graph.hpp"
#include "models/contention/params.hpp"
#include "models/contention/rules.hpp"

namespace collsel::calibrate {

using models::contention::Edge;

// Which rank sends and which receives each communication of a graph. A rank takes part in at
// most one communication, as sender or as receiver (seed 003's benchmark: "an MPI process is
// either only sending data or receiving data"). An edge with src == dst is a communication
// between two ranks of that node (the intra-node copy cost); graphs between nodes have none.
struct RankAssignment {
  std::vector<int> sender;    // per edge
  std::vector<int> receiver;  // per edge
  std::string error;          // why the graph does not fit the job; empty when it does
  [[nodiscard]] bool ok() const { return error.empty(); }
};

// Node i of the graph is node i of the layout; the k-th endpoint of a node (in edge order,
// sources before destinations of the same edge) is its k-th rank. Infeasible when a node index is
// out of range or a node has more endpoints than ranks. Pure.
RankAssignment assign_ranks(const NodeLayout& layout, std::span<const Edge> edges);

// Per rank of `comm`, its MPI_Wtime minus rank 0's, from ping-pongs with rank 0: the reply's
// time stamp against the midpoint of the exchange with the shortest round trip (the error is at
// most half of it, microseconds against the milliseconds a graph lasts). All zero when the
// library says MPI_WTIME_IS_GLOBAL. Collective; valid on rank 0.
std::vector<double> clock_offsets(MPI_Comm comm, int rounds = 10);

struct GraphRunOptions {
  std::uint64_t bytes = 1u << 20;
  int repeats = 5;  // measured runs; the median of each communication is kept
  int warmup = 1;   // runs before them, not measured (seed 002 section IV.B: cache effects)
  // Per edge, seconds after the barrier that opens a run at which its sender posts; empty: at once.
  std::vector<double> start_s;
  // clock_offsets(comm) (used on rank 0); empty: the ranks share one clock.
  std::vector<double> clock_offset_s;
};

// Per communication, medians over the repeats, on rank 0's clock. A run's origin is the
// earliest MPI_Send of the graph: on ranks that share cores a barrier's exits are apart by
// scheduler ticks, so no rank's own exit is a start the others share (one receiver measured
// 256 KiB in 1.7 us from its own exit in a test).
struct GraphTimes {
  std::vector<double> duration_s;    // receive completed - own sender's post: the comm's time
  std::vector<double> start_s;       // the sender's post, from the origin
  std::vector<double> completion_s;  // the receive completed, from the origin
  std::vector<double> send_s;        // how long the MPI_Send call took (seed 002's measure)
  double spread = 0.0;  // the largest relative 95 % half-width of a duration median
};

// Collective over `comm` (every rank, same arguments; `a` must be ok()). Each receiver pre-posts
// MPI_Irecv, the graph's ranks meet in a barrier, each sender calls MPI_Send (after its start
// offset), each receiver waits; the other ranks sleep in a non-blocking barrier meanwhile.
// Valid on rank 0.
GraphTimes run_graph(MPI_Comm comm, const RankAssignment& a, const GraphRunOptions& options);

// --- the calibration ---

struct NamedGraph {
  std::string name;
  std::vector<Edge> edges;
};

// The calibration set for nodes of up to `max_degree` ranks, fewest edges first (the reverse
// solving of a graph looks up its later steps among the graphs before it): the pair (T_ref),
// then for k = 2..max_degree out-stars C<-X-> and in-stars C->X<- (seed 002 Fig. 1, 2), k
// parallel communications between two nodes, and for k = 2 the chain C->X->, the two directions
// between two nodes, seed 002 Fig. 1 whole, a directed 3-cycle, then per k an out-star one of
// whose destinations receives from k - 1 other nodes (its strongly penalised edge fixes gamma_o,
// as communication a of seed 002 Fig. 4) and its mirror (gamma_i, communication f), and the
// complete bipartite graph 2 -> 2. Node indices are logical: node 0, 1, ...; which fit a job is
// assign_ranks' business. Pure.
std::vector<NamedGraph> calibration_graphs(int max_degree);

// For each edge of `step`, the index of the edge of `pattern` it is under some renaming of the
// nodes (parallel edges matched in order); empty when the shapes differ or either has more than
// 8 nodes. Pure.
std::optional<std::vector<int>> match_shape(std::span<const Edge> step,
                                            std::span<const Edge> pattern);

// The rule for the later steps of the reverse solving (seed 003 section 3.3: "the penalty
// coefficients of (n - 1) static-synchronous graphs ... [whose] shape should correspond to the
// shapes of the respective steps"): a step shaped like one of `measured` takes its penalties
// (raised to 1 where noise put them below), any other step `fallback`'s.
models::contention::Rule measured_rule(std::vector<models::contention::MeasuredGraph> measured,
                                       models::contention::Rule fallback);

// Every edge a communication of `bytes` from start_s[i] (0 when start_s is empty), solved under
// `rule` with `alpha`; the predicted duration (end - start) of each. Throws what solve() throws.
std::vector<double> predict_durations(std::span<const Edge> edges, std::span<const double> start_s,
                                      double bytes, double alpha_s_per_byte,
                                      const models::contention::Rule& rule);

// Seed 002 section VI.B: E_rel = (T_p - T_m) / T_m, a fraction (the paper prints percent).
inline double relative_error(double predicted, double measured) {
  return (predicted - measured) / measured;
}

// How well a rule predicts measured graphs: over every communication, the mean and the largest
// |E_rel|; `error` when the rule could not be evaluated (a solver exception).
struct RuleScore {
  models::contention::RuleKind rule = models::contention::RuleKind::fair;
  double mean_abs_rel = 0.0;
  double max_abs_rel = 0.0;
  int comms = 0;
  std::string error;
};

struct GraphMeasurement {
  NamedGraph graph;
  GraphTimes times;
  std::vector<double> penalties;  // first step, by reverse solving; empty when it failed
  std::string note;               // the later-steps reading used, or why it failed
};

// Scores of fair, infiniband, gige (with `gige`) and myrinet on `graphs` (their duration_s
// against static-synchronous predictions, `bytes` each, alpha), in that order; graphs of one edge are left out (alpha makes
// them exact by construction). Pure.
std::vector<RuleScore> score_rules(std::span<const GraphMeasurement> graphs, double bytes,
                                   double alpha_s_per_byte,
                                   const models::contention::GigeParams& gige);

// The best-scoring rule (smallest mean |E_rel|; the first on ties; fair when none scored).
models::contention::RuleKind best_rule(std::span<const RuleScore> scores);

struct ContentionOptions {
  std::uint64_t bytes = 1u << 20;
  int repeats = 5;
  // Called on rank 0 with one line of progress (no newline).
  std::function<void(const std::string&)> progress;
};

struct ContentionCalibration {
  // Why there is no section: on every rank when the layout cannot measure graphs, on rank 0 when
  // the measurement gave nothing usable. Empty otherwise.
  std::string skipped;
  std::optional<models::contention::Params> params;  // rank 0, when measured
  double t_ref_s = 0.0;    // one communication alone between two nodes
  double t_intra_s = 0.0;  // one communication between two ranks of a node
  std::vector<GraphMeasurement> graphs;  // every graph measured, the pair first
  std::vector<RuleScore> scores;
  std::string gige_note;  // how the Gigabit Ethernet parameters were obtained
};

// The computation behind calibrate_contention, pure: `graphs` in calibration_graphs() order with
// their times (penalties left empty), the pair among them; `t_intra_s` 0 when not measured.
// Fills the penalties (first_step_penalties on the durations, later steps by measured_rule over
// the graphs before, fair beyond them; the fair rule alone when noisy times do not fit that),
// fits the Gigabit Ethernet parameters (fit_gige; seed 002's values when the
// graphs cannot fix them), scores the rules and builds the section with the best one.
ContentionCalibration analyse_contention(std::vector<GraphMeasurement> graphs, double bytes,
                                         double t_intra_s);

// Why the layout cannot measure contention graphs, or empty: they need two nodes and a node
// with two ranks (with one rank per node every feasible graph is a matching, where every rule
// says 1). Pure.
std::string contention_skip_reason(const NodeLayout& layout);

// Collective over `comm`: T_ref, the intra-node pair, every graph of calibration_graphs() that
// fits the layout (penalties by first_step_penalties with measured_rule over the graphs measured
// before, fair beyond them), fit_gige, score_rules, and the [contention] section (use = auto).
ContentionCalibration calibrate_contention(MPI_Comm comm, const NodeLayout& layout,
                                           const ContentionOptions& options);

}  // namespace collsel::calibrate
