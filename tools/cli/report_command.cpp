// `collsel report`: reads a run's logs (and optionally a baseline run's), builds the report
// (tools/report/report.hpp) and prints it as text, CSV or JSON, or writes the HTML page
// (tools/report/html_report.hpp). Exit status: 0 ok, 1 no logs (in LOGDIR or --baseline), an
// unusable --model, or an HTML page that could not be written; 2 bad arguments.
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "selector/collective.hpp"
#include "tools/cli/command_exit.hpp"
#include "tools/cli/commands.hpp"

#include "tools/plots/html_report.hpp"
#include "tools/logs/log_reader.hpp"
#include "tools/decisions/native_choice.hpp"
#include "tools/report/report.hpp"
#include "tools/report/self_correction.hpp"
#include "tools/logs/symbolize.hpp"

namespace collsel::tools::reporting {
namespace {

struct CommandArgs {
  std::string logdir = "collsel-logs";
  std::string run;
  std::string format = "text";
  std::string section = "rows";
  std::string baseline;
  std::string model;
  std::size_t top = 10;
  bool no_symbols = false;
  std::string html;
  CLI::Option* section_option = nullptr;  // given on the command line
};

int usage_error(const std::string& message) { return tools::usage_error("report", message); }

// The run in `dir`; empty, after saying where it looked and what writes logs, when there is none.
// `what` names the option the directory came from, for the message.
std::optional<logs::RunLog> read_logs(const std::string& dir, const std::string& run,
                                      std::string_view what) {
  logs::RunLog log = logs::read_run(dir, run);
  if (!log.ranks.empty() || !log.calls.empty()) return log;
  for (const auto& p : log.problems) fmt::print(stderr, "collsel report: {}\n", p);
  fmt::print(stderr,
             "collsel report: {}no logs found. Logs are written by MPI programs run with "
             "LD_PRELOAD=libcollsel.so, into LOG_DIR/RUN_ID/rank-*.jsonl where LOG_DIR is the "
             "config's [log] dir or $COLLSEL_LOG_DIR (default ./collsel-logs); see "
             "docs/LOGS.md\n",
             what);
  return std::nullopt;
}

std::vector<std::string> run_models(const logs::RunLog& log) {
  std::set<std::string> models;
  for (const auto& r : log.ranks) models.insert(r.model);
  return {models.begin(), models.end()};
}

// The `mpi` field of the ranks' run records: whose default collectives the estimates price.
std::vector<std::string> run_mpis(const logs::RunLog& log) {
  std::vector<std::string> mpis;
  for (const auto& r : log.ranks) mpis.push_back(r.mpi);
  return mpis;
}

report::Format format_of(const std::string& name) {
  if (name == "csv") return report::Format::csv;
  if (name == "json") return report::Format::json;
  return report::Format::text;
}

// The page goes next to the printed report. False (after saying why) when it was not written.
bool write_html(const report::Report& report, const CommandArgs& a,
                const native::NativeEstimator& estimator) {
  html::HtmlOptions options;
  options.out_dir = a.html;
  // The decision map shows the model the savings were priced with.
  options.model_path = a.model.empty() ? estimator.model_path() : optional_text(a.model);
  const html::HtmlResult result = html::write_html_report(report, options);
  for (const auto& d : result.diagnostics) fmt::print(stderr, "{}\n", d.format());
  for (const auto& note : result.notes) fmt::print(stderr, "collsel report: --html: {}\n", note);
  if (!result.written) {
    fmt::print(stderr, "collsel report: --html: {} was not written (see above)\n",
               result.index.string());
    return false;
  }
  fmt::print(stderr, "collsel report: wrote {}\n", result.index.string());
  return true;
}

CLI::App* add_command(CLI::App& app, CommandArgs& a) {
  CLI::App* cmd = app.add_subcommand(
      "report", "Summarise one run's collective calls: time per collective and algorithm, top "
                "call sites, predicted vs measured error, time saved against the native "
                "collective");
  cmd->add_option("LOGDIR", a.logdir,
                  "The log directory (the newest run in it is read) or one run's directory")
      ->capture_default_str();
  cmd->add_option("--run", a.run, "Read this RUN_ID in LOGDIR instead of the newest run");
  cmd->add_option("--format", a.format, "Output format")
      ->check(CLI::IsMember({"text", "csv", "json"}))
      ->capture_default_str();
  a.section_option =
      cmd->add_option("--section", a.section,
                      "With --format csv: the table to write, each with its own header line")
          ->check(CLI::IsMember(report::section_names()))
          ->capture_default_str();
  cmd->add_option("--baseline", a.baseline,
                  "A run of the same program with the native collectives (COLLSEL_DISABLE=all or "
                  "COLLSEL_FORCE_*=native): a log directory (its newest run) or a run's "
                  "directory. Its native calls are the measured native times of the savings");
  cmd->add_option("--model", a.model,
                  "The model that prices the MPI library's own choice (MPICH's or Open MPI's "
                  "default rules, by the MPI the run's shim was built for) where no native call "
                  "was measured. "
                  "Default: the run's model file when it is readable here, else the embedded "
                  "default model");
  cmd->add_option("--top", a.top, "Call sites listed, the most time first")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_flag("--no-symbols", a.no_symbols,
                "List call sites by address, without reading the programs' debug information");
  cmd->add_option("--html", a.html,
                  "Also write a self-contained HTML page with the tables and plots to this "
                  "directory (OUT/index.html; plots need gnuplot)");
  cmd->footer(
      "Sections: totals per collective and algorithm (a call's time is its slowest rank's);\n"
      "top call sites (time summed over ranks); predicted vs actual per algorithm and size\n"
      "bucket; time saved against the native collective (measured in this run or --baseline,\n"
      "else the measured time scaled by the model's ratio of the library's default choice, MPICH\n"
      "4.0's or Open MPI 4.1.4's, to what ran);\n"
      "the calls by exact size. Warns loudly if ranks chose different algorithms for the same\n"
      "call. docs/TOOLS.md, \"Reading a collsel report\", defines every column.\n"
      "Examples:\n"
      "  collsel report collsel-logs\n"
      "  collsel report collsel-logs --baseline native-logs --top 20\n"
      "  collsel report collsel-logs --format csv --section savings > savings.csv\n"
      "  collsel report collsel-logs --format json --html report/\n"
      "Exit status: 0 ok, 1 no logs found, an unusable --model or an unwritable --html\n"
      "directory, 2 bad arguments.");
  return cmd;
}

int run_command(const CommandArgs& a) {
  const report::Format format = format_of(a.format);  // checked by CLI11
  if (a.section_option->count() > 0 && format != report::Format::csv) {
    return usage_error("--section chooses the table of --format csv; text and JSON hold every "
                       "section");
  }
  const std::optional<logs::RunLog> log = read_logs(a.logdir, a.run, "");
  if (!log) return kExitUnusable;
  std::optional<logs::RunLog> baseline;
  if (!a.baseline.empty()) {
    baseline = read_logs(a.baseline, "", fmt::format("--baseline {}: ", a.baseline));
    if (!baseline) return kExitUnusable;
  }

  Diagnostics diagnostics;
  std::vector<std::string> model_notes;
  const std::optional<native::NativeEstimator> estimator = native::load_estimator(
      optional_text(a.model), run_models(*log), native::rules_for_run(run_mpis(*log)), diagnostics,
      model_notes);
  for (const auto& d : diagnostics) fmt::print(stderr, "{}\n", d.format());
  if (!estimator) {
    fmt::print(stderr, "collsel report: cannot price the native collective with an unusable "
                       "--model (see above)\n");
    return kExitUnusable;
  }

  // --no-symbols: no modules, so every frame stays an address.
  Symbolizer symbolizer = a.no_symbols ? Symbolizer(std::map<int, std::vector<logs::Module>>{}) : symbolizer_for(*log);
  report::Options options;
  options.baseline = baseline ? &*baseline : nullptr;
  options.estimator = &*estimator;
  options.symbolizer = &symbolizer;
  options.top_call_sites = a.top;
  report::Report report = report::build_report(*log, options);
  report.warnings.insert(report.warnings.end(), model_notes.begin(), model_notes.end());
  if (baseline) {
    report.problems.insert(report.problems.end(), baseline->problems.begin(),
                           baseline->problems.end());
  }

  const bool html_ok = a.html.empty() || write_html(report, a, *estimator);
  const report::Section section = *report::section_from_name(a.section);  // checked by CLI11
  std::fputs(report::format(report, format, section).c_str(), stdout);
  // The self-correction section (docs/ADAPT.md), when the run wrote a learned table.
  if (format == report::Format::text) {
    if (const auto s = report::self_correction(log->dir, report::merge_calls(log->calls))) {
      std::fputs(report::format_self_correction_text(*s).c_str(), stdout);
    }
  }
  // The text output ends with these; keep CSV and JSON on stdout clean for programs.
  if (format != report::Format::text) {
    for (const auto& p : report.problems) fmt::print(stderr, "collsel report: {}\n", p);
    for (const auto& w : report.warnings) fmt::print(stderr, "collsel report: WARNING: {}\n", w);
  }
  return html_ok ? 0 : kExitUnusable;
}

}  // namespace
}  // namespace collsel::tools::reporting

namespace collsel::tools::cli {

Command report_command(CLI::App& app) {
  return make_command<reporting::CommandArgs>(app, reporting::add_command, reporting::run_command);
}

}  // namespace collsel::tools::cli
