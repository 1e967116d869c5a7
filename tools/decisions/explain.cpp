#include "tools/decisions/explain.hpp"

#include <cmath>
#include <limits>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "conf/embedded.hpp"
#include "models/model_file.hpp"
#include "selector/adapt.hpp"
#include "selector/catalog.hpp"
#include "selector/config.hpp"
#include "common/duration_format.hpp"
#include "tools/decisions/model_loading.hpp"
#include "common/size_parse.hpp"
#include "common/text_table.hpp"

namespace collsel::explain {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Ordered: keys come out in the documented order, which people reading the JSON appreciate.
using json = nlohmann::ordered_json;

// ---- inputs ----------------------------------------------------------------------------------

ModelInfo info_of(const models::ModelFile& m, std::string source) {
  return {m.name, std::move(source), m.provenance.command, m.description};
}

// ---- the why line ----------------------------------------------------------------------------

bool has_prediction(const CostEntry& e) { return !e.not_applicable && !std::isnan(e.predicted_s); }

// Index of the fastest predicted entry other than `skip`, ties to registry order; -1 if none.
int fastest_except(const std::vector<CostEntry>& table, int skip) {
  int best = -1;
  for (int i = 0; i < static_cast<int>(table.size()); ++i) {
    const CostEntry& e = table[static_cast<std::size_t>(i)];
    if (i == skip || !has_prediction(e)) continue;
    if (best < 0 || e.predicted_s < table[static_cast<std::size_t>(best)].predicted_s) best = i;
  }
  return best;
}

std::string ratio_text(double slow, double fast) {
  const double r = slow / fast;
  const int decimals = r < 10.0 ? 2 : (r < 100.0 ? 1 : 0);
  return fmt::format("{:.{}f}x", r, decimals);
}

// "X (12.3 us)" for messages.
std::string timed(const CostEntry& e) {
  return fmt::format("{} ({})", e.name, common::format_duration(e.predicted_s));
}

std::string why_model_choice(const Decision& d) {
  const CostEntry& w = d.table[static_cast<std::size_t>(d.winner)];
  const int runner = fastest_except(d.table, d.winner);
  if (runner < 0) {
    return fmt::format("{} wins: {}, the only applicable algorithm", w.name,
                       common::format_duration(w.predicted_s));
  }
  const CostEntry& r = d.table[static_cast<std::size_t>(runner)];
  if (r.predicted_s == w.predicted_s) {
    return fmt::format("{} wins: {}, tied with {}; ties go to the earlier algorithm in registry "
                       "order", w.name, common::format_duration(w.predicted_s), r.name);
  }
  if (w.predicted_s <= 0.0) {
    return fmt::format("{} wins: {}, against {}", w.name, common::format_duration(w.predicted_s),
                       timed(r));
  }
  return fmt::format("{} wins: {}, {} faster than {}", w.name,
                     common::format_duration(w.predicted_s),
                     ratio_text(r.predicted_s, w.predicted_s), timed(r));
}

std::string why_forced(const Decision& d) {
  const CostEntry& w = d.table[static_cast<std::size_t>(d.winner)];
  if (!has_prediction(w)) {
    return fmt::format("{} is forced by the override (no prediction)", w.name);
  }
  const int model_choice = fastest_except(d.table, -1);
  if (model_choice == d.winner) {
    return fmt::format("{} is forced by the override, and is the model's choice too ({})", w.name,
                       common::format_duration(w.predicted_s));
  }
  const CostEntry& m = d.table[static_cast<std::size_t>(model_choice)];
  if (m.predicted_s <= 0.0) {
    return fmt::format("{} is forced by the override: {}; the model would choose {}", w.name,
                       common::format_duration(w.predicted_s), timed(m));
  }
  return fmt::format("{} is forced by the override: {}, {} slower than the model's choice {}",
                     w.name, common::format_duration(w.predicted_s),
                     ratio_text(w.predicted_s, m.predicted_s), timed(m));
}

std::string why_native(const Decision& d) {
  if (d.rung == Rung::override_algorithm) {
    return "native is forced by the override: the MPI library's own routine runs";
  }
  return fmt::format("native: {}", d.note.empty() ? "no model is available" : d.note);
}

// ---- output ----------------------------------------------------------------------------------

std::string rung_meaning(Rung r) {
  switch (r) {
    case Rung::override_algorithm: return "the user's override: --force or the config's [override]";
    case Rung::calibrated_model: return "the calibrated model's fastest prediction";
    case Rung::default_model: return "the embedded default model's fastest prediction";
    case Rung::native: return "the MPI library's own collective";
    case Rung::measured: return "measured faster than the model's choice (the learned table)";
    case Rung::explore: return "a trial of a runner-up (self-correction)";
  }
  return "";
}

bool is_segmented(const CostEntry& e, Collective coll) {
  const AlgorithmView* view = find_algorithm(coll, e.name);
  return e.params.segment_bytes > 0 || (view != nullptr && view->segmented);
}

// The chosen parameter of an algorithm: its segment size, or its All-to-All window.
std::string parameter_cell(const CostEntry& e, Collective coll) {
  if (e.not_applicable) return "";
  if (is_segmented(e, coll)) return common::format_size(e.params.segment_bytes);
  if (e.params.window > 0) return fmt::format("k = {}", e.params.window);
  return "";
}

std::string predicted_cell(const CostEntry& e) {
  if (e.not_applicable) return "-";
  if (std::isnan(e.predicted_s)) return "no model";
  return common::format_duration(e.predicted_s);
}

std::string cost_table_text(const Explanation& e) {
  using A = common::TextTable::Align;
  common::TextTable table({"", "algorithm", "predicted", "in a loop", "parameter", ""},
                         {A::left, A::left, A::right, A::right, A::right, A::left});
  const auto& rows = e.decision.table;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const CostEntry& c = rows[i];
    const bool chosen = static_cast<int>(i) == e.decision.winner;
    std::string remark = c.not_applicable ? "n/a: " + *c.not_applicable : (chosen ? "chosen" : "");
    if (c.simulated) {
      // An extrapolated figure says so, and from how much of the message (decide.hpp).
      const std::string how =
          c.extrapolated_from_segments == 0
              ? "simulated"
              : fmt::format("simulated {} segments, extrapolated", c.extrapolated_from_segments);
      remark += remark.empty() ? how : ", " + how;
    }
    if (c.link_shared) remark += remark.empty() ? "shared node link" : ", shared node link";
    const double interval = i < e.interval_s.size() ? e.interval_s[i] : kNaN;
    table.add_row({chosen ? "->" : "", std::string(c.name), predicted_cell(c),
                   std::isnan(interval) ? "-" : common::format_duration(interval),
                   parameter_cell(c, e.shape.coll), remark});
  }
  return table.render("  ");
}

