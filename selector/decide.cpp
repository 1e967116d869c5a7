#include "selector/decide.hpp"

#include <cmath>
#include <cstddef>
#include <exception>
#include <limits>
#include <optional>

#include <fmt/format.h>

namespace collsel {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

namespace contention = models::contention;

// What simulating this call's schedules needs; absent when the closed forms decide.
struct Simulation {
  const contention::Params* params = nullptr;
  const models::plogp::Params* plogp = nullptr;
  const contention::Placement* given = nullptr;
  contention::Placement prefix;  // the communicator's ranks, when `given` places more

  [[nodiscard]] const contention::Placement& placement() const {
    return prefix.node_of_rank.empty() ? *given : prefix;
  }
};

std::optional<Simulation> simulation_for(const CallShape& shape, const models::ModelFile* model,
                                         const contention::Placement* placement) {
  if (model == nullptr || placement == nullptr || !model->contention) return std::nullopt;
  const contention::Params& params = *model->contention;
  if (params.use == contention::Use::never || params.invalid_reason()) return std::nullopt;
  const auto ranks = static_cast<std::size_t>(shape.comm_size);
  if (shape.comm_size < 1 || placement->node_of_rank.size() < ranks) return std::nullopt;
  Simulation sim{&params, &model->plogp, placement, {}};
  if (placement->node_of_rank.size() > ranks) {
    sim.prefix.node_of_rank.assign(placement->node_of_rank.begin(),
                                   placement->node_of_rank.begin() +
                                       static_cast<std::ptrdiff_t>(ranks));
  }
  if (params.use == contention::Use::automatic && sim.placement().max_ranks_per_node() <= 1) {
    return std::nullopt;
  }
  return sim;
}

// The simulated time of `algorithm`'s schedule with the closed form's parameters, or nothing
// when it cannot be simulated (no schedule, too long, rejected by the solver): the closed form
// stands. Every reason depends on rank-invariant inputs only.
std::optional<double> simulated_time(const AlgorithmView& algorithm, const CallShape& shape,
                                     const AlgoParams& params, const Simulation& sim) {
  if (algorithm.schedule == nullptr) return std::nullopt;
  // Every collective sends at least P - 1 messages: skip building hopeless schedules.
  if (static_cast<std::size_t>(shape.comm_size) > kMaxSimulatedMessages + 1) return std::nullopt;
  try {
    const contention::Schedule schedule = algorithm.schedule(shape, params);
    if (schedule.messages.size() > kMaxSimulatedMessages) return std::nullopt;
    return contention::simulate(schedule, sim.placement(), *sim.params, *sim.plogp).completion_s;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::vector<CostEntry> cost_table(const CallShape& shape, std::span<const AlgorithmView> algorithms,
                                  const models::ModelFile* model, const Policy& policy,
                                  const contention::Placement* placement) {
  const std::optional<Simulation> sim = simulation_for(shape, model, placement);
  std::vector<CostEntry> table;
  table.reserve(algorithms.size());
  for (const auto& a : algorithms) {
    CostEntry e{
        .name = a.name, .not_applicable = a.applicable(shape), .predicted_s = kNaN, .params = {}};
    if (!e.not_applicable && model != nullptr) {
      const Prediction p = a.model(*model, shape, policy);
      e.predicted_s = p.seconds;
      e.params = p.params;
      if (sim && !std::isnan(e.predicted_s)) {
        if (const auto t = simulated_time(a, shape, e.params, *sim)) {
          e.predicted_s = *t;
          e.simulated = true;
        }
      }
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
                const ModelSet& models, const Policy& policy,
                const models::contention::Placement* placement) {
  const models::ModelFile* model = models.calibrated ? models.calibrated : models.fallback;
  Decision d;
  d.table = cost_table(shape, algorithms, model, policy, placement);
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

Decision decide(const CallShape& shape, const ModelSet& models, const Policy& policy,
                const models::contention::Placement* placement) {
  return decide(shape, catalog(shape.coll), models, policy, placement);
}

}  // namespace collsel
