// Whether a [contention] section can drive predictions. Messages name the model file's keys
// (models/model_file.cpp, kContentionKeys) so the reader can point at the line to fix.
#include <cmath>

#include <fmt/format.h>

#include "models/contention/params.hpp"

namespace collsel::models::contention {
namespace {

bool finite_positive(double v) { return std::isfinite(v) && v > 0.0; }
bool finite_nonneg(double v) { return std::isfinite(v) && v >= 0.0; }

std::optional<std::string> graph_problem(const MeasuredGraph& g, std::size_t index) {
  const std::string which = g.name.empty() ? fmt::format("graph #{}", index + 1)
                                           : fmt::format("graph #{} '{}'", index + 1, g.name);
  if (g.edges.empty()) return fmt::format("{} has no edges", which);
  if (g.penalties.size() != g.edges.size()) {
    return fmt::format("{} has {} penalties for {} edges", which, g.penalties.size(),
                       g.edges.size());
  }
  for (std::size_t i = 0; i < g.edges.size(); ++i) {
    const Edge& e = g.edges[i];
    if (e.src < 0 || e.dst < 0) {
      return fmt::format("{}: edge {}>{} has a negative node index", which, e.src, e.dst);
    }
    if (e.src == e.dst) {
      return fmt::format(
          "{}: edge {}>{} is a self-loop; intra-node copies are not part of a "
          "contention graph",
          which, e.src, e.dst);
    }
    // A measurement may put a penalty below 1 (seed 003 section 3.3 reverse solve), never at or
    // below 0.
    if (!finite_positive(g.penalties[i])) {
      return fmt::format("{}: penalty {} of edge {}>{} must be a finite number > 0", which,
                         g.penalties[i], e.src, e.dst);
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> Params::invalid_reason() const {
  if (!rule_from_name(rule_name(rule))) {
    return fmt::format("rule {} is not one of {}", static_cast<int>(rule), rule_names());
  }
  if (!finite_positive(alpha_s_per_byte)) {
    return fmt::format("alpha_s_per_byte = {} must be a finite number > 0", alpha_s_per_byte);
  }
  if (!finite_nonneg(intra_alpha_s_per_byte)) {
    return fmt::format("intra_alpha_s_per_byte = {} must be a finite number >= 0",
                       intra_alpha_s_per_byte);
  }
  if (!finite_nonneg(reference_bytes)) {
    return fmt::format("reference_bytes = {} must be a finite number >= 0", reference_bytes);
  }
  // The Gigabit Ethernet parameters only matter to that rule; unused ones do not disable the rest.
  if (rule == RuleKind::gige) {
    if (!finite_positive(gige.beta)) {
      return fmt::format("gige_beta = {} must be a finite number > 0", gige.beta);
    }
    // gamma = 1 - t / (3 beta t_ref) (seed 002 section V.A) may come out negative: finite only.
    if (!std::isfinite(gige.gamma_i)) {
      return fmt::format("gige_gamma_i = {} must be a finite number", gige.gamma_i);
    }
    if (!std::isfinite(gige.gamma_o)) {
      return fmt::format("gige_gamma_o = {} must be a finite number", gige.gamma_o);
    }
  }
  for (std::size_t i = 0; i < measured.size(); ++i) {
    if (auto problem = graph_problem(measured[i], i)) return problem;
  }
  return std::nullopt;
}

}  // namespace collsel::models::contention
