// The `collsel` command: explain a decision, report on a run's logs, list the algorithms.
// Exit codes: 0 success, 1 the input named exists but is unusable (model file, no logs),
// 2 bad command-line arguments (fit-signature: also a CSV file it cannot read, parse or fit;
// simulate: also a GRAPH file it cannot read or parse; the file being its argument).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "models/contention/rules.hpp"
#include "models/contention/schedule.hpp"
#include "models/logp_import.hpp"
#include "models/model_file.hpp"
#include "selector/catalog.hpp"
#include "selector/config.hpp"
#include "tools/command_exit.hpp"
#include "tools/explain.hpp"
#include "tools/export_command.hpp"
#include "tools/plot_command.hpp"
#include "tools/fit_signature.hpp"
#include "tools/report_command.hpp"
#include "tools/simulate.hpp"
#include "tools/size_option.hpp"
#include "tools/size_parse.hpp"
#include "tools/text_table.hpp"

namespace {

using collsel::Collective;

using collsel::tools::kExitBadArguments;
using collsel::tools::kExitUnusable;
using collsel::tools::usage_error;

struct ExplainArgs {
  std::string model;
  std::string config;
  std::string coll;
  int comm_size = 0;
  std::string size;
  int root = 0;
  std::string force;
  std::string format = "text";
  int ranks_per_node = 1;
  std::string placement = "filled";
  std::uint64_t seed = 1;
  CLI::Option* ranks_per_node_opt = nullptr;
  CLI::Option* placement_opt = nullptr;
};

struct ListArgs {
  std::string coll;
  bool names = false;
};

// Derived from the registry, so the help and the checks never list a stale name.
std::vector<std::string> collective_names() {
  std::vector<std::string> names;
  for (Collective c : collsel::kCollectives) names.emplace_back(collsel::collective_name(c));
  return names;
}

namespace mc = collsel::models::contention;

std::vector<std::string> rule_choices() {
  std::vector<std::string> out;
  for (mc::RuleKind k : {mc::RuleKind::fair, mc::RuleKind::infiniband, mc::RuleKind::gige,
                         mc::RuleKind::myrinet}) {
    out.emplace_back(mc::rule_name(k));
  }
  return out;
}

std::vector<std::string> placement_choices() {
  std::vector<std::string> out;
  for (mc::PlacementKind k : {mc::PlacementKind::one_per_node, mc::PlacementKind::round_robin,
                              mc::PlacementKind::filled, mc::PlacementKind::random}) {
    out.emplace_back(mc::placement_name(k));
  }
  return out;
}

// CLI11's PositiveNumber prints its range as 0 to 1.8e308; say what is meant.
CLI::Validator whole_number_at_least_one(std::string what) {
  return CLI::Validator(
      [what](std::string& text) {
        return text.find_first_not_of("0123456789") == std::string::npos &&
                       text.find_first_not_of('0') != std::string::npos
                   ? std::string()
                   : fmt::format("{} must be a whole number >= 1, not '{}'", what, text);
      },
      "N>=1", what);
}

void print_diagnostics(const collsel::Diagnostics& diagnostics) {
  for (const auto& d : diagnostics) fmt::print(stderr, "{}\n", d.format());
}

// explain reads no COLLSEL_* variable, so its answer depends only on its arguments; say so when
// the environment would make the shim decide differently.
void note_ignored_environment() {
  for (const auto& [name, value] : collsel::read_collsel_env()) {
    if (name == collsel::kEnvLogDir || name == collsel::kEnvLogLevel) continue;
    fmt::print(stderr,
               "collsel explain: note: {}={} is set; explain ignores the environment (use "
               "--model, --config, --force)\n",
               name, value);
  }
}

// ---- explain ---------------------------------------------------------------------------------

CLI::App* add_explain(CLI::App& app, ExplainArgs& a) {
  CLI::App* cmd = app.add_subcommand(
      "explain",
      "Show which algorithm collsel would choose for one call, the predicted time of every "
      "algorithm, and why");
  cmd->add_option("--coll", a.coll, "The collective")
      ->required()
      ->check(CLI::IsMember(collective_names()));
  cmd->add_option("-P,--ranks", a.comm_size, "Communicator size (number of ranks)")
      ->required()
      ->check(CLI::Validator(
          [](std::string& text) {
            // CLI11's PositiveNumber prints its range as 0 to 1.8e308; say what is meant.
            return text.find_first_not_of("0123456789") == std::string::npos &&
                           text.find_first_not_of('0') != std::string::npos
                       ? std::string()
                       : fmt::format("the number of ranks must be a whole number >= 1, not '{}'",
                                     text);
          },
          "N>=1", "ranks"));
  cmd->add_option("-m,--size", a.size,
                  "Message size: Bcast the whole buffer, Scatter and Alltoall one block. Bytes, or a "
                  "binary suffix: 4k = 4K = 4KiB = 4096, 1M = 1MiB, 1GiB")
      ->required()
      ->check(collsel::tools::size_validator());
  cmd->add_option("--root", a.root, "Root rank (0 <= R < P)")->capture_default_str();
  cmd->add_option("--model", a.model,
                  "Calibrated model file (TOML). Default: the config's [model] path, else only "
                  "the embedded default model");
  cmd->add_option("--config", a.config,
                  "Config file (TOML), as the shim reads it. Default: the built-in defaults; the "
                  "COLLSEL_* environment is not read");
  cmd->add_option("--force", a.force,
                  "Force an algorithm (a name from `collsel list`, or native), as [override] does");
  cmd->add_option("--format", a.format, "Output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  a.ranks_per_node_opt =
      cmd->add_option("--ranks-per-node", a.ranks_per_node,
                      "Place the ranks on ceil(P / K) nodes, as the shim finds them from the "
                      "processor names; the model's [contention] section then decides whether "
                      "schedules are simulated. Default: no placement (closed forms)")
          ->check(whole_number_at_least_one("--ranks-per-node"));
  a.placement_opt = cmd->add_option("--placement", a.placement,
                                    "How ranks are placed on the nodes, as in `collsel simulate` "
                                    "(default filled)")
                        ->check(CLI::IsMember(placement_choices()));
  cmd->add_option("--seed", a.seed, "Seed of --placement random")->capture_default_str();
  cmd->footer(
      "Examples:\n"
      "  collsel explain --coll bcast -P 16 -m 1MiB\n"
      "  collsel explain --coll bcast -P 64 -m 1MiB --ranks-per-node 8 --model cluster.toml\n"
      "  collsel explain --coll scatter -P 8 -m 4k --root 3 --model cluster.toml\n"
      "  collsel explain --coll bcast -P 16 -m 64k --force bcast.chain --format json\n"
      "Exit status: 0 ok, 1 the model or config file is unusable, 2 bad arguments.");
  return cmd;
}

std::optional<std::string> check_force(Collective coll, const std::string& force) {
  if (force.empty() || force == collsel::kNativeName ||
      collsel::find_algorithm(coll, force) != nullptr) {
    return std::nullopt;
  }
  return fmt::format("--force: '{}' is not a {} algorithm; valid: {}, {}", force,
                     collsel::collective_name(coll), collsel::kNativeName,
                     collsel::algorithm_names(coll));
}

int run_explain(const ExplainArgs& a) {
  // Both already validated by CLI11's checks.
  const Collective coll = *collsel::collective_from_name(a.coll);
  const std::uint64_t bytes = *collsel::tools::parse_size(a.size).bytes;
  if (a.root < 0 || a.root >= a.comm_size) {
    return usage_error("explain", fmt::format("--root {} is not a rank of a {}-rank communicator "
                                              "(0 <= R < {})", a.root, a.comm_size, a.comm_size));
  }
  if (const auto bad = check_force(coll, a.force)) return usage_error("explain", *bad);

  note_ignored_environment();
  collsel::explain::Request request;
  request.shape = {coll, a.comm_size, bytes, a.root};
  if (!a.model.empty()) request.model_path = a.model;
  if (!a.config.empty()) request.config_path = a.config;
  if (!a.force.empty()) request.force = a.force;
  if (a.ranks_per_node_opt->count() > 0 || a.placement_opt->count() > 0) {
    const mc::PlacementKind kind = *mc::placement_from_name(a.placement);
    if (kind == mc::PlacementKind::one_per_node && a.ranks_per_node > 1) {
      return usage_error("explain", fmt::format("--placement one-per-node contradicts "
                                                "--ranks-per-node {}; choose one",
                                                a.ranks_per_node));
    }
    request.placement = mc::make_placement(kind, a.comm_size, a.ranks_per_node, a.seed);
    request.placement_kind = kind;
  }

  const collsel::explain::Outcome out = collsel::explain::explain(request);
  print_diagnostics(out.diagnostics);
  if (!out.explanation) {
    fmt::print(stderr, "collsel explain: cannot explain with an unusable input file (see above)\n");
    return kExitUnusable;
  }
  const std::string text = a.format == "json"
                               ? collsel::explain::format_json(*out.explanation)
                               : collsel::explain::format_text(*out.explanation);
  std::fputs(text.c_str(), stdout);
  return 0;
}

// ---- list ------------------------------------------------------------------------------------

CLI::App* add_list(CLI::App& app, ListArgs& a) {
  CLI::App* cmd = app.add_subcommand("list", "List the registered algorithms");
  cmd->add_option("--coll", a.coll, "Only this collective")
      ->check(CLI::IsMember(collective_names()));
  cmd->add_flag("--names", a.names, "Only the names, one per line (for scripts)");
  cmd->footer(
      "Algorithms are listed in registry order, which is also the tie-break order.\n"
      "Examples:\n"
      "  collsel list\n"
      "  collsel list --coll scatter --names");
  return cmd;
}

std::vector<Collective> selected_collectives(const std::string& coll) {
  if (coll.empty()) return {collsel::kCollectives.begin(), collsel::kCollectives.end()};
  return {*collsel::collective_from_name(coll)};
}

int run_list(const ListArgs& a) {
  for (Collective c : selected_collectives(a.coll)) {
    const auto algorithms = collsel::catalog(c);
    if (a.names) {
      for (const auto& algo : algorithms) fmt::print("{}\n", algo.name);
      continue;
    }
    fmt::print("{} ({} algorithms):\n", collsel::collective_name(c), algorithms.size());
    collsel::tools::TextTable table({"name", "segmented", "summary"}, {});
    for (const auto& algo : algorithms) {
      table.add_row({std::string(algo.name), algo.segmented ? "yes" : "",
                     std::string(algo.summary)});
    }
    fmt::print("{}\n", table.render("  "));
  }
  return 0;
}

// ---- import-logp ----------------------------------------------------------------------------

struct ImportArgs {
  std::string input;
  std::string output = "cluster.toml";
  std::string name;
};

CLI::App* add_import(CLI::App& app, ImportArgs& a) {
  CLI::App* cmd = app.add_subcommand(
      "import-logp", "Convert a parameter file of Kielmann's logp_mpi tool into a model file");
  cmd->add_option("FILE", a.input, "The logp_mpi parameter file (written by its logp_save)")
      ->required();
  cmd->add_option("-o,--output", a.output, "The model file to write")->capture_default_str();
  cmd->add_option("--name", a.name, "Name of the cluster (default: the file's description)");
  cmd->footer(
      "Columns accepted (docs/MODELS.md, \"Importing logp_mpi files\"): a '# Latency = L' line\n"
      "and rows TIME BYTES OS OS_MIN OS_CNFINT OR OR_MIN OR_CNFINT G, in seconds. The model\n"
      "takes g = G, o_s = OS, o_r = OR. No eager limit is known from such a file.\n"
      "Example:\n"
      "  collsel import-logp das2.logp -o das2.toml && collsel explain --model das2.toml "
      "--coll bcast -P 16 -m 1MiB");
  return cmd;
}

int run_import(const ImportArgs& a) {
  std::ifstream in(a.input);
  if (!in) {
    fmt::print(stderr, "collsel import-logp: cannot read {}\n", a.input);
    return kExitUnusable;
  }
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  auto load = collsel::models::import_logp_mpi(text, a.input);
  for (const auto& d : load.diagnostics) fmt::print(stderr, "{}\n", d.format());
  if (!load.model) return kExitUnusable;
  if (!a.name.empty()) load.model->name = a.name;
  if (const auto problem = collsel::models::save_model_file(*load.model, a.output)) {
    fmt::print(stderr, "collsel import-logp: {}\n", *problem);
    return kExitUnusable;
  }
  fmt::print("collsel import-logp: wrote {} ({} sizes, L = {:.3g} us)\n", a.output,
             load.model->plogp.table.size(), load.model->plogp.latency_s * 1e6);
  return 0;
}

// ---- fit-signature ---------------------------------------------------------------------------

struct FitArgs {
  std::string input;
  double alpha = 0.0;
  double beta = 0.0;
  std::string format = "text";
};

// CLI11's NonNegativeNumber prints its range as 0 to 1.8e308; say what is meant.
CLI::Validator non_negative(std::string what, std::string example) {
  return CLI::Validator(
      [what, example](std::string& text) {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (!text.empty() && end == text.c_str() + text.size() && std::isfinite(v) && v >= 0.0) {
          return std::string();
        }
        return fmt::format("{} must be a number >= 0, such as {}, not '{}'", what, example, text);
      },
      "X>=0", what);
}

CLI::App* add_fit(CLI::App& app, FitArgs& a) {
  CLI::App* cmd = app.add_subcommand(
      "fit-signature",
      "Fit the All-to-All contention signature (gamma, delta, M; seed 000 eq. 5) to measured "
      "completion times");
  cmd->add_option("DATA", a.input,
                  "CSV file: a header line naming the columns n,m_bytes,seconds (any order), then "
                  "one measured All-to-All per line: processes, bytes per message, seconds")
      ->required();
  cmd->add_option("--alpha", a.alpha,
                  "Hockney start-up alpha of one point-to-point message, seconds (e.g. 6e-5)")
      ->required()
      ->check(non_negative("--alpha", "6e-5"));
  cmd->add_option("--beta", a.beta,
                  "Hockney beta of one point-to-point message: seconds per byte, 1 / bandwidth "
                  "(e.g. 8e-8 for 100 Mbit/s)")
      ->required()
      ->check(non_negative("--beta", "8e-8"));
  cmd->add_option("--format", a.format, "Output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  cmd->footer(
      "Fits T = gamma (n-1)(alpha + m beta) + (n-1) delta [m >= M] by least squares on\n"
      "relative residuals (weights 1/T^2). M is chosen among the measured sizes, or none, by\n"
      "AIC; a delta must stand 3 standard errors above 0. At least 4 measurements over at\n"
      "least 2 sizes; several n may be mixed. Prints gamma, delta, M, the fit quality, every\n"
      "threshold tried, each measurement's residual, and the [alltoall] keys for the model\n"
      "file (docs/MODELS.md, \"All-to-All (seed 000)\").\n"
      "CSV example:\n"
      "  # 24 processes, Fast Ethernet\n"
      "  n,m_bytes,seconds\n"
      "  24,1024,0.00333\n"
      "  24,65536,0.3136\n"
      "Examples:\n"
      "  collsel fit-signature alltoall.csv --alpha 6e-5 --beta 8e-8\n"
      "  collsel fit-signature alltoall.csv --alpha 6e-5 --beta 8e-8 --format json\n"
      "Exit status: 0 ok, 2 bad arguments, or a CSV file that cannot be read, parsed or fitted\n"
      "(the message names the file and line).");
  return cmd;
}

int run_fit(const FitArgs& a) {
  std::ifstream in(a.input, std::ios::binary);
  if (!in) {
    fmt::print(stderr, "collsel: {}: cannot read the file ({}); check the path\n", a.input,
               std::strerror(errno));
    return kExitBadArguments;
  }
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  namespace fit = collsel::tools::fit_signature;
  fit::CsvRead csv = fit::read_samples_csv(text, a.input);
  print_diagnostics(csv.diagnostics);
  if (collsel::has_errors(csv.diagnostics)) return kExitBadArguments;

  fit::Result result;
  result.source = a.input;
  result.hockney = {a.alpha, a.beta};
  result.rows = std::move(csv.rows);
  std::vector<collsel::models::alltoall::Sample> samples;
  for (const auto& row : result.rows) samples.push_back(row.sample);
  result.fit = collsel::models::alltoall::fit_signature(samples, result.hockney);
  if (result.fit.error) {
    fmt::print(stderr,
               "collsel: {}: cannot fit the signature: {}; measure at least {} points over at "
               "least 2 sizes, every time > 0, with --alpha and --beta from a point-to-point "
               "measurement\n",
               a.input, *result.fit.error, collsel::models::alltoall::kMinSignatureSamples);
    return kExitBadArguments;
  }
  const std::string out =
      a.format == "json" ? fit::format_json(result) : fit::format_text(result);
  std::fputs(out.c_str(), stdout);
  return 0;
}

// ---- simulate --------------------------------------------------------------------------------

struct SimulateArgs {
  std::string graph;
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
          ->check(collsel::tools::size_validator()),
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
      "Examples:\n"
      "  collsel simulate graph.txt --rule infiniband --bandwidth 1.82e9\n"
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
  std::ifstream in(a.graph, std::ios::binary);
  if (!in) {
    fmt::print(stderr, "collsel: {}: cannot read the file ({}); check the path\n", a.graph,
               std::strerror(errno));
    return kExitBadArguments;
  }
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  namespace sim = collsel::tools::simulate;
  sim::GraphRead read = sim::read_graph(text, a.graph);
  print_diagnostics(read.diagnostics);
  if (collsel::has_errors(read.diagnostics)) return kExitBadArguments;
  const double bandwidth = *sim::parse_bandwidth(a.bandwidth).bytes_per_s;  // checked by CLI11
  const sim::GraphResult result =
      sim::solve_graph(std::move(read), a.graph, graph_network(a, bandwidth));
  const std::string out =
      a.format == "json" ? sim::format_graph_json(result) : sim::format_graph_text(result);
  std::fputs(out.c_str(), stdout);
  return 0;
}

int run_simulate_algorithm(const SimulateArgs& a) {
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
  q.bytes = *collsel::tools::parse_size(a.size).bytes;
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

// CLI11 reports help and version as "errors" with exit code 0; every real parse error becomes 2.
int parse_error_exit(CLI::App& app, const CLI::ParseError& e) {
  const int code = app.exit(e);
  return code == 0 ? 0 : kExitBadArguments;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "collsel: model-driven selection of MPI collective algorithms (the LD_PRELOAD shim is "
      "libcollsel.so; this tool explains its decisions and reports on its logs)",
      "collsel"};
  app.set_version_flag("--version", std::string("collsel ") + COLLSEL_VERSION);
  app.require_subcommand(1);
  app.footer(
      "Examples:\n"
      "  collsel explain --coll bcast -P 16 -m 1MiB\n"
      "  collsel report collsel-logs\n"
      "  collsel list --coll bcast\n"
      "  collsel import-logp cluster.logp -o cluster.toml\n"
      "  collsel fit-signature alltoall.csv --alpha 6e-5 --beta 8e-8\n"
      "  collsel simulate --algorithm bcast.binomial -P 64 -m 1MiB --ranks-per-node 8\n"
      "  collsel export --format mpich-json --model cluster.toml -o collsel.json\n"
      "  collsel plot collsel-logs --out plots --format png\n"
      "Run `collsel COMMAND --help` for a command's options.");

  ExplainArgs explain_args;
  collsel::tools::reporting::CommandArgs report_args;
  ListArgs list_args;
  ImportArgs import_args;
  FitArgs fit_args;
  SimulateArgs simulate_args;
  CLI::App* explain_cmd = add_explain(app, explain_args);
  CLI::App* report_cmd = collsel::tools::reporting::add_command(app, report_args);
  CLI::App* list_cmd = add_list(app, list_args);
  CLI::App* import_cmd = add_import(app, import_args);
  CLI::App* fit_cmd = add_fit(app, fit_args);
  CLI::App* simulate_cmd = add_simulate(app, simulate_args);
  collsel::tools::exporting::CommandArgs export_args;
  CLI::App* export_cmd = collsel::tools::exporting::add_command(app, export_args);
  collsel::tools::plotting::CommandArgs plot_args;
  CLI::App* plot_cmd = collsel::tools::plotting::add_command(app, plot_args);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return parse_error_exit(app, e);
  }
  try {
    if (explain_cmd->parsed()) return run_explain(explain_args);
    if (report_cmd->parsed()) return collsel::tools::reporting::run_command(report_args);
    if (list_cmd->parsed()) return run_list(list_args);
    if (import_cmd->parsed()) return run_import(import_args);
    if (fit_cmd->parsed()) return run_fit(fit_args);
    if (simulate_cmd->parsed()) return run_simulate(simulate_args);
    if (export_cmd->parsed()) return collsel::tools::exporting::run_command(export_args);
    if (plot_cmd->parsed()) return collsel::tools::plotting::run_command(plot_args);
  } catch (const std::exception& e) {
    // Unexpected (I/O error mid-write, a bug): one line, not an abort with a core dump.
    fmt::print(stderr, "collsel: internal error: {}\n", e.what());
    return kExitUnusable;
  }
  return kExitBadArguments;
}
