// `collsel refit LOGDIR --model M -o M2`: the model with its parameters and per-algorithm
// correction factors fitted to a run's logged predictions and measurements
// (tools/report/refit.hpp, docs/MODELS.md "Refitting the parameters" and "Corrections"): how a
// user improves the model from ordinary production runs.
#include <filesystem>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "models/model_file.hpp"
#include "tools/cli/command_exit.hpp"
#include "tools/cli/commands.hpp"
#include "tools/cli/options.hpp"
#include "tools/logs/log_reader.hpp"
#include "tools/report/refit.hpp"

namespace collsel::tools::cli {
namespace {

struct RefitArgs {
  std::string logdir;
  std::string run;
  std::string model;
  std::string output;
  int min_calls = 5;
  bool no_parameters = false;
  bool no_factors = false;
};

CLI::App* add_refit(CLI::App& app, RefitArgs& a) {
  CLI::App* cmd = app.add_subcommand(
      "refit", "Fit a model's parameters and per-algorithm correction factors to a run's "
               "logged predictions and measurements, and write the corrected model");
  cmd->add_option("LOGDIR", a.logdir, "The log directory (its newest run) or one run's directory")
      ->required();
  cmd->add_option("--run", a.run, "Read this RUN_ID in LOGDIR instead of the newest run");
  cmd->add_option("--model,-m", a.model, "The model file the run used")->required();
  cmd->add_option("-o,--output", a.output, "Where to write the corrected model")->required();
  cmd->add_option("--min-calls", a.min_calls,
                  "Calls an algorithm needs in the logs for its factor to be fitted")
      ->check(whole_number_at_least_one("--min-calls"))
      ->capture_default_str();
  cmd->add_flag("--no-parameters", a.no_parameters,
                "Keep the model's parameters; fit the per-algorithm factors only");
  cmd->add_flag("--no-factors", a.no_factors,
                "Keep the model's per-algorithm factors; fit the parameters only");
  cmd->footer(
      "First the parameters: every logged call is replayed on the model with its latency terms,\n"
      "its gap terms and its overhead terms each multiplied by a scale, and the three scales\n"
      "that minimise the mean |ln(predicted / actual)| are kept if they cut it by 1 % or more\n"
      "(a call's actual time is its slowest rank's). Then, per algorithm, a factor: the median\n"
      "of actual / predicted over its calls. Prints the scales and, per algorithm, the median\n"
      "|E_rel| before, with the new parameters, and with the new factor too.\n"
      "Examples:\n"
      "  collsel refit collsel-logs --model cluster.toml -o cluster-refit.toml\n"
      "  collsel refit collsel-logs --model cluster.toml -o c2.toml --no-factors\n"
      "Exit status: 0 ok, 1 no logs, an unusable model or an unwritable output, 2 bad "
      "arguments.");
  return cmd;
}

int run_refit(const RefitArgs& a) {
  const logs::RunLog log = logs::read_run(a.logdir, a.run);
  if (log.calls.empty()) {
    for (const auto& p : log.problems) fmt::print(stderr, "collsel refit: {}\n", p);
    fmt::print(stderr,
               "collsel refit: {}: no call records (refit needs [log] level = \"trace\"; "
               "docs/LOGS.md)\n",
               a.logdir);
    return kExitUnusable;
  }
  const models::ModelLoad load = models::load_model_file(a.model);
  print_diagnostics(load.diagnostics);
  if (!load.model) return kExitUnusable;
  std::error_code ec;
  const auto same_file = [&ec](const std::string& x, const std::string& y) {
    return std::filesystem::weakly_canonical(x, ec) == std::filesystem::weakly_canonical(y, ec);
  };
  for (const auto& r : log.ranks) {
    if (!same_file(r.model, a.model)) {
      fmt::print(stderr,
                 "collsel refit: note: the run was logged with model {}, not {}; the factors "
                 "are fitted to that run's predictions\n",
                 r.model, a.model);
      break;
    }
  }
  const report::Refit refit =
      report::refit(report::merge_calls(log.calls), *load.model,
                    {.min_calls = a.min_calls, .parameters = !a.no_parameters,
                     .factors = !a.no_factors});
  fmt::print("collsel refit: run {} ({} call records), model {}\n", log.run_id, log.calls.size(),
             a.model);
  std::fputs(report::format_refit_text(refit).c_str(), stdout);
  if (const auto problem = models::save_model_file(refit.model, a.output)) {
    fmt::print(stderr, "collsel refit: {}\n", *problem);
    return kExitUnusable;
  }
  fmt::print("collsel refit: wrote {}\n", a.output);
  return 0;
}

}  // namespace

Command refit_command(CLI::App& app) { return make_command<RefitArgs>(app, add_refit, run_refit); }

}  // namespace collsel::tools::cli
