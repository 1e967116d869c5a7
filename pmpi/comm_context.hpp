// What collsel keeps per user communicator (STYLE.md 8.5 #19): its binding to the private
// communicator its messages travel on (shared with the other user communicators over the same
// group, each with its own tags: pmpi/private_comms.hpp), the run-wide id of the communicator, the
// call counter, and a small decision cache so a repeated call costs a lookup rather than a model
// evaluation (the decisions themselves are shared over the group: pmpi/decision_memo.hpp).
// Attached to the user's communicator with an attribute keyval, freed with it. A context without
// a binding (max_private_comms reached, collsel's dup failed, or a rank failed to prepare the
// binding) runs every call native, on every rank alike.
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pmpi/private_comms.hpp"
#include "selector/adapt.hpp"
#include "selector/decide.hpp"
#include "selector/learned.hpp"
#include "selector/policy.hpp"
#include "selector/registry.hpp"

namespace collsel::pmpi {

// Up to this many ranks an agreement is one round of every rank sending to every other
// (comm_context.cpp says why), which can be started now and completed some calls later.
inline constexpr int kAllExchangeRanks = 16;

// The buffers and requests of one all-exchange round of an agreement: on the stack for an
// immediate one (CommContext::agree_slowest), on the heap for one started without waiting
// (ShapeState::deferred, ShapeMonitor::defer), so that they stay put while MPI fills them.
// AdaptSample's fields, in the order they travel.
inline constexpr std::size_t kAgreeFields = 3;
using AgreeValues = std::array<double, kAgreeFields>;

struct DeferredAgreement {
  bool active = false;
  AgreeValues mine{};
  std::array<AgreeValues, kAllExchangeRanks> others{};
  std::array<MPI_Request, 2 * kAllExchangeRanks> requests{};
  int n_requests = 0;
};

// What a communicator keeps per call shape: the decision (the model's choice and, when [adapt]
// is on, the runners-up the monitor may try), shared with the other communicators over the group
// (pmpi/decision_memo.hpp), and the monitor itself, which is this communicator's own.
struct ShapeState {
  // Null: the native routine. That is what a shape becomes, on every rank alike, when its
  // decision failed on one of them (runtime.cpp, choose()); it needs no allocation, so that
  // fallback cannot fail in turn.
  std::shared_ptr<const Decided> decided;
  std::optional<ShapeMonitor> monitor;
  // The monitor's deferred agreement (communicators of up to kAllExchangeRanks ranks), allocated
  // with the decision, whose failure on any rank every rank agrees on: starting one then needs no
  // allocation that could fail on one rank and leave the others waiting for its messages.
  std::unique_ptr<DeferredAgreement> deferred;
  // When the shape's latest call ended on this rank (PMPI_Wtime), for the monitor's gap.
  std::optional<double> last_end_s;

  // What the coming call runs, with its rung (measured or explore when the monitor moved off the
  // model's choice).
  [[nodiscard]] Choice current() const {
    if (!decided) return Choice{};
    if (!monitor) return decided->ranking.front();
    const AdaptStep step = monitor->step();
    Choice c = decided->ranking[static_cast<std::size_t>(step.candidate)];
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
  // Made before the binding's allreduce (so that its allocation is agreed on), bound after it.
  CommContext(int rank, int size) : rank_(rank), size_(size) {}
  // Completes a deferred agreement still in flight (its result is not needed any more): every
  // rank of the communicator started it, and frees the communicator or finalizes too.
  ~CommContext() { settle_all(false); }
  CommContext(const CommContext&) = delete;
  CommContext& operator=(const CommContext&) = delete;

  // What PrivateComms::complete agreed for the user communicator (no binding: native).
  void attach(BindOutcome&& bound) noexcept {
    if (bound.binding) binding_.emplace(std::move(*bound.binding));
    id_ = bound.id;
  }

  // False: every call on this communicator runs native (the same on all its ranks).
  bool served() const { return binding_.has_value(); }
  MPI_Comm comm() const { return binding_ ? binding_->comm() : MPI_COMM_NULL; }
  int tag_base() const { return binding_ ? binding_->tag_base() : 0; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  const char* id() const { return id_.data(); }
  std::uint64_t next_seq() { return seq_++; }
  // The private communicator (its placement, its decisions); nullptr when not served.
  const SharedComm* shared() const { return binding_ ? &binding_->shared() : nullptr; }
  // `local` merged over the communicator's ranks with merge_agreed() (the slowest rank's mean
  // and its error, the largest gap), by point-to-point on this communicator's own agreement tag:
  // a collective on the shared private communicator could meet another user communicator's
  // collective from another thread.
  AdaptSample agree_slowest(const AdaptSample& local) const;
  // The same reduction without waiting, for the shape's monitor, which defer()s its agreement
  // and is handed the result by settle() when its apply_due() says so. False (the caller agrees
  // at once): a communicator of more than kAllExchangeRanks ranks, whose reduction is a tree that
  // would need this rank's help on the way, or a shape without the buffers.
  bool start_deferred(ShapeState& state, const AdaptSample& local) const;
  // Waits for the shape's deferred agreement, if one is in flight, and (apply) hands the result
  // to its monitor.
  void settle(ShapeState& state, bool apply = true) const;
  // settle() for every cached shape (MPI_Finalize, the communicator's end, the cache's reset).
  void settle_all(bool apply = true);

  // nullptr when the shape is not cached yet.
  ShapeState* cached(const CallShape& shape) noexcept;
  ShapeState& remember(const CallShape& shape, ShapeState state);
  // Drops a shape's entry (never allocates, never throws): the next call decides it afresh.
  void forget(const CallShape& shape) noexcept {
    if (ShapeState* st = cached(shape)) settle(*st, false);
    cache_.erase(shape);
  }
  // What the monitors of this communicator learned, including shapes the cache let go of.
  [[nodiscard]] std::vector<LearnedShape> learned() const;

  // The runtime's list of contexts whose monitors may learn something (runtime.cpp): intrusive,
  // so that joining it after the binding's agreement cannot fail. Under the runtime's lock.
  struct LiveLink {
    CommContext* prev = nullptr;
    CommContext* next = nullptr;
    bool linked = false;
  } live;

 private:
  // The all-exchange round of an agreement (up to kAllExchangeRanks ranks), shared by the
  // immediate and the deferred ones: post every receive and send of `local`, then wait for them
  // and take the MAX of each field.
  void post_exchange(DeferredAgreement& d, const AdaptSample& local) const;
  AdaptSample finish_exchange(DeferredAgreement& d) const;

  // Enough for the distinct (collective, size, root) shapes of real programs; past it the cache
  // starts over, which only costs model evaluations, never a different decision (every rank
  // starts over at the same call), and a monitored shape starts its monitoring again.
  static constexpr std::size_t kCacheCapacity = 256;

  std::optional<Binding> binding_;
  int rank_ = 0;
  int size_ = 1;
  std::array<char, 32> id_{};
  std::uint64_t seq_ = 0;
  std::unordered_map<CallShape, ShapeState, ShapeHash> cache_;
  std::vector<LearnedShape> evicted_;  // monitored shapes the cache let go of
};

}  // namespace collsel::pmpi
