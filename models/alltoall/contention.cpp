#include "models/alltoall/contention.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "models/line_fit.hpp"

namespace collsel::models::alltoall {
namespace {

double rounds(int n) { return n > 1 ? static_cast<double>(n - 1) : 0.0; }

bool finite_nonneg(double v) { return std::isfinite(v) && v >= 0.0; }

}  // namespace

std::optional<std::string> Contention::invalid_reason() const {
  const struct {
    const char* name;
    double value;
  } values[] = {{"alpha_s", hockney.alpha_s},
                {"beta_s_per_byte", hockney.beta_s_per_byte},
                {"delta_s", signature.delta_s},
                {"beta_free_s_per_byte", beta_free_s_per_byte},
                {"beta_contention_s_per_byte", beta_contention_s_per_byte},
                {"copy_s_per_byte", copy_s_per_byte}};
  for (const auto& v : values) {
    if (!finite_nonneg(v.value)) {
      return fmt::format("{} = {} must be a finite number >= 0", v.name, v.value);
    }
  }
  if (!std::isfinite(signature.gamma) || signature.gamma <= 0.0) {
    return fmt::format("gamma = {} must be a finite number > 0", signature.gamma);
  }
  for (const auto& [name, rho] : {std::pair{"rho_single", rho_single}, {"rho_flood", rho_flood}}) {
    if (!std::isfinite(rho) || rho < 0.0 || rho > 1.0) {
      return fmt::format("{} = {} must lie in [0, 1]", name, rho);
    }
  }
  if (sample_ranks < 0) return fmt::format("sample_ranks = {} must be >= 0", sample_ranks);
  return std::nullopt;
}

Hockney hockney_from_plogp(const plogp::Params& p) {
  Hockney h;
  if (p.table.empty()) return h;
  h.alpha_s = p.latency_s + p.table.front().gap_s;
  const std::uint64_t largest = p.table.back().bytes;
  LineFit large;
  for (std::size_t i = 0; i < p.table.size(); ++i) {
    const auto& pt = p.table[i];
    const bool last_two = i + 2 >= p.table.size();
    if (pt.bytes * 64 < largest && !last_two) continue;
    large.add(static_cast<double>(pt.bytes), pt.gap_s);
  }
  if (const auto slope = large.slope()) h.beta_s_per_byte = std::max(0.0, *slope);
  if (h.beta_s_per_byte == 0.0 && largest > 0) {
    h.beta_s_per_byte = p.table.back().gap_s / static_cast<double>(largest);
  }
  return h;
}

Contention contention_free(const plogp::Params& p) {
  Contention c;
  c.hockney = hockney_from_plogp(p);
  c.beta_free_s_per_byte = c.hockney.beta_s_per_byte;
  c.beta_contention_s_per_byte = c.hockney.beta_s_per_byte;
  c.copy_s_per_byte = kDefaultCopySecondsPerByte;
  return c;
}

double lower_bound(const Hockney& h, int n, std::uint64_t m) {
  return rounds(n) * (h.alpha_s + static_cast<double>(m) * h.beta_s_per_byte);
}

double contention_ratio_model(const Hockney& h, double gamma, int n, std::uint64_t m) {
  return lower_bound(h, n, m) * gamma;
}

double signature_model(const Hockney& h, const Signature& s, int n, std::uint64_t m) {
  const double delta = m >= s.threshold_bytes ? s.delta_s : 0.0;
  return rounds(n) * ((h.alpha_s + static_cast<double>(m) * h.beta_s_per_byte) * s.gamma + delta);
}

double synthetic_beta(double beta_free, double beta_contention, double rho) {
  return (1.0 - rho) * beta_free + rho * beta_contention;
}

double rho_at(const Contention& c, int k) {
  double rho = c.rho_flood;
  if (c.sample_ranks > 2) {
    const double t = static_cast<double>(k - 1) / static_cast<double>(c.sample_ranks - 2);
    rho = c.rho_single + (c.rho_flood - c.rho_single) * t;
  } else if (k <= 1) {
    rho = c.rho_single;
  }
  return std::clamp(rho, 0.0, 1.0);
}

double direct_exchange(const Contention& c, int n, std::uint64_t m) {
  if (n <= 1 || m == 0) return 0.0;
  return signature_model(c.hockney, c.signature, n, m);
}

double windowed(const Contention& c, int n, std::uint64_t m, int k) {
  if (n <= 1 || m == 0) return 0.0;
  k = std::clamp(k, 1, n - 1);
  const double batches = std::ceil(rounds(n) / k);
  const double beta = synthetic_beta(c.beta_free_s_per_byte, c.beta_contention_s_per_byte,
                                     rho_at(c, k));
  return batches * c.hockney.alpha_s + rounds(n) * static_cast<double>(m) * beta;
}

double all_at_once(const Contention& c, int n, std::uint64_t m) {
  return windowed(c, n, m, std::max(1, n - 1));
}

std::uint64_t bruck_round_blocks(int n, int j) {
  std::uint64_t count = 0;
  for (int i = 0; i < n; ++i) count += (i >> j) & 1;
  return count;
}

double bruck(const Contention& c, int n, std::uint64_t m) {
  if (n <= 1 || m == 0) return 0.0;
  double t = 0.0;
  std::uint64_t moved = 0;
  for (int j = 0; (1 << j) < n; ++j) {
    const std::uint64_t bytes = bruck_round_blocks(n, j) * m;
    moved += bytes;
    const double delta = bytes >= c.signature.threshold_bytes ? c.signature.delta_s : 0.0;
    t += (c.hockney.alpha_s + static_cast<double>(bytes) * c.hockney.beta_s_per_byte) *
             c.signature.gamma +
         delta;
  }
  const double copied = 2.0 * static_cast<double>(n) * static_cast<double>(m) +
                        2.0 * static_cast<double>(moved);
  return t + copied * c.copy_s_per_byte;
}

MeshGrid mesh_grid(int n) {
  if (n <= 1) return {1, std::max(n, 1)};
  int rows = static_cast<int>(std::sqrt(static_cast<double>(n)));
  while (rows * rows > n) --rows;  // sqrt's rounding
  while (n % rows != 0) --rows;
  return {rows, n / rows};
}

double mesh2d(const Contention& c, int n, std::uint64_t m) {
  if (n <= 1 || m == 0) return 0.0;
  const MeshGrid g = mesh_grid(n);
  // Each phase is an all_at_once among the row's cols (or the column's rows) ranks.
  const auto rows = static_cast<std::uint64_t>(g.rows);
  const auto cols = static_cast<std::uint64_t>(g.cols);
  const double copied = (2.0 * n + static_cast<double>(g.rows - 1) * g.cols) *
                        static_cast<double>(m);
  return all_at_once(c, g.cols, rows * m) + all_at_once(c, g.rows, cols * m) +
         copied * c.copy_s_per_byte;
}

namespace {

// One rank's messages in a schedule, by size: `count` sends (and as many receives) of `bytes`.
// Each schedule's list is written once, and both floors below are read from it.
struct Messages {
  double count;
  std::uint64_t bytes;
};

// Every block exchanged with every other rank: n - 1 messages of m bytes.
std::vector<Messages> exchange_messages(int n, std::uint64_t m) {
  if (n <= 1 || m == 0) return {};
  return {{rounds(n), m}};
}

// Bruck's round j: one message of bruck_round_blocks(n, j) m bytes.
std::vector<Messages> bruck_messages(int n, std::uint64_t m) {
  std::vector<Messages> out;
  if (n <= 1 || m == 0) return out;
  for (int j = 0; (1 << j) < n; ++j) out.push_back({1.0, bruck_round_blocks(n, j) * m});
  return out;
}

// The mesh: cols - 1 messages of rows m bytes, then rows - 1 of cols m bytes.
std::vector<Messages> mesh2d_messages(int n, std::uint64_t m) {
  if (n <= 1 || m == 0) return {};
  const MeshGrid g = mesh_grid(n);
  return {{rounds(g.cols), static_cast<std::uint64_t>(g.rows) * m},
          {rounds(g.rows), static_cast<std::uint64_t>(g.cols) * m}};
}

// What the messages cost the rank's CPU: o_s and o_r each, one after another.
double on_cpu(const plogp::Params& p, const std::vector<Messages>& messages) {
  double t = 0.0;
  for (const Messages& b : messages) {
    t += b.count * (p.send_overhead_s(b.bytes) + p.recv_overhead_s(b.bytes));
  }
  return t;
}

// What its sends cost the rank's link: each its burst gap after the previous.
double on_link(const plogp::Params& p, double link_s_per_byte,
               const std::vector<Messages>& messages) {
  double t = 0.0;
  for (const Messages& b : messages) t += b.count * p.burst_gap_s(b.bytes, link_s_per_byte);
  return t;
}

double floor_of(const plogp::Params& p, double link_s_per_byte,
                const std::vector<Messages>& messages) {
  return std::max(on_cpu(p, messages), on_link(p, link_s_per_byte, messages));
}

}  // namespace

double message_overheads(const plogp::Params& p, int n, std::uint64_t m) {
  return on_cpu(p, exchange_messages(n, m));
}

double bruck_message_overheads(const plogp::Params& p, int n, std::uint64_t m) {
  return on_cpu(p, bruck_messages(n, m));
}

double mesh2d_message_overheads(const plogp::Params& p, int n, std::uint64_t m) {
  return on_cpu(p, mesh2d_messages(n, m));
}

double message_floor(const plogp::Params& p, double link_s_per_byte, int n, std::uint64_t m) {
  return floor_of(p, link_s_per_byte, exchange_messages(n, m));
}

double bruck_message_floor(const plogp::Params& p, double link_s_per_byte, int n,
                           std::uint64_t m) {
  return floor_of(p, link_s_per_byte, bruck_messages(n, m));
}

double mesh2d_message_floor(const plogp::Params& p, double link_s_per_byte, int n,
                            std::uint64_t m) {
  return floor_of(p, link_s_per_byte, mesh2d_messages(n, m));
}

WindowChoice best_window(const Contention& c, int n, std::uint64_t m, double floor_s) {
  WindowChoice best{1, std::max(floor_s, windowed(c, n, m, 1))};
  for (int k = 2; k < n; ++k) {
    const double t = std::max(floor_s, windowed(c, n, m, k));
    if (t < best.predicted_s) best = {k, t};
  }
  return best;
}

}  // namespace collsel::models::alltoall
