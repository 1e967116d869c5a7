// `collsel list`: the registered algorithms and their one-line descriptions, from the registry.
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

#include "common/text_table.hpp"
#include "selector/catalog.hpp"

namespace collsel::tools::cli {
namespace {

struct ListArgs {
  std::string coll;
  bool names = false;
};

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
    collsel::common::TextTable table({"name", "segmented", "summary"}, {});
    for (const auto& algo : algorithms) {
      table.add_row({std::string(algo.name), algo.segmented ? "yes" : "",
                     std::string(algo.summary)});
    }
    fmt::print("{}\n", table.render("  "));
  }
  return 0;
}

}  // namespace

Command list_command(CLI::App& app) {
  return make_command<ListArgs>(app, add_list, run_list);
}

}  // namespace collsel::tools::cli
