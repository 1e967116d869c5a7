// The random contention graph benchmark (issue 6): seeded random graphs of communications between
// the job's nodes, each run by the calibration's runner (calibrate/contention_measure.hpp: a rank
// sends or receives, all senders start after one barrier, or at random offsets; medians over
// repeats), and every communication predicted by the contention solver under each penalty rule
// (fair, infiniband, gige with the model file's fitted parameters, myrinet) with alpha = T_ref / m
// from a pair measured in the same run. Seed 002 section VI.B's errors: E_rel = (T_p - T_m) / T_m
// per communication, E_abs(G) = mean |E_rel| over a graph. Rank 0 writes a CSV row per
// communication and a markdown summary (per rule, per number of edges as seed 003 Fig. 5, per
// graph), both before MPI_Finalize (emucluster's work-around ends the job there).
//
//   emucluster mpiexec --ppn 2 -- bench/contention_graphs --model cluster.toml --graphs 40
//
// The graphs are between nodes, so the job needs two nodes and a node with two ranks;
// COLLSEL_FAKE_NODES=K (tests only) splits one machine's ranks into K pseudo-nodes.
#include <mpi.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "calibrate/contention_measure.hpp"
#include "calibrate/node_layout.hpp"
#include "models/model_file.hpp"
#include "common/size_option.hpp"
#include "common/size_parse.hpp"

namespace {

namespace cal = collsel::calibrate;
namespace mc = collsel::models::contention;
using cal::Edge;

constexpr mc::RuleKind kRules[] = {mc::RuleKind::fair, mc::RuleKind::infiniband,
                                   mc::RuleKind::gige, mc::RuleKind::myrinet};
constexpr std::size_t kRuleCount = std::size(kRules);
constexpr double kWithin = 0.15;  // seed 003 Fig. 5's "acceptable" bound on |E_rel|

struct Options {
  int graphs = 40;
  int min_edges = 2;
  int max_edges = 6;
  std::uint64_t seed = 1;
  std::string bytes = "1MiB";
  int repeats = 5;
  double offsets = 0.0;  // start offsets drawn in [0, offsets x T_ref]; 0: static-synchronous
  std::string model;
  std::string csv = "contention_graphs.csv";
  std::string summary = "contention_graphs.md";
  std::string label;
};

// A weakly connected random graph between the nodes whose rank counts are `capacity`: up to
// `edges` edges, each after the first touching a node already used, each endpoint taking a rank
// no other endpoint has (a rank sends or receives once). Stops early when no edge fits.
std::vector<Edge> random_graph(std::mt19937_64& rng, std::vector<int> capacity, int edges) {
  const int nodes = static_cast<int>(capacity.size());
  std::vector<char> touched(capacity.size(), 0);
  std::vector<Edge> out;
  for (int e = 0; e < edges; ++e) {
    std::vector<Edge> candidates;
    for (int a = 0; a < nodes; ++a) {
      for (int b = 0; b < nodes; ++b) {
        const auto ia = static_cast<std::size_t>(a), ib = static_cast<std::size_t>(b);
        if (a == b || capacity[ia] < 1 || capacity[ib] < 1) continue;
        if (!out.empty() && !touched[ia] && !touched[ib]) continue;
        candidates.push_back({a, b});
      }
    }
    if (candidates.empty()) break;
    std::uniform_int_distribution<std::size_t> pick(0, candidates.size() - 1);
    const Edge chosen = candidates[pick(rng)];
    --capacity[static_cast<std::size_t>(chosen.src)];
    --capacity[static_cast<std::size_t>(chosen.dst)];
    touched[static_cast<std::size_t>(chosen.src)] = touched[static_cast<std::size_t>(chosen.dst)] = 1;
    out.push_back(chosen);
  }
  return out;
}

std::string edge_list(const std::vector<Edge>& edges) {
  std::string out;
  for (const Edge& e : edges) out += fmt::format("{}{}>{}", out.empty() ? "" : " ", e.src, e.dst);
  return out;
}

double median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string percent(double fraction) {
  return std::isnan(fraction) ? std::string("n/a") : fmt::format("{:.1f} %", 100 * fraction);
}

// One measured graph with its predictions: per rule, per communication.
struct GraphResult {
  std::vector<Edge> edges;
  cal::GraphTimes times;
  std::vector<double> predicted[kRuleCount];  // durations; NaN where the rule failed
  std::string failure[kRuleCount];            // why the rule could not predict, when it failed

