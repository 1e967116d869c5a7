// `collsel import-logp`: a parameter file of Kielmann's logp_mpi tool as a model file.
#include <fstream>
#include <iterator>
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

#include "models/logp_import.hpp"
#include "models/model_file.hpp"

namespace collsel::tools::cli {
namespace {

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

}  // namespace

Command import_logp_command(CLI::App& app) {
  return make_command<ImportArgs>(app, add_import, run_import);
}

}  // namespace collsel::tools::cli
