// What collsel keeps per user communicator (STYLE.md 8.5 #19): the private duplicate its own
// messages travel on, the run-wide id of the communicator, the call counter, the placement of its
// ranks on nodes (when the model simulates schedules), and a small decision cache so a repeated
// call costs a lookup rather than a model evaluation. Attached to the user's communicator with an
// attribute keyval, freed with it.
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "models/contention/schedule.hpp"
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
  // Collective over `user_comm`: duplicates it and agrees on the id made by its rank 0. With
  // `gather_placement` (equal on all ranks: it comes from the model every rank parsed), it also
  // gathers every rank's processor name once, so decisions can simulate schedules on the
  // communicator's real placement.
  CommContext(MPI_Comm user_comm, int creator_world_rank, std::uint64_t creator_serial,
              bool gather_placement = false);
  ~CommContext();
  CommContext(const CommContext&) = delete;
  CommContext& operator=(const CommContext&) = delete;

  MPI_Comm comm() const { return private_comm_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  const char* id() const { return id_.data(); }
  std::uint64_t next_seq() { return seq_++; }
  // Rank -> node of this communicator; nullptr when it was not gathered.
  const models::contention::Placement* placement() const {
    return placement_ ? &*placement_ : nullptr;
  }

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

  MPI_Comm private_comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
  std::array<char, 32> id_{};
  std::uint64_t seq_ = 0;
  std::optional<models::contention::Placement> placement_;
  std::unordered_map<CallShape, ShapeState, ShapeHash> cache_;
  std::vector<LearnedShape> evicted_;  // monitored shapes the cache let go of
};

}  // namespace collsel::pmpi
