// Fitting the Gigabit Ethernet model (seed 002 section V.A). beta comes from pure outgoing
// conflicts as the paper does (Fig. 2: 1.5 / 2 = 2.25 / 3 = 0.75). The paper fits gamma_o and
// gamma_i from two communications of one graph (Fig. 4) with closed forms; collsel instead fits
// both by least squares over every measured graph, because it does not know in advance which of
// its graphs play the roles of Fig. 4's a and f. The predictions are piecewise linear in the gammas
// (max and the clamp to 1), so the search is a grid over [-1, 1]^2 refined five times around the
// best point, deterministic and free of any unimodality assumption. Ties go to the point nearest
// 0, so a gamma the graphs say nothing about (or only bound) stays at 0.
#include "models/contention/gige_fit.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

namespace collsel::models::contention {
namespace {

constexpr int kCoarseHalfSteps = 50;  // [-1, 1] in steps of 0.02
constexpr int kRefinements = 5;       // down to steps of 2e-7
constexpr int kFineHalfSteps = 10;    // each refinement spans the previous step either side

// One node sending to degree >= 2 distinct nodes, and nothing else in the graph.
bool is_outgoing_conflict(const MeasuredGraph& g) {
  if (g.edges.size() < 2) return false;
  std::set<int> destinations;
  for (const Edge& e : g.edges) {
    if (e.src != g.edges.front().src || !destinations.insert(e.dst).second) return false;
  }
  return true;
}

double squared_error(std::span<const MeasuredGraph> graphs, const GigeParams& params) {
  double sum = 0.0;
  for (const MeasuredGraph& g : graphs) {
    const std::vector<double> predicted = gige_penalties(g.edges, params);
    for (std::size_t i = 0; i < predicted.size(); ++i) {
      const double r = predicted[i] - g.penalties[i];
      sum += r * r;
    }
  }
  return sum;
}

struct Candidate {
  double gamma_i = 0.0;
  double gamma_o = 0.0;
  double error = 0.0;
};

// Better: clearly smaller error, or the same error nearer (0, 0).
bool better(const Candidate& a, const Candidate& b) {
  const double tie = 1e-12 * std::max(a.error, b.error) + 1e-15;
  if (a.error < b.error - tie) return true;
  if (a.error > b.error + tie) return false;
  return std::fabs(a.gamma_i) + std::fabs(a.gamma_o) < std::fabs(b.gamma_i) + std::fabs(b.gamma_o);
}

Candidate grid(std::span<const MeasuredGraph> graphs, double beta, Candidate centre, double step,
               int half_steps) {
  Candidate best = centre;
  best.error = squared_error(graphs, {beta, centre.gamma_i, centre.gamma_o});
  for (int a = -half_steps; a <= half_steps; ++a) {
    for (int b = -half_steps; b <= half_steps; ++b) {
      Candidate c{centre.gamma_i + a * step, centre.gamma_o + b * step, 0.0};
      // The tolerance keeps the coarse grid's end points (50 x 0.02 may round above 1).
      if (std::fabs(c.gamma_i) > 1.0 + 1e-12 || std::fabs(c.gamma_o) > 1.0 + 1e-12) continue;
      c.error = squared_error(graphs, {beta, c.gamma_i, c.gamma_o});
      if (better(c, best)) best = c;
    }
  }
  return best;
}

}  // namespace

double fit_beta(std::span<const OutgoingConflict> conflicts) {
  double sum = 0.0;
  int count = 0;
  for (const OutgoingConflict& c : conflicts) {
    if (c.degree < 2) continue;
    sum += c.penalty / static_cast<double>(c.degree);
    ++count;
  }
  if (count == 0) {
    throw std::invalid_argument(
        "fit_beta: no outgoing conflict of degree >= 2 (one node sending to several distinct "
        "nodes) was measured");
  }
  return sum / static_cast<double>(count);
}

double gamma_from_time(double t_s, int degree, double beta, double t_ref_s) {
  return 1.0 - t_s / (static_cast<double>(degree) * beta * t_ref_s);
}

GigeParams fit_gige(std::span<const MeasuredGraph> graphs) {
  std::vector<OutgoingConflict> conflicts;
  for (const MeasuredGraph& g : graphs) {
    if (g.penalties.size() != g.edges.size()) {
      throw std::invalid_argument(fmt::format(
          "fit_gige: graph '{}' has {} edges but {} penalties", g.name, g.edges.size(),
          g.penalties.size()));
    }
    if (!is_outgoing_conflict(g)) continue;
    double sum = 0.0;
    for (double p : g.penalties) sum += p;
    conflicts.push_back({static_cast<int>(g.edges.size()),
                         sum / static_cast<double>(g.penalties.size())});
  }
  const double beta = fit_beta(conflicts);

  double step = 1.0 / kCoarseHalfSteps;
  Candidate best = grid(graphs, beta, {}, step, kCoarseHalfSteps);
  for (int r = 0; r < kRefinements; ++r) {
    step /= kFineHalfSteps;
    best = grid(graphs, beta, best, step, kFineHalfSteps);
  }
  return {beta, best.gamma_i, best.gamma_o};
}

}  // namespace collsel::models::contention
