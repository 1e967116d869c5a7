// `collsel explain`: which algorithm collsel would choose for one call shape, every algorithm's
// predicted time, and why (tools/decisions/explain.hpp).
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
#include "models/contention/schedule.hpp"
#include "selector/catalog.hpp"
#include "selector/config.hpp"
#include "common/duration_format.hpp"
#include "selector/learned.hpp"
#include "tools/decisions/explain.hpp"

namespace collsel::tools::cli {
namespace {

namespace mc = collsel::models::contention;

struct ExplainArgs {
  std::string model;
  std::string config;
  std::string coll;
  int comm_size = 0;
  std::string size;
  int root = 0;
  std::string force;
  std::string learned;
  std::string format = "text";
  int ranks_per_node = 1;
  std::string placement = "filled";
  std::uint64_t seed = 1;
  CLI::Option* ranks_per_node_opt = nullptr;
  CLI::Option* placement_opt = nullptr;
};

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
      ->check(collsel::common::size_validator());
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
  cmd->add_option("--learned", a.learned,
                  "A learned table (a run's learned.toml, docs/ADAPT.md): also say what a run "
                  "started from it would run for this call, and what was measured");
  cmd->footer(
      "Examples:\n"
      "  collsel explain --coll bcast -P 16 -m 1MiB\n"
      "  collsel explain --coll bcast -P 64 -m 1MiB --ranks-per-node 8 --model cluster.toml\n"
      "  collsel explain --coll scatter -P 8 -m 4k --root 3 --model cluster.toml\n"
      "  collsel explain --coll bcast -P 16 -m 64k --force bcast.chain --format json\n"
      "  collsel explain --coll bcast -P 16 -m 64k --learned collsel-logs/RUN/learned.toml\n"
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

// What the learned table changes for this call: a run started from it runs the measured choice
// on a shape the table holds (docs/ADAPT.md), whatever the model predicts.
int explain_learned(const std::string& path, const collsel::CallShape& shape) {
  const std::optional<std::string> text = read_input_file(path);
  if (!text) return kExitBadArguments;
  const collsel::LearnedLoad load = collsel::parse_learned(*text, path, "");
  print_diagnostics(load.diagnostics);
  if (!load.table) return kExitUnusable;
  const collsel::LearnedShape* l = load.table->find(shape);
  fmt::print("\nlearned table {} (measured against model '{}'):\n", path, load.table->model);
  if (l == nullptr) {
    fmt::print("  no entry for this call shape: a run started from it decides by the model, as "
               "above\n");
    return 0;
  }
  for (const auto& [name, seconds] : l->measured_s) {
    fmt::print("  {:<28} {:>12} per call measured{}\n", name,
               collsel::common::format_duration(seconds),
               name == l->model_choice ? " (the model's choice then)" : "");
  }
  if (l->chosen == l->model_choice) {
    fmt::print("  the measurements kept the model's choice {} ({} calls, {} trials)\n", l->chosen,
               l->calls, l->explore_calls);
  } else {
    fmt::print("  a run started from it runs {} (rung measured) instead of the model's choice\n"
               "  until its measured time departs from {} by more than [adapt] threshold\n",
               l->chosen, collsel::common::format_duration(*l->measured(l->chosen)));
    const auto label = collsel::parse_learned_label(shape.coll, l->chosen);
    if (label && label->segment_bytes) {
      fmt::print("  ({}: {} cut into {}-byte segments, a trial's, not the model's)\n", l->chosen,
                 label->algorithm, *label->segment_bytes);
    }
  }
  return 0;
}

int run_explain(const ExplainArgs& a) {
  // Both already validated by CLI11's checks.
  const Collective coll = *collsel::collective_from_name(a.coll);
  const std::uint64_t bytes = *collsel::common::parse_size(a.size).bytes;
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
  if (!a.learned.empty()) return explain_learned(a.learned, request.shape);
  return 0;
}

}  // namespace

Command explain_command(CLI::App& app) {
  return make_command<ExplainArgs>(app, add_explain, run_explain);
}

}  // namespace collsel::tools::cli
