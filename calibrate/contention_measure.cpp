#include "calibrate/contention_measure.hpp"

#include <time.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "calibrate/plogp_measure.hpp"
#include "calibrate/mpi_resources.hpp"
#include "flavour/flavour.hpp"
#include "models/contention/gige_fit.hpp"
#include "models/contention/penalty_fit.hpp"

namespace collsel::calibrate {
namespace mc = models::contention;
namespace {

constexpr int kTag = 78;

// Degrees above this make graphs that few jobs can place and that take long to measure; the
// rules are about shapes, which small degrees already show.
constexpr int kMaxDegree = 6;

// Sleeps while the target is far (a sender waiting for its start offset must leave the cores to
// the communications already running), spins through the last 200 us for precision.
void wait_until(double t) {
  const double left = t - MPI_Wtime();
  if (left > 300e-6) flavour::sleep_for(left - 200e-6);
  flavour::busy_until(t);
}

std::string edge_list(std::span<const Edge> edges) {
  std::string out;
  for (const Edge& e : edges) out += fmt::format("{}{}>{}", out.empty() ? "" : " ", e.src, e.dst);
  return out;
}

std::string seconds_list(const std::vector<double>& v) {
  std::string out;
  for (double x : v) out += fmt::format("{}{:.4g}", out.empty() ? "" : " ", x);
  return out;
}

constexpr mc::RuleKind kRules[] = {mc::RuleKind::fair, mc::RuleKind::infiniband,
                                   mc::RuleKind::gige, mc::RuleKind::myrinet};

}  // namespace

RankAssignment assign_ranks(const NodeLayout& layout, std::span<const Edge> edges) {
  RankAssignment a;
  const int nodes = layout.nodes();
  std::vector<int> sending(static_cast<std::size_t>(nodes), 0);
  std::vector<int> receiving(static_cast<std::size_t>(nodes), 0);
  for (const Edge& e : edges) {
    for (const int node : {e.src, e.dst}) {
      if (node < 0 || node >= nodes) {
        a.error = fmt::format("the graph has node {} but the job has {} node{}", node, nodes,
                              nodes == 1 ? "" : "s");
        return a;
      }
    }
    ++sending[static_cast<std::size_t>(e.src)];
    ++receiving[static_cast<std::size_t>(e.dst)];
  }
  for (int n = 0; n < nodes; ++n) {
    const auto i = static_cast<std::size_t>(n);
    const int has = static_cast<int>(layout.ranks_of_node[i].size());
    if (sending[i] + receiving[i] > has) {
      a.error = fmt::format("node {} ({}) needs {} ranks ({} sending, {} receiving) but has {}", n,
                            layout.node_names[i], sending[i] + receiving[i], sending[i],
                            receiving[i], has);
      return a;
    }
  }
  std::vector<std::size_t> used(static_cast<std::size_t>(nodes), 0);
  for (const Edge& e : edges) {
    const auto s = static_cast<std::size_t>(e.src), d = static_cast<std::size_t>(e.dst);
    a.sender.push_back(layout.ranks_of_node[s][used[s]++]);
    a.receiver.push_back(layout.ranks_of_node[d][used[d]++]);
  }
  return a;
}

std::vector<double> clock_offsets(MPI_Comm user, int rounds) {
  OwnedComm comm;
  MPI_Comm_dup(user, comm.out());
  int rank = 0, size = 1;
  MPI_Comm_rank(comm.get(), &rank);
  MPI_Comm_size(comm.get(), &size);
  std::vector<double> offsets(rank == 0 ? static_cast<std::size_t>(size) : 0, 0.0);
  int* global = nullptr;
  int found = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &global, &found);
  if (found && global != nullptr && *global) return offsets;
  if (rank == 0) {
    for (int r = 1; r < size; ++r) {
      double best_rtt = -1.0;
      for (int k = 0; k <= rounds; ++k) {
        double stamp = 0.0;
        const double t0 = MPI_Wtime();
        MPI_Send(&t0, 1, MPI_DOUBLE, r, kTag, comm.get());
        MPI_Recv(&stamp, 1, MPI_DOUBLE, r, kTag, comm.get(), MPI_STATUS_IGNORE);
        const double t1 = MPI_Wtime();
        // The first exchange wakes a sleeping rank up: never the shortest, left out.
        if (k > 0 && (best_rtt < 0.0 || t1 - t0 < best_rtt)) {
          best_rtt = t1 - t0;
          offsets[static_cast<std::size_t>(r)] = stamp - 0.5 * (t0 + t1);
        }
      }
    }
  } else {
    // Sleep until rank 0 comes to this rank (the others' exchanges need the cores), then answer
    // at once.
    double t = 0.0;
    MPI_Request request = MPI_REQUEST_NULL;
    MPI_Irecv(&t, 1, MPI_DOUBLE, 0, kTag, comm.get(), &request);
    int done = 0;
    while (!done) {
      MPI_Test(&request, &done, MPI_STATUS_IGNORE);
      if (!done) flavour::sleep_for(2e-4);
    }
    for (int k = 0;; ++k) {
      const double stamp = MPI_Wtime();
      MPI_Send(&stamp, 1, MPI_DOUBLE, 0, kTag, comm.get());
      if (k == rounds) break;
      MPI_Recv(&t, 1, MPI_DOUBLE, 0, kTag, comm.get(), MPI_STATUS_IGNORE);
    }
  }
  wait_without_polling(comm.get());
  return offsets;
}

