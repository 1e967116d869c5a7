// LogfP (seed 004, Hoefler et al.): LogP for small messages with f "free" messages and a
// per-message overhead that falls with the number of messages posted, o(P) = o_min + o_max / P.
// Readings chosen where the text is garbled: docs/MODELS.md, "LogfP". Pure C++.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace collsel::models::logfp {

struct Params {
  double latency_s = 0.0;  // L
  double o_min_s = 0.0;    // o(P) for P -> infinity
  double o_max_s = 0.0;    // o(1) = o_min + o_max
  double gap_s = 0.0;      // g, paid by every message after the first f
  int f = 1;               // messages sent without paying g
  std::uint64_t max_bytes = 0;  // the model serves messages of at most this size (measured size)

  [[nodiscard]] double overhead_s(int p) const;  // o(P)
  // The 1:P-P:1 round trip (seed 004 section 5.2).
  [[nodiscard]] double rtt_s(int p) const;
  // One rank posts n small messages to n peers: time until the last has arrived (the first half
  // of the round trip, rtt_s(n) - L - o(1)).
  [[nodiscard]] double fanout_s(int n) const;

  [[nodiscard]] std::optional<std::string> invalid_reason() const;
};

// One point of the 1:P-P:1 benchmark: P peers addressed, the sender's posting time per message
// (o(P)) and the whole round trip.
struct Sample {
  int peers = 0;
  double overhead_per_message_s = 0.0;
  double rtt_s = 0.0;
};

// The parameter assessment of seed 004 section 5.3 over measured samples (peers 1..N-1, sorted or
// not). Throws std::invalid_argument without a P = 1 sample, on peers < 1 or negative times.
Params fit(const std::vector<Sample>& samples, std::uint64_t bytes);

}  // namespace collsel::models::logfp
