// The `collsel` command: explain a decision, report on a run's logs, list the algorithms.
// Exit codes: 0 success, 1 the input named exists but is unusable (model file, no logs),
// 2 bad command-line arguments (fit-signature: also a CSV file it cannot read, parse or fit;
// simulate: also a GRAPH file it cannot read or parse; the file being its argument).
#include <exception>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "tools/cli/command_exit.hpp"
#include "tools/cli/commands.hpp"

namespace {

using collsel::tools::kExitBadArguments;
using collsel::tools::kExitUnusable;

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

  namespace cli = collsel::tools::cli;
  const cli::Command commands[] = {
      cli::explain_command(app),       cli::report_command(app),   cli::list_command(app),
      cli::import_logp_command(app),   cli::fit_signature_command(app),
      cli::simulate_command(app),      cli::export_command(app),   cli::plot_command(app),
      cli::refit_command(app)};

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return parse_error_exit(app, e);
  }
  try {
    for (const cli::Command& c : commands) {
      if (c.app->parsed()) return c.run();
    }
  } catch (const std::exception& e) {
    // Unexpected (I/O error mid-write, a bug): one line, not an abort with a core dump.
    fmt::print(stderr, "collsel: internal error: {}\n", e.what());
    return kExitUnusable;
  }
  return kExitBadArguments;
}

