#include "tools/cli/options.hpp"

#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "models/contention/rules.hpp"
#include "models/contention/schedule.hpp"
#include "selector/collective.hpp"
#include "selector/config.hpp"

namespace collsel::tools::cli {

namespace mc = collsel::models::contention;

// Derived from the registry, so the help and the checks never list a stale name.
std::vector<std::string> collective_names() {
  std::vector<std::string> names;
  for (Collective c : collsel::kCollectives) names.emplace_back(collsel::collective_name(c));
  return names;
}

std::vector<std::string> rule_choices() {
  std::vector<std::string> out;
  for (mc::RuleKind k : {mc::RuleKind::fair, mc::RuleKind::infiniband, mc::RuleKind::gige,
                         mc::RuleKind::myrinet}) {
    out.emplace_back(mc::rule_name(k));
  }
  return out;
}

std::vector<std::string> placement_choices() {
  std::vector<std::string> out;
  for (mc::PlacementKind k : {mc::PlacementKind::one_per_node, mc::PlacementKind::round_robin,
                              mc::PlacementKind::filled, mc::PlacementKind::random}) {
    out.emplace_back(mc::placement_name(k));
  }
  return out;
}

// CLI11's PositiveNumber prints its range as 0 to 1.8e308; say what is meant.
CLI::Validator whole_number_at_least_one(std::string what) {
  return CLI::Validator(
      [what](std::string& text) {
        return text.find_first_not_of("0123456789") == std::string::npos &&
                       text.find_first_not_of('0') != std::string::npos
                   ? std::string()
                   : fmt::format("{} must be a whole number >= 1, not '{}'", what, text);
      },
      "N>=1", what);
}

void print_diagnostics(const collsel::Diagnostics& diagnostics) {
  for (const auto& d : diagnostics) fmt::print(stderr, "{}\n", d.format());
}

std::optional<std::string> read_input_file(const std::string& path) {
  std::string error;
  std::optional<std::string> text = collsel::read_text_file(path, error);
  if (!text) fmt::print(stderr, "collsel: {}: cannot read the file ({}); check the path\n", path, error);
  return text;
}

// CLI11's NonNegativeNumber prints its range as 0 to 1.8e308; say what is meant.
CLI::Validator non_negative(std::string what, std::string example) {
  return CLI::Validator(
      [what, example](std::string& text) {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (!text.empty() && end == text.c_str() + text.size() && std::isfinite(v) && v >= 0.0) {
          return std::string();
        }
        return fmt::format("{} must be a number >= 0, such as {}, not '{}'", what, example, text);
      },
      "X>=0", what);
}

}  // namespace collsel::tools::cli
