// `collsel fit-signature`: the All-to-All contention signature (seed 000 eq. 5) fitted to
// measured completion times (tools/modeling/fit_signature.hpp).
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

#include "tools/modeling/fit_signature.hpp"

namespace collsel::tools::cli {
namespace {

struct FitArgs {
  std::string input;
  double alpha = 0.0;
  double beta = 0.0;
  std::string format = "text";
};

CLI::App* add_fit(CLI::App& app, FitArgs& a) {
  CLI::App* cmd = app.add_subcommand(
      "fit-signature",
      "Fit the All-to-All contention signature (gamma, delta, M; seed 000 eq. 5) to measured "
      "completion times");
  cmd->add_option("DATA", a.input,
                  "CSV file: a header line naming the columns n,m_bytes,seconds (any order), then "
                  "one measured All-to-All per line: processes, bytes per message, seconds")
      ->required();
  cmd->add_option("--alpha", a.alpha,
                  "Hockney start-up alpha of one point-to-point message, seconds (e.g. 6e-5)")
      ->required()
      ->check(non_negative("--alpha", "6e-5"));
  cmd->add_option("--beta", a.beta,
                  "Hockney beta of one point-to-point message: seconds per byte, 1 / bandwidth "
                  "(e.g. 8e-8 for 100 Mbit/s)")
      ->required()
      ->check(non_negative("--beta", "8e-8"));
  cmd->add_option("--format", a.format, "Output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  cmd->footer(
      "Fits T = gamma (n-1)(alpha + m beta) + (n-1) delta [m >= M] by least squares on\n"
      "relative residuals (weights 1/T^2). M is chosen among the measured sizes, or none, by\n"
      "AIC; a delta must stand 3 standard errors above 0. At least 4 measurements over at\n"
      "least 2 sizes; several n may be mixed. Prints gamma, delta, M, the fit quality, every\n"
      "threshold tried, each measurement's residual, and the [alltoall] keys for the model\n"
      "file (docs/MODELS.md, \"All-to-All (seed 000)\").\n"
      "CSV example:\n"
      "  # 24 processes, Fast Ethernet\n"
      "  n,m_bytes,seconds\n"
      "  24,1024,0.00333\n"
      "  24,65536,0.3136\n"
      "Examples:\n"
      "  collsel fit-signature alltoall.csv --alpha 6e-5 --beta 8e-8\n"
      "  collsel fit-signature alltoall.csv --alpha 6e-5 --beta 8e-8 --format json\n"
      "Exit status: 0 ok, 2 bad arguments, or a CSV file that cannot be read, parsed or fitted\n"
      "(the message names the file and line).");
  return cmd;
}

int run_fit(const FitArgs& a) {
  const std::optional<std::string> input = read_input_file(a.input);
  if (!input) return kExitBadArguments;
  const std::string& text = *input;
  namespace fit = collsel::tools::fit_signature;
  fit::CsvRead csv = fit::read_samples_csv(text, a.input);
  print_diagnostics(csv.diagnostics);
  if (collsel::has_errors(csv.diagnostics)) return kExitBadArguments;

  fit::Result result;
  result.source = a.input;
  result.hockney = {a.alpha, a.beta};
  result.rows = std::move(csv.rows);
  std::vector<collsel::models::alltoall::Sample> samples;
  for (const auto& row : result.rows) samples.push_back(row.sample);
  result.fit = collsel::models::alltoall::fit_signature(samples, result.hockney);
  if (result.fit.error) {
    fmt::print(stderr,
               "collsel: {}: cannot fit the signature: {}; measure at least {} points over at "
               "least 2 sizes, every time > 0, with --alpha and --beta from a point-to-point "
               "measurement\n",
               a.input, *result.fit.error, collsel::models::alltoall::kMinSignatureSamples);
    return kExitBadArguments;
  }
  const std::string out =
      a.format == "json" ? fit::format_json(result) : fit::format_text(result);
  std::fputs(out.c_str(), stdout);
  return 0;
}

}  // namespace

Command fit_signature_command(CLI::App& app) {
  return make_command<FitArgs>(app, add_fit, run_fit);
}

}  // namespace collsel::tools::cli