GraphTimes run_graph(MPI_Comm user, const RankAssignment& a, const GraphRunOptions& o) {
  OwnedComm comm;  // private: the graph's messages never meet the caller's
  MPI_Comm_dup(user, comm.out());
  int rank = 0, size = 1;
  MPI_Comm_rank(comm.get(), &rank);
  MPI_Comm_size(comm.get(), &size);
  int send_edge = -1, recv_edge = -1;
  for (std::size_t i = 0; i < a.sender.size(); ++i) {
    if (a.sender[i] == rank) send_edge = static_cast<int>(i);
    if (a.receiver[i] == rank) recv_edge = static_cast<int>(i);
  }
  const bool member = send_edge >= 0 || recv_edge >= 0;
  OwnedComm graph;  // the graph's ranks, for the barrier that opens every run
  MPI_Comm_split(comm.get(), member ? 0 : MPI_UNDEFINED, rank, graph.out());

  // Per measured run, local MPI_Wtime stamps: a receiver's completion; a sender's post and the
  // end of its MPI_Send.
  const auto reps = static_cast<std::size_t>(std::max(1, o.repeats));
  std::vector<double> mine(2 * reps, 0.0);
  if (member) {
    std::vector<unsigned char> buffer(std::max<std::uint64_t>(o.bytes, 1),
                                      static_cast<unsigned char>(rank));
    const int count = static_cast<int>(o.bytes);
    const double offset =
        send_edge >= 0 && !o.start_s.empty() ? o.start_s[static_cast<std::size_t>(send_edge)] : 0.0;
    const int runs = o.warmup + static_cast<int>(reps);
    for (int run = 0; run < runs; ++run) {
      const int k = run - o.warmup;  // < 0: warm-up
      if (recv_edge >= 0) {
        // Pre-posted, so the message is matched on arrival and a rendezvous does not wait for
        // the receiver to reach its call.
        MPI_Request request = MPI_REQUEST_NULL;
        MPI_Irecv(buffer.data(), count, MPI_BYTE, a.sender[static_cast<std::size_t>(recv_edge)],
                  kTag, comm.get(), &request);
        MPI_Barrier(graph.get());
        MPI_Wait(&request, MPI_STATUS_IGNORE);
        if (k >= 0) mine[static_cast<std::size_t>(k)] = MPI_Wtime();
      } else {
        MPI_Barrier(graph.get());
        if (offset > 0.0) wait_until(MPI_Wtime() + offset);
        const double posted = MPI_Wtime();
        // Blocking, as seed 002's benchmark: each sender has one message, so MPI_Isend + wait
        // would do the same; the call's length is kept as seed 002's own measure.
        MPI_Send(buffer.data(), count, MPI_BYTE, a.receiver[static_cast<std::size_t>(send_edge)],
                 kTag, comm.get());
        if (k >= 0) {
          mine[static_cast<std::size_t>(k)] = posted;
          mine[reps + static_cast<std::size_t>(k)] = MPI_Wtime();
        }
      }
    }
  }
  wait_without_polling(comm.get());
  std::vector<double> all(rank == 0 ? mine.size() * static_cast<std::size_t>(size) : 0);
  MPI_Gather(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, all.data(),
             static_cast<int>(mine.size()), MPI_DOUBLE, 0, comm.get());

  GraphTimes t;
  if (rank != 0) return t;
  const auto stamp = [&](int r, std::size_t index) {
    const double offset = o.clock_offset_s.empty() ? 0.0 : o.clock_offset_s[static_cast<std::size_t>(r)];
    return all[static_cast<std::size_t>(r) * 2 * reps + index] - offset;
  };
  const std::size_t n = a.sender.size();
  std::vector<std::vector<double>> start(n), completion(n), duration(n), send(n);
  for (std::size_t k = 0; k < reps; ++k) {
    double origin = 0.0;
    for (std::size_t e = 0; e < n; ++e) {
      const double posted = stamp(a.sender[e], k);
      origin = e == 0 ? posted : std::min(origin, posted);
    }
    for (std::size_t e = 0; e < n; ++e) {
      const double posted = stamp(a.sender[e], k), done = stamp(a.receiver[e], k);
      start[e].push_back(posted - origin);
      completion[e].push_back(done - origin);
      duration[e].push_back(done - posted);
      send[e].push_back(stamp(a.sender[e], reps + k) - posted);
    }
  }
  for (std::size_t e = 0; e < n; ++e) {
    const Estimate d = estimate(duration[e]);
    t.duration_s.push_back(d.median);
    t.spread = std::max(t.spread, d.spread);
    t.start_s.push_back(estimate(start[e]).median);
    t.completion_s.push_back(estimate(completion[e]).median);
    t.send_s.push_back(estimate(send[e]).median);
  }
  return t;
}

