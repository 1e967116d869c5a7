// The penalty rules by name: one table, from which the name lookups, the list of valid names in
// messages and make_rule are derived (STYLE.md 8.3).
#include <array>

#include "models/contention/rules.hpp"

namespace collsel::models::contention {
namespace {

struct Entry {
  RuleKind kind;
  std::string_view name;
};

constexpr std::array kRules{
    Entry{RuleKind::fair, "fair"},
    Entry{RuleKind::infiniband, "infiniband"},
    Entry{RuleKind::gige, "gige"},
    Entry{RuleKind::myrinet, "myrinet"},
};

}  // namespace

std::string_view rule_name(RuleKind kind) {
  for (const Entry& e : kRules) {
    if (e.kind == kind) return e.name;
  }
  return "unknown";
}

std::optional<RuleKind> rule_from_name(std::string_view name) {
  for (const Entry& e : kRules) {
    if (e.name == name) return e.kind;
  }
  return std::nullopt;
}

std::string rule_names() {
  std::string names;
  for (const Entry& e : kRules) {
    if (!names.empty()) names += ", ";
    names += e.name;
  }
  return names;
}

Rule make_rule(RuleKind kind, const GigeParams& gige) {
  Rule rule{std::string(rule_name(kind)), {}};
  switch (kind) {
    case RuleKind::fair:
      rule.penalties = fair_penalties;
      break;
    case RuleKind::infiniband:
      rule.penalties = infiniband_penalties;
      break;
    case RuleKind::gige:
      rule.penalties = [gige](std::span<const Edge> edges) { return gige_penalties(edges, gige); };
      break;
    case RuleKind::myrinet:
      rule.penalties = myrinet_penalties;
      break;
  }
  return rule;
}

}  // namespace collsel::models::contention
