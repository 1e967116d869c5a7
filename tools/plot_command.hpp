// The `collsel plot` subcommand: the report's plots as SVG or PNG files, one per kind
// (tools/plots.hpp draws them). tools/collsel.cpp registers it.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace collsel::tools::plotting {

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

CLI::App* add_command(CLI::App& app, CommandArgs& args);
// The exit status: 0 at least one plot written, 1 nothing could be drawn or written (no logs, an
// unusable model or config file, gnuplot missing or failing), 2 bad arguments.
int run_command(const CommandArgs& args);

}  // namespace collsel::tools::plotting
