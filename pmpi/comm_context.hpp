// What collsel keeps per user communicator (STYLE.md 8.5 #19): its binding to the private
// communicator its messages travel on (shared with the other user communicators over the same
// group, each with its own tags: pmpi/private_comms.hpp), the run-wide id of the communicator, the
// call counter, and a small decision cache so a repeated call costs a lookup rather than a model
// evaluation. Attached to the user's communicator with an attribute keyval, freed with it. A
// context without a binding (max_private_comms reached, or collsel's dup failed) runs every call
// native, on every rank alike.
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "models/contention/schedule.hpp"
#include "pmpi/private_comms.hpp"
#include "selector/adapt.hpp"
#include "selector/decide.hpp"
#include "selector/learned.hpp"
#include "selector/policy.hpp"
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
};

// What a communicator keeps per call shape: the model's choice and, when [adapt] is on, the
// runners-up the monitor may try (ranking[0] is the model's choice) and the monitor itself.
struct ShapeState {
  std::vector<Choice> ranking;  // at least one entry
  std::optional<ShapeMonitor> monitor;

  // What the coming call runs, with its rung (measured or explore when the monitor moved off the
  // model's choice). An empty ranking is the native routine: what a shape becomes, on every rank
  // alike, when its decision failed on one of them (runtime.cpp, choose()); it needs no
  // allocation, so that fallback cannot fail in turn.
  [[nodiscard]] Choice current() const {
    if (ranking.empty()) return Choice{};
    if (!monitor) return ranking.front();
    const AdaptStep step = monitor->step();
    Choice c = ranking[static_cast<std::size_t>(step.candidate)];
    if (step.exploring) {
      c.rung = Rung::explore;
    } else if (step.candidate != 0) {
      c.rung = Rung::measured;
    }
    return c;
  }
  // The monitor's outcome in the learned table's terms; nothing without a monitor.
  [[nodiscard]] std::optional<LearnedShape> learned(const CallShape& shape) const;
};

class CommContext {
 public:
  // `bound` is what PrivateComms::bind agreed for `user_comm` (no binding: native).
  CommContext(MPI_Comm user_comm, BindOutcome bound);
  ~CommContext() = default;
  CommContext(const CommContext&) = delete;
  CommContext& operator=(const CommContext&) = delete;

  // False: every call on this communicator runs native (the same on all its ranks).
  bool served() const { return binding_ != nullptr; }
  MPI_Comm comm() const { return binding_ ? binding_->comm() : MPI_COMM_NULL; }
  int tag_base() const { return binding_ ? binding_->tag_base() : 0; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  const char* id() const { return id_.data(); }
  std::uint64_t next_seq() { return seq_++; }
  // True once: this call is the communicator's first (its set-up is logged with it).
  bool first_call() { return std::exchange(first_call_, false); }
  // Rank -> node of this communicator; nullptr when it was not gathered.
  const models::contention::Placement* placement() const {
    return binding_ && binding_->shared().placement ? &*binding_->shared().placement : nullptr;
  }
  // The maximum of `local` over the communicator's ranks, by point-to-point on this
  // communicator's own agreement tag: a collective on the shared private communicator could
  // meet another user communicator's collective from another thread.
  double agree_max(double local) const;

  // nullptr when the shape is not cached yet.
  ShapeState* cached(const CallShape& shape);
  ShapeState& remember(const CallShape& shape, ShapeState state);
  // Drops a shape's entry (never allocates, never throws): the next call decides it afresh.
  void forget(const CallShape& shape) noexcept { cache_.erase(shape); }
  // What the monitors of this communicator learned, including shapes the cache let go of.
  [[nodiscard]] std::vector<LearnedShape> learned() const;

 private:
  struct ShapeHash {
    std::size_t operator()(const CallShape& s) const noexcept;
  };
  // Enough for the distinct (collective, size, root) shapes of real programs; past it the cache
  // starts over, which only costs model evaluations, never a different decision (every rank
  // starts over at the same call), and a monitored shape starts its monitoring again.
  static constexpr std::size_t kCacheCapacity = 256;

  std::unique_ptr<Binding> binding_;
  int rank_ = 0;
  int size_ = 1;
  std::array<char, 32> id_{};
  std::uint64_t seq_ = 0;
  bool first_call_ = true;
  std::unordered_map<CallShape, ShapeState, ShapeHash> cache_;
  std::vector<LearnedShape> evicted_;  // monitored shapes the cache let go of
};

}  // namespace collsel::pmpi
