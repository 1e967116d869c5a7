// What several `collsel` subcommands' options share: the valid names, derived from the registry
// and the models so the help never lists a stale one, and validators that say what is meant.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "models/diagnostic.hpp"

namespace collsel::tools::cli {

std::vector<std::string> collective_names();
std::vector<std::string> rule_choices();       // the contention penalty rules
std::vector<std::string> placement_choices();  // the placements of `simulate` and `explain`

// CLI11's PositiveNumber and NonNegativeNumber print their range as 0 to 1.8e308.
CLI::Validator whole_number_at_least_one(std::string what);
CLI::Validator non_negative(std::string what, std::string example);

void print_diagnostics(const Diagnostics& diagnostics);

// The whole input file a subcommand names; when it cannot be read, prints one message that names
// the file, the reason and what to check, and returns nothing (the command exits 2).
std::optional<std::string> read_input_file(const std::string& path);

}  // namespace collsel::tools::cli
