// [contention]: the penalty rule and the measured static-synchronous graphs (seeds 002, 003).
#include "models/model_file/sections.hpp"

#include <cmath>
#include <sstream>

#include "models/contention/rules.hpp"

namespace collsel::models::model_file {
namespace {

// [contention]: the penalty rule and what the calibration measured (models/contention/params.hpp).
constexpr KeySpec kContentionKeys[] = {
    {"rule", Kind::string, true, "\"gige\""},
    {"use", Kind::string, false, "\"auto\""},
    {"alpha_s_per_byte", Kind::number, true, "8.5e-9"},
    {"intra_alpha_s_per_byte", Kind::number, false, "2.5e-10"},
    {"reference_bytes", Kind::number, false, "1048576"},
    {"gige_beta", Kind::number, false, "0.75"},
    {"gige_gamma_i", Kind::number, false, "0.036"},
    {"gige_gamma_o", Kind::number, false, "0.115"},
    {"graph", Kind::tables, false, "[[contention.graph]]"},
};

// One [[contention.graph]]: a measured static-synchronous graph and its first-step penalties.
constexpr KeySpec kGraphKeys[] = {
    {"name", Kind::string, false, "\"out-star-2\""},
    {"edges", Kind::edges, true, "\"0>1 0>2\""},
    {"penalties", Kind::numbers, true, "[1.5, 1.5]"},
};

constexpr std::pair<contention::Use, std::string_view> kUseNames[] = {
    {contention::Use::automatic, "auto"},
    {contention::Use::always, "always"},
    {contention::Use::never, "never"},
};
constexpr std::string_view kUseNameList = "auto, always, never";

std::string_view use_name(contention::Use use) {
  for (const auto& [u, name] : kUseNames) {
    if (u == use) return name;
  }
  return "auto";
}

std::optional<contention::Use> use_from_name(std::string_view name) {
  for (const auto& [u, n] : kUseNames) {
    if (n == name) return u;
  }
  return std::nullopt;
}

// A node index: decimal digits only, within int.
std::optional<int> node_index(std::string_view text) {
  if (text.empty() || text.size() > 9) return std::nullopt;  // 9 digits always fit in int
  int v = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

// edges = "0>1 0>2" (whitespace-separated SRC>DST) or [[0, 1], [0, 2]]: what people write by
// hand, and what the writer uses (the string: one line, readable as the graph).
std::optional<std::vector<contention::Edge>> read_edges(Reader& r, const Section& s) {
  const toml::node* n = find(r, s, "edges");
  if (n == nullptr) return std::nullopt;
  const auto bad = [&](int line, const std::string& problem) {
    r.error(line, fmt::format("edges {} {}", s.where, problem),
            or_regenerate("write edges as \"0>1 0>2\" or [[0, 1], [0, 2]] (node indices)"));
    return std::optional<std::vector<contention::Edge>>();
  };
  std::vector<contention::Edge> edges;
  if (const auto* text = n->as_string()) {
    std::istringstream words(text->get());
    std::string w;
    while (words >> w) {
      const auto gt = w.find('>');
      const auto src = gt == std::string::npos ? std::nullopt : node_index(w.substr(0, gt));
      const auto dst = gt == std::string::npos ? std::nullopt : node_index(w.substr(gt + 1));
      if (!src || !dst) {
        return bad(line_of(*n), fmt::format("has '{}', which is not SRC>DST with node indices "
                                            "(e.g. 0>1)", w));
      }
      edges.push_back({*src, *dst});
    }
  } else {
    const toml::array& a = *n->as_array();
    for (std::size_t i = 0; i < a.size(); ++i) {
      const toml::array* pair = a[i].as_array();
      const bool ok = pair != nullptr && pair->size() == 2 && (*pair)[0].is_integer() &&
                      (*pair)[1].is_integer();
      const auto get = [&](std::size_t k) { return (*pair)[k].as_integer()->get(); };
      if (!ok || get(0) < 0 || get(1) < 0 || get(0) > INT_MAX || get(1) > INT_MAX) {
        return bad(line_of(a[i]), fmt::format("[{}] is not a [src, dst] pair of node indices "
                                              "(integers >= 0)", i));
      }
      edges.push_back({static_cast<int>(get(0)), static_cast<int>(get(1))});
    }
  }
  if (edges.empty()) return bad(line_of(*n), "is empty; a measured graph has at least one edge");
  for (const contention::Edge& e : edges) {
    if (e.src == e.dst) {
      return bad(line_of(*n), fmt::format("has the self-loop {}>{}; an edge joins two different "
                                          "nodes", e.src, e.dst));
    }
  }
  return edges;
}

std::optional<contention::MeasuredGraph> read_graph(Reader& r, const toml::table& t) {
  const Section s{t, "in [[contention.graph]]", kGraphKeys, line_of(t)};
  warn_unknown_keys(r, s);
  contention::MeasuredGraph g;
  read_string(r, s, "name", g.name);
  auto edges = read_edges(r, s);
  // A measured penalty may be below 1 (noise); it is a time ratio, so it is positive.
  const auto penalties = read_array<double>(
      r, s, "penalties", Kind::number, Empty::rejected,
      [](Reader& rr, const toml::node& e, const std::string& what) -> std::optional<double> {
        const double v = number_of(e);
        if (finite_positive(v)) return v;
        rr.error(line_of(e), fmt::format("{} is {}; it must be a finite number > 0", what, v),
                 or_regenerate("correct it"));
        return std::nullopt;
      });
  if (!edges || !penalties.ok) return std::nullopt;
  if (penalties.values.size() != edges->size()) {
    r.error(penalties.line,
            fmt::format("penalties {} has {} values but edges has {} edges", s.where,
                        penalties.values.size(), edges->size()),
            or_regenerate("give one penalty per edge, in the order of edges"));
    return std::nullopt;
  }
  g.edges = std::move(*edges);
  g.penalties = penalties.values;
  return g;
}

std::string edges_text(const std::vector<contention::Edge>& edges) {
  std::string out;
  for (const contention::Edge& e : edges) {
    out += fmt::format("{}{}>{}", out.empty() ? "" : " ", e.src, e.dst);
  }
  return out;
}

}  // namespace

std::optional<contention::Params> read_contention(Reader& r, const toml::table& t) {
  const Section s{t, "in [contention]", kContentionKeys, line_of(t)};
  const int errors_before = error_count(r);
  warn_unknown_keys(r, s);
  contention::Params p;
  if (auto v = read_named<contention::RuleKind>(r, s, "rule", contention::rule_from_name,
                                                contention::rule_names())) {
    p.rule = *v;
  }
  if (auto v = read_named<contention::Use>(r, s, "use", use_from_name, kUseNameList)) p.use = *v;
  const std::string_view positive = "a finite number > 0", nonneg = "a finite number >= 0";
  if (auto v = read_checked_number(r, s, "alpha_s_per_byte", finite_positive, positive)) {
    p.alpha_s_per_byte = *v;
  }
  if (auto v = read_checked_number(r, s, "intra_alpha_s_per_byte", finite_nonneg, nonneg)) {
    p.intra_alpha_s_per_byte = *v;
  }
  if (auto v = read_checked_number(r, s, "reference_bytes", finite_nonneg, nonneg)) {
    p.reference_bytes = *v;
  }
  if (auto v = read_checked_number(r, s, "gige_beta", finite_positive, positive)) {
    p.gige.beta = *v;
  }
  if (auto v = read_checked_number(r, s, "gige_gamma_i", finite_any, "a finite number")) {
    p.gige.gamma_i = *v;
  }
  if (auto v = read_checked_number(r, s, "gige_gamma_o", finite_any, "a finite number")) {
    p.gige.gamma_o = *v;
  }
  if (const toml::node* n = find(r, s, "graph")) {
    for (const toml::node& g : *n->as_array()) {
      if (auto graph = read_graph(r, *g.as_table())) p.measured.push_back(std::move(*graph));
    }
  }
  if (error_count(r) != errors_before) return std::nullopt;
  // Every condition is checked above with its line; this catches a gap between the two lists.
  if (auto reason = p.invalid_reason()) {
    r.error(s.line, fmt::format("[contention]: {}", *reason), or_regenerate("correct it"));
    return std::nullopt;
  }
  return p;
}

std::string contention_body(const contention::Params& c) {
  std::string out;
  out += fmt::format("rule = {}  # penalty rule: {}\n", toml_string(contention::rule_name(c.rule)),
                     contention::rule_names());
  out += fmt::format("use = {}  # schedule simulation: {}\n", toml_string(use_name(c.use)),
                     kUseNameList);
  out += fmt::format("alpha_s_per_byte = {}  # 1 / effective bandwidth between nodes\n",
                     toml_float(c.alpha_s_per_byte));
  out += fmt::format("intra_alpha_s_per_byte = {}  # between two ranks of one node (0: unknown)\n",
                     toml_float(c.intra_alpha_s_per_byte));
  out += fmt::format("reference_bytes = {}  # message size of the measured graphs\n",
                     toml_float(c.reference_bytes));
  out += fmt::format("gige_beta = {}  # seed 002 section V.A\n", toml_float(c.gige.beta));
  out += fmt::format("gige_gamma_i = {}\n", toml_float(c.gige.gamma_i));
  out += fmt::format("gige_gamma_o = {}\n", toml_float(c.gige.gamma_o));
  for (const contention::MeasuredGraph& g : c.measured) {
    out += "\n[[contention.graph]]\n";
    out += fmt::format("name = {}\n", toml_string(g.name));
    out += fmt::format("edges = {}\n", toml_string(edges_text(g.edges)));
    out += fmt::format("penalties = {}  # first step, per edge\n",
                       toml_array(g.penalties, toml_float));
  }
  return out;
}

}  // namespace collsel::models::model_file