std::vector<NamedGraph> calibration_graphs(int max_degree) {
  const int top = std::min(max_degree, kMaxDegree);
  std::vector<NamedGraph> g;
  g.push_back({"pair", {{0, 1}}});
  for (int k = 2; k <= top; ++k) {
    NamedGraph out{fmt::format("out-star-{}", k), {}}, in{fmt::format("in-star-{}", k), {}},
        parallel{fmt::format("parallel-{}", k), {}};
    for (int i = 1; i <= k; ++i) {
      out.edges.push_back({0, i});
      in.edges.push_back({i, 0});
      parallel.edges.push_back({0, 1});
    }
    g.push_back(std::move(out));
    g.push_back(std::move(in));
    g.push_back(std::move(parallel));
  }
  if (top >= 2) {
    g.push_back({"chain", {{1, 0}, {0, 2}}});          // C->X->
    g.push_back({"two-way", {{0, 1}, {1, 0}}});        // full duplex
    g.push_back({"fig1", {{0, 1}, {0, 2}, {2, 1}}});   // seed 002 Fig. 1: all three conflicts
    g.push_back({"cycle-3", {{0, 1}, {1, 2}, {2, 0}}});
    g.push_back({"bipartite-2x2", {{0, 2}, {0, 3}, {1, 2}, {1, 3}}});
  }
  for (int k = 2; k <= top; ++k) {
    // Node 0 sends to 1..k; node 1 also receives from k - 1 other nodes, so 0>1 is the strongly
    // penalised outgoing edge (gamma_o). The mirror: node 0 receives from 1..k, node 1 also
    // sends to k - 1 other nodes (gamma_i).
    NamedGraph out_in{fmt::format("out-in-{}", k), {}}, in_out{fmt::format("in-out-{}", k), {}};
    for (int i = 1; i <= k; ++i) {
      out_in.edges.push_back({0, i});
      in_out.edges.push_back({i, 0});
    }
    for (int j = k + 1; j <= 2 * k - 1; ++j) {
      out_in.edges.push_back({j, 1});
      in_out.edges.push_back({1, j});
    }
    g.push_back(std::move(out_in));
    g.push_back(std::move(in_out));
  }
  std::stable_sort(g.begin(), g.end(), [](const NamedGraph& a, const NamedGraph& b) {
    return a.edges.size() < b.edges.size();
  });
  return g;
}

