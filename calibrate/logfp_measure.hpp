// The 1:P-P:1 benchmark of seed 004 (section 3, Fig. 2): rank 0 posts one small message to each
// of P peers, every peer answers as soon as its message has arrived, and rank 0 measures the
// round trip RTT(P) until the last answer is in, and separately the time it took to post the P
// sends (o(P) per message). P = 1..N-1; the LogfP parameters follow by seed 004 section 5.3
// (models::logfp::fit). Method: docs/MODELS.md, "How collsel-calibrate measures".
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "calibrate/node_layout.hpp"
#include "models/logfp/logfp.hpp"

namespace collsel::calibrate {

struct LogfpMeasureOptions {
  std::uint64_t bytes = 1;  // message and answer size; the model then serves up to this size
  int warmup = 2;           // round trips before the measured ones at each P
  int min_samples = 5;
  int max_samples = 25;
  double budget_s = 20.0;  // shared equally by the P values; the minimum is always taken
  // Called on rank 0 after each P: (P, largest P, seconds so far).
  std::function<void(int, int, double)> progress;
};

struct LogfpMeasurement {
  std::vector<models::logfp::Sample> samples;  // one per P, medians
  std::vector<int> peers;                      // the ranks addressed, in the order P grows
};

// The peers of `root` in the order P grows: ranks on other nodes first, one per node in turn
// (each other node's first rank, then each one's second, ...), then the other ranks of root's
// own node, so that small P address distinct nodes as seed 004's hosts. Pure.
std::vector<int> peer_order(const NodeLayout& layout, int root = 0);

// Collective over `comm`; the measurement is valid on rank 0. Ranks not addressed at a P sleep
// in a non-blocking barrier meanwhile.
LogfpMeasurement measure_logfp(MPI_Comm comm, const NodeLayout& layout,
                               const LogfpMeasureOptions& options);

}  // namespace collsel::calibrate
