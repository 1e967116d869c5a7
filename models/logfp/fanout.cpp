// LogfP fan-outs (seed 004 section 5.2) for the collsel schedules whose root, or every rank,
// posts all its small messages at once. fanout_s(n) is the first half of the 1:P-P:1 round trip:
// n posts, with the first f messages free of g, until the last arrives. LogfP is measured with
// RDMA writes, which have no receive overhead, so the receiver's o_r(m) comes from pLogP.
// Every function returns 0 when P <= 1 or m == 0, as the pLogP models do: nothing is sent.
#include "models/logfp/fanout.hpp"

namespace collsel::models::logfp {
namespace {

bool nothing_sent(int ranks, std::uint64_t m) { return ranks <= 1 || m == 0; }

}  // namespace

bool serves(const Params& params, std::uint64_t bytes) { return bytes <= params.max_bytes; }

double bcast_flat(const Params& lf, const plogp::Params& p, int ranks, std::uint64_t m) {
  if (nothing_sent(ranks, m)) return 0.0;
  return lf.fanout_s(ranks - 1) + p.recv_overhead_s(m);
}

double scatter_flat(const Params& lf, const plogp::Params& p, int ranks, std::uint64_t m) {
  if (nothing_sent(ranks, m)) return 0.0;
  return lf.fanout_s(ranks - 1) + p.recv_overhead_s(m);
}

double alltoall_fanout_round(const Params& lf, const plogp::Params& p, int ranks,
                             std::uint64_t m) {
  if (nothing_sent(ranks, m)) return 0.0;
  // Each rank also receives P - 1 blocks and handles them one after another.
  return lf.fanout_s(ranks - 1) + static_cast<double>(ranks - 1) * p.recv_overhead_s(m);
}

}  // namespace collsel::models::logfp
