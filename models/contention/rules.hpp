// The penalty rules, one unit each (rule_fair.cpp, rule_infiniband.cpp, rule_gige.cpp,
// rule_myrinet.cpp). Every function returns one penalty >= 1 per edge, in the order given.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "models/contention/graph.hpp"

namespace collsel::models::contention {

// Fair sharing baseline: rho(e) = max(outdegree(src), indegree(dst)).
std::vector<double> fair_penalties(std::span<const Edge> edges);

// InfiniBand (seed 003 eq. 4, k(e) cases (a)-(c)).
std::vector<double> infiniband_penalties(std::span<const Edge> edges);

// Gigabit Ethernet (seed 002 section V.A): beta, gamma_i, gamma_o and the strongly penalised sets.
struct GigeParams {
  double beta = 0.75;
  double gamma_i = 0.036;
  double gamma_o = 0.115;
  friend bool operator==(const GigeParams&, const GigeParams&) = default;
};
std::vector<double> gige_penalties(std::span<const Edge> edges, const GigeParams& params);

// Myrinet (seed 002 section V.B): send/wait state enumeration.
std::vector<double> myrinet_penalties(std::span<const Edge> edges);

enum class RuleKind { fair, infiniband, gige, myrinet };
std::string_view rule_name(RuleKind kind);                            // "fair", ...
std::optional<RuleKind> rule_from_name(std::string_view name);        // case-sensitive
std::string rule_names();                                             // "fair, infiniband, gige, myrinet"
Rule make_rule(RuleKind kind, const GigeParams& gige = {});

}  // namespace collsel::models::contention