std::optional<std::vector<int>> match_shape(std::span<const Edge> step,
                                            std::span<const Edge> pattern) {
  constexpr std::size_t kMaxNodes = 8;  // 8! renamings at most
  if (step.size() != pattern.size()) return std::nullopt;
  const auto nodes_of = [](std::span<const Edge> edges) {
    std::vector<int> n;
    for (const Edge& e : edges) {
      n.push_back(e.src);
      n.push_back(e.dst);
    }
    std::sort(n.begin(), n.end());
    n.erase(std::unique(n.begin(), n.end()), n.end());
    return n;
  };
  const std::vector<int> sn = nodes_of(step), pn = nodes_of(pattern);
  if (sn.size() != pn.size() || sn.size() > kMaxNodes) return std::nullopt;
  // Degrees (out, in) must agree as multisets before any renaming can.
  const auto degrees = [](std::span<const Edge> edges, const std::vector<int>& nodes) {
    std::vector<std::pair<int, int>> d(nodes.size());
    for (const Edge& e : edges) {
      ++d[static_cast<std::size_t>(std::lower_bound(nodes.begin(), nodes.end(), e.src) -
                                   nodes.begin())].first;
      ++d[static_cast<std::size_t>(std::lower_bound(nodes.begin(), nodes.end(), e.dst) -
                                   nodes.begin())].second;
    }
    std::sort(d.begin(), d.end());
    return d;
  };
  if (degrees(step, sn) != degrees(pattern, pn)) return std::nullopt;
  std::vector<int> perm(pn.size());  // pattern node pn[j] is step node sn[perm[j]]
  std::iota(perm.begin(), perm.end(), 0);
  const auto renamed = [&](int node) {
    const auto j = std::lower_bound(pn.begin(), pn.end(), node) - pn.begin();
    return sn[static_cast<std::size_t>(perm[static_cast<std::size_t>(j)])];
  };
  do {
    std::vector<int> map(step.size(), -1);
    std::vector<char> used(pattern.size(), 0);
    bool ok = true;
    for (std::size_t i = 0; i < step.size() && ok; ++i) {
      ok = false;
      for (std::size_t j = 0; j < pattern.size(); ++j) {
        if (used[j] || renamed(pattern[j].src) != step[i].src ||
            renamed(pattern[j].dst) != step[i].dst) {
          continue;
        }
        used[j] = 1;
        map[i] = static_cast<int>(j);
        ok = true;
        break;
      }
    }
    if (ok) return map;
  } while (std::next_permutation(perm.begin(), perm.end()));
  return std::nullopt;
}

mc::Rule measured_rule(std::vector<mc::MeasuredGraph> measured, mc::Rule fallback) {
  return {"measured", [measured = std::move(measured),
                       fallback = std::move(fallback)](std::span<const Edge> edges) {
            for (const mc::MeasuredGraph& g : measured) {
              if (auto map = match_shape(edges, g.edges)) {
                std::vector<double> p;
                for (const int j : *map) {
                  p.push_back(std::max(1.0, g.penalties[static_cast<std::size_t>(j)]));
                }
                return p;
              }
            }
            return fallback.penalties(edges);
          }};
}

std::vector<double> predict_durations(std::span<const Edge> edges, std::span<const double> start_s,
                                      double bytes, double alpha_s_per_byte, const mc::Rule& rule) {
  std::vector<mc::Communication> comms;
  for (std::size_t i = 0; i < edges.size(); ++i) {
    mc::Communication c;
    c.name = fmt::format("{}>{}", edges[i].src, edges[i].dst);
    c.src = edges[i].src;
    c.dst = edges[i].dst;
    c.bytes = bytes;
    c.start_s = start_s.empty() ? 0.0 : start_s[i];
    comms.push_back(std::move(c));
  }
  mc::SolveOptions options;
  options.alpha_s_per_byte = alpha_s_per_byte;
  const mc::Solution s = mc::solve(comms, rule, options);
  std::vector<double> out;
  for (std::size_t i = 0; i < edges.size(); ++i) out.push_back(s.end_s[i] - s.start_s[i]);
  return out;
}

