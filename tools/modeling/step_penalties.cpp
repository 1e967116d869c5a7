#include "tools/modeling/step_penalties.hpp"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/text.hpp"

namespace collsel::tools::simulate {
namespace {

namespace mc = models::contention;

constexpr std::string_view kLineFix =
    "write one step per line, NAME=PENALTY for each communication in that step's graph, e.g. "
    "'a=3.5 b=3.5 f=1.5' (a penalty is a number >= 1 or a fraction such as 10/3)";

// "3.5" or "10/3".
std::optional<double> parse_penalty(std::string_view s) {
  const std::size_t slash = s.find('/');
  if (slash == std::string_view::npos) return text::parse_number(s);
  const auto n = text::parse_number(s.substr(0, slash));
  const auto d = text::parse_number(s.substr(slash + 1));
  if (!n || !d || *d == 0.0) return std::nullopt;
  return *n / *d;
}

// The graph's edges of the communications a line names, as the solver presents them: in input
// order.
struct StepEdges {
  std::vector<std::size_t> comms;  // input indices, ascending
  std::vector<double> rho;         // in the same order
};

std::string edge_list(std::span<const mc::Edge> edges, const std::vector<std::string>& nodes) {
  std::vector<std::string> out;
  for (const mc::Edge& e : edges) {
    out.push_back(fmt::format("{}->{}", nodes.at(static_cast<std::size_t>(e.src)),
                              nodes.at(static_cast<std::size_t>(e.dst))));
  }
  return fmt::format("{}", fmt::join(out, " "));
}

}  // namespace

StepPenalties read_step_penalties(std::string_view text, std::string_view source) {
  StepPenalties out;
  out.source = std::string(source);
  text::for_each_word_line(text, [&](int line_no, const std::vector<std::string_view>& w) {
    StepLine step{line_no, {}};
    for (const std::string_view field : w) {
      const std::size_t eq = field.find('=');
      const std::optional<double> rho =
          eq == std::string_view::npos ? std::nullopt : parse_penalty(field.substr(eq + 1));
      if (eq == 0 || !rho || *rho < 1.0) {
        out.diagnostics.push_back(
            {Diagnostic::Severity::error, out.source, line_no,
             fmt::format("'{}' is not NAME=PENALTY with a penalty >= 1", field),
             std::string(kLineFix)});
        continue;
      }
      step.penalties.emplace_back(std::string(field.substr(0, eq)), *rho);
    }
    out.steps.push_back(std::move(step));
  });
  if (out.diagnostics.empty() && out.steps.empty()) {
    out.diagnostics.push_back({Diagnostic::Severity::error, out.source, 0,
                               "the file holds no step", std::string(kLineFix)});
  }
  if (!out.diagnostics.empty()) out.steps.clear();
  return out;
}

ReplayRule replay_rule(const StepPenalties& p, std::span<const mc::Communication> comms,
                       const std::vector<std::string>& nodes, Diagnostics& diagnostics) {
  std::unordered_map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < comms.size(); ++i) index.emplace(comms[i].name, i);
  std::vector<StepEdges> steps;
  for (const StepLine& line : p.steps) {
    StepEdges s;
    std::vector<std::pair<std::size_t, double>> named;
    for (const auto& [name, rho] : line.penalties) {
      const auto it = index.find(name);
      if (it == index.end()) {
        diagnostics.push_back({Diagnostic::Severity::error, p.source, line.line,
                               fmt::format("'{}' is not a communication of the graph", name),
                               "use the names of the GRAPH file's first column"});
        continue;
      }
      const bool repeated = std::any_of(named.begin(), named.end(),
                                        [&](const auto& n) { return n.first == it->second; });
      if (repeated) {
        diagnostics.push_back({Diagnostic::Severity::error, p.source, line.line,
                               fmt::format("'{}' is given twice", name),
                               "give each communication of the step one penalty"});
        continue;
      }
      named.emplace_back(it->second, rho);
    }
    std::sort(named.begin(), named.end());
    for (const auto& [i, rho] : named) {
      s.comms.push_back(i);
      s.rho.push_back(rho);
    }
    steps.push_back(std::move(s));
  }
  auto used = std::make_shared<std::size_t>(0);
  std::vector<mc::Communication> graph(comms.begin(), comms.end());
  std::vector<int> lines;
  for (const StepLine& l : p.steps) lines.push_back(l.line);
  mc::PenaltyFn fn = [steps, used, graph, lines, nodes,
                      source = p.source](std::span<const mc::Edge> edges) {
    const std::size_t k = (*used)++;
    if (k >= steps.size()) {
      throw std::invalid_argument(fmt::format(
          "{}: the graph has a step {} ({}) but the file gives {} step(s); add a line for it",
          source, k + 1, edge_list(edges, nodes), steps.size()));
    }
    const StepEdges& s = steps[k];
    bool same = s.comms.size() == edges.size();
    for (std::size_t a = 0; same && a < edges.size(); ++a) {
      const mc::Communication& c = graph[s.comms[a]];
      same = c.src == edges[a].src && c.dst == edges[a].dst;
    }
    if (!same) {
      std::vector<std::string> names;
      for (std::size_t i : s.comms) names.push_back(graph[i].name);
      throw std::invalid_argument(fmt::format(
          "{}:{}: step {} of the graph holds {} communication(s) ({}), but the line gives "
          "penalties for {} ({}); list every communication running in that step, and only those",
          source, lines[k], k + 1, edges.size(), edge_list(edges, nodes), names.size(),
          fmt::join(names, " ")));
    }
    return s.rho;
  };
  return {{"penalties from " + p.source, std::move(fn)}, used};
}

}  // namespace collsel::tools::simulate