  [[nodiscard]] double erel(std::size_t rule, std::size_t comm) const {
    return cal::relative_error(predicted[rule][comm], times.duration_s[comm]);
  }
  // E_abs(G) of seed 002: the mean |E_rel| over the graph's communications.
  [[nodiscard]] double eabs(std::size_t rule) const {
    double sum = 0.0;
    for (std::size_t c = 0; c < edges.size(); ++c) sum += std::abs(erel(rule, c));
    return sum / static_cast<double>(edges.size());
  }
};

struct RunFacts {
  int nodes = 0;
  int ranks = 0;
  int most_per_node = 0;
  bool fake = false;
  std::uint64_t bytes = 0;
  double t_ref_s = 0.0;
  double alpha = 0.0;
  mc::GigeParams gige;
  std::string gige_source;
  std::string model_rule;  // the rule the model file chose, or empty
};

std::string summary_markdown(const Options& o, const RunFacts& f,
                             const std::vector<GraphResult>& results) {
  std::string md = "# Random contention graphs: measured against predicted\n\n";
  md += fmt::format(
      "{}{} graphs of {} to {} communications (seed {}), weakly connected, between {} nodes "
      "({} ranks, up to {} per node{}); {} per communication, median of {} runs; {}.\n\n",
      o.label.empty() ? "" : fmt::format("**{}**: ", o.label), results.size(), o.min_edges,
      o.max_edges, o.seed, f.nodes, f.ranks, f.most_per_node,
      f.fake ? ", COLLSEL_FAKE_NODES pseudo-nodes: shared memory, not a network" : "",
      collsel::common::format_size(f.bytes), o.repeats,
      o.offsets > 0 ? fmt::format("each sender starts at a random offset in [0, {} T_ref] after "
                                  "the barrier",
                                  o.offsets)
                    : std::string("all senders start together (static-synchronous)"));
  md += fmt::format(
      "T_ref (one communication alone, measured in this run) = {:.6g} s, alpha = T_ref / m = "
      "{:.6g} s/B. Gigabit Ethernet parameters: beta {:.4g}, gamma_i {:.4g}, gamma_o {:.4g} "
      "({}).{}\n\n",
      f.t_ref_s, f.alpha, f.gige.beta, f.gige.gamma_i, f.gige.gamma_o, f.gige_source,
      f.model_rule.empty() ? "" : fmt::format(" The model file's rule: **{}**.", f.model_rule));
  md += "T_m: receive completed minus the sender's post (one clock); T_p: the solver's duration "
        "with the measured starts. E_rel = (T_p - T_m) / T_m per communication, E_abs(G) = mean "
        "|E_rel| over a graph's communications (seed 002 section VI.B); negative E_rel: the rule "
        "is optimistic.\n\n";

  md += "## Per rule\n\n| rule | graphs | comms | median E_abs(G) | max E_abs(G) | median "
        "\\|E_rel\\| | max \\|E_rel\\| | mean E_rel | \\|E_rel\\| <= 15 % |\n"
        "|---|---|---|---|---|---|---|---|---|\n";
  for (std::size_t r = 0; r < kRuleCount; ++r) {
    std::vector<double> eabs, abs_rel;
    double sum = 0.0;
    int within = 0, failed = 0;
    for (const GraphResult& g : results) {
      if (!g.failure[r].empty()) {
        ++failed;
        continue;
      }
      eabs.push_back(g.eabs(r));
      for (std::size_t c = 0; c < g.edges.size(); ++c) {
        const double e = g.erel(r, c);
        abs_rel.push_back(std::abs(e));
        sum += e;
        within += std::abs(e) <= kWithin ? 1 : 0;
      }
    }
    const auto most = [](const std::vector<double>& v) {
      return v.empty() ? std::nan("") : *std::max_element(v.begin(), v.end());
    };
    md += fmt::format("| {}{} | {}{} | {} | {} | {} | {} | {} | {} | {} |\n", mc::rule_name(kRules[r]),
                      f.model_rule == mc::rule_name(kRules[r]) ? " (model's)" : "", eabs.size(),
                      failed > 0 ? fmt::format(" ({} n/a)", failed) : "", abs_rel.size(),
                      percent(median(eabs)), percent(most(eabs)), percent(median(abs_rel)),
                      percent(most(abs_rel)),
                      percent(abs_rel.empty() ? std::nan("") : sum / static_cast<double>(abs_rel.size())),
                      abs_rel.empty() ? std::string("n/a")
                                      : fmt::format("{:.0f} %", 100.0 * within /
                                                                    static_cast<double>(abs_rel.size())));
  }

  md += "\n## Per number of communications (seed 003 Fig. 5: the largest E_abs(G) and the largest "
        "\\|E_rel\\| of each group)\n\n| comms per graph | graphs |";
  for (const auto k : kRules) md += fmt::format(" {}: max E_abs, max \\|E_rel\\| |", mc::rule_name(k));
  md += "\n|---|---|";
  for (std::size_t r = 0; r < kRuleCount; ++r) md += "---|";
  md += "\n";
  std::map<std::size_t, std::vector<const GraphResult*>> groups;
  for (const GraphResult& g : results) groups[g.edges.size()].push_back(&g);
  for (const auto& [k, members] : groups) {
    md += fmt::format("| {} | {} |", k, members.size());
    for (std::size_t r = 0; r < kRuleCount; ++r) {
      double eabs = std::nan(""), erel = std::nan("");
      for (const GraphResult* g : members) {
        if (!g->failure[r].empty()) continue;
        eabs = std::isnan(eabs) ? g->eabs(r) : std::max(eabs, g->eabs(r));
        for (std::size_t c = 0; c < g->edges.size(); ++c) {
          const double e = std::abs(g->erel(r, c));
          erel = std::isnan(erel) ? e : std::max(erel, e);
        }
      }
      md += fmt::format(" {}, {} |", percent(eabs), percent(erel));
    }
    md += "\n";
  }

  md += "\n## Per graph (E_abs(G))\n\n| graph | communications (node>node) | measured T_m (s) |";
  for (const auto k : kRules) md += fmt::format(" {} |", mc::rule_name(k));
  md += "\n|---|---|---|";
  for (std::size_t r = 0; r < kRuleCount; ++r) md += "---|";
  md += "\n";
  for (std::size_t i = 0; i < results.size(); ++i) {
    const GraphResult& g = results[i];
    std::string times;
    for (double t : g.times.duration_s) times += fmt::format("{}{:.4g}", times.empty() ? "" : " ", t);
    md += fmt::format("| {} | {} | {} |", i + 1, edge_list(g.edges), times);
    for (std::size_t r = 0; r < kRuleCount; ++r) {
      md += fmt::format(" {} |", g.failure[r].empty() ? percent(g.eabs(r)) : "n/a");
    }
    md += "\n";
  }
  std::string failures;
  for (std::size_t i = 0; i < results.size(); ++i) {
    for (std::size_t r = 0; r < kRuleCount; ++r) {
      if (results[i].failure[r].empty()) continue;
      failures += fmt::format("- graph {}, {}: {}\n", i + 1, mc::rule_name(kRules[r]),
                              results[i].failure[r]);
    }
  }
  if (!failures.empty()) md += "\nPredictions that failed:\n\n" + failures;
  return md;
}

bool write_text(const std::string& path, const std::string& text) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) return false;
  const bool ok = std::fputs(text.c_str(), f) >= 0;
  return std::fclose(f) == 0 && ok;
}

