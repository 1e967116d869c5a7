// The `collsel export` subcommand: its options, its help and its run. tools/collsel.cpp registers
// it; the formats themselves are tools/export.hpp.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace collsel::tools::exporting {

struct CommandArgs {
  std::string model;
  std::string config;
  std::string format;
  std::string output = "-";
  std::vector<std::string> collectives;
  std::vector<int> ranks;
  std::vector<std::string> sizes;
  std::string mpich_base;
  int ompi_rules_version = 1;
  CLI::Option* mpich_base_option = nullptr;  // given on the command line, or the built-in default
};

CLI::App* add_command(CLI::App& app, CommandArgs& args);
// The exit status: 0 written, 1 an input file is unusable or the output cannot be written,
// 2 bad arguments.
int run_command(const CommandArgs& args);

}  // namespace collsel::tools::exporting
