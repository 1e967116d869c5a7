// The `collsel report` subcommand: reads a run's logs (and optionally a baseline run's), builds
// the report (tools/report.hpp) and prints it as text, CSV or JSON, or writes the HTML page
// (tools/html_report.hpp). tools/collsel.cpp registers it.
#pragma once

#include <cstddef>
#include <string>

#include <CLI/CLI.hpp>

namespace collsel::tools::reporting {

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

CLI::App* add_command(CLI::App& app, CommandArgs& args);
// The exit status: 0 ok, 1 no logs (in LOGDIR or --baseline), an unusable --model, or an HTML
// page that could not be written; 2 bad arguments.
int run_command(const CommandArgs& args);

}  // namespace collsel::tools::reporting
