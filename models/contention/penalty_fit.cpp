// The reverse solve of seed 003 section 3.3, for any number of communications. The measured
// completion times, sorted, are the step boundaries T_(1) <= ... <= T_(n) of a static-synchronous
// graph (eq. 3: step j lasts T_(j) - T_(j-1)); in step j >= 2 the communications still running
// form a smaller graph whose penalties `later_steps` gives, so each moved
// m_(i,j) = (T_(j) - T_(j-1)) / (alpha rho_(i,j)) bytes there. What is left went in the first step
// (eq. 2), which lasted T_(1) for everyone: rho_(i,1) = T_(1) / (alpha (m - sum_j>=2 m_(i,j))).
//
// The paper's three-communication system writes m_(2,2) and m_(3,2) over T_3 - T_2 and m_(3,3)
// over T_2 - T_1; by eq. 3 the second step is T_2 - T_1 and the third T_3 - T_2 (rho_(3,3) = 1
// belongs to the step where communication 3 is alone), which is what this implements.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include <fmt/format.h>

#include "models/contention/penalty_fit.hpp"

namespace collsel::models::contention {
namespace {

// Measured times closer than this (relative) are one completion, not a step of noise.
constexpr double kSameTime = 1e-9;

}  // namespace

std::vector<double> first_step_penalties(std::span<const Edge> edges,
                                         std::span<const double> measured_s, double bytes,
                                         double alpha_s_per_byte, const Rule& later_steps) {
  if (edges.size() != measured_s.size()) {
    throw std::invalid_argument(
        fmt::format("{} edges but {} measured times", edges.size(), measured_s.size()));
  }
  if (!std::isfinite(bytes) || bytes <= 0.0) {
    throw std::invalid_argument(fmt::format("bytes = {} must be a finite number > 0", bytes));
  }
  if (!std::isfinite(alpha_s_per_byte) || alpha_s_per_byte <= 0.0) {
    throw std::invalid_argument(
        fmt::format("alpha = {} s/byte must be a finite number > 0", alpha_s_per_byte));
  }
  for (std::size_t i = 0; i < measured_s.size(); ++i) {
    if (!std::isfinite(measured_s[i]) || measured_s[i] <= 0.0) {
      throw std::invalid_argument(
          fmt::format("measured time {} of edge {}->{} must be a finite "
                      "number > 0",
                      measured_s[i], edges[i].src, edges[i].dst));
    }
  }
  const std::size_t n = edges.size();
  if (n == 0) return {};

  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t x, std::size_t y) { return measured_s[x] < measured_s[y]; });

  // Step boundaries: each distinct completion time; a communication finishes at its group's first.
  std::vector<double> finish(n);
  double boundary = measured_s[order.front()];
  for (std::size_t i : order) {
    if (measured_s[i] - boundary > kSameTime * measured_s[i]) boundary = measured_s[i];
    finish[i] = boundary;
  }
  const double first_end = measured_s[order.front()];

  std::vector<double> later_bytes(n, 0.0);
  std::vector<Edge> step_edges;
  std::vector<std::size_t> running;
  double step_start = first_end;
  for (std::size_t pos = 0; pos < n;) {
    // Skip the communications that completed at step_start; the rest run until the next boundary.
    while (pos < n && finish[order[pos]] <= step_start) ++pos;
    if (pos == n) break;
    const double step_end = finish[order[pos]];
    running.assign(order.begin() + static_cast<std::ptrdiff_t>(pos), order.end());
    std::sort(running.begin(), running.end());  // the rule sees edges in input order
    step_edges.clear();
    for (std::size_t i : running) step_edges.push_back(edges[i]);
    const std::vector<double> rho = checked_penalties(later_steps, step_edges);
    for (std::size_t r = 0; r < running.size(); ++r) {
      later_bytes[running[r]] += (step_end - step_start) / (alpha_s_per_byte * rho[r]);
    }
    step_start = step_end;
  }

  std::vector<double> rho(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double first_bytes = bytes - later_bytes[i];
    if (first_bytes <= 0.0) {
      throw std::invalid_argument(fmt::format(
          "edge {}->{}: with rule '{}' for the later steps it would move all {} bytes after the "
          "first step ({} s); the measured times do not fit that rule",
          edges[i].src, edges[i].dst, later_steps.name, bytes, first_end));
    }
    rho[i] = first_end / (alpha_s_per_byte * first_bytes);
  }
  return rho;
}

}  // namespace collsel::models::contention
