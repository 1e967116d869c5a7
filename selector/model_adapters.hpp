// Glue between the registry's ModelFn signature and the pure formulas of models/: turns a
// formula of (P, m) or (P, m, s) into a Prediction, searching the segment size when the user did
// not fix one.
#pragma once

#include <climits>
#include <cstdint>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "models/logfp/fanout.hpp"
#include "models/plogp/segment.hpp"
#include "selector/catalog.hpp"

namespace collsel::adapters {

using Plain = double (*)(const models::plogp::Params&, int, std::uint64_t);
using Segmented = double (*)(const models::plogp::Params&, int, std::uint64_t, std::uint64_t);

template <Plain F>
Prediction plain(const models::ModelFile& f, const CallShape& s, const Policy&) {
  return {F(f.plogp, s.comm_size, s.bytes), {}};
}

using Burst = double (*)(const models::plogp::Params&, int, std::uint64_t, double);

// A root's flat fan-out, given the link's time per byte of the model's [contention] section (0
// without a usable one): where its sends wait for their transfers, the link paces the burst
// (models::plogp::Params::burst_gap_s).
template <Burst F>
Prediction flat_burst(const models::ModelFile& f, const CallShape& s, const Policy&) {
  const double link =
      f.contention && !f.contention->invalid_reason() ? f.contention->alpha_s_per_byte : 0.0;
  return {F(f.plogp, s.comm_size, s.bytes, link), {}};
}

using Fanout = double (*)(const models::logfp::Params&, const models::plogp::Params&, int,
                          std::uint64_t);

// A small-message fan-out (seed 004): when the model file has a [logfp] section that serves this
// size, LogfP's o(P) and f free messages replace pLogP's per-message g(m); otherwise `Otherwise`.
template <Fanout F, ModelFn Otherwise>
Prediction fanout_or(const models::ModelFile& f, const CallShape& s, const Policy& policy) {
  if (f.logfp && models::logfp::serves(*f.logfp, s.bytes)) {
    return {F(*f.logfp, f.plogp, s.comm_size, s.bytes), {}};
  }
  return Otherwise(f, s, policy);
}

template <Segmented F>
Prediction segmented(const models::ModelFile& f, const CallShape& s, const Policy& policy) {
  const models::plogp::Params& p = f.plogp;
  if (policy.segment_bytes) {
    const std::uint64_t seg = *policy.segment_bytes;
    return {F(p, s.comm_size, s.bytes, seg), {seg}};
  }
  const auto choice = models::plogp::best_segment(
      p, s.bytes, policy.segment_unit_bytes,
      [&](std::uint64_t seg) { return F(p, s.comm_size, s.bytes, seg); });
  return {choice.predicted_s, {choice.segment_bytes}};
}

// A segmented fan-out: at the sizes a [logfp] section serves (a few bytes), unless the user fixed
// a smaller segment, it is one segment, the whole message, and predicts its plain twin's fan-out,
// so that registry order breaks the tie; otherwise segmented<G>.
template <Fanout F, Segmented G>
Prediction segmented_fanout_or(const models::ModelFile& f, const CallShape& s,
                               const Policy& policy) {
  const bool one_segment = !policy.segment_bytes || *policy.segment_bytes == 0 ||
                           *policy.segment_bytes >= s.bytes;
  if (one_segment && f.logfp && models::logfp::serves(*f.logfp, s.bytes)) {
    return {F(*f.logfp, f.plogp, s.comm_size, s.bytes), {s.bytes}};
  }
  return segmented<G>(f, s, policy);
}

// Byte messages carry int counts: an algorithm whose largest message is `blocks` blocks of
// `bytes` cannot serve calls where that exceeds INT_MAX bytes.
inline std::optional<std::string> largest_message_fits(std::uint64_t blocks, std::uint64_t bytes) {
  if (bytes > 0 && blocks > static_cast<std::uint64_t>(INT_MAX) / bytes) {
    return fmt::format("its largest message, {} x {} bytes, exceeds the {} bytes of an int count",
                       blocks, bytes, INT_MAX);
  }
  return std::nullopt;
}

// largest_message_fits() for a largest message of `Multiple` blocks (0: P - 1 blocks).
template <int Multiple>
std::optional<std::string> fits_int(const CallShape& s) {
  const std::uint64_t blocks = Multiple > 0 ? Multiple : static_cast<std::uint64_t>(s.comm_size - 1);
  return largest_message_fits(blocks, s.bytes);
}

inline std::optional<std::string> always(const CallShape&) { return std::nullopt; }

}  // namespace collsel::adapters
