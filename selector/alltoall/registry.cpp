// The All-to-All registry. Order matters: it is the tie-breaking order of decide(), so of two
// schedules predicted equal the simpler one runs (direct exchange before pairwise, every message
// at once before a window).
#include <algorithm>
#include <array>
#include <climits>

#include <fmt/format.h>

#include "models/alltoall/contention.hpp"
#include "selector/alltoall/algorithms.hpp"
#include "selector/model_adapters.hpp"
#include "selector/registry.hpp"
#include "selector/schedule/alltoall_schedule.hpp"

namespace collsel {
namespace {

namespace m = models::alltoall;

// A model file without an [alltoall] section predicts with the contention-free stand-in.
m::Contention contention_of(const models::ModelFile& f) {
  return f.alltoall ? *f.alltoall : m::contention_free(f.plogp);
}

// Every schedule's network model floored by what its messages cost the rank's CPU (pLogP's o_s
// and o_r) or its link (each send its burst gap), whichever is longer (models/alltoall/
// contention.hpp, message_floor). The signature's alpha, fitted on whole exchanges, usually holds
// the overheads already and the floor changes nothing; where the calibration's overheads are
// above it (SMPI's Ethernet platforms, the emulated cluster's loaded cores) flooring only the
// windowed schedules ranked them below direct exchange for a cost every schedule pays
// (docs/MODELS.md). The link part binds where packed or mid-sized messages cost more per byte
// than the Hockney beta fitted on large ones.
template <double (*F)(const m::Contention&, int, std::uint64_t),
          double (*Floor)(const models::plogp::Params&, double, int, std::uint64_t)>
Prediction floored(const models::ModelFile& f, const CallShape& s, const Policy&) {
  const m::Contention c = contention_of(f);
  return {std::max(Floor(f.plogp, c.hockney.beta_s_per_byte, s.comm_size, s.bytes),
                   F(c, s.comm_size, s.bytes)),
          {}};
}

// Windowed schedules overlap their messages' start-ups on the network, not their software
// overheads on the rank's CPU nor its sends on its link: section 6's model, floored by
// message_floor().
Prediction windowed_model(const models::ModelFile& f, const CallShape& s, const Policy& policy) {
  const m::Contention c = contention_of(f);
  const double floor_s =
      m::message_floor(f.plogp, c.hockney.beta_s_per_byte, s.comm_size, s.bytes);
  if (policy.window) {
    const int k = std::clamp(*policy.window, 1, std::max(1, s.comm_size - 1));
    return {std::max(floor_s, m::windowed(c, s.comm_size, s.bytes, k)),
            {.segment_bytes = 0, .window = k}};
  }
  const m::WindowChoice w = m::best_window(c, s.comm_size, s.bytes, floor_s);
  return {w.predicted_s, {.segment_bytes = 0, .window = w.window}};
}

Prediction all_at_once_model(const models::ModelFile& f, const CallShape& s, const Policy&) {
  const m::Contention c = contention_of(f);
  return {std::max(m::message_floor(f.plogp, c.hockney.beta_s_per_byte, s.comm_size, s.bytes),
                   m::all_at_once(c, s.comm_size, s.bytes)),
          {}};
}

// Bruck stages the whole exchange (P blocks) in one byte buffer and sends about half of it per
// round with an int count.
std::optional<std::string> bruck_fits(const CallShape& s) {
  const auto blocks = static_cast<std::uint64_t>(s.comm_size);
  if (s.bytes > 0 && blocks > static_cast<std::uint64_t>(INT_MAX) / s.bytes) {
    return fmt::format("it stages {} x {} bytes, more than the {} bytes of an int count", blocks,
                       s.bytes, INT_MAX);
  }
  return std::nullopt;
}

// The mesh's messages carry max(rows, cols) packed blocks.
std::optional<std::string> mesh2d_fits(const CallShape& s) {
  const auto g = m::mesh_grid(s.comm_size);
  return adapters::largest_message_fits(static_cast<std::uint64_t>(std::max(g.rows, g.cols)),
                                        s.bytes);
}

constexpr std::array<Algorithm<AlltoallCall>, 6> kAlltoall{{
    {{"alltoall.direct_exchange",
      "n-1 rounds, round t sends to rank+t and receives from rank-t (seed 000 Algorithm 1)",
      floored<m::direct_exchange, m::message_floor>, adapters::always, false,
      schedule::alltoall_direct_exchange,
      schedule::alltoall_exchange_size},
     alltoall::direct_exchange},
    {{"alltoall.pairwise", "n-1 rounds of paired exchanges, partner rank XOR t when P is 2^k",
      floored<m::direct_exchange, m::message_floor>, adapters::always, false,
      schedule::alltoall_pairwise,
      schedule::alltoall_exchange_size},
     alltoall::pairwise},
    {{"alltoall.all_at_once", "every send and receive posted at once, then one wait",
      adapters::fanout_or<models::logfp::alltoall_fanout_round, all_at_once_model>,
      adapters::always, false, schedule::alltoall_all_at_once,
      schedule::alltoall_exchange_size},
     alltoall::all_at_once},
    {{"alltoall.windowed", "direct exchange order, at most k exchanges in flight (k from the model)",
      windowed_model, adapters::always, false, schedule::alltoall_windowed,
      schedule::alltoall_exchange_size},
     alltoall::windowed},
    {{"alltoall.bruck", "ceil(log2 P) rounds of packed blocks (Bruck et al.), for small messages",
      floored<m::bruck, m::bruck_message_floor>, bruck_fits, false, schedule::alltoall_bruck,
      schedule::alltoall_bruck_size},
     alltoall::bruck},
    {{"alltoall.mesh2d",
      "ranks as a rows x cols grid: all-at-once along the row, then along the column (Faraj, Yuan)",
      floored<m::mesh2d, m::mesh2d_message_floor>, mesh2d_fits, false,
      schedule::alltoall_mesh2d, schedule::alltoall_mesh2d_size},
     alltoall::mesh2d},
}};

}  // namespace

std::span<const Algorithm<AlltoallCall>> alltoall_registry() { return kAlltoall; }

}  // namespace collsel