std::string model_lines(const std::string& label, const ModelInfo& m) {
  // Quoted: model names are free text and often hold commas and parentheses themselves.
  std::string out = fmt::format("{:<10}\"{}\" from {}\n", label, m.name, m.source);
  if (!m.command.empty()) out += fmt::format("{:<10}measured by: {}\n", "", m.command);
  return out;
}

json model_json(const ModelInfo& m) {
  return {{"name", m.name}, {"source", m.source}, {"command", m.command},
          {"description", m.description}};
}

json number_or_null(double v) { return std::isnan(v) ? json(nullptr) : json(v); }

json entry_json(const CostEntry& c, Collective coll, double interval_s) {
  const bool applicable = !c.not_applicable;
  return {{"name", std::string(c.name)},
          {"applicable", applicable},
          {"reason", applicable ? json(nullptr) : json(*c.not_applicable)},
          {"predicted_s", applicable ? number_or_null(c.predicted_s) : json(nullptr)},
          {"interval_s", applicable ? number_or_null(interval_s) : json(nullptr)},
          {"segmented", applicable && is_segmented(c, coll)},
          {"segment_bytes", c.params.segment_bytes},
          {"window", c.params.window},
          {"simulated", c.simulated},
          {"extrapolated_from_segments", c.extrapolated_from_segments},
          {"link_shared", c.link_shared}};
}

}  // namespace

Outcome explain(const Request& request) {
  Outcome out;
  std::optional<tools::LoadedModels> loaded =
      tools::load_models(request.model_path, request.config_path, out.diagnostics);
  if (!loaded) return out;
  Policy policy = loaded->config.policy;
  if (request.force) policy.of(request.shape.coll).force = request.force;

  Explanation e;
  e.fallback = info_of(*loaded->fallback, std::string(conf::kEmbeddedModelName));
  if (loaded->calibrated) e.calibrated = info_of(*loaded->calibrated, loaded->calibrated_source);
  e.config_source = loaded->config.source;
  e.shape = request.shape;
  if (request.placement) {
    e.placement = fmt::format("{}, {} ranks on {} nodes, at most {} per node",
                              models::contention::placement_name(request.placement_kind),
                              request.placement->node_of_rank.size(), request.placement->nodes(),
                              request.placement->max_ranks_per_node());
  }
  const models::contention::Placement* placement =
      request.placement ? &*request.placement : nullptr;
  e.decision = decide(request.shape, loaded->set(), policy, placement);
  e.why = why_line(e.decision);
  const AdaptSettings& adapt = loaded->config.adapt;
  AdaptPlan plan;
  if (adapt.mode == AdaptMode::explore || adapt.mode == AdaptMode::exhaustive) {
    e.explore = true;
    plan = plan_adapt(request.shape, e.decision, adapt, loaded->set(), policy, placement, nullptr);
    for (std::size_t r = 1; r < plan.ranking.size(); ++r) {
      const RankedEntry& entry = plan.ranking[r];
      if (entry.variant_of >= 0) continue;  // a segment variant: tried after, only if kept
      if (entry.loop_only) {
        e.loop_runners_up.emplace_back(entry.cost.name);
      } else {
        e.runners_up.emplace_back(entry.cost.name);
      }
    }
  }
  // The intervals the plan ranked loops by, when it computed them; the same function otherwise.
  e.interval_s = plan.table_interval_s.size() == e.decision.table.size()
                     ? std::move(plan.table_interval_s)
                     : table_intervals(request.shape, e.decision, loaded->set(), placement);
  out.explanation = std::move(e);
  return out;
}

