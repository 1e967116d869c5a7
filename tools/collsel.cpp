// The `collsel` command: explain a decision, report on a run's logs, list the algorithms.
// Exit codes: 0 success, 1 the input named exists but is unusable (model file, no logs),
// 2 bad command-line arguments.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "models/logp_import.hpp"
#include "models/model_file.hpp"
#include "selector/catalog.hpp"
#include "selector/config.hpp"
#include "tools/explain.hpp"
#include "tools/report.hpp"
#include "tools/size_parse.hpp"
#include "tools/text_table.hpp"

namespace {

using collsel::Collective;

constexpr int kExitUnusable = 1;
constexpr int kExitBadArguments = 2;

struct ExplainArgs {
  std::string model;
  std::string config;
  std::string coll;
  int comm_size = 0;
  std::string size;
  int root = 0;
  std::string force;
  std::string format = "text";
};

struct ReportArgs {
  std::string logdir = "collsel-logs";
  std::string run;
  std::string format = "text";
};

struct ListArgs {
  std::string coll;
  bool names = false;
};

// A usage error found after CLI11 parsed the line; reported like CLI11's own, with exit code 2.
int usage_error(std::string_view command, const std::string& message) {
  fmt::print(stderr, "collsel {}: {}\nRun with --help for more information.\n", command, message);
  return kExitBadArguments;
}

// Derived from the registry, so the help and the checks never list a stale name.
std::vector<std::string> collective_names() {
  std::vector<std::string> names;
  for (Collective c : collsel::kCollectives) names.emplace_back(collsel::collective_name(c));
  return names;
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
                  "Message size: Bcast the whole buffer, Scatter one rank's block. Bytes, or a "
                  "binary suffix: 4k = 4K = 4KiB = 4096, 1M = 1MiB, 1GiB")
      ->required()
      ->check(CLI::Validator(
          [](std::string& text) { return collsel::tools::parse_size(text).error; }, "SIZE",
          "size"));
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
  cmd->footer(
      "Examples:\n"
      "  collsel explain --coll bcast -P 16 -m 1MiB\n"
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

// ---- report ----------------------------------------------------------------------------------

CLI::App* add_report(CLI::App& app, ReportArgs& a) {
  CLI::App* cmd = app.add_subcommand(
      "report", "Compare the model's predictions with the measured times of one run's calls");
  cmd->add_option("LOGDIR", a.logdir,
                  "The log directory (the newest run in it is read) or one run's directory")
      ->capture_default_str();
  cmd->add_option("--run", a.run, "Read this RUN_ID in LOGDIR instead of the newest run");
  cmd->add_option("--format", a.format, "Output format")
      ->check(CLI::IsMember({"text", "csv", "json"}))
      ->capture_default_str();
  cmd->footer(
      "One row per (collective, algorithm, bytes, P): calls, mean actual time (each call's time\n"
      "is its slowest rank's), mean prediction, mean E_rel = (predicted - actual) / actual and\n"
      "mean |E_rel|. Warns loudly if ranks chose different algorithms for the same call.\n"
      "Examples:\n"
      "  collsel report collsel-logs\n"
      "  collsel report collsel-logs --run 20261123-072101-p12345 --format csv > run.csv\n"
      "Exit status: 0 ok, 1 no logs found, 2 bad arguments.");
  return cmd;
}

collsel::report::Format report_format(const std::string& name) {
  if (name == "csv") return collsel::report::Format::csv;
  if (name == "json") return collsel::report::Format::json;
  return collsel::report::Format::text;
}

int run_report(const ReportArgs& a) {
  const collsel::report::Format format = report_format(a.format);  // checked by CLI11
  const collsel::logs::RunLog log = collsel::logs::read_run(a.logdir, a.run);
  if (log.ranks.empty() && log.calls.empty()) {
    for (const auto& p : log.problems) fmt::print(stderr, "collsel report: {}\n", p);
    fmt::print(stderr,
               "collsel report: no logs found. Logs are written by MPI programs run with "
               "LD_PRELOAD=libcollsel.so, into LOG_DIR/RUN_ID/rank-*.jsonl where LOG_DIR is the "
               "config's [log] dir or $COLLSEL_LOG_DIR (default ./collsel-logs); see "
               "docs/LOGS.md\n");
    return kExitUnusable;
  }
  const collsel::report::Report report = collsel::report::build_report(log);
  std::fputs(collsel::report::format(report, format).c_str(), stdout);
  // The text output ends with these; keep CSV and JSON on stdout clean for programs.
  if (format != collsel::report::Format::text) {
    for (const auto& p : report.problems) fmt::print(stderr, "collsel report: {}\n", p);
    for (const auto& w : report.warnings) fmt::print(stderr, "collsel report: WARNING: {}\n", w);
  }
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
      "Run `collsel COMMAND --help` for a command's options.");

  ExplainArgs explain_args;
  ReportArgs report_args;
  ListArgs list_args;
  ImportArgs import_args;
  CLI::App* explain_cmd = add_explain(app, explain_args);
  CLI::App* report_cmd = add_report(app, report_args);
  CLI::App* list_cmd = add_list(app, list_args);
  CLI::App* import_cmd = add_import(app, import_args);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return parse_error_exit(app, e);
  }
  try {
    if (explain_cmd->parsed()) return run_explain(explain_args);
    if (report_cmd->parsed()) return run_report(report_args);
    if (list_cmd->parsed()) return run_list(list_args);
    if (import_cmd->parsed()) return run_import(import_args);
  } catch (const std::exception& e) {
    // Unexpected (I/O error mid-write, a bug): one line, not an abort with a core dump.
    fmt::print(stderr, "collsel: internal error: {}\n", e.what());
    return kExitUnusable;
  }
  return kExitBadArguments;
}