// Rank 0 generates (one generator, one sequence) and every rank receives the same graphs.
std::vector<std::vector<Edge>> shared_graphs(const Options& o, const cal::NodeLayout& layout,
                                             int rank) {
  std::vector<int> flat;  // per graph: k, then k (src, dst) pairs
  if (rank == 0) {
    std::mt19937_64 rng(o.seed);
    std::vector<int> capacity;
    for (const auto& r : layout.ranks_of_node) capacity.push_back(static_cast<int>(r.size()));
    std::uniform_int_distribution<int> size(o.min_edges, o.max_edges);
    for (int g = 0; g < o.graphs; ++g) {
      const std::vector<Edge> edges = random_graph(rng, capacity, size(rng));
      flat.push_back(static_cast<int>(edges.size()));
      for (const Edge& e : edges) {
        flat.push_back(e.src);
        flat.push_back(e.dst);
      }
    }
  }
  int n = static_cast<int>(flat.size());
  MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
  flat.resize(static_cast<std::size_t>(n));
  MPI_Bcast(flat.data(), n, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<std::vector<Edge>> graphs;
  for (std::size_t i = 0; i < flat.size();) {
    const auto k = static_cast<std::size_t>(flat[i++]);
    std::vector<Edge> edges;
    for (std::size_t e = 0; e < k; ++e, i += 2) edges.push_back({flat[i], flat[i + 1]});
    graphs.push_back(std::move(edges));
  }
  return graphs;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{
      "Random contention graphs between the job's nodes, each measured (a rank sends or receives "
      "one message; medians over repeats) and predicted by the contention solver under the fair, "
      "infiniband, gige (the model file's parameters) and myrinet rules, alpha from a pair "
      "measured in the same run. Writes a CSV row per communication and a markdown summary "
      "(E_rel, E_abs as seed 002 defines them). Needs two nodes and a node with two ranks:\n"
      "  emucluster mpiexec --ppn 2 -- contention_graphs --model cluster.toml\n"
      "COLLSEL_FAKE_NODES=K (tests only) splits one machine's ranks into K pseudo-nodes."};
  app.add_option("--graphs", o.graphs, "number of random graphs")->capture_default_str()
      ->check(CLI::Range(1, 100000));
  app.add_option("--min-edges", o.min_edges, "fewest communications per graph")
      ->capture_default_str()->check(CLI::Range(1, 1000));
  app.add_option("--max-edges", o.max_edges,
                 "most communications per graph (fewer when the ranks run out)")
      ->capture_default_str()->check(CLI::Range(1, 1000));
  app.add_option("--seed", o.seed, "random generator seed (same seed, same graphs)")
      ->capture_default_str();
  app.add_option("--bytes", o.bytes, "message size of every communication (e.g. 1MiB, 262144)")
      ->capture_default_str()
      ->check(collsel::common::size_validator(1, 1u << 30));
  app.add_option("--repeats", o.repeats, "runs of each graph; medians are kept")
      ->capture_default_str()->check(CLI::Range(1, 1000));
  app.add_option("--offsets", o.offsets,
                 "each sender starts at a random time in [0, OFFSETS x T_ref] after the barrier "
                 "(0: all at once, static-synchronous)")
      ->capture_default_str()->check(CLI::Range(0.0, 100.0));
  app.add_option("--model", o.model,
                 "model file whose [contention] section gives the Gigabit Ethernet parameters "
                 "(default: seed 002's beta 0.75, gamma_i 0.036, gamma_o 0.115)")
      ->check(CLI::ExistingFile);
  app.add_option("--csv", o.csv, "CSV output (overwritten)")->capture_default_str();
  app.add_option("--summary", o.summary, "markdown summary output (overwritten)")
      ->capture_default_str();
  app.add_option("--label", o.label, "free text for the summary (e.g. the profile)")
      ->check([](const std::string& s) {
        return s.find_first_of("\"|\n") == std::string::npos ? "" : "no quotes, bars or newlines";
      });
  try {
    app.parse(argc, argv);  // before MPI_Init, so --help works without mpiexec
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  if (o.min_edges > o.max_edges) {
    fmt::print(stderr, "contention_graphs: --min-edges {} is above --max-edges {}\n", o.min_edges,
               o.max_edges);
    return 2;
  }

  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const auto finish = [](int code) {
    std::fflush(nullptr);
    MPI_Finalize();
    return code;
  };

  RunFacts f;
  const cal::NodeLayout layout = cal::node_layout(MPI_COMM_WORLD);
  f.nodes = layout.nodes();
  f.ranks = layout.ranks();
  f.most_per_node = layout.max_ranks_per_node();
  f.fake = layout.fake;
  if (const std::string why = cal::contention_skip_reason(layout); !why.empty()) {
    if (rank == 0) {
      fmt::print(stderr, "contention_graphs: cannot run here: {} (or COLLSEL_FAKE_NODES=K to test "
                 "the program on one machine)\n", why);
    }
    return finish(2);
  }
  f.gige_source = "seed 002's values";
  if (!o.model.empty()) {
    const auto load = collsel::models::load_model_file(o.model);
    if (!load.model) {
      if (rank == 0) {
        for (const auto& d : load.diagnostics) fmt::print(stderr, "{}\n", d.format());
      }
      return finish(2);
    }
    if (load.model->contention) {
      f.gige = load.model->contention->gige;
      f.model_rule = std::string(mc::rule_name(load.model->contention->rule));
      f.gige_source = fmt::format("from {}", o.model);
    } else if (rank == 0) {
      fmt::print(stderr, "contention_graphs: {} has no [contention] section; gige uses seed 002's "
                 "values\n", o.model);
    }
  }
  f.bytes = *collsel::common::parse_size(o.bytes).bytes;
  const double m = static_cast<double>(f.bytes);

  cal::GraphRunOptions run;
  run.bytes = f.bytes;
  run.repeats = o.repeats;
  run.clock_offset_s = cal::clock_offsets(MPI_COMM_WORLD);
  const std::vector<Edge> pair{{0, 1}};
  const cal::GraphTimes ref = cal::run_graph(MPI_COMM_WORLD, cal::assign_ranks(layout, pair), run);
  if (rank == 0) {
    f.t_ref_s = ref.duration_s.front();
    f.alpha = f.t_ref_s / m;
    fmt::print(stderr, "contention_graphs: T_ref {:.6g} s for {} B between nodes 0 and 1 "
               "(alpha {:.4g} s/B); {} nodes, {} ranks\n", f.t_ref_s, f.bytes, f.alpha, f.nodes,
               f.ranks);
  }
  double offset_scale = o.offsets * f.t_ref_s;
  MPI_Bcast(&offset_scale, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);

  const auto graphs = shared_graphs(o, layout, rank);
  std::mt19937_64 offset_rng(o.seed ^ 0x5eedULL);  // rank 0's offsets, broadcast per graph
  std::vector<GraphResult> results;
  std::FILE* csv = nullptr;
  if (rank == 0) {
    csv = std::fopen(o.csv.c_str(), "w");
    if (csv == nullptr) {
      fmt::print(stderr, "contention_graphs: cannot write {}: {}\n", o.csv, std::strerror(errno));
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    std::fprintf(csv, "label,graph,edges,comm,src,dst,bytes,start_s,measured_s,send_s");
    for (const auto k : kRules) std::fprintf(csv, ",predicted_%s_s", std::string(mc::rule_name(k)).c_str());
    for (const auto k : kRules) std::fprintf(csv, ",erel_%s", std::string(mc::rule_name(k)).c_str());
    std::fprintf(csv, "\n");
  }
  for (std::size_t gi = 0; gi < graphs.size(); ++gi) {
    const std::vector<Edge>& edges = graphs[gi];
    run.start_s.assign(edges.size(), 0.0);
    if (offset_scale > 0.0) {
      if (rank == 0) {
        std::uniform_real_distribution<double> draw(0.0, offset_scale);
        for (double& s : run.start_s) s = draw(offset_rng);
      }
      MPI_Bcast(run.start_s.data(), static_cast<int>(edges.size()), MPI_DOUBLE, 0, MPI_COMM_WORLD);
    }
    const cal::RankAssignment a = cal::assign_ranks(layout, edges);
    if (!a.ok()) {  // random_graph respects the capacities; this would be a bug
      if (rank == 0) fmt::print(stderr, "contention_graphs: graph {}: {}\n", gi + 1, a.error);
      return finish(1);
    }
    cal::GraphTimes t = cal::run_graph(MPI_COMM_WORLD, a, run);
    if (rank != 0) continue;
    GraphResult g{edges, std::move(t), {}, {}};
    std::string line;
    for (std::size_t r = 0; r < kRuleCount; ++r) {
      try {
        g.predicted[r] = cal::predict_durations(edges, g.times.start_s, m, f.alpha,
                                                mc::make_rule(kRules[r], f.gige));
      } catch (const std::exception& e) {
        g.predicted[r].assign(edges.size(), std::nan(""));
        g.failure[r] = e.what();
      }
      line += fmt::format(", {} {}", mc::rule_name(kRules[r]),
                          g.failure[r].empty() ? percent(g.eabs(r)) : "n/a");
    }
    for (std::size_t c = 0; c < edges.size(); ++c) {
      std::fprintf(csv, "\"%s\",%zu,\"%s\",%zu,%d,%d,%llu,%.9g,%.9g,%.9g", o.label.c_str(), gi + 1,
                   edge_list(edges).c_str(), c, edges[c].src, edges[c].dst,
                   static_cast<unsigned long long>(f.bytes), g.times.start_s[c],
                   g.times.duration_s[c], g.times.send_s[c]);
      for (std::size_t r = 0; r < kRuleCount; ++r) std::fprintf(csv, ",%.9g", g.predicted[r][c]);
      for (std::size_t r = 0; r < kRuleCount; ++r) std::fprintf(csv, ",%.6g", g.erel(r, c));
      std::fprintf(csv, "\n");
    }
    std::fflush(csv);
    fmt::print(stderr, "contention_graphs: graph {:3}/{} ({}): E_abs{}\n", gi + 1, graphs.size(),
               edge_list(edges), line.substr(1));
    results.push_back(std::move(g));
  }
  int rc = 0;
  if (rank == 0) {
    const bool closed = std::fclose(csv) == 0;
    const std::string md = summary_markdown(o, f, results);
    if (!closed || !write_text(o.summary, md)) {
      fmt::print(stderr, "contention_graphs: cannot write {} or {}: check the folder\n", o.csv,
                 o.summary);
      rc = 1;
    } else {
      fmt::print("{}", md.substr(0, md.find("\n## Per graph")));
      fmt::print(stderr, "contention_graphs: wrote {} and {}\n", o.csv, o.summary);
    }
  }
  MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return finish(rc);
}
