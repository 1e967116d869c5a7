#include "tools/modeling/simulate.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <span>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "conf/embedded.hpp"
#include "models/alltoall/contention.hpp"
#include "models/contention/rules.hpp"
#include "models/model_file.hpp"
#include "common/text.hpp"
#include "selector/catalog.hpp"
#include "selector/policy.hpp"
#include "common/duration_format.hpp"
#include "common/size_parse.hpp"
#include "common/text_table.hpp"

namespace collsel::tools::simulate {
namespace {

namespace mc = models::contention;
using json = nlohmann::ordered_json;

constexpr std::string_view kLineFix =
    "write one communication per line: NAME SRC DST BYTES [START_SECONDS], e.g. 'a n0 n1 20MiB'";

using text::parse_number;

std::optional<double> parse_bytes(std::string_view s) {
  if (const common::SizeParse size = common::parse_size(s); size.bytes) return static_cast<double>(*size.bytes);
  const std::optional<double> v = parse_number(s);
  if (v && *v >= 0.0) return v;
  return std::nullopt;
}

// ---- the Fig. 3 table ------------------------------------------------------------------------

std::string penalty_cell(const mc::StepRow& row) {
  if (row.state == mc::StepRow::State::waiting) return "wait";
  if (row.penalty > 0.0) return fmt::format("{:.2f}", row.penalty);
  return "-";
}

// The solver lists, per step, the communications active in it. Fig. 3 (GRAPH mode) lists every
// communication in every step, in input order: those finished before the step with "-", their
// completion time and nothing remaining; those not started yet as waiting with all their bytes.
// Algorithm mode keeps the solver's rows, or a step of a large schedule would print thousands.
std::vector<mc::StepRow> rows_of(std::span<const mc::Communication> comms,
                                 const mc::Solution& solution, const mc::Step& step,
                                 bool all_rows) {
  if (!all_rows) return step.rows;
  std::vector<const mc::StepRow*> listed(comms.size(), nullptr);
  for (const mc::StepRow& row : step.rows) {
    if (row.comm >= 0 && static_cast<std::size_t>(row.comm) < comms.size()) {
      listed[static_cast<std::size_t>(row.comm)] = &row;
    }
  }
  std::vector<mc::StepRow> rows;
  rows.reserve(comms.size());
  for (std::size_t k = 0; k < comms.size(); ++k) {
    if (listed[k] != nullptr) {
      rows.push_back(*listed[k]);
    } else if (solution.end_s[k] <= step.start_s) {
      rows.push_back({static_cast<int>(k), mc::StepRow::State::done, 0.0, 0.0, solution.end_s[k]});
    } else {
      rows.push_back({static_cast<int>(k), mc::StepRow::State::waiting, 0.0, comms[k].bytes,
                      step.end_s});
    }
  }
  return rows;
}

std::string comm_name(std::span<const mc::Communication> comms, int comm) {
  const auto k = static_cast<std::size_t>(comm);
  return k < comms.size() ? comms[k].name : std::to_string(comm);
}

std::string step_table(std::span<const mc::Communication> comms, const mc::Solution& solution,
                       bool all_rows) {
  using A = common::TextTable::Align;
  common::TextTable table({"step", "com", "penalty", "data remaining [bytes]", "time [s]"},
                  {A::right, A::left, A::right, A::right, A::right});
  for (std::size_t s = 0; s < solution.steps.size(); ++s) {
    bool first = true;
    for (const mc::StepRow& row : rows_of(comms, solution, solution.steps[s], all_rows)) {
      table.add_row({first ? std::to_string(s + 1) : "", comm_name(comms, row.comm),
                     penalty_cell(row), fmt::format("{:.0f}", row.bytes_remaining),
                     fmt::format("{:.9f}", row.time_s)});
      first = false;
    }
  }
  return table.render();
}

std::string_view state_name(mc::StepRow::State s) {
  switch (s) {
    case mc::StepRow::State::waiting:
      return "waiting";
    case mc::StepRow::State::active:
      return "active";
    case mc::StepRow::State::done:
      return "done";
  }
  return "?";
}

json steps_json(std::span<const mc::Communication> comms, const mc::Solution& solution,
                bool all_rows) {
  json steps = json::array();
  for (std::size_t s = 0; s < solution.steps.size(); ++s) {
    const mc::Step& step = solution.steps[s];
    json rows = json::array();
    for (const mc::StepRow& row : rows_of(comms, solution, step, all_rows)) {
      rows.push_back({{"com", comm_name(comms, row.comm)},
                      {"state", std::string(state_name(row.state))},
                      {"penalty", row.penalty},
                      {"bytes_remaining", row.bytes_remaining},
                      {"time_s", row.time_s}});
    }
    steps.push_back({{"step", s + 1},
                     {"start_s", step.start_s},
                     {"end_s", step.end_s},
                     {"rows", std::move(rows)}});
  }
  return steps;
}

double completion(std::span<const mc::Communication> comms, const mc::Solution& solution,
                  std::size_t k) {
  return solution.end_s[k] + comms[k].tail_s;
}

json gige_json(const mc::GigeParams& g) {
  return {{"beta", g.beta}, {"gamma_i", g.gamma_i}, {"gamma_o", g.gamma_o}};
}

std::string network_text(const mc::Params& n) {
  std::string out = fmt::format("rule {}", mc::rule_name(n.rule));
  if (n.rule == mc::RuleKind::gige) {
    out += fmt::format(" (beta {}, gamma_i {}, gamma_o {})", n.gige.beta, n.gige.gamma_i,
                       n.gige.gamma_o);
  }
  out += fmt::format(", alpha {:.6g} s/byte", n.alpha_s_per_byte);
  if (n.alpha_s_per_byte > 0.0) out += fmt::format(" ({:.6g} bytes/s)", 1.0 / n.alpha_s_per_byte);
  return out;
}

// ---- algorithm mode: inputs ------------------------------------------------------------------

Diagnostic error_in(std::string file, std::string problem, std::string fix) {
  return {Diagnostic::Severity::error, std::move(file), 0, std::move(problem), std::move(fix)};
}

// As `collsel explain`: a model the user named must be usable, or the answer would be about
// another model than the one asked for.
std::optional<models::ModelFile> load_model(const std::optional<std::string>& path,
                                            Diagnostics& out) {
  const std::string source = path ? *path : std::string(conf::kEmbeddedModelName);
  models::ModelLoad load = path ? models::load_model_file(*path)
                                : models::parse_model(conf::embedded_default_model(), source);
  out.insert(out.end(), load.diagnostics.begin(), load.diagnostics.end());
  if (!load.model) {
    if (!has_errors(load.diagnostics)) {
      out.push_back(error_in(source, "the model file is unusable", "see docs/MODELS.md"));
    }
    return std::nullopt;
  }
  if (const auto reason = load.model->plogp.invalid_reason()) {
    out.push_back(error_in(source, *reason, "recalibrate, or fix the [plogp] tables"));
    return std::nullopt;
  }
  if (load.model->contention) {
    if (const auto reason = load.model->contention->invalid_reason()) {
      out.push_back(error_in(source, *reason, "recalibrate, or fix the [contention] section"));
      return std::nullopt;
    }
  }
  return load.model;
}

std::string all_algorithm_names() {
  std::string out;
  for (Collective c : kCollectives) {
    if (!out.empty()) out += ", ";
    out += algorithm_names(c);
  }
  return out;
}

std::string simulable_names() {
  std::string out;
  for (Collective c : kCollectives) {
    for (const AlgorithmView& a : catalog(c)) {
      if (a.schedule == nullptr) continue;
      if (!out.empty()) out += ", ";
      out += a.name;
    }
  }
  return out.empty() ? "none yet" : out;
}

const AlgorithmView* find_any(std::string_view name, Collective& coll) {
  const std::size_t dot = name.find('.');
  const auto c = collective_from_name(name.substr(0, dot));
  if (!c || dot == std::string_view::npos) return nullptr;
  coll = *c;
  return find_algorithm(*c, name);
}

// The network of algorithm mode, each value from the first of: the command line, the model's
// [contention] section, a default (fair rule; alpha from the model's pLogP gap at its largest
// measured size, the bandwidth a lone large message sees; the All-to-All model's copy rate).
void resolve_network(const AlgorithmRequest& q, const models::ModelFile& model,
                     AlgorithmResult& r) {
  constexpr std::string_view kSection = "the model's [contention] section";
  mc::Params& n = r.network;
  if (model.contention) n = *model.contention;
  r.rule_source = q.rule ? "--rule" : model.contention ? kSection : "default";
  if (q.rule) n.rule = *q.rule;
  if (q.gige_beta) n.gige.beta = *q.gige_beta;
  if (q.gige_gamma_i) n.gige.gamma_i = *q.gige_gamma_i;
  if (q.gige_gamma_o) n.gige.gamma_o = *q.gige_gamma_o;

  if (q.bandwidth_bytes_per_s) {
    n.alpha_s_per_byte = 1.0 / *q.bandwidth_bytes_per_s;
    r.alpha_source = "--bandwidth";
  } else if (model.contention && n.alpha_s_per_byte > 0.0) {
    r.alpha_source = kSection;
  } else {
    const models::plogp::SizePoint& largest = model.plogp.table.back();
    n.alpha_s_per_byte =
        largest.bytes > 0 ? largest.gap_s / static_cast<double>(largest.bytes) : 0.0;
    r.alpha_source = fmt::format("the model's pLogP g({}) / {}", common::format_size(largest.bytes),
                                 common::format_size(largest.bytes));
  }
  if (n.intra_alpha_s_per_byte > 0.0) {
    r.intra_source = kSection;
  } else {
    n.intra_alpha_s_per_byte = models::alltoall::kDefaultCopySecondsPerByte;
    r.intra_source = "default copy rate";
  }
}

}  // namespace

// ---- GRAPH mode ------------------------------------------------------------------------------

GraphRead read_graph(std::string_view text, std::string_view source) {
  GraphRead out;
  const auto error = [&](int line, std::string problem, std::string_view fix = kLineFix) {
    out.diagnostics.push_back(
        {Diagnostic::Severity::error, std::string(source), line, std::move(problem), std::string(fix)});
  };
  std::unordered_map<std::string, int> node_index;
  std::unordered_map<std::string, int> name_line;
  const auto node = [&](std::string_view name) {
    const auto [it, added] = node_index.try_emplace(std::string(name), out.nodes.size());
    if (added) out.nodes.emplace_back(name);
    return it->second;
  };

  text::for_each_word_line(text, [&](int line_no, const std::vector<std::string_view>& w) {
    if (w.size() < 4 || w.size() > 5) {
      error(line_no, fmt::format("expected 4 or 5 fields, found {}", w.size()));
      return;
    }
    mc::Communication c;
    c.name = std::string(w[0]);
    bool ok = true;
    if (const auto [it, added] = name_line.try_emplace(c.name, line_no); !added) {
      error(line_no, fmt::format("the name '{}' is used on line {} already", c.name, it->second),
            "give every communication its own name: the completion times are printed by name");
      ok = false;
    }
    if (w[1] == w[2]) {
      error(line_no, fmt::format("'{}' sends to its own node '{}'", c.name, w[1]),
            "a contention graph has no self-loops (seed 003 section 3.1): communications within "
            "a node do not cross the network; leave them out");
      ok = false;
    }
    const std::optional<double> bytes = parse_bytes(w[3]);
    if (!bytes) {
      error(line_no, fmt::format("BYTES '{}' is not a size", w[3]),
            "write a whole number with an optional binary suffix (20MiB, 4k) or a decimal "
            "number >= 0 (2e7)");
      ok = false;
    }
    std::optional<double> start = 0.0;
    if (w.size() == 5) {
      start = parse_number(w[4]);
      if (!start || *start < 0.0) {
        error(line_no, fmt::format("START_SECONDS '{}' is not a number >= 0", w[4]),
              "write the start time in seconds, e.g. 0 or 1.5e-3, or leave it out (0)");
        ok = false;
      }
    }
    if (!ok) return;
    c.src = node(w[1]);
    c.dst = node(w[2]);
    c.bytes = *bytes;
    c.start_s = *start;
    out.comms.push_back(std::move(c));
  });
  if (out.diagnostics.empty() && out.comms.empty()) {
    error(0, "the file holds no communication", kLineFix);
  }
  if (!out.diagnostics.empty()) out.comms.clear();
  return out;
}

BandwidthParse parse_bandwidth(std::string_view text) {
  const common::SizeParse size = common::parse_size(text);
  std::optional<double> v = size.bytes ? std::optional<double>(static_cast<double>(*size.bytes))
                                       : parse_number(text);
  if (v && *v > 0.0) return {v, {}};
  return {std::nullopt,
          fmt::format("must be bytes per second > 0, such as 1.82e9 or 1GiB (= 2^30 "
                      "bytes/s), not '{}'", text)};
}

GraphResult solve_graph(GraphRead read, std::string source, const mc::Params& network,
                        const mc::Rule* given) {
  GraphResult r;
  r.source = std::move(source);
  r.network = network;
  r.comms = std::move(read.comms);
  r.nodes = std::move(read.nodes);
  mc::SolveOptions options;
  options.alpha_s_per_byte = network.alpha_s_per_byte;
  options.intra_alpha_s_per_byte = network.intra_alpha_s_per_byte;
  if (given != nullptr) r.penalties_from = given->name;
  r.solution = mc::solve(r.comms, given != nullptr ? *given : mc::make_rule(network.rule, network.gige),
                         options);
  return r;
}

std::string format_graph_text(const GraphResult& r) {
  std::string network = network_text(r.network);
  if (!r.penalties_from.empty()) {  // the rule's name would not say what gave the penalties
    network = fmt::format("{} given per step, alpha {:.6g} s/byte", r.penalties_from,
                          r.network.alpha_s_per_byte);
  }
  std::string out = fmt::format("# {}: {} communications between {} nodes; {}\n", r.source,
                                r.comms.size(), r.nodes.size(), network);
  out += step_table(r.comms, r.solution, true);
  out += '\n';
  for (std::size_t k = 0; k < r.comms.size(); ++k) {
    out += fmt::format("{} {}\n", r.comms[k].name, completion(r.comms, r.solution, k));
  }
  return out;
}

std::string format_graph_json(const GraphResult& r) {
  json comms = json::array();
  for (std::size_t k = 0; k < r.comms.size(); ++k) {
    const mc::Communication& c = r.comms[k];
    comms.push_back({{"name", c.name},
                     {"src", r.nodes[static_cast<std::size_t>(c.src)]},
                     {"dst", r.nodes[static_cast<std::size_t>(c.dst)]},
                     {"bytes", c.bytes},
                     {"start_s", r.solution.start_s[k]},
                     {"completion_s", completion(r.comms, r.solution, k)}});
  }
  const json doc = {{"source", r.source},
                    {"rule", r.penalties_from.empty()
                                 ? std::string(mc::rule_name(r.network.rule))
                                 : std::string("given")},
                    {"penalties", r.penalties_from.empty() ? json(nullptr)
                                                           : json(r.penalties_from)},
                    {"gige", gige_json(r.network.gige)},
                    {"alpha_s_per_byte", r.network.alpha_s_per_byte},
                    {"nodes", r.nodes},
                    {"communications", std::move(comms)},
                    {"steps", steps_json(r.comms, r.solution, true)}};
  return doc.dump(2) + "\n";
}

// ---- algorithm mode --------------------------------------------------------------------------

AlgorithmOutcome simulate_algorithm(const AlgorithmRequest& q) {
  AlgorithmOutcome out;
  AlgorithmResult r;
  r.request = q;
  const AlgorithmView* view = find_any(q.algorithm, r.coll);
  if (view == nullptr) {
    out.usage_error = fmt::format("--algorithm: '{}' is not a registered algorithm; valid: {}",
                                  q.algorithm, all_algorithm_names());
    return out;
  }
  const CallShape shape{r.coll, q.comm_size, q.bytes, q.root};
  if (const auto reason = view->applicable(shape)) {
    out.usage_error = fmt::format("--algorithm: {} cannot serve this call ({}); see `collsel list`",
                                  q.algorithm, *reason);
    return out;
  }
  if (view->schedule == nullptr) {
    out.usage_error = fmt::format(
        "--algorithm: {} has no communication schedule, so it cannot be simulated; algorithms "
        "with one: {}", q.algorithm, simulable_names());
    return out;
  }
  const std::optional<models::ModelFile> model = load_model(q.model_path, out.diagnostics);
  if (!model) return out;
  r.model_name = model->name;
  r.model_source = q.model_path ? *q.model_path : std::string(conf::kEmbeddedModelName);

  const Prediction closed = view->model(*model, shape, Policy{});
  r.closed_form_s = closed.seconds;
  r.params = closed.params;
  resolve_network(q, *model, r);
  r.placement = mc::make_placement(q.placement, q.comm_size, q.ranks_per_node, q.seed);
  const mc::Schedule schedule = view->schedule(shape, r.params);
  r.simulation = mc::simulate(schedule, r.placement, r.network, model->plogp,
                              model->intra_node ? &*model->intra_node : nullptr);
  for (const mc::Communication& c : r.simulation.graph) r.inter_node_messages += c.src != c.dst;
  out.result = std::move(r);
  return out;
}

std::string format_algorithm_text(const AlgorithmResult& r, bool steps) {
  const AlgorithmRequest& q = r.request;
  std::string params;
  if (r.params.segment_bytes > 0) params = fmt::format(", segment {}", common::format_size(r.params.segment_bytes));
  if (r.params.window > 0) params += fmt::format(", window k = {}", r.params.window);
  std::string out;
  const auto line = [&out](std::string_view label, const std::string& value) {
    out += fmt::format("{:<13}{}\n", label, value);
  };
  line("algorithm:", fmt::format("{}{}{}", q.algorithm, params,
                                 params.empty() ? "" : " (the closed-form model's choice)"));
  line("call:", fmt::format("{}, P = {}, m = {} ({} bytes{}), root {}", collective_name(r.coll),
                            q.comm_size, common::format_size(q.bytes), q.bytes,
                            r.coll != Collective::bcast ? " per block" : "", q.root));
  line("placement:", fmt::format("{}{}, {} ranks on {} nodes, at most {} per node",
                                 mc::placement_name(q.placement),
                                 q.placement == mc::PlacementKind::random
                                     ? fmt::format(" (seed {})", q.seed)
                                     : "",
                                 q.comm_size, r.placement.nodes(),
                                 r.placement.max_ranks_per_node()));
  line("model:", fmt::format("\"{}\" from {}", r.model_name, r.model_source));
  line("network:", fmt::format("{} (rule: {}; alpha: {}); within a node {:.6g} s/byte ({})",
                               network_text(r.network), r.rule_source, r.alpha_source,
                               r.network.intra_alpha_s_per_byte, r.intra_source));
  line("schedule:", fmt::format("{} messages ({} between nodes), {} steps",
                                r.simulation.graph.size(), r.inter_node_messages,
                                r.simulation.solution.steps.size()));
  line("simulated:", fmt::format("{} ({} s)", common::format_duration(r.simulation.completion_s),
                                 r.simulation.completion_s));
  std::string ratio;
  if (r.closed_form_s > 0.0) {
    ratio = fmt::format("; simulated / closed form = {:.3f}",
                        r.simulation.completion_s / r.closed_form_s);
  }
  line("closed form:", fmt::format("{} ({} s){}", common::format_duration(r.closed_form_s),
                                   r.closed_form_s, ratio));
  if (steps) {
    out += '\n';
    out += step_table(r.simulation.graph, r.simulation.solution, false);
  }
  return out;
}

std::string format_algorithm_json(const AlgorithmResult& r, bool steps) {
  const AlgorithmRequest& q = r.request;
  json doc = {
      {"algorithm", q.algorithm},
      {"coll", std::string(collective_name(r.coll))},
      {"comm_size", q.comm_size},
      {"bytes", q.bytes},
      {"root", q.root},
      {"segment_bytes", r.params.segment_bytes},
      {"window", r.params.window},
      {"placement",
       {{"kind", std::string(mc::placement_name(q.placement))},
        {"ranks_per_node", q.ranks_per_node},
        {"seed", q.seed},
        {"nodes", r.placement.nodes()},
        {"max_ranks_per_node", r.placement.max_ranks_per_node()},
        {"node_of_rank", r.placement.node_of_rank}}},
      {"model", {{"name", r.model_name}, {"source", r.model_source}}},
      {"network",
       {{"rule", std::string(mc::rule_name(r.network.rule))},
        {"rule_source", r.rule_source},
        {"gige", gige_json(r.network.gige)},
        {"alpha_s_per_byte", r.network.alpha_s_per_byte},
        {"alpha_source", r.alpha_source},
        {"intra_alpha_s_per_byte", r.network.intra_alpha_s_per_byte},
        {"intra_source", r.intra_source}}},
      {"messages", r.simulation.graph.size()},
      {"inter_node_messages", r.inter_node_messages},
      {"steps", r.simulation.solution.steps.size()},
      {"completion_s", r.simulation.completion_s},
      {"closed_form_s", r.closed_form_s}};
  if (steps) doc["step_table"] = steps_json(r.simulation.graph, r.simulation.solution, false);
  return doc.dump(2) + "\n";
}

}  // namespace collsel::tools::simulate
