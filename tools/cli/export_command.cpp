// `collsel export`: its options, its help and its run; the formats themselves are
// tools/decisions/export.hpp. Exit status: 0 written, 1 an input file is unusable or the output
// cannot be written, 2 bad arguments.
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "tools/cli/command_exit.hpp"
#include "tools/cli/commands.hpp"
#include "common/file_write.hpp"

#include "selector/collective.hpp"
#include "tools/decisions/decision_grid.hpp"
#include "tools/decisions/export.hpp"
#include "tools/decisions/model_loading.hpp"
#include "common/size_option.hpp"
#include "common/size_parse.hpp"

#ifndef COLLSEL_MPICH_LIBRARY
#define COLLSEL_MPICH_LIBRARY ""
#endif

namespace collsel::tools::exporting {
namespace {

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

constexpr std::string_view kFormatMpich = "mpich-json";
constexpr std::string_view kFormatOmpi = "ompi-rules";

int usage_error(const std::string& message) { return tools::usage_error("export", message); }

// Written next to the target and renamed over it, so an MPI job never reads half a file.
std::optional<std::string> write_whole(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return std::fflush(stdout) == 0 ? std::nullopt
                                    : std::optional<std::string>("cannot write standard output");
  }
  return common::write_file_atomically(path, text);
}

// The base is a JSON selection file when it reads as text starting with '{'; anything else is
// taken for an MPICH shared library.
std::optional<MpichBase> load_mpich_base(const std::string& path, std::string& error) {
  std::string read_error;
  const std::optional<std::string> bytes = read_text_file(path, read_error);
  if (!bytes) {
    error = fmt::format("cannot read --mpich-base {} ({}); give the libmpich.so of the MPICH that "
                        "will read the file, or a coll_selection.json",
                        path, read_error);
    return std::nullopt;
  }
  const std::size_t first = bytes->find_first_not_of(" \t\r\n");
  std::optional<MpichBase> base =
      first != std::string::npos && (*bytes)[first] == '{'
          ? mpich_base_from_json(*bytes, path, read_error)
          : mpich_base_from_library(*bytes, path, read_error);
  if (!base) error = fmt::format("--mpich-base {}: {}", path, read_error);
  return base;
}

GridSpec requested_grid(const CommandArgs& a) {
  GridSpec grid = default_grid();
  if (!a.ranks.empty()) grid.comm_sizes = a.ranks;
  if (!a.sizes.empty()) {
    grid.bytes.clear();
    for (const std::string& s : a.sizes) grid.bytes.push_back(*common::parse_size(s).bytes);  // checked
  }
  // The formats key rules on ascending bounds; a list given in any order means the same grid.
  std::sort(grid.comm_sizes.begin(), grid.comm_sizes.end());
  grid.comm_sizes.erase(std::unique(grid.comm_sizes.begin(), grid.comm_sizes.end()),
                        grid.comm_sizes.end());
  std::sort(grid.bytes.begin(), grid.bytes.end());
  grid.bytes.erase(std::unique(grid.bytes.begin(), grid.bytes.end()), grid.bytes.end());
  return grid;
}

std::vector<Collective> requested_collectives(const CommandArgs& a) {
  std::vector<Collective> out;
  for (Collective c : kCollectives) {
    const bool wanted =
        a.collectives.empty() ||
        std::find(a.collectives.begin(), a.collectives.end(), collective_name(c)) !=
            a.collectives.end();
    if (wanted) out.push_back(c);
  }
  return out;
}

std::string names_of(const std::vector<Collective>& colls) {
  std::string out;
  for (Collective c : colls) out += fmt::format("{}{}", out.empty() ? "" : ", ", collective_name(c));
  return out;
}

std::string usage_line(std::string_view format, const std::string& file) {
  if (format == kFormatMpich) {
    return fmt::format("MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE={} mpiexec ...", file);
  }
  return fmt::format("mpirun --mca coll_tuned_use_dynamic_rules 1 --mca "
                     "coll_tuned_dynamic_rules_filename {} ...",
                     file);
}

CLI::App* add_command(CLI::App& app, CommandArgs& a) {
  CLI::App* cmd = app.add_subcommand(
      "export",
      "Write the model's decisions over a grid of communicator and message sizes as MPICH's "
      "collective selection JSON or an Open MPI coll/tuned rules file, to get collsel's choices "
      "without the shim");
  std::vector<std::string> collectives;
  for (Collective c : kCollectives) collectives.emplace_back(collective_name(c));
  cmd->add_option("--format", a.format, "Output format")
      ->required()
      ->check(CLI::IsMember({std::string(kFormatMpich), std::string(kFormatOmpi)}));
  cmd->add_option("--model", a.model,
                  "Calibrated model file (TOML). Default: the config's [model] path, else the "
                  "embedded default model");
  cmd->add_option("--config", a.config,
                  "Config file (TOML), as the shim reads it: its [override] and segment/window "
                  "settings decide as in the shim. The COLLSEL_* environment is not read");
  cmd->add_option("-o,--output", a.output, "The file to write ('-': standard output)")
      ->capture_default_str();
  cmd->add_option("--collective", a.collectives,
                  "Only these collectives (comma-separated). Default: all three")
      ->delimiter(',')
      ->check(CLI::IsMember(collectives));
  cmd->add_option("--ranks", a.ranks,
                  "Communicator sizes of the grid (comma-separated). Default: 2, 3, 4, 5, 8, 12, "
                  "16, 24, 32, 48, 64, 96, 128, 256")
      ->delimiter(',')
      ->check(CLI::Range(1, std::numeric_limits<int>::max()));
  cmd->add_option("--sizes", a.sizes,
                  "Message sizes of the grid (comma-separated; Bcast the buffer, Scatter and "
                  "Alltoall one block; bytes or a binary suffix: 0,1k,64KiB). Default: 0, then "
                  "1 B to 4 MiB x4 apart")
      ->delimiter(',')
      ->check(common::size_validator());
  const std::string default_base = COLLSEL_MPICH_LIBRARY;
  a.mpich_base = default_base;
  a.mpich_base_option = cmd->add_option("--mpich-base", a.mpich_base,
                  "mpich-json: the libmpich.so of the MPICH that will read the file (its built-in "
                  "selection is kept for everything collsel does not decide, and it tells which "
                  "algorithms that MPICH has), or a coll_selection.json")
      ->capture_default_str();
  cmd->add_option("--ompi-rules-version", a.ompi_rules_version,
                  "ompi-rules: file version. 2 carries alltoall.windowed's window but is misread "
                  "by Open MPI without open-mpi/ompi PR #12827 (2024)")
      ->check(CLI::IsMember({1, 2}))
      ->capture_default_str();
  cmd->footer(
      "Each grid cell is the decision `collsel explain` gives for it (root 0, no placement). A\n"
      "call between grid points gets the decision of the grid point below it, in both formats.\n"
      "Where a library has no algorithm like collsel's, the closest one is written and a note on\n"
      "stderr says which and why (docs/TOOLS.md, \"collsel export\", has the whole table).\n"
      "\n"
      "MPICH (4.0 or later):\n"
      "  MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=collsel.json mpiexec -n 64 ./app\n"
      "  MPICH reads the file in place of its whole built-in selection, so the file also carries\n"
      "  MPICH's own rules for the other collectives (from --mpich-base). Where the ch4 device\n"
      "  selects first (node-aware compositions), make MPICH decide on the whole communicator:\n"
      "  MPIR_CVAR_BCAST_DEVICE_COLLECTIVE=0 MPIR_CVAR_SCATTER_DEVICE_COLLECTIVE=0\n"
      "  MPIR_CVAR_ALLTOALL_DEVICE_COLLECTIVE=0. alltoall.windowed's window is not in the file:\n"
      "  set MPIR_CVAR_ALLTOALL_THROTTLE.\n"
      "Open MPI (coll/tuned):\n"
      "  mpirun --mca coll_tuned_use_dynamic_rules 1 \\\n"
      "         --mca coll_tuned_dynamic_rules_filename collsel.rules ./app\n"
      "  Open MPI ignores a file it cannot read and silently keeps its fixed rules; add\n"
      "  --mca coll_base_verbose 1 to see why.\n"
      "\n"
      "Examples:\n"
      "  collsel export --format mpich-json --model cluster.toml -o collsel.json\n"
      "  collsel export --format ompi-rules --model cluster.toml --ranks 16,32,64 -o collsel.rules\n"
      "  collsel export --format mpich-json --collective bcast --sizes 0,1k,64k,1M\n"
      "Exit status: 0 written, 1 a model, config or --mpich-base file is unusable or the output\n"
      "cannot be written, 2 bad arguments.");
  return cmd;
}

int run_command(const CommandArgs& a) {
  const bool mpich = a.format == kFormatMpich;  // the format is checked by CLI11
  if (mpich && a.mpich_base.empty()) {
    return usage_error("--format mpich-json needs --mpich-base LIB_OR_JSON: MPICH reads the file "
                       "in place of its built-in selection, which the file must therefore carry");
  }
  if (!mpich && a.mpich_base_option->count() > 0) {
    return usage_error("--mpich-base applies to --format mpich-json only");
  }

  Diagnostics diagnostics;
  const std::optional<LoadedModels> loaded =
      load_models(optional_text(a.model), optional_text(a.config), diagnostics);
  for (const auto& d : diagnostics) fmt::print(stderr, "{}\n", d.format());
  if (!loaded) {
    fmt::print(stderr, "collsel export: cannot export with an unusable input file (see above)\n");
    return kExitUnusable;
  }

  const GridSpec grid = requested_grid(a);
  const std::vector<Collective> colls = requested_collectives(a);
  const std::vector<CollectiveGrid> grids =
      decision_grids(colls, grid, loaded->set(), loaded->config.policy);

  ExportText exported;
  if (mpich) {
    std::string error;
    const std::optional<MpichBase> base = load_mpich_base(a.mpich_base, error);
    if (!base) {
      fmt::print(stderr, "collsel export: {}\n", error);
      return kExitUnusable;
    }
    exported = to_mpich_json(grids, *base);
  } else {
    const std::vector<std::string> description = {
        fmt::format("collsel export: decisions of the model \"{}\" ({}), config {}",
                    loaded->in_use().name, loaded->in_use_source(), loaded->config.source),
        fmt::format("for {} on {} communicator sizes x {} message sizes.", names_of(colls),
                    grid.comm_sizes.size(), grid.bytes.size()),
        fmt::format("Use: {}", usage_line(kFormatOmpi, a.output == "-" ? "FILE" : a.output)),
    };
    exported = to_ompi_rules(grids, a.ompi_rules_version, description);
  }
  if (!exported.error.empty()) {
    fmt::print(stderr, "collsel export: {}\n", exported.error);
    return kExitUnusable;
  }
  for (const std::string& note : exported.notes) {
    fmt::print(stderr, "collsel export: note: {}\n", note);
  }
  if (const auto problem = write_whole(a.output, exported.text)) {
    fmt::print(stderr, "collsel export: {}\n", *problem);
    return kExitUnusable;
  }
  if (a.output != "-") {
    fmt::print(stderr, "collsel export: wrote {} ({}; model \"{}\"). Use: {}\n", a.output,
               names_of(colls), loaded->in_use().name, usage_line(a.format, a.output));
  }
  return 0;
}

}  // namespace
}  // namespace collsel::tools::exporting

namespace collsel::tools::cli {

Command export_command(CLI::App& app) {
  return make_command<exporting::CommandArgs>(app, exporting::add_command, exporting::run_command);
}

}  // namespace collsel::tools::cli
