#include "models/plogp/params.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <span>
#include <string_view>

namespace collsel::models::plogp {
namespace {

using Field = double SizePoint::*;
using Points = std::span<const SizePoint>;

// An overhead `o` past kCpuOverheadGrowth times the smallest message's is a blocking call's wait
// for the transfer, not CPU work; the CPU's part of it is then the smallest message's.
bool waits(double o, double smallest) { return o > kCpuOverheadGrowth * smallest; }
double cpu_part(double o, double smallest) { return waits(o, smallest) ? smallest : o; }

// The points interpolation at m may use: only those on m's side of the eager limit, because the
// library changes protocol there and a ramp between the two sides would predict a cost that no
// message size actually has.
Points side_of(const Params& p, std::uint64_t m) {
  const Points all(p.table);
  if (!p.eager_limit_bytes) return all;
  const std::uint64_t e = *p.eager_limit_bytes;
  const auto split = std::partition_point(all.begin(), all.end(),
                                          [e](const SizePoint& x) { return x.bytes <= e; });
  const auto lower_count = static_cast<std::size_t>(split - all.begin());
  const Points side = m <= e ? all.first(lower_count) : all.subspan(lower_count);
  return side.empty() ? all : side;
}

double slope(const SizePoint& a, const SizePoint& b, Field f) {
  const double s = (b.*f - a.*f) / static_cast<double>(b.bytes - a.bytes);
  return std::max(0.0, s);
}

// Extrapolation slope above the last point of `side`; a lone point borrows the whole table's
// last two points, and a table of one point is flat.
double slope_above(Points side, Points all, Field f) {
  if (side.size() >= 2) return slope(side[side.size() - 2], side.back(), f);
  if (all.size() >= 2) return slope(all[all.size() - 2], all.back(), f);
  return 0.0;
}

double interpolate(Points side, Points all, std::uint64_t m, Field f) {
  if (side.empty()) return 0.0;  // no table: invalid_reason() says so
  const SizePoint& first = side.front();
  const SizePoint& last = side.back();
  if (m <= first.bytes) return first.*f;
  if (m >= last.bytes) {
    return last.*f + slope_above(side, all, f) * static_cast<double>(m - last.bytes);
  }
  const auto hi = std::upper_bound(side.begin(), side.end(), m,
                                   [](std::uint64_t v, const SizePoint& x) { return v < x.bytes; });
  const SizePoint& b = *hi;
  const SizePoint& a = *(hi - 1);
  if (a.bytes == m) return a.*f;
  // Differences taken in integers first so large sizes keep their low bits.
  const double t = static_cast<double>(m - a.bytes) / static_cast<double>(b.bytes - a.bytes);
  return a.*f + (b.*f - a.*f) * t;
}

double value_at(const Params& p, std::uint64_t m, Field f) {
  return std::max(0.0, interpolate(side_of(p, m), Points(p.table), m, f));
}

bool usable_time(double v) { return std::isfinite(v) && v >= 0.0; }

std::optional<std::string> bad_point(const SizePoint& x) {
  const std::pair<std::string_view, double> values[] = {{"gap_s", x.gap_s},
                                                        {"send_overhead_s", x.send_overhead_s},
                                                        {"recv_overhead_s", x.recv_overhead_s},
                                                        {"posted_gap_s", x.posted_gap_s},
                                                        {"pipeline_gap_s", x.pipeline_gap_s},
                                                        {"one_way_s", x.one_way_s}};
  for (const auto& [name, v] : values) {
    if (!usable_time(v)) {
      return fmt::format("{} at {} bytes is {} (must be finite and >= 0)", name, x.bytes, v);
    }
  }
  return std::nullopt;
}

// A share column at m: interpolated like the times, but a fraction, never extrapolated past 1;
// 0 when not measured.
double share_at(const Params& p, bool measured, std::uint64_t m, Field f) {
  return measured ? std::clamp(value_at(p, m, f), 0.0, 1.0) : 0.0;
}

}  // namespace

double Params::gap_s(std::uint64_t m) const { return value_at(*this, m, &SizePoint::gap_s); }

double Params::posted_gap_s(std::uint64_t m) const {
  return posted_gaps ? value_at(*this, m, &SizePoint::posted_gap_s) : gap_s(m);
}

double Params::posted_latency_s() const {
  if (!posted_gaps || table.empty()) return latency_s;
  // The first point's one-way time split the other way; never below 0 if g_p > L + g there.
  return std::max(0.0, latency_s + table.front().gap_s - table.front().posted_gap_s);
}

double Params::fanout_share(std::uint64_t m) const {
  return share_at(*this, fanout_shares, m, &SizePoint::fanout_share);
}

double Params::pipeline_gap_s(std::uint64_t m) const {
  return pipeline_gaps ? value_at(*this, m, &SizePoint::pipeline_gap_s) : gap_s(m);
}

double Params::forwarding_gap_s(std::uint64_t m) const {
  if (!pipeline_gaps) return gap_s(m);
  return std::max(pipeline_gap_s(m), send_overhead_s(m) + recv_overhead_s(m));
}

double Params::posted_latency_s(std::uint64_t m) const {
  if (!one_way_times) return posted_latency_s();
  return std::max(0.0, value_at(*this, m, &SizePoint::one_way_s) - posted_gap_s(m));
}

double Params::pipeline_latency_s(std::uint64_t m) const {
  return pipeline_gaps ? posted_latency_s(m) : latency_s;
}

double Params::pair_share(std::uint64_t m) const {
  return share_at(*this, pair_shares, m, &SizePoint::pair_share);
}

double Params::send_overhead_s(std::uint64_t m) const {
  return value_at(*this, m, &SizePoint::send_overhead_s);
}

double Params::recv_overhead_s(std::uint64_t m) const {
  return value_at(*this, m, &SizePoint::recv_overhead_s);
}

bool Params::send_waits(std::uint64_t m) const {
  return waits(send_overhead_s(m), send_overhead_s(0));
}

double Params::send_cpu_s(std::uint64_t m) const {
  return cpu_part(send_overhead_s(m), send_overhead_s(0));
}

double Params::recv_cpu_s(std::uint64_t m) const {
  return cpu_part(recv_overhead_s(m), recv_overhead_s(0));
}

double Params::burst_gap_s(std::uint64_t m, double link_s_per_byte) const {
  const double gap = posted_gap_s(m);
  if (link_s_per_byte <= 0.0 || !send_waits(m)) return gap;
  return std::min(gap, std::max(link_s_per_byte * static_cast<double>(m), send_overhead_s(0)));
}

std::optional<std::string> Params::invalid_reason() const {
  if (!usable_time(latency_s)) {
    return fmt::format("latency_s is {} (must be finite and >= 0)", latency_s);
  }
  if (table.empty()) return "the table of message sizes is empty";
  for (std::size_t i = 0; i < table.size(); ++i) {
    if (i > 0 && table[i].bytes <= table[i - 1].bytes) {
      return fmt::format("sizes are not strictly increasing: entry {} ({} bytes) follows {} bytes",
                         i, table[i].bytes, table[i - 1].bytes);
    }
    if (auto reason = bad_point(table[i])) return reason;
    const std::pair<std::string_view, double> fractions[] = {
        {"fanout_share", table[i].fanout_share}, {"pair_share", table[i].pair_share}};
    for (const auto& [name, f] : fractions) {
      if (!(f >= 0.0 && f <= 1.0)) {
        return fmt::format("{} at {} bytes is {} (a fraction: between 0 and 1)", name,
                           table[i].bytes, f);
      }
    }
  }
  return std::nullopt;
}

}  // namespace collsel::models::plogp
