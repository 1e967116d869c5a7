#include "models/plogp/bcast.hpp"

#include <bit>

#include "models/plogp/scatter.hpp"

namespace collsel::models::plogp {
namespace {

// Nothing is sent for a lone rank or an empty message, so every model costs 0 there; this also
// keeps log2 and (P - 1) away from their degenerate values.
bool nothing_sent(int P, std::uint64_t m) { return P <= 1 || m == 0; }

// Segments of the segmented models. No segment size, or one at least as large as the message,
// is one segment of the whole message, so each segmented model reduces to its plain twin.
struct Segments {
  std::uint64_t size;
  double count;
};

Segments split(std::uint64_t m, std::uint64_t s) {
  if (s == 0 || s >= m) return {m, 1.0};
  return {s, static_cast<double>(ceil_div(m, s))};
}

double others(int P) { return static_cast<double>(P - 1); }

// The request and the acknowledgement are each a 1-byte message (g(1) + L each) before the data
// message's own L: 2 g(1) + 3 L per rendezvous hop (seed 001 Table 1).
double handshake(const Params& p) { return 2.0 * p.gap_s(1) + 3.0 * p.latency_s; }

}  // namespace

int floor_log2(std::uint64_t x) { return x <= 1 ? 0 : std::bit_width(x) - 1; }

int ceil_log2(std::uint64_t x) { return x <= 1 ? 0 : std::bit_width(x - 1); }

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) {
  if (b == 0) b = 1;
  // a / b + remainder test: a + b - 1 would overflow near 2^64.
  return a / b + (a % b != 0 ? 1 : 0);
}

double bcast_flat(const Params& p, int P, std::uint64_t m) {
  if (nothing_sent(P, m)) return 0.0;
  return others(P) * p.gap_s(m) + p.latency_s;
}

double bcast_flat_rendezvous(const Params& p, int P, std::uint64_t m) {
  if (nothing_sent(P, m)) return 0.0;
  return others(P) * p.gap_s(m) + handshake(p);
}

double bcast_flat_segmented(const Params& p, int P, std::uint64_t m, std::uint64_t s) {
  if (nothing_sent(P, m)) return 0.0;
  const Segments seg = split(m, s);
  return others(P) * (p.gap_s(seg.size) * seg.count) + p.latency_s;
}

double bcast_chain(const Params& p, int P, std::uint64_t m) {
  if (nothing_sent(P, m)) return 0.0;
  return others(P) * (p.gap_s(m) + p.latency_s);
}

double bcast_chain_rendezvous(const Params& p, int P, std::uint64_t m) {
  if (nothing_sent(P, m)) return 0.0;
  return others(P) * (p.gap_s(m) + handshake(p));
}

double bcast_chain_segmented(const Params& p, int P, std::uint64_t m, std::uint64_t s) {
  if (nothing_sent(P, m)) return 0.0;
  const Segments seg = split(m, s);
  const double g = p.gap_s(seg.size);
  // The first segment crosses P - 1 hops; each further one arrives one gap later (pipeline).
  return others(P) * (g + p.latency_s) + g * (seg.count - 1.0);
}

double bcast_binary(const Params& p, int P, std::uint64_t m) {
  if (nothing_sent(P, m)) return 0.0;
  // Each level sends to two children one after the other: 2 g(m), then L to the deeper one.
  const auto depth = static_cast<double>(floor_log2(static_cast<std::uint64_t>(P)));
  return depth * (2.0 * p.gap_s(m) + p.latency_s);
}

double bcast_binomial(const Params& p, int P, std::uint64_t m) {
  if (nothing_sent(P, m)) return 0.0;
  const auto P64 = static_cast<std::uint64_t>(P);
  return floor_log2(P64) * p.gap_s(m) + ceil_log2(P64) * p.latency_s;
}

double bcast_binomial_rendezvous(const Params& p, int P, std::uint64_t m) {
  if (nothing_sent(P, m)) return 0.0;
  const auto P64 = static_cast<std::uint64_t>(P);
  return floor_log2(P64) * p.gap_s(m) + ceil_log2(P64) * handshake(p);
}

double bcast_binomial_segmented(const Params& p, int P, std::uint64_t m, std::uint64_t s) {
  if (nothing_sent(P, m)) return 0.0;
  const auto P64 = static_cast<std::uint64_t>(P);
  const Segments seg = split(m, s);
  return floor_log2(P64) * p.gap_s(seg.size) * seg.count + ceil_log2(P64) * p.latency_s;
}

double bcast_scatter_allgather(const Params& p, int P, std::uint64_t m) {
  if (nothing_sent(P, m)) return 0.0;
  const std::uint64_t c = ceil_div(m, static_cast<std::uint64_t>(P));
  return scatter_binomial(p, P, c) + (P - 1) * (p.gap_s(c) + p.latency_s);
}

}  // namespace collsel::models::plogp