std::vector<RuleScore> score_rules(std::span<const GraphMeasurement> graphs, double bytes,
                                   double alpha_s_per_byte, const mc::GigeParams& gige) {
  std::vector<RuleScore> scores;
  for (const mc::RuleKind kind : kRules) {
    RuleScore s;
    s.rule = kind;
    double sum = 0.0;
    try {
      const mc::Rule rule = mc::make_rule(kind, gige);
      for (const GraphMeasurement& g : graphs) {
        if (g.graph.edges.size() < 2) continue;
        const auto predicted = predict_durations(g.graph.edges, {}, bytes, alpha_s_per_byte, rule);
        for (std::size_t i = 0; i < predicted.size(); ++i) {
          const double e = std::abs(relative_error(predicted[i], g.times.duration_s[i]));
          sum += e;
          s.max_abs_rel = std::max(s.max_abs_rel, e);
          ++s.comms;
        }
      }
    } catch (const std::exception& e) {
      s.error = e.what();
    }
    s.mean_abs_rel = s.comms > 0 ? sum / s.comms : 0.0;
    scores.push_back(std::move(s));
  }
  return scores;
}

mc::RuleKind best_rule(std::span<const RuleScore> scores) {
  const RuleScore* best = nullptr;
  for (const RuleScore& s : scores) {
    if (!s.error.empty() || s.comms == 0) continue;
    if (best == nullptr || s.mean_abs_rel < best->mean_abs_rel) best = &s;
  }
  return best == nullptr ? mc::RuleKind::fair : best->rule;
}

std::string contention_skip_reason(const NodeLayout& layout) {
  if (layout.nodes() < 2) {
    return fmt::format(
        "all {} ranks share one node ({}) and the graphs are between nodes; run across nodes "
        "with 2 or more ranks per node (e.g. emucluster mpiexec --ppn 2)",
        layout.ranks(), layout.node_names.empty() ? "?" : layout.node_names.front());
  }
  if (layout.max_ranks_per_node() < 2) {
    return "one rank per node: every graph that fits is a matching, where every rule predicts "
           "penalty 1; run with 2 or more ranks per node (e.g. emucluster mpiexec --ppn 2)";
  }
  return {};
}

ContentionCalibration calibrate_contention(MPI_Comm comm, const NodeLayout& layout,
                                           const ContentionOptions& o) {
  ContentionCalibration out;
  out.skipped = contention_skip_reason(layout);
  if (!out.skipped.empty()) return out;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const auto say = [&](const std::string& line) {
    if (rank == 0 && o.progress) o.progress(line);
  };
  const double m = static_cast<double>(o.bytes);
  GraphRunOptions run;
  run.bytes = o.bytes;
  run.repeats = o.repeats;
  run.clock_offset_s = clock_offsets(comm);

  // Every rank walks the same list and takes the same decisions (the layout is the same
  // everywhere); only rank 0 holds times and computes.
  std::vector<NamedGraph> graphs = calibration_graphs(layout.max_ranks_per_node());
  std::vector<std::pair<NamedGraph, RankAssignment>> runnable;
  for (NamedGraph& g : graphs) {
    RankAssignment a = assign_ranks(layout, g.edges);
    if (a.ok()) runnable.emplace_back(std::move(g), std::move(a));
  }
  say(fmt::format("contention graphs: {} of {} fit {} nodes of up to {} ranks, {} B each, median "
                  "of {} runs",
                  runnable.size(), graphs.size(), layout.nodes(), layout.max_ranks_per_node(),
                  o.bytes, o.repeats));

  // The copy cost within a node: one communication between two ranks of the first node that has
  // two.
  double t_intra = 0.0;
  for (int n = 0; n < layout.nodes(); ++n) {
    if (layout.ranks_of_node[static_cast<std::size_t>(n)].size() < 2) continue;
    const Edge self[] = {{n, n}};
    const GraphTimes t = run_graph(comm, assign_ranks(layout, self), run);
    if (rank == 0) t_intra = t.duration_s.front();
    break;
  }

  std::vector<GraphMeasurement> measured;
  for (std::size_t i = 0; i < runnable.size(); ++i) {
    const auto& [graph, assignment] = runnable[i];
    GraphTimes t = run_graph(comm, assignment, run);
    say(fmt::format("contention graph {:2}/{} {:<14} ({}): {} s{}", i + 1, runnable.size(),
                    graph.name, edge_list(graph.edges), seconds_list(t.duration_s),
                    t.spread > 0.1 ? fmt::format(" (spread +-{:.0f} %)", 100 * t.spread) : ""));
    if (rank == 0) measured.push_back({graph, std::move(t), {}, {}});
  }
  if (rank != 0) return out;
  out = analyse_contention(std::move(measured), m, t_intra);
  std::string penalties;
  for (const GraphMeasurement& g : out.graphs) {
    if (g.graph.edges.size() < 2) continue;
    penalties += fmt::format("{}{} {}", penalties.empty() ? "" : "; ", g.graph.name,
                             g.penalties.empty() ? fmt::format("n/a ({})", g.note)
                                                 : seconds_list(g.penalties));
  }
  say(fmt::format("contention penalties (first step): {}", penalties));
  return out;
}