std::string why_line(const Decision& d) {
  if (d.winner < 0) return why_native(d);
  if (d.rung == Rung::override_algorithm) return why_forced(d);
  return why_model_choice(d);
}

std::string format_text(const Explanation& e) {
  std::string out = model_lines("model:", e.model_used());
  if (e.calibrated) out += model_lines("fallback:", e.fallback);
  out += fmt::format("{:<10}{}\n", "config:", e.config_source);
  out += fmt::format("{:<10}{}, P = {}, m = {} ({} bytes{}), root {}\n\n", "call:",
                     collective_name(e.shape.coll), e.shape.comm_size,
                     common::format_size(e.shape.bytes), e.shape.bytes,
                     e.shape.coll != Collective::bcast ? " per block" : "", e.shape.root);
  if (!e.placement.empty()) {
    out.pop_back();  // the placement line goes before the blank line that precedes the table
    out += fmt::format("{:<10}{}\n\n", "nodes:", e.placement);
  }
  out += cost_table_text(e);
  out += '\n';
  const AlgoParams params = e.decision.params();
  out += fmt::format("{:<10}{}{}\n", "chosen:", e.decision.algorithm(),
                     params.segment_bytes > 0
                         ? fmt::format(", segment {}", common::format_size(params.segment_bytes))
                     : params.window > 0 ? fmt::format(", window k = {}", params.window)
                                         : std::string());
  out += fmt::format("{:<10}{} ({})\n", "rung:", rung_name(e.decision.rung),
                     rung_meaning(e.decision.rung));
  if (!e.decision.note.empty()) out += fmt::format("{:<10}{}\n", "note:", e.decision.note);
  out += fmt::format("{:<10}{}\n", "why:", e.why);
  if (e.explore) {
    out += fmt::format("{:<10}{}\n", "explore:",
                       e.runners_up.empty()
                           ? std::string("no runner-up to try")
                           : fmt::format("runners-up {}", fmt::join(e.runners_up, ", ")));
    if (!e.loop_runners_up.empty()) {
      out += fmt::format("{:<10}in a loop of back-to-back calls also {} ({})\n", "",
                         fmt::join(e.loop_runners_up, ", "),
                         e.loop_runners_up.size() == 1 ? "its interval" : "their intervals");
    }
  }
  return out;
}

std::string format_json(const Explanation& e) {
  json table = json::array();
  for (std::size_t i = 0; i < e.decision.table.size(); ++i) {
    table.push_back(entry_json(e.decision.table[i], e.shape.coll,
                               i < e.interval_s.size() ? e.interval_s[i] : kNaN));
  }
  const json doc = {
      {"model", model_json(e.model_used())},
      {"calibrated_model", e.calibrated ? model_json(*e.calibrated) : json(nullptr)},
      {"default_model", model_json(e.fallback)},
      {"config", e.config_source},
      {"shape",
       {{"coll", std::string(collective_name(e.shape.coll))},
        {"comm_size", e.shape.comm_size},
        {"bytes", e.shape.bytes},
        {"root", e.shape.root}}},
      {"placement", e.placement.empty() ? json(nullptr) : json(e.placement)},
      {"table", table},
      {"winner", std::string(e.decision.algorithm())},
      {"winner_index", e.decision.winner},
      {"predicted_s", number_or_null(e.decision.predicted_s())},
      {"segment_bytes", e.decision.params().segment_bytes},
      {"window", e.decision.params().window},
      {"rung", std::string(rung_name(e.decision.rung))},
      {"note", e.decision.note},
      {"why", e.why},
      {"explore", e.explore ? json{{"runners_up", e.runners_up},
                                   {"loop_runners_up", e.loop_runners_up}}
                            : json(nullptr)}};
  return doc.dump(2) + "\n";
}

}  // namespace collsel::explain
