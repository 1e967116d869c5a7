#include "selector/decide.hpp"

#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace collsel {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::vector<CostEntry> cost_table(const CallShape& shape, std::span<const AlgorithmView> algorithms,
                                  const models::ModelFile* model, const Policy& policy) {
  std::vector<CostEntry> table;
  table.reserve(algorithms.size());
  for (const auto& a : algorithms) {
    CostEntry e{
        .name = a.name, .not_applicable = a.applicable(shape), .predicted_s = kNaN, .params = {}};
    if (!e.not_applicable && model != nullptr) {
      const Prediction p = a.model(*model, shape, policy);
      e.predicted_s = p.seconds;
      e.params = p.params;
    }
    table.push_back(std::move(e));
  }
  return table;
}

// Strictly smaller wins, so equal predictions keep the earlier (registry-order) entry.
int argmin(const std::vector<CostEntry>& table) {
  int best = -1;
  for (int i = 0; i < static_cast<int>(table.size()); ++i) {
    const auto& e = table[static_cast<std::size_t>(i)];
    if (e.not_applicable || std::isnan(e.predicted_s)) continue;
    if (best < 0 || e.predicted_s < table[static_cast<std::size_t>(best)].predicted_s) best = i;
  }
  return best;
}

int index_of(const std::vector<CostEntry>& table, std::string_view name) {
  for (int i = 0; i < static_cast<int>(table.size()); ++i) {
    if (table[static_cast<std::size_t>(i)].name == name) return i;
  }
  return -1;
}

}  // namespace

std::string_view rung_name(Rung r) {
  switch (r) {
    case Rung::override_algorithm:
      return "override";
    case Rung::calibrated_model:
      return "model";
    case Rung::default_model:
      return "default_model";
    case Rung::native:
      return "native";
  }
  return "?";
}

std::string_view Decision::algorithm() const {
  return winner < 0 ? kNativeName : table[static_cast<std::size_t>(winner)].name;
}

double Decision::predicted_s() const {
  return winner < 0 ? kNaN : table[static_cast<std::size_t>(winner)].predicted_s;
}

AlgoParams Decision::params() const {
  return winner < 0 ? AlgoParams{} : table[static_cast<std::size_t>(winner)].params;
}

Decision decide(const CallShape& shape, std::span<const AlgorithmView> algorithms,
                const ModelSet& models, const Policy& policy) {
  const models::ModelFile* model = models.calibrated ? models.calibrated : models.fallback;
  Decision d;
  d.table = cost_table(shape, algorithms, model, policy);
  const CollectivePolicy& coll = policy.of(shape.coll);
  if (!coll.enabled) {
    d.note = fmt::format("{} is disabled in the configuration", collective_name(shape.coll));
    return d;
  }

  if (coll.force) {
    if (*coll.force == kNativeName) {
      d.rung = Rung::override_algorithm;
      return d;
    }
    const int forced = index_of(d.table, *coll.force);
    if (forced < 0) {
      d.note = fmt::format("override '{}' is not a {} algorithm; ignored", *coll.force,
                           collective_name(shape.coll));
    } else if (const auto& reason = d.table[static_cast<std::size_t>(forced)].not_applicable) {
      d.note = fmt::format("override {} cannot serve this call ({}); ignored", *coll.force, *reason);
    } else {
      d.winner = forced;
      d.rung = Rung::override_algorithm;
      return d;
    }
  }

  if (model == nullptr) return d;
  d.winner = argmin(d.table);
  if (d.winner < 0) {
    if (!d.note.empty()) d.note += "; ";
    d.note += "no algorithm applies";
    return d;
  }
  d.rung = models.calibrated ? Rung::calibrated_model : Rung::default_model;
  return d;
}

Decision decide(const CallShape& shape, const ModelSet& models, const Policy& policy) {
  return decide(shape, catalog(shape.coll), models, policy);
}

}  // namespace collsel
