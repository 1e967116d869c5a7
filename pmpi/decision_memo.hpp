// The decisions taken for call shapes, remembered per private communicator and shared by every
// user communicator bound to it (pmpi/private_comms.hpp), so that a new communicator over a group
// reuses the decision an earlier one took instead of evaluating every model again.
//
// Why sharing is safe: what a shape's decision yields (decide(), adapt_ranking() and the learned
// table's starting point) is a pure function of the shape {collective, P, bytes, root}, the model,
// the configuration and the group's placement. All of them are equal on every rank (STYLE.md 8.5
// #17: the shape holds rank-invariant values, every rank parsed the same config, model and learned
// bytes, the placement was gathered once per private communicator), and all of them are the same
// for every user communicator over the group: decide() reads no clock, no environment, no random
// numbers, no state of its own. So a memo hit on one rank and a fresh decide() on another give the
// same answer. A rank-local *failure* (an allocation in decide()) is still possible on one rank
// only; the runtime agrees on it (runtime.cpp, choose(); the binding's allreduce for a
// communicator's first shape), whether the decision came from here or not.
//
// Not shared: the [adapt] monitors. Their agreed points count calls per user communicator; two
// communicators feeding one monitor would reach its points after different calls on ranks that
// interleave them differently (threads), and then disagree on the algorithm.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "selector/adapt.hpp"
#include "selector/collective.hpp"
#include "selector/decide.hpp"
#include "selector/registry.hpp"

namespace collsel::pmpi {

// The part of a Decision the hot path needs.
struct Choice {
  RegistryRow row;  // the registry row to run; none: the native routine
  AlgoParams params;
  Rung rung = Rung::native;
  double predicted_s = 0.0;  // NaN when no model applies
  bool simulated = false;    // predicted by simulating the schedule on the placement
  std::string_view name = kNativeName;
  bool moved_segment = false;  // a trial's segment, not the model's (named with it when learned)
};

// What one call shape's decision gives every communicator over the group.
struct Decided {
  std::vector<Choice> ranking;  // at least one entry: the model's choice, then its runners-up
  // What a shape's [adapt] monitor is built from: the ranking's entries (empty: the shape is not
  // monitored) and where it starts (a learned choice and its measured time), if anywhere.
  std::vector<MonitorEntry> monitor_entries;
  std::optional<std::pair<int, double>> monitor_start;
};

// Within one communicator (and so one private communicator) P is fixed: the other fields.
struct ShapeHash {
  std::size_t operator()(const CallShape& s) const noexcept;
};

// Thread-safe: user communicators bound to one private communicator may decide at once on
// different threads (MPI_THREAD_MULTIPLE). Two threads deciding the same shape both store it;
// their entries are equal, so which one stays does not matter.
class DecisionMemo {
 public:
  // Null when the shape was not decided here (or the memo started over).
  std::shared_ptr<const Decided> find(const CallShape& shape) const;
  // Best effort: an entry that cannot be stored (no memory) costs a later decide(), never a
  // different decision, so nothing here needs the ranks' agreement.
  void keep(const CallShape& shape, std::shared_ptr<const Decided> decided) noexcept;

 private:
  // As the communicators' caches: past it the memo starts over (only costs decide() calls).
  static constexpr std::size_t kCapacity = 256;
  mutable std::mutex mutex_;
  std::unordered_map<CallShape, std::shared_ptr<const Decided>, ShapeHash> map_;
};

}  // namespace collsel::pmpi
