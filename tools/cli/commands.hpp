// The `collsel` subcommands, one file each (tools/cli/NAME_command.cpp), all of one shape: a
// function that registers the subcommand and its options on the application and returns it with
// the action that runs it once the command line is parsed. main.cpp only dispatches.
#pragma once

#include <functional>
#include <memory>

#include <CLI/CLI.hpp>

namespace collsel::tools::cli {

struct Command {
  CLI::App* app = nullptr;
  // The exit status: 0 success, 1 an input that exists but cannot be used, 2 bad arguments
  // (command_exit.hpp).
  std::function<int()> run;
};

// A subcommand's arguments must outlive the parse that fills them and the run that reads them:
// one shared object captured by the action ties `add` (options onto the arguments) to `run`.
template <class Args, class Add, class Run>
Command make_command(CLI::App& app, Add add, Run run) {
  auto args = std::make_shared<Args>();
  CLI::App* cmd = add(app, *args);
  return {cmd, [args, run] { return run(*args); }};
}

Command explain_command(CLI::App& app);
Command report_command(CLI::App& app);
Command list_command(CLI::App& app);
Command import_logp_command(CLI::App& app);
Command fit_signature_command(CLI::App& app);
Command simulate_command(CLI::App& app);
Command export_command(CLI::App& app);
Command plot_command(CLI::App& app);
Command refit_command(CLI::App& app);

}  // namespace collsel::tools::cli
