// `collsel simulate`: the contention-graph solver on a graph file, or one algorithm's schedule
// simulated on a placement (tools/modeling/simulate.hpp).
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "selector/collective.hpp"
#include "tools/cli/command_exit.hpp"
#include "tools/cli/commands.hpp"
#include "tools/cli/options.hpp"

#include "common/size_option.hpp"
#include "common/size_parse.hpp"
#include "models/contention/rules.hpp"
#include "models/contention/schedule.hpp"
#include "models/model_file.hpp"
#include "selector/catalog.hpp"
#include "tools/modeling/simulate.hpp"
#include "tools/modeling/step_penalties.hpp"

namespace collsel::tools::cli {
namespace {

namespace mc = collsel::models::contention;

struct SimulateArgs {
  std::string graph;
  std::string penalties;
  std::string rule;
  std::string bandwidth;
  double beta = mc::GigeParams{}.beta;
  double gamma_i = mc::GigeParams{}.gamma_i;
  double gamma_o = mc::GigeParams{}.gamma_o;
  std::string format = "text";
  std::string algorithm;
  int comm_size = 0;
  std::string size;
  int root = 0;
  int ranks_per_node = 1;
  std::string placement = "filled";
  std::uint64_t seed = 1;
  std::string model;
  bool steps = false;
  // Which options were given: defaults and the model file fill the others.
  CLI::Option* rule_opt = nullptr;
  CLI::Option* penalties_opt = nullptr;
  CLI::Option* beta_opt = nullptr;
  CLI::Option* gamma_i_opt = nullptr;
  CLI::Option* gamma_o_opt = nullptr;
  std::vector<CLI::Option*> algorithm_only;
};

CLI::App* add_simulate(CLI::App& app, SimulateArgs& a) {
  CLI::App* cmd = app.add_subcommand(
      "simulate",
      "Predict communication times under network contention: solve a contention graph written "
      "in a file, or simulate a registered algorithm's schedule on a placement of its ranks");
  cmd->add_option("GRAPH", a.graph,
                  "Contention graph file: one communication per line, NAME SRC DST BYTES "
                  "[START_SECONDS]; '#' starts a comment; SRC and DST are node names");
  a.penalties_opt = cmd->add_option(
      "--penalties", a.penalties,
      "GRAPH mode: the penalties per step, instead of a rule's: one line per step, NAME=PENALTY "
      "for every communication running in it (a=3.5 b=3.5 f=1.5; 10/3 for exact thirds)");
  a.rule_opt = cmd->add_option("--rule", a.rule,
                               "Penalty rule (seed 003 eq. 4, seed 002 section V). Default: fair, "
                               "or in algorithm mode the model's [contention] rule")
                   ->check(CLI::IsMember(rule_choices()));
  cmd->add_option("--bandwidth", a.bandwidth,
                  "Network bandwidth between two nodes, bytes per second (alpha = 1 / it): "
                  "1.82e9, or a size such as 1GiB. Required with GRAPH")
      ->check(CLI::Validator(
          [](std::string& text) { return collsel::tools::simulate::parse_bandwidth(text).error; },
          "BYTES_PER_SECOND", "bandwidth"));
  a.beta_opt = cmd->add_option("--beta", a.beta, "gige rule: beta (seed 002 section V.A)")
                   ->check(non_negative("--beta", "0.75"))
                   ->capture_default_str();
  a.gamma_i_opt = cmd->add_option("--gamma-i", a.gamma_i, "gige rule: gamma_i")
                      ->check(non_negative("--gamma-i", "0.036"))
                      ->capture_default_str();
  a.gamma_o_opt = cmd->add_option("--gamma-o", a.gamma_o, "gige rule: gamma_o")
                      ->check(non_negative("--gamma-o", "0.115"))
                      ->capture_default_str();
  cmd->add_option("--format", a.format, "Output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  cmd->add_option("--algorithm", a.algorithm,
                  "Simulate this registered algorithm (a name from `collsel list`) instead of a "
                  "GRAPH file");
  a.algorithm_only = {
      cmd->add_option("-P,--ranks", a.comm_size, "Algorithm mode: communicator size")
          ->check(whole_number_at_least_one("-P")),
      cmd->add_option("-m,--size", a.size,
                      "Algorithm mode: message size (Bcast the buffer, Scatter and Alltoall one "
                      "block); bytes or a binary suffix: 64k, 1MiB")
          ->check(collsel::common::size_validator()),
      cmd->add_option("--root", a.root, "Algorithm mode: root rank (0 <= R < P)")
          ->capture_default_str(),
      cmd->add_option("--ranks-per-node", a.ranks_per_node,
                      "Algorithm mode: ranks per node; the nodes are ceil(P / it)")
          ->check(whole_number_at_least_one("--ranks-per-node"))
          ->capture_default_str(),
      cmd->add_option("--placement", a.placement,
                      "Algorithm mode: how ranks are placed on the nodes (seed 002 VI.D): "
                      "one-per-node; round-robin (RRN, rank r on node r mod N); filled (RRP, rank "
                      "r on node r / K); random (a seeded shuffle of filled)")
          ->check(CLI::IsMember(placement_choices()))
          ->capture_default_str(),
      cmd->add_option("--seed", a.seed, "Algorithm mode: seed of the random placement")
          ->capture_default_str(),
      cmd->add_option("--model", a.model,
                      "Algorithm mode: model file (TOML) whose pLogP and [contention] section are "
                      "used. Default: the embedded default model"),
      cmd->add_flag("--steps", a.steps,
                    "Algorithm mode: also print the step table (only the communications active "
                    "in each step)"),
  };
  cmd->footer(
      "GRAPH mode prints the step table of seed 003 Fig. 3 (step, com, penalty, data remaining,\n"
      "time; '-': finished, 'wait': not started yet), a blank line, then 'NAME SECONDS' per\n"
      "communication: its completion time.\n"
      "Algorithm mode prints the simulated completion time beside the closed-form model's. The\n"
      "network comes from --rule/--bandwidth, else the model's [contention] section, else the\n"
      "fair rule with alpha = g(M) / M, M the largest size of the model's pLogP table.\n"
      "Graph file example (seed 003 Fig. 2, third graph):\n"
      "  # NAME SRC DST BYTES [START_SECONDS]\n"
      "  ab a b 20MiB\n"
      "  ac a c 20MiB\n"
      "  ad a d 20MiB\n"
      "  db d b 20MiB\n"
      "  dc d c 20MiB 0.001\n"
      "Penalties file example (seed 003 Fig. 3, with the graph a..f of docs/TOOLS.md):\n"
      "  a=3.5 b=3.5 c=3.5 d=10/3 e=10/3 f=1.5   # step 1\n"
      "  a=3.5 b=3.5 c=3.5 d=7/3 e=7/3           # step 2: f is done\n"
      "  a=3 b=3 c=3                             # step 3\n"
      "Examples:\n"
      "  collsel simulate graph.txt --rule infiniband --bandwidth 1.82e9\n"
      "  collsel simulate fig3.txt --penalties fig3-penalties.txt --bandwidth 1.82e9\n"
      "  collsel simulate --algorithm bcast.binomial -P 64 -m 1MiB --ranks-per-node 8\n"
      "  collsel simulate --algorithm alltoall.pairwise -P 16 -m 64k --ranks-per-node 4 \\\n"
      "      --placement round-robin --model cluster.toml --steps\n"
      "Exit status: 0 ok, 1 the model file is unusable, 2 bad arguments or a GRAPH file that\n"
      "cannot be read or parsed (the message names the file and line).");
  return cmd;
}

mc::Params graph_network(const SimulateArgs& a, double bandwidth) {
  mc::Params n;
  if (!a.rule.empty()) n.rule = *mc::rule_from_name(a.rule);
  n.gige = {a.beta, a.gamma_i, a.gamma_o};
  n.alpha_s_per_byte = 1.0 / bandwidth;
  return n;
}

void print_graph(const collsel::tools::simulate::GraphResult& result, const SimulateArgs& a) {
  namespace sim = collsel::tools::simulate;
  const std::string out =
      a.format == "json" ? sim::format_graph_json(result) : sim::format_graph_text(result);
  std::fputs(out.c_str(), stdout);
}

int run_simulate_graph(const SimulateArgs& a) {
  for (const CLI::Option* o : a.algorithm_only) {
    if (o->count() > 0) {
      return usage_error("simulate", fmt::format("{} applies to --algorithm only, not to a GRAPH "
                                                 "file", o->get_name()));
    }
  }
  if (a.bandwidth.empty()) {
    return usage_error("simulate", "a GRAPH needs --bandwidth BYTES_PER_SECOND (e.g. 1.82e9), "
                                   "the network bandwidth alpha is derived from");
  }
  const std::optional<std::string> text = read_input_file(a.graph);
  if (!text) return kExitBadArguments;
  namespace sim = collsel::tools::simulate;
  sim::GraphRead read = sim::read_graph(*text, a.graph);
  print_diagnostics(read.diagnostics);
  if (collsel::has_errors(read.diagnostics)) return kExitBadArguments;
  const double bandwidth = *sim::parse_bandwidth(a.bandwidth).bytes_per_s;  // checked by CLI11
  if (a.penalties.empty()) {
    print_graph(sim::solve_graph(std::move(read), a.graph, graph_network(a, bandwidth)), a);
    return 0;
  }
  if (a.rule_opt->count() > 0) {
    return usage_error("simulate", "--penalties gives the penalties that --rule would compute; "
                                   "choose one");
  }
  const std::optional<std::string> penalties_text = read_input_file(a.penalties);
  if (!penalties_text) return kExitBadArguments;
  const sim::StepPenalties penalties = sim::read_step_penalties(*penalties_text, a.penalties);
  Diagnostics diagnostics = penalties.diagnostics;
  const sim::ReplayRule replay = sim::replay_rule(penalties, read.comms, read.nodes, diagnostics);
  print_diagnostics(diagnostics);
  if (collsel::has_errors(diagnostics)) return kExitBadArguments;
  try {
    const sim::GraphResult result =
        sim::solve_graph(std::move(read), a.graph, graph_network(a, bandwidth), &replay.rule);
    if (*replay.steps_used != penalties.steps.size()) {
      fmt::print(stderr, "collsel: {}: the file gives {} steps, the graph has {}; remove the "
                         "extra lines\n", a.penalties, penalties.steps.size(), *replay.steps_used);
      return kExitBadArguments;
    }
    print_graph(result, a);
  } catch (const std::invalid_argument& e) {
    fmt::print(stderr, "collsel: {}\n", e.what());
    return kExitBadArguments;
  }
  return 0;
}

int run_simulate_algorithm(const SimulateArgs& a) {
  if (!a.penalties.empty()) {
    return usage_error("simulate", "--penalties applies to a GRAPH file only; an algorithm's "
                                   "steps come from its schedule");
  }
  if (a.comm_size < 1 || a.size.empty()) {
    return usage_error("simulate", "--algorithm needs -P N and -m SIZE");
  }
  if (a.root < 0 || a.root >= a.comm_size) {
    return usage_error("simulate", fmt::format("--root {} is not a rank of a {}-rank "
                                               "communicator (0 <= R < {})",
                                               a.root, a.comm_size, a.comm_size));
  }
  const mc::PlacementKind placement = *mc::placement_from_name(a.placement);
  if (placement == mc::PlacementKind::one_per_node && a.ranks_per_node > 1) {
    return usage_error("simulate", fmt::format("--placement one-per-node contradicts "
                                               "--ranks-per-node {}; choose one",
                                               a.ranks_per_node));
  }
  namespace sim = collsel::tools::simulate;
  sim::AlgorithmRequest q;
  q.algorithm = a.algorithm;
  q.comm_size = a.comm_size;
  q.bytes = *collsel::common::parse_size(a.size).bytes;
  q.root = a.root;
  q.placement = placement;
  q.ranks_per_node = a.ranks_per_node;
  q.seed = a.seed;
  if (!a.model.empty()) q.model_path = a.model;
  if (!a.rule.empty()) q.rule = mc::rule_from_name(a.rule);
  if (!a.bandwidth.empty()) q.bandwidth_bytes_per_s = sim::parse_bandwidth(a.bandwidth).bytes_per_s;
  if (a.beta_opt->count() > 0) q.gige_beta = a.beta;
  if (a.gamma_i_opt->count() > 0) q.gige_gamma_i = a.gamma_i;
  if (a.gamma_o_opt->count() > 0) q.gige_gamma_o = a.gamma_o;

  const sim::AlgorithmOutcome outcome = sim::simulate_algorithm(q);
  print_diagnostics(outcome.diagnostics);
  if (!outcome.usage_error.empty()) return usage_error("simulate", outcome.usage_error);
  if (!outcome.result) {
    fmt::print(stderr, "collsel simulate: cannot simulate with an unusable model file (see "
                       "above)\n");
    return kExitUnusable;
  }
  const std::string out = a.format == "json"
                              ? sim::format_algorithm_json(*outcome.result, a.steps)
                              : sim::format_algorithm_text(*outcome.result, a.steps);
  std::fputs(out.c_str(), stdout);
  return 0;
}

int run_simulate(const SimulateArgs& a) {
  if (a.graph.empty() == a.algorithm.empty()) {
    return usage_error("simulate", "give either a GRAPH file or --algorithm NAME (not both)");
  }
  return a.graph.empty() ? run_simulate_algorithm(a) : run_simulate_graph(a);
}

}  // namespace

Command simulate_command(CLI::App& app) {
  return make_command<SimulateArgs>(app, add_simulate, run_simulate);
}

}  // namespace collsel::tools::cli
