#include "selector/decide.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "models/plogp/bcast.hpp"

namespace collsel {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

namespace contention = models::contention;

// What simulating this call's schedules needs; absent when the closed forms decide.
struct Simulation {
  const contention::Params* params = nullptr;
  const models::plogp::Params* plogp = nullptr;
  const models::plogp::Params* intra = nullptr;  // the model's [intra_node] table, if any
  const contention::Placement* given = nullptr;
  contention::Placement prefix;  // the communicator's ranks, when `given` places more

  [[nodiscard]] const contention::Placement& placement() const {
    return prefix.node_of_rank.empty() ? *given : prefix;
  }
};

// With one rank per node, whether `use = "auto"` simulates this call anyway. Only the All-to-All:
// at one rank per node the closed forms of Bcast and Scatter carry a node's own contention (the
// shared fan-out, the pair share), but the All-to-All's carries it through a signature fitted at
// n' ranks, which at other P missed by 1.3-1.5x (docs/BENCHMARKS.md, cause (c)). Only where a
// block's link time hides the receive overhead o_r(m): below that, when the simulation charged a
// receiver nothing per message, all_at_once of 256 B-4 KiB was simulated 55-77 % short on the
// simulated fat trees; with a rank's CPU floor (models/contention/schedule.cpp) serving those
// blocks too moved one choice the wrong way (ib-fattree, P = 48, 4 KiB: Bruck, 25 % slower than
// all_at_once), so the condition stays. And only where the direct exchange's
// P (P - 1) messages can all be simulated, so no schedule is compared with another's closed form.
bool alltoall_simulated_alone(const CallShape& shape, const contention::Params& params,
                              const models::plogp::Params& plogp) {
  if (shape.coll != Collective::alltoall || shape.comm_size < 2) return false;
  const auto p = static_cast<std::size_t>(shape.comm_size);
  return p * (p - 1) <= kMaxSimulatedMessages &&
         params.alpha_s_per_byte * static_cast<double>(shape.bytes) >=
             plogp.recv_overhead_s(shape.bytes);
}

std::optional<Simulation> simulation_for(const CallShape& shape, const models::ModelFile* model,
                                         const contention::Placement* placement) {
  if (model == nullptr || placement == nullptr || !model->contention) return std::nullopt;
  const contention::Params& params = *model->contention;
  if (params.use == contention::Use::never || params.invalid_reason()) return std::nullopt;
  const auto ranks = static_cast<std::size_t>(shape.comm_size);
  if (shape.comm_size < 1 || placement->node_of_rank.size() < ranks) return std::nullopt;
  Simulation sim{&params, &model->plogp,
                 model->intra_node ? &*model->intra_node : nullptr, placement, {}};
  if (placement->node_of_rank.size() > ranks) {
    sim.prefix.node_of_rank.assign(placement->node_of_rank.begin(),
                                   placement->node_of_rank.begin() +
                                       static_cast<std::ptrdiff_t>(ranks));
  }
  if (params.use == contention::Use::automatic && sim.placement().max_ranks_per_node() <= 1 &&
      !alltoall_simulated_alone(shape, params, model->plogp)) {
    return std::nullopt;
  }
  return sim;
}

// Whether a closed form on this placement is charged a node's shared link (link_load()): where
// some node holds several ranks, whose link the closed forms, written for one rank per node, do
// not share. An All-to-All only where every exchange's P (P - 1) messages fit the cap, so that
// all its schedules are charged or none is.
bool link_share_applies(const CallShape& shape, const Simulation& sim) {
  if (sim.placement().max_ranks_per_node() <= 1) return false;
  if (shape.coll != Collective::alltoall) return true;
  const auto p = static_cast<std::size_t>(shape.comm_size);
  return p * (p - 1) <= kMaxLinkLoadMessages;
}

// Segments of `bytes` cut at `segment` (0: not cut).
std::uint64_t segment_count(std::uint64_t bytes, std::uint64_t segment) {
  return segment == 0 || segment >= bytes ? 1 : (bytes + segment - 1) / segment;
}

// `algorithm`'s schedule with `params`, or nothing when it has none or it would be longer than
// `cap` messages (`too_long`, when given, is then set). Depends on rank-invariant inputs only.
std::optional<contention::Schedule> bounded_schedule(const AlgorithmView& algorithm,
                                                     const CallShape& shape,
                                                     const AlgoParams& params, std::size_t cap,
                                                     bool* too_long = nullptr) {
  if (algorithm.schedule == nullptr) return std::nullopt;
  const auto refuse = [&] {
    if (too_long != nullptr) *too_long = true;
    return std::nullopt;
  };
  // Every collective sends at least P - 1 messages, and an All-to-All at least P ceil(log2 P)
  // (Bruck's, the fewest of any schedule): skip building hopeless schedules. At P = 1024 building
  // the All-to-All schedules only to find them too long cost 0.2 s (docs/BENCHMARKS.md, "At
  // scale").
  const auto P = static_cast<std::size_t>(shape.comm_size);
  const auto rounds = static_cast<std::size_t>(models::plogp::ceil_log2(P));
  const std::size_t fewest = shape.coll == Collective::alltoall ? P * rounds : P - 1;
  if (fewest > cap) return refuse();
  // An algorithm that counts its messages: scatter_allgather's (P-1)^2 at P = 1024 were a
  // million messages built only to be discarded (docs/BENCHMARKS.md, "At scale").
  if (algorithm.schedule_size != nullptr &&
      algorithm.schedule_size(shape, params) > cap) {
    return refuse();
  }
  // A segmented algorithm sends every segment at least once: skip building schedules of more
  // segments than the cap (a tiny user-fixed segment of a large message would take gigabytes).
  if (algorithm.segmented && segment_count(shape.bytes, params.segment_bytes) > cap) {
    return refuse();
  }
  contention::Schedule schedule = algorithm.schedule(shape, params);
  if (schedule.messages.size() > cap) return refuse();
  return schedule;
}

// The simulated time of `algorithm`'s schedule with `params`, or nothing when it cannot be
// simulated (no schedule, too long, rejected by the solver). `too_long`, when given, is set when
// the schedule had more than kMaxSimulatedMessages messages. Every reason depends on
// rank-invariant inputs only.
std::optional<double> simulated_time(const AlgorithmView& algorithm, const CallShape& shape,
                                     const AlgoParams& params, const Simulation& sim,
                                     bool* too_long = nullptr) {
  try {
    const std::optional<contention::Schedule> schedule =
        bounded_schedule(algorithm, shape, params, kMaxSimulatedMessages, too_long);
    if (!schedule) return std::nullopt;
    return contention::simulate(*schedule, sim.placement(), *sim.params, *sim.plogp, sim.intra)
        .completion_s;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// What `algorithm`'s schedule at `params` loads onto the links (models::contention::link_load), or
// nothing when it has no schedule or one longer than kMaxLinkLoadMessages. Depends on
// rank-invariant inputs only.
std::optional<contention::LinkLoad> link_load(const AlgorithmView& algorithm,
                                              const CallShape& shape, const AlgoParams& params,
                                              const Simulation& sim) {
  try {
    const std::optional<contention::Schedule> schedule =
        bounded_schedule(algorithm, shape, params, kMaxLinkLoadMessages);
    if (!schedule) return std::nullopt;
    return contention::link_load(*schedule, sim.placement(), *sim.params);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// A segmented algorithm's prediction at a segment: simulated, or extrapolated past the cap.
struct SimulatedSegment {
  double seconds = 0.0;
  std::uint64_t segment = 0;
  std::uint64_t prefix_segments = 0;  // CostEntry::extrapolated_from_segments; 0: simulated
};

// A segmented Bcast whose schedule at `params` is longer than kMaxSimulatedMessages: the
// simulation of the message's first k_b segments plus one pipeline interval per later segment.
// A pipeline's time grows by its interval per segment once full; the interval is taken between
// the prefixes of k_a and k_b = 2 k_a segments, the larger of their simulations' difference and
// their busiest rank's CPU's (contention::busiest_cpu_s). Both prefixes must hold the fill: more
// segments than a rank keeps in flight to a child, else a window of the preposted chain (64
// segments) is cut short and its fill with it (kMinExtrapolationSegments). Nothing when the
// longer prefix is past kMaxPrefixMessages, the two prefixes' messages are more than what is
// left of `budget` (taken from it otherwise), or either cannot be simulated. Depends on
// rank-invariant inputs only.
std::optional<SimulatedSegment> extrapolated_time(const AlgorithmView& algorithm,
                                                  const CallShape& shape, const AlgoParams& params,
                                                  const Simulation& sim, std::size_t& budget) {
  const std::uint64_t s = params.segment_bytes;
  if (!algorithm.segmented || shape.coll != Collective::bcast || s == 0 || s >= shape.bytes) {
    return std::nullopt;
  }
  const std::uint64_t fewest =
      std::max<std::uint64_t>(kMinExtrapolationSegments, algorithm.segments_in_flight + 1ULL);
  const std::uint64_t k = segment_count(shape.bytes, s);
  try {
    CallShape prefix = shape;
    const auto prefix_schedule = [&](std::uint64_t segments) {
      prefix.bytes = segments * s;
      return bounded_schedule(algorithm, prefix, params, kMaxPrefixMessages);
    };
    // The shortest pair of prefixes that both hold the fill, k_a = fewest and k_b = 2 k_a, is
    // the cheapest to simulate.
    const std::uint64_t ka = fewest;
    const std::uint64_t kb = 2 * fewest;
    if (kb >= k) return std::nullopt;
    const auto longer = prefix_schedule(kb);
    if (!longer) return std::nullopt;
    const auto shorter = prefix_schedule(ka);
    if (!shorter) return std::nullopt;
    const std::size_t messages = longer->messages.size() + shorter->messages.size();
    if (messages > budget) return std::nullopt;
    budget -= messages;
    const auto simulated = [&](const contention::Schedule& schedule) {
      return contention::simulate(schedule, sim.placement(), *sim.params, *sim.plogp, sim.intra)
          .completion_s;
    };
    const double longer_s = simulated(*longer);
    // The interval is at least the busiest rank's CPU per segment: the simulation lets a rank
    // that receives and forwards a window pay less than o_r + o_s a segment, and the preposted
    // chain in 1 KiB segments at eth25-fattree P = 64, 8 per node, grew by 0.46 us a segment
    // there against SMPI's 2-2.5 us, o_s + o_r = 2.0 us (docs/MODELS.md, "Past the cap").
    const auto busiest_cpu = [&](const contention::Schedule& schedule) {
      return contention::busiest_cpu_s(schedule, *sim.plogp, &sim.placement(), sim.intra);
    };
    const double per_segment = std::max({0.0, longer_s - simulated(*shorter),
                                         busiest_cpu(*longer) - busiest_cpu(*shorter)}) /
                               static_cast<double>(kb - ka);
    // Per byte past the prefix, so that a last partial segment counts its share.
    return SimulatedSegment{
        longer_s + per_segment * static_cast<double>(shape.bytes - kb * s) / static_cast<double>(s),
        s, kb};
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

std::optional<models::ModelFile> without_link_shares(const models::ModelFile& model) {
  if (!model.plogp.fanout_shares && !model.plogp.pair_shares) return std::nullopt;
  models::ModelFile queued = model;
  queued.plogp.fanout_shares = false;
  queued.plogp.pair_shares = false;
  return queued;
}

std::vector<std::uint64_t> simulated_segment_candidates(std::uint64_t bytes,
                                                        std::uint64_t closed_form_segment,
                                                        std::uint64_t unit_bytes) {
  std::vector<std::uint64_t> out{closed_form_segment};
  if (bytes > 0) {
    const std::uint64_t unit = unit_bytes == 0 ? 1 : unit_bytes;
    const auto keep = [&](std::uint64_t s) {
      // A multiple of the unit (a segment never splits a datatype element), at most the message,
      // and few enough segments that the schedule can fit under the cap.
      s = (s + unit - 1) / unit * unit;
      if (s <= bytes && segment_count(bytes, s) <= kMaxSimulatedMessages) out.push_back(s);
    };
    for (std::uint64_t s = kFirstSimulatedSegmentBytes; s <= bytes; s *= 2) {
      keep(s);
      if (s > bytes / 2) break;  // the next step could wrap around
    }
    out.push_back(bytes);  // one segment: always a whole number of elements
  }
  // Largest first: a strict "<" over this order leaves ties with the larger segment.
  std::sort(out.begin(), out.end(), std::greater<>());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

namespace {

// A segmented algorithm under simulation at `params`: its schedule simulated, or past the cap
// extrapolated from its first segments within `budget` (none: not extrapolated), or nothing.
// `too_long`, when given, is set when the schedule was past the cap.
std::optional<SimulatedSegment> simulated_at(const AlgorithmView& algorithm,
                                             const CallShape& shape, const AlgoParams& params,
                                             const Simulation& sim, std::size_t* budget,
                                             bool* too_long = nullptr) {
  bool past_cap = false;
  const std::optional<double> t = simulated_time(algorithm, shape, params, sim, &past_cap);
  if (too_long != nullptr) *too_long = past_cap;
  if (t) return SimulatedSegment{*t, params.segment_bytes, 0};
  if (!past_cap || budget == nullptr) return std::nullopt;
  return extrapolated_time(algorithm, shape, params, sim, *budget);
}

// A segmented algorithm under simulation, its segment not fixed by the user: the fastest
// candidate of simulated_segment_candidates(), or nothing when none can be simulated (the closed
// form stands). Candidates are tried largest first; the number of segments, and with it the
// schedule's length, only grows as the segment shrinks. Of the candidates past the cap, the
// closed form's own segment (first: the model's best guess) and then the first
// kMaxExtrapolatedCandidates others are extrapolated from their first segments, while their
// prefixes fit kExtrapolationBudgetMessages.
std::optional<SimulatedSegment> best_simulated_segment(const AlgorithmView& algorithm,
                                                       const CallShape& shape,
                                                       const AlgoParams& closed,
                                                       const Policy& policy,
                                                       const Simulation& sim) {
  std::size_t budget = kExtrapolationBudgetMessages;
  const std::optional<SimulatedSegment> own = simulated_at(algorithm, shape, closed, sim, &budget);
  std::optional<SimulatedSegment> best;
  std::size_t extrapolated = 0;
  for (const std::uint64_t s :
       simulated_segment_candidates(shape.bytes, closed.segment_bytes, policy.segment_unit_bytes)) {
    std::optional<SimulatedSegment> t;
    if (s == closed.segment_bytes) {
      t = own;
    } else {
      AlgoParams params = closed;
      params.segment_bytes = s;
      bool too_long = false;
      t = simulated_at(algorithm, shape, params, sim,
                       extrapolated < kMaxExtrapolatedCandidates ? &budget : nullptr, &too_long);
      if (too_long) ++extrapolated;
    }
    // Ties go to the larger segment, also where rounding differs between equal sums (an
    // extrapolated candidate against a simulated one).
    if (t && (!best || t->seconds < best->seconds * (1.0 - kSegmentTieTolerance))) best = t;
  }
  return best;
}

std::vector<CostEntry> cost_table(const CallShape& shape, std::span<const AlgorithmView> algorithms,
                                  const models::ModelFile* model, const Policy& policy,
                                  const contention::Placement* placement) {
  const std::optional<Simulation> sim = simulation_for(shape, model, placement);
  // The simulation queues a rank's sends where the closed forms may share its link among them
  // (plogp::Params::fanout_share, and pair_share but on a pipeline's first segment to each
  // receiver): a simulated segmented algorithm starts its segment search from the closed form
  // under the simulation's assumption (without_link_shares). The model without the shares is
  // copied only when a segmented algorithm needs it.
  std::optional<models::ModelFile> queued;
  bool copied = false;
  const auto search_start = [&](const AlgorithmView& a, const AlgoParams& closed) {
    if (!copied) {
      queued = without_link_shares(*model);
      copied = true;
    }
    if (!queued) return closed;
    return a.model(*queued, shape, policy).params;
  };
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
        if (a.segmented && !policy.segment_bytes) {
          if (const auto best =
                  best_simulated_segment(a, shape, search_start(a, e.params), policy, *sim)) {
            e.predicted_s = best->seconds;
            e.params.segment_bytes = best->segment;
            e.simulated = true;
            e.extrapolated_from_segments = best->prefix_segments;
          }
        } else {
          std::size_t budget = kExtrapolationBudgetMessages;
          if (const auto t = simulated_at(a, shape, e.params, *sim, &budget)) {
            e.predicted_s = t->seconds;
            e.simulated = true;
            e.extrapolated_from_segments = t->prefix_segments;
          }
        }
        // A closed form where the schedule was too long to simulate gives each rank a link of
        // its own: no faster than the busiest node's shared link lets it be (docs/MODELS.md,
        // "A node's shared link").
        if (!e.simulated && link_share_applies(shape, *sim)) {
          if (const auto load = link_load(a, shape, e.params, *sim)) {
            if (const double floor_s = load->floor_s(sim->plogp->latency_s);
                floor_s > e.predicted_s) {
              e.predicted_s = floor_s;
              e.link_shared = true;
            }
          }
        }
      }
    }
    // collsel refit's factor for what the model's terms cannot express (docs/MODELS.md).
    if (model != nullptr) e.predicted_s *= model->correction(a.name);
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
    case Rung::measured:
      return "measured";
    case Rung::explore:
      return "explore";
  }
  return "?";
}

std::string_view Decision::algorithm() const {
  return winner < 0 ? kNativeName : table[static_cast<std::size_t>(winner)].name;
}

bool Decision::simulated() const {
  return winner >= 0 && table[static_cast<std::size_t>(winner)].simulated;
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
  const models::ModelFile* model = models.in_use();
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

CostEntry predict_at_segment(const CallShape& shape, int table_index, const ModelSet& models,
                             const Policy& policy, std::uint64_t segment_bytes,
                             const models::contention::Placement* placement) {
  const std::span<const AlgorithmView> all = catalog(shape.coll);
  const auto at = static_cast<std::size_t>(table_index);
  if (table_index < 0 || at >= all.size()) {
    CostEntry none;
    none.not_applicable = "no such algorithm";
    none.predicted_s = kNaN;
    return none;
  }
  Policy fixed = policy;
  fixed.segment_bytes = segment_bytes;
  const models::ModelFile* model = models.in_use();
  return cost_table(shape, all.subspan(at, 1), model, fixed, placement).front();
}

std::optional<double> predict_interval(const CallShape& shape, int table_index,
                                       const AlgoParams& params, const ModelSet& models,
                                       const models::contention::Placement* placement) {
  const std::span<const AlgorithmView> all = catalog(shape.coll);
  const models::ModelFile* model = models.in_use();
  if (model == nullptr || table_index < 0 || static_cast<std::size_t>(table_index) >= all.size()) {
    return std::nullopt;
  }
  try {
    const std::optional<contention::Schedule> schedule =
        bounded_schedule(all[static_cast<std::size_t>(table_index)], shape, params,
                         kMaxIntervalMessages);
    if (!schedule) return std::nullopt;
    // busiest_rank_s() ignores a placement that does not cover the schedule's ranks.
    const models::plogp::Params* intra = model->intra_node ? &*model->intra_node : nullptr;
    const double busiest = contention::busiest_rank_s(*schedule, model->plogp, placement, intra);
    // Calls in a loop follow one another no faster than a node's link carries each one: the
    // rank's gaps above are per rank, and at several ranks per node those ranks share one link.
    const std::optional<Simulation> sim = simulation_for(shape, model, placement);
    if (!sim || !link_share_applies(shape, *sim)) return busiest;
    return std::max(busiest,
                    contention::link_load(*schedule, sim->placement(), *sim->params)
                        .busiest_node_s);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::vector<double> table_intervals(const CallShape& shape, const Decision& d,
                                    const ModelSet& models,
                                    const models::contention::Placement* placement) {
  std::vector<double> out(d.table.size(), kNaN);
  for (std::size_t i = 0; i < d.table.size(); ++i) {
    const CostEntry& e = d.table[i];
    if (e.not_applicable || !std::isfinite(e.predicted_s)) continue;
    out[i] = predict_interval(shape, static_cast<int>(i), e.params, models, placement)
                 .value_or(kNaN);
  }
  return out;
}

}  // namespace collsel
