#include "pmpi/uncovered_counts.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>

namespace collsel::pmpi::uncovered {
namespace {

using summary_table::Uncovered;

// Nanoseconds as integers: an atomic add of a uint64 is one instruction, and 2^64 ns is 584
// years of collective time. Process memory until attach(), then the summary table file's cells.
constinit std::array<Uncovered, kFunctions> g_memory{};
constinit std::atomic<Uncovered*> g_cells{g_memory.data()};

std::uint64_t load(std::uint64_t& v) {
  return std::atomic_ref(v).load(std::memory_order_relaxed);
}
void store(std::uint64_t& v, std::uint64_t value) {
  std::atomic_ref(v).store(value, std::memory_order_relaxed);
}

// Carries the counts of `from` over to `to` and makes `to` the counters.
void move_counts(Uncovered* from, Uncovered* to) noexcept {
  for (std::size_t i = 0; i < kFunctions; ++i) {
    store(to[i].calls, load(from[i].calls));
    store(to[i].ns, load(from[i].ns));
  }
  g_cells.store(to, std::memory_order_release);
}

}  // namespace

void add(Id id, double seconds) noexcept {
  Uncovered& c = g_cells.load(std::memory_order_acquire)[static_cast<std::size_t>(id)];
  std::atomic_ref(c.calls).fetch_add(1, std::memory_order_relaxed);
  // A clock step backwards must not wrap the sum.
  const double ns = seconds > 0.0 ? std::round(seconds * 1e9) : 0.0;
  std::atomic_ref(c.ns).fetch_add(static_cast<std::uint64_t>(ns), std::memory_order_relaxed);
}

std::vector<Count> snapshot(bool with_not_served) {
  Uncovered* cells = g_cells.load(std::memory_order_acquire);
  std::vector<Count> out;
  for (std::size_t i = 0; i < kFunctions; ++i) {
    const std::uint64_t calls = load(cells[i].calls);
    if (calls == 0) continue;
    if (!with_not_served && kFunctionTable[i].reason == Reason::not_served) continue;
    out.push_back({kFunctionTable[i].name, kFunctionTable[i].timing, kFunctionTable[i].reason,
                   calls, static_cast<double>(load(cells[i].ns)) * 1e-9});
  }
  return out;
}

void reset() noexcept {
  Uncovered* cells = g_cells.load(std::memory_order_acquire);
  for (std::size_t i = 0; i < kFunctions; ++i) {
    store(cells[i].calls, 0);
    store(cells[i].ns, 0);
  }
}

void attach(std::span<Uncovered, kFunctions> cells, bool with_not_served) noexcept {
  for (std::size_t i = 0; i < kFunctions; ++i) {
    const Function& f = kFunctionTable[i];
    Uncovered& c = cells[i];
    const std::size_t n = std::min(f.name.size(), c.function.size() - 1);
    std::copy_n(f.name.begin(), n, c.function.begin());
    c.timing = f.timing == Timing::whole ? summary_table::kTimingWhole
                                         : summary_table::kTimingInitiation;
    c.reason = f.reason == Reason::not_served ? summary_table::kReasonNotServed
                                              : summary_table::kReasonBeforeServing;
    c.counted = with_not_served || f.reason == Reason::before_serving ? 1 : 0;
  }
  move_counts(g_cells.load(std::memory_order_acquire), cells.data());
}

void detach(const Uncovered* cells) noexcept {
  Uncovered* current = g_cells.load(std::memory_order_acquire);
  if (current != cells || current == g_memory.data()) return;  // another log's, or none
  move_counts(current, g_memory.data());
}

}  // namespace collsel::pmpi::uncovered