ContentionCalibration analyse_contention(std::vector<GraphMeasurement> graphs, double m,
                                         double t_intra_s) {
  ContentionCalibration out;
  out.t_intra_s = t_intra_s;
  for (const GraphMeasurement& g : graphs) {
    if (g.graph.edges.size() == 1 && !g.times.duration_s.empty()) {
      out.t_ref_s = g.times.duration_s.front();
    }
  }
  if (!(out.t_ref_s > 0.0) || !(m > 0.0)) {
    out.skipped = "no positive time of a communication alone (the pair); nothing to scale the "
                  "penalties by";
    out.graphs = std::move(graphs);
    return out;
  }
  // The pair: T_ref (seed 002 section IV.B), alpha = T_ref / m (seed 003 eq. 1 with rho = 1): the
  // pair is exact and every penalty is relative to it.
  const double alpha = out.t_ref_s / m;
  std::vector<mc::MeasuredGraph> measured;
  std::vector<GraphMeasurement> scored;
  for (GraphMeasurement& g : graphs) {
    if (g.graph.edges.size() == 1) {
      g.penalties = {1.0};
      scored.push_back(g);
      continue;
    }
    // Later steps as the graphs measured before saw them; when noise makes the times contradict
    // those (a communication would have moved all its bytes after the first step), the fair
    // rule, whose larger penalties leave more bytes to the first step.
    const mc::Rule readings[] = {measured_rule(measured, mc::make_rule(mc::RuleKind::fair)),
                                 mc::make_rule(mc::RuleKind::fair)};
    for (const mc::Rule& later : readings) {
      try {
        g.penalties = mc::first_step_penalties(g.graph.edges, g.times.duration_s, m, alpha, later);
        g.note = fmt::format("later steps: {}", later.name);
        break;
      } catch (const std::exception& e) {
        g.note = e.what();
      }
    }
    if (g.penalties.empty()) continue;
    measured.push_back({g.graph.name, g.graph.edges, g.penalties});
    scored.push_back(g);
  }
  out.graphs = std::move(graphs);

  mc::GigeParams gige;
  try {
    gige = mc::fit_gige(measured);
    out.gige_note = fmt::format("fitted to the {} graphs measured", measured.size());
  } catch (const std::exception& e) {
    out.gige_note = fmt::format("seed 002's values (not fitted: {})", e.what());
  }
  out.scores = score_rules(scored, m, alpha, gige);

  mc::Params p;
  p.rule = best_rule(out.scores);
  p.use = mc::Use::automatic;
  p.alpha_s_per_byte = alpha;
  p.intra_alpha_s_per_byte = t_intra_s > 0.0 ? t_intra_s / m : 0.0;
  p.reference_bytes = m;
  p.gige = gige;
  p.measured = std::move(measured);
  if (auto reason = p.invalid_reason()) {
    out.skipped = fmt::format("the measured section is not usable: {}", *reason);
    return out;
  }
  out.params = std::move(p);
  return out;
}

}  // namespace collsel::calibrate
