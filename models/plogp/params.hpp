// pLogP parameters of one cluster (Kielmann et al.; seed 001 section 2): L, and g(m), o_s(m),
// o_r(m) tabulated over message sizes. Pure C++: this target must never see <mpi.h>.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace collsel::models::plogp {

// One measured point of the tables. All times in seconds.
struct SizePoint {
  std::uint64_t bytes = 0;
  double gap_s = 0.0;            // g(m): minimum interval between consecutive sends of size m
  double send_overhead_s = 0.0;  // o_s(m)
  double recv_overhead_s = 0.0;  // o_r(m)
  // Spread of each measured value: the half-width of its 95 % confidence interval relative to
  // the value (0.03: +-3 %). 0 when unknown (hand-written or imported files). Not used by the
  // models; kept so a user can see how much a prediction can be trusted.
  double gap_spread = 0.0;
  double send_overhead_spread = 0.0;
  double recv_overhead_spread = 0.0;
  // g_p(m): the gap with the receiver's receives posted ahead (docs/MODELS.md, "Two gaps").
  // Meaningful only when Params::posted_gaps is set; spread as above.
  double posted_gap_s = 0.0;
  double posted_gap_spread = 0.0;
  // sigma(m), in [0, 1]: how much of a second message, sent right after a first one of the same
  // size to another receiver, delays the first one, in units of g_p(m) (docs/MODELS.md, "Shared
  // fan-out"). 0 where the sender's messages leave one after the other, 1 where all the messages
  // in flight share its link. Meaningful only when Params::fanout_shares is set.
  double fanout_share = 0.0;
  // g_2(m): the gap with exactly two receives posted ahead, the tree engine's pipeline (segment
  // i + 1 posted while segment i completes; docs/MODELS.md, "Two receives ahead"). Between g_p(m)
  // and g(m): where a transfer starts only once its receive is posted, two segments are in flight
  // at a time. Meaningful only when Params::pipeline_gaps is set.
  double pipeline_gap_s = 0.0;
  // tau(m), in [0, 1]: how much a second message to the same receiver, posted ahead like the
  // first, delays the first one, in units of g_p(m). 0 where one pair's messages leave in order
  // (a TCP stream), 1 where the two in flight share the link (SimGrid's flows). Meaningful only
  // when Params::pair_shares is set.
  double pair_share = 0.0;
  // The one-way time of m bytes, its receive posted: RTT(m) - RTT(0) / 2 of a ping-pong of m
  // bytes answered by 0 (docs/MODELS.md, "One-way time"). Meaningful only when
  // Params::one_way_times is set.
  double one_way_s = 0.0;
};

// How far o_s(m) or o_r(m) may grow above the smallest message's and still be read as the CPU's
// work on the message (Params::send_waits, send_cpu_s, recv_cpu_s).
inline constexpr double kCpuOverheadGrowth = 1.5;

// Interpolation rule (docs/MODELS.md, "Interpolation"): piecewise linear in m between table points,
// clamped to the first point below the table, linearly extrapolated from the last two points above
// it (slope clamped to >= 0). Points on the two sides of the MPI library's eager limit E are never
// mixed: m <= E uses only points with bytes <= E, m > E only points with bytes > E, so the
// protocol switch stays a step instead of being smeared into a ramp. A side with a single point
// uses that point, extended above it with the slope of the last two points of the whole table.
// A side with no points falls back to the whole table. Results are never negative.
struct Params {
  double latency_s = 0.0;                          // L
  double latency_spread = 0.0;                     // as SizePoint's spreads; 0: unknown
  std::optional<std::uint64_t> eager_limit_bytes;  // E; absent: no switch known
  std::vector<SizePoint> table;                    // strictly increasing bytes, non-empty
  // Whether the table's posted_gap_s column was measured (model files from before it have none).
  bool posted_gaps = false;
  // Whether the table's fanout_share column was measured (it needs three ranks).
  bool fanout_shares = false;
  // Whether the pipeline_gap_s and pair_share columns were measured (since the twelfth session).
  bool pipeline_gaps = false;
  bool pair_shares = false;
  // Whether the one_way_s column was measured (since the twelfth session).
  bool one_way_times = false;

