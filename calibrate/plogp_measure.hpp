// pLogP measurement between two ranks after Kielmann, Bal & Verstoep, "Fast Measurement of LogP
// Parameters for Message Passing Platforms" (cited by seed 001 as [5]):
//   RTT(m): ping-pong of m bytes;          L = RTT(0)/2 - g(0)  (RTT(m) = 2 (L + g(m)))
//   g(m):   n messages sent back to back, then one reply; g(m) = (T_n - RTT(0)) / n
//   o_s(m): duration of the send call, with the network idle between sends
//   o_r(m): duration of the receive call for a message that has already arrived
//   g_2(m): as g(m) with two receives posted ahead, the tree engine's pipeline (not Kielmann's;
//           docs/MODELS.md, "Two receives ahead")
//   sigma(m): how much a second message to rank 2, sent right after one to rank 1, delays rank
//             1's, in units of g_p(m) (not Kielmann's; docs/MODELS.md, "Shared fan-out")
//   tau(m): the same for a second message to rank 1 itself, its receive posted ahead ("Two
//           receives ahead"); measured with sigma, as it needs the same three-rank set-up
// Every value is the median of repeated measurements, robust against the scheduler's outliers.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "models/plogp/params.hpp"

namespace collsel::calibrate {

// Every value is the median of samples taken until its 95 % confidence interval (order
// statistics, no distribution assumed) is within `target_spread` of it, between min_samples and
// max_samples, or until the size's share of the time budget is spent.
struct MeasureOptions {
  std::vector<std::uint64_t> sizes;  // bytes, increasing, starting at 0
  int min_samples = 5;
  int max_samples = 25;
  double target_spread = 0.03;  // half-width of the 95 % interval, relative to the median
  double budget_s = 300.0;      // the whole measurement; each size gets a share by its weight
  double min_burst_s = 2e-3;    // a g(m) burst lasts at least this long
  // Whether rank 2 of the communicator is a second receiver reached by the same link as rank 1,
  // so the fan-out share sigma(m) can be measured (docs/MODELS.md, "Shared fan-out"), and with it
  // the pair share tau(m).
  bool fanout_share = false;
  // The step search (docs/MODELS.md, "Steps between calibrated sizes"). The models interpolate
  // linearly between the table's sizes, which a network's steps (a protocol, packet or
  // bandwidth-factor switch between two calibrated sizes) make wrong: SimGrid's default TCP
  // factors make 5464 bytes slower than 6144. After the sizes above, the midpoint of every two
  // neighbours is measured; where the line between the neighbours misses one of its g, g_p, g_2
  // or one-way times by more than step_tolerance (and by twice that value's own spread), the
  // midpoint joins the table and both halves are searched again, to step_depth halvings, until
  // max_step_points have joined. A midpoint gets the budget share of a size of its weight, so
  // the search may take about as long again as the sizes above. 0: no search.
  int step_depth = 3;
  double step_tolerance = 0.10;
  int max_step_points = 32;
  // Called on rank 0 after each size: (index, count, seconds so far, estimated seconds left).
  std::function<void(std::size_t, std::size_t, double, double)> progress;
};

// The median of `v` and the half-width of its 95 % confidence interval relative to it (0 when
// fewer than 3 samples or a zero median). Exposed for the tests.
struct Estimate {
  double median = 0.0;
  double spread = 0.0;
  double min = 0.0;  // the least disturbed sample
};
Estimate estimate(std::vector<double> v);

// Relative cost weight of measuring size m (for budget shares and the time-left estimate).
double size_weight(std::uint64_t m);

// The step search's pieces, exposed for the tests. A measured size with the spreads its values
// are weighed by (SizePoint keeps those of g, g_p and the overheads).
struct MeasuredPoint {
  models::plogp::SizePoint point;
  double pipeline_gap_spread = 0.0;
  double one_way_spread = 0.0;
};
// Brackets narrower than this are not halved: a step inside is too narrow for a segment to hit.
inline constexpr std::uint64_t kNarrowestStepBracket = 64;
// Misses smaller than this are the clock's, not the network's.
inline constexpr double kStepClockGrain_s = 50e-9;
// The size between a and b to measure, a multiple of 8; 0 when the bracket is too narrow.
std::uint64_t step_midpoint(std::uint64_t a, std::uint64_t b);
// The first of g, g_p, g_2 and the one-way time ("g", "g_p", "g_2", "one-way") that the line
// between a and b misses at c by more than `tolerance` of the larger of the two values and by
// more than twice c's spread of it; empty when the line holds.
std::optional<std::string_view> interpolation_misses(const models::plogp::SizePoint& a,
                                                     const models::plogp::SizePoint& b,
                                                     const MeasuredPoint& c, double tolerance);

// Collective over `comm`; ranks 0 and 1 measure (and rank 2 for sigma), the others wait.
// Returns the parameters on rank 0 (other ranks get an empty optional).
std::optional<models::plogp::Params> measure_plogp(MPI_Comm comm, const MeasureOptions& options);

// The MPI library's eager/rendezvous switch, seen as the largest discontinuity of g(m): the
// neighbouring sizes m < m' where g(m')/g(m) exceeds m'/m by the largest factor (at least 2).
// Returns m. Empty when g has no such step.
std::optional<std::uint64_t> detect_eager_limit(const models::plogp::Params& params);

}  // namespace collsel::calibrate
