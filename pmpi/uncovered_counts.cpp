#include "pmpi/uncovered_counts.hpp"

#include <cmath>

namespace collsel::pmpi::uncovered {
namespace {

// Nanoseconds as integers: an atomic add of a uint64 is one instruction, and 2^64 ns is 584
// years of collective time.
struct Counter {
  std::atomic<std::uint64_t> calls{0};
  std::atomic<std::uint64_t> ns{0};
};

constinit std::array<Counter, kFunctions> g_counters{};

}  // namespace

void add(Id id, double seconds) noexcept {
  Counter& c = g_counters[static_cast<std::size_t>(id)];
  c.calls.fetch_add(1, std::memory_order_relaxed);
  // A clock step backwards must not wrap the sum.
  const double ns = seconds > 0.0 ? std::round(seconds * 1e9) : 0.0;
  c.ns.fetch_add(static_cast<std::uint64_t>(ns), std::memory_order_relaxed);
}

std::vector<Count> snapshot() {
  std::vector<Count> out;
  for (std::size_t i = 0; i < kFunctions; ++i) {
    const std::uint64_t calls = g_counters[i].calls.load(std::memory_order_relaxed);
    if (calls == 0) continue;
    out.push_back({kFunctionTable[i].name, kFunctionTable[i].timing, calls,
                   static_cast<double>(g_counters[i].ns.load(std::memory_order_relaxed)) * 1e-9});
  }
  return out;
}

void reset() noexcept {
  for (Counter& c : g_counters) {
    c.calls.store(0, std::memory_order_relaxed);
    c.ns.store(0, std::memory_order_relaxed);
  }
}

}  // namespace collsel::pmpi::uncovered