  // The stream gap: consecutive messages of one pair, each received only once the previous one
  // was (a pipeline's segments). Seed 001's g(m), with L.
  [[nodiscard]] double gap_s(std::uint64_t m) const;
  // The posted gap and its latency: a message whose receive was posted before it was sent (a
  // tree's fan-out to distinct receivers, Scatter, the All-to-All rounds). Where a transfer
  // starts only once its receive is posted (SMPI below its eager threshold, any rendezvous) a
  // message received without one posted waits a latency, so g(m) > g_p(m) there; elsewhere the
  // two are nearly equal. Both pairs describe the same one-way time: L_p + g_p(first size) =
  // L + g(first size), the half round trip calibration measured, so L_p is derived, not stored.
  // Without a posted column both return the stream values: old model files predict as before.
  [[nodiscard]] double posted_gap_s(std::uint64_t m) const;
  [[nodiscard]] double posted_latency_s() const;
  // L_p at size m: with the one_way_s column, the measured one-way time less g_p(m), never below
  // 0: what of a message's trip its sender's gap does not cover, which grows by the transfer
  // where the sender's overhead hides it in the gap (docs/MODELS.md, "One-way time"). The
  // constant L_p without the column.
  [[nodiscard]] double posted_latency_s(std::uint64_t m) const;
  // sigma(m), clamped to [0, 1]; 0 without the column, which keeps seed 001's formulas.
  [[nodiscard]] double fanout_share(std::uint64_t m) const;
  // g_2(m); the stream gap g(m) without the column, which keeps seed 001's pipeline.
  [[nodiscard]] double pipeline_gap_s(std::uint64_t m) const;
  // The gap of a pipeline's segment at a node that forwards it: it receives and sends every
  // segment, so max(g_2(m), o_s(m) + o_r(m)) (docs/MODELS.md, "Two receives ahead"); g(m)
  // without the pipeline_gap_s column, as before it.
  [[nodiscard]] double forwarding_gap_s(std::uint64_t m) const;
  // The latency behind g_2: L_p(m) with the column (a pipeline's segments find their receive
  // posted), L without it (the stream pair, as before the column).
  [[nodiscard]] double pipeline_latency_s(std::uint64_t m) const;
  // tau(m), clamped to [0, 1]; 0 without the column.
  [[nodiscard]] double pair_share(std::uint64_t m) const;
  [[nodiscard]] double send_overhead_s(std::uint64_t m) const;
  [[nodiscard]] double recv_overhead_s(std::uint64_t m) const;
  // Whether o_s(m) has grown past kCpuOverheadGrowth times o_s(0): then it is not the CPU's cost
  // of posting a send but a blocking send's wait for its transfer (a rendezvous: SMPI's gige
  // o_s(64 KiB) = 902 us, where smpi/ois charges an MPI_Isend 3 us).
  [[nodiscard]] bool send_waits(std::uint64_t m) const;
  // What a send or a receive of m bytes keeps the CPU busy for: o_s(m) or o_r(m) while it stays
  // within kCpuOverheadGrowth of the smallest message's, else the smallest message's (the rest
  // was a wait for the transfer, which the network part of a model times).
  [[nodiscard]] double send_cpu_s(std::uint64_t m) const;
  [[nodiscard]] double recv_cpu_s(std::uint64_t m) const;
  // The spacing of a root's burst of posted sends of m bytes to distinct receivers, all in flight
  // at once (the flat Scatter's fan-out): g_p(m), except where the sends wait for their transfers
  // (send_waits): there the handshakes of the next messages overlap the current transfer, and
  // the link paces the burst, min(g_p(m), max(link_s_per_byte m, o_s(0))). link_s_per_byte <= 0
  // (unknown: a model without [contention]) keeps g_p(m). docs/MODELS.md, "A burst of waiting
  // sends".
  [[nodiscard]] double burst_gap_s(std::uint64_t m, double link_s_per_byte) const;

  // Empty when the parameters are usable; otherwise the first problem, as a sentence.
  [[nodiscard]] std::optional<std::string> invalid_reason() const;
};

}  // namespace collsel::models::plogp
