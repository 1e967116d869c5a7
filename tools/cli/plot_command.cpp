// `collsel plot`: the report's plots as SVG or PNG files, one per kind (tools/plots/plots.hpp
// draws them). Exit status: 0 at least one plot written, 1 nothing could be drawn or written (no
// logs, an unusable model or config file, gnuplot missing or failing), 2 bad arguments.
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <filesystem>
#include <optional>

#include <fmt/format.h>

#include "selector/collective.hpp"
#include "tools/cli/command_exit.hpp"
#include "tools/cli/commands.hpp"
#include "common/file_write.hpp"

#include "tools/logs/log_reader.hpp"
#include "tools/plots/gnuplot.hpp"
#include "tools/plots/plots.hpp"
#include "tools/report/report.hpp"
#include "tools/logs/symbolize.hpp"

namespace collsel::tools::plotting {
namespace {

struct CommandArgs {
  std::string logdir = "collsel-logs";
  std::string run;
  std::string out;
  std::string format = "svg";
  std::vector<std::string> kinds;
  bool decision_map_only = false;
  std::string model;
  std::string config;
  std::size_t top = 15;
  CLI::Option* logdir_option = nullptr;  // given on the command line (not the default)
};

int usage_error(const std::string& message) { return tools::usage_error("plot", message); }

std::vector<std::string> kind_names() {
  std::vector<std::string> names;
  for (const plots::PlotKind k : plots::kPlotKinds) names.emplace_back(plots::plot_kind_name(k));
  return names;
}

// The run's report, with call sites resolved as `collsel report` resolves them. Empty (after
// saying why) when there is no log.
std::optional<report::Report> load_report(const CommandArgs& a) {
  const logs::RunLog log = logs::read_run(a.logdir, a.run);
  if (log.ranks.empty() && log.calls.empty()) {
    for (const auto& p : log.problems) fmt::print(stderr, "collsel plot: {}\n", p);
    fmt::print(stderr,
               "collsel plot: no logs found in {}; logs are written by MPI programs run with "
               "LD_PRELOAD=libcollsel.so (docs/LOGS.md). Without logs, `collsel plot "
               "--decision-map --out DIR` draws the model's decision map alone\n",
               a.logdir);
    return std::nullopt;
  }
  Symbolizer symbolizer = symbolizer_for(log);
  report::Options options;
  options.symbolizer = &symbolizer;
  options.top_call_sites = a.top;
  return report::build_report(log, options);
}

CLI::App* add_command(CLI::App& app, CommandArgs& a) {
  CLI::App* cmd = app.add_subcommand(
      "plot", "Draw the report's plots (predicted vs measured, error by size, time per call "
              "site, the model's decision map) as SVG or PNG files, with gnuplot");
  a.logdir_option =
      cmd->add_option("LOGDIR", a.logdir,
                      "The log directory (the newest run in it is read) or one run's directory")
          ->capture_default_str();
  cmd->add_option("--run", a.run, "Read this RUN_ID in LOGDIR instead of the newest run");
  cmd->add_option("-o,--out", a.out, "The directory the files go to (created if missing)")
      ->required();
  cmd->add_option("--format", a.format, "Image format")
      ->check(CLI::IsMember({"svg", "png"}))
      ->capture_default_str();
  cmd->add_option("--kind", a.kinds, "Only these plots (repeat or separate with commas; default: "
                                     "all)")
      ->delimiter(',')
      ->check(CLI::IsMember(kind_names()));
  cmd->add_flag("--decision-map", a.decision_map_only,
                "Only the decision map; no logs are needed unless LOGDIR is given (then the "
                "run's model is the default)");
  cmd->add_option("--model", a.model,
                  "The model of the decision map (TOML). Default: the model file the run used, "
                  "when it is still there, else the embedded default model");
  cmd->add_option("--config", a.config,
                  "The config of the decision map (its [override] and disabled collectives). "
                  "Default: the run's, when it is still there, else the built-in defaults");
  cmd->add_option("--top", a.top, "Call sites in the call_sites plot")->capture_default_str();
  cmd->footer(
      "Writes OUT/KIND.svg (or .png) for each plot: scatter, error_by_size, call_sites,\n"
      "decision_map. Needs gnuplot (Debian: apt-get install gnuplot-nox).\n"
      "`collsel report --html OUT/` puts the same plots, and the report's tables, in one page.\n"
      "Examples:\n"
      "  collsel plot collsel-logs --out plots\n"
      "  collsel plot collsel-logs --out plots --format png --kind scatter,error_by_size\n"
      "  collsel plot --decision-map --model cluster.toml --out plots\n"
      "Exit status: 0 at least one plot written, 1 nothing could be drawn (no logs, an unusable\n"
      "model or config file, gnuplot missing or failing), 2 bad arguments.");
  return cmd;
}

int run_command(const CommandArgs& a) {
  std::vector<plots::PlotKind> kinds;
  for (const auto& name : a.kinds) {
    const plots::PlotKind k = *plots::plot_kind_from_name(name);  // checked by CLI11
    if (std::find(kinds.begin(), kinds.end(), k) == kinds.end()) kinds.push_back(k);
  }
  if (a.decision_map_only) {
    if (std::any_of(kinds.begin(), kinds.end(),
                    [](plots::PlotKind k) { return k != plots::PlotKind::decision_map; })) {
      return usage_error("--decision-map draws the decision map only; drop --kind or "
                         "--decision-map");
    }
    kinds = {plots::PlotKind::decision_map};
  } else if (kinds.empty()) {
    kinds.assign(plots::kPlotKinds.begin(), plots::kPlotKinds.end());
  }

  // The logs are read when a plot needs them, or when LOGDIR was named (for the map's model).
  const bool needs_log =
      a.logdir_option->count() > 0 ||
      std::any_of(kinds.begin(), kinds.end(),
                  [](plots::PlotKind k) { return k != plots::PlotKind::decision_map; });
  std::optional<report::Report> report;
  if (needs_log) {
    report = load_report(a);
    if (!report) return kExitUnusable;
  }

  std::error_code ec;
  std::filesystem::create_directories(a.out, ec);
  if (ec) {
    fmt::print(stderr, "collsel plot: cannot create {}: {}; choose another --out\n", a.out,
               ec.message());
    return kExitUnusable;
  }
  const plots::ImageFormat format =
      a.format == "png" ? plots::ImageFormat::png : plots::ImageFormat::svg;
  int written = 0;
  for (const plots::PlotKind kind : kinds) {
    plots::PlotSource source;
    switch (kind) {
      case plots::PlotKind::scatter: source = plots::scatter_plot(*report); break;
      case plots::PlotKind::error_by_size: source = plots::error_by_size_plot(*report); break;
      case plots::PlotKind::call_sites: source = plots::call_sites_plot(*report, a.top); break;
      case plots::PlotKind::decision_map: {
        plots::MapOutcome map = plots::decision_map_for(report ? &*report : nullptr,
                                                        optional_text(a.model),
                                                        optional_text(a.config));
        for (const auto& d : map.diagnostics) fmt::print(stderr, "{}\n", d.format());
        source = std::move(map.source);
        break;
      }
    }
    const plots::Rendered drawn = plots::render(source, format);
    if (drawn.gnuplot_missing) {
      fmt::print(stderr, "collsel plot: {}\n", plots::kInstallGnuplotHint);
      return kExitUnusable;
    }
    const std::string name = std::string(plots::plot_kind_name(kind));
    if (drawn.image.empty()) {
      fmt::print(stderr, "collsel plot: {} not drawn: {}\n", name, drawn.error);
      continue;
    }
    const std::string path = (std::filesystem::path(a.out) /
                              fmt::format("{}.{}", name, plots::image_extension(format)))
                                 .string();
    if (const auto error = common::write_file_atomically(path, drawn.image)) {
      fmt::print(stderr, "collsel plot: {}\n", *error);
      return kExitUnusable;
    }
    fmt::print("wrote {}\n", path);
    ++written;
  }
  return written > 0 ? 0 : kExitUnusable;
}

}  // namespace
}  // namespace collsel::tools::plotting

namespace collsel::tools::cli {

Command plot_command(CLI::App& app) {
  return make_command<plotting::CommandArgs>(app, plotting::add_command, plotting::run_command);
}

}  // namespace collsel::tools::cli
