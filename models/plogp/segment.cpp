#include "models/plogp/segment.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <vector>

#include "models/plogp/bcast.hpp"

namespace collsel::models::plogp {
namespace {

// Splitting into more segments than this only adds per-message cost on any network we model,
// and it bounds the work of one search (the decision is cached per call shape anyway).
constexpr std::uint64_t kMaxSegmentCounts = 4096;
// Beyond this many segments, consecutive candidate counts grow by k / kGeometricStep.
constexpr std::uint64_t kGeometricStep = 32;

// Saturates instead of wrapping, so a size near 2^64 cannot turn into a small candidate.
std::uint64_t round_up(std::uint64_t x, std::uint64_t unit) {
  const std::uint64_t units = ceil_div(x, unit);
  return units > std::numeric_limits<std::uint64_t>::max() / unit
             ? std::numeric_limits<std::uint64_t>::max()
             : units * unit;
}

// Every candidate is a multiple of `unit` in [unit, m], or m itself, so a segment never splits a
// datatype element and never exceeds the message.
std::vector<std::uint64_t> candidates(const Params& p, std::uint64_t m, std::uint64_t unit) {
  std::vector<std::uint64_t> out{m};
  const auto keep = [&](std::uint64_t s) {
    if (s >= unit && s <= m) out.push_back(s);
  };
  // Every segment count below 2 x kGeometricStep, then counts about 3 % apart: near its optimum the
  // predicted time is flat in k, so the sparse tail loses nothing measurable and the search of
  // one call shape costs ~200 model evaluations instead of ~4100 (bench/decision_cost).
  const std::uint64_t counts = std::min(m / unit, kMaxSegmentCounts);
  for (std::uint64_t k = 1; k <= counts; k += std::max<std::uint64_t>(1, k / kGeometricStep)) {
    keep(round_up(ceil_div(m, k), unit));
  }
  if (counts >= 1) keep(round_up(ceil_div(m, counts), unit));
  for (std::uint64_t s = unit; s <= m; s *= 2) {
    keep(s);
    if (s > m / 2) break;  // the next doubling could wrap around
  }
  for (const SizePoint& x : p.table) {
    if (x.bytes <= m) keep(round_up(x.bytes, unit));
  }
  // Largest first, so a strict "<" below leaves ties with the larger segment.
  std::sort(out.begin(), out.end(), std::greater<>());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

SegmentChoice best_segment(const Params& p, std::uint64_t m, std::uint64_t unit_bytes,
                           const std::function<double(std::uint64_t s)>& model) {
  if (m == 0) return {0, model(0)};
  const std::uint64_t unit = unit_bytes == 0 ? 1 : unit_bytes;
  SegmentChoice best{0, 0.0};
  for (const std::uint64_t s : candidates(p, m, unit)) {
    const double t = model(s);
    if (best.segment_bytes == 0 || t < best.predicted_s) best = {s, t};
  }
  return best;
}

}  // namespace collsel::models::plogp
