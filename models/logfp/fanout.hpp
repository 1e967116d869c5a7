// LogfP where collsel uses it (seed 004): the small-message fan-out of flat trees, the flat
// scatter and the first round of the All-to-All schedules that post every message at once.
#pragma once

#include <cstdint>

#include "models/logfp/logfp.hpp"
#include "models/plogp/params.hpp"

namespace collsel::models::logfp {

// True when LogfP serves messages of `bytes` (bytes <= params.max_bytes).
bool serves(const Params& params, std::uint64_t bytes);

// bcast.flat of m bytes over P ranks: the root posts P - 1 messages (fanout_s), plus the
// receiver's o_r(m) from pLogP.
double bcast_flat(const Params& lf, const plogp::Params& p, int ranks, std::uint64_t m);
// scatter.flat: the same fan-out of one block each.
double scatter_flat(const Params& lf, const plogp::Params& p, int ranks, std::uint64_t m);
// The first round of alltoall.all_at_once / windowed at window P - 1: every rank fans out
// P - 1 blocks; the round ends when the last has arrived (receivers' o_r(m) counted P - 1 times).
double alltoall_fanout_round(const Params& lf, const plogp::Params& p, int ranks, std::uint64_t m);

}  // namespace collsel::models::logfp
