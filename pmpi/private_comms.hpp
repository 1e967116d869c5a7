// collsel's private communicators, shared by every user communicator over the same ordered group
// (issue 20): a program that duplicates MPI_COMM_WORLD 2,000 times costs collsel one
// communicator, not 2,000, so collsel never takes the context ids a program needs.
//
// How a user communicator C finds its private communicator X and its tags (prepare() then
// complete(), one collective over C, inside the first served call on C, where every rank of C is
// by definition):
//  - each rank looks up, under the table's mutex, its current X for C's group (the ordered list of
//    C's members as MPI_COMM_WORLD ranks) and pins it so it cannot be freed meanwhile;
//  - rank 0 of C (always the same process for a group: the group is ordered) also takes the next
//    slot of its X. Slots are never reused while X lives: a slot is a range of kTagsPerSlot tags,
//    so a freed communicator's late messages can never match a new communicator's receives;
//  - everything this rank may need after the allreduce is made before it (the object of a new X,
//    room in the table, and the caller's own share: its context, the call's decision), so that a
//    failure there (an allocation) is this rank's alone and is said in its contribution;
//  - one PMPI_Allreduce(BOR) over C carries every rank's X generation g and ~g (all equal iff
//    (OR g) & (OR ~g) == 0), what it could not do (no room for one more private communicator, a
//    failed preparation, a failed decision of the call's shape), and rank 0's slot, communicator
//    id and new generation. The outcome is a function of that one result, so every rank takes the
//    same branch: bind to the agreed X and slot; or, when the ranks do not agree on an X (none
//    yet, rank 0's is out of slots, or threads raced), make a new one by PMPI_Comm_dup(C) with
//    errors returned; or run native when some rank is at [runtime] max_private_comms or failed
//    to prepare. After the allreduce nothing allocates but the steps of a new X, whose outcomes
//    the ranks agree on again (the dup's, the placement gather's), so no rank can leave the
//    outcome alone.
// Nothing is derived from rank-local order: under MPI_THREAD_MULTIPLE two threads may make the
// first calls on two duplicates in different orders on different ranks; they then disagree on g
// (at worst) and make one more X, which is correct, never a mismatch.
//
// Why sharing X stays correct under MPI_THREAD_MULTIPLE: calls on different user communicators
// may run concurrently on one X, but each uses only its own slot's tags with explicit sources
// (no MPI_ANY_TAG, no MPI_ANY_SOURCE anywhere in collsel), and MPI matches a receive by (source,
// tag, communicator) with non-overtaking order per (source, tag, communicator): a message of one
// user communicator can only match a receive of the same user communicator, and calls of one
// user communicator are never concurrent (MPI forbids concurrent collectives on one
// communicator), so within a slot the order is the program's. collsel never runs a collective
// on a shared X after it is published: the placement gather happens before, and the [adapt]
// agreement uses the slot's tags (CommContext::agree_slowest).
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/contention/schedule.hpp"
#include "pmpi/bind_agreement.hpp"
#include "pmpi/decision_memo.hpp"

namespace collsel::pmpi {

// Tags per user communicator on a shared private communicator: data, rendezvous request and
// ready (selector/calls.hpp), and the [adapt] agreement.
inline constexpr int kTagsPerSlot = 4;

// One private communicator over one ordered group.
struct SharedComm {
  SharedComm() = default;
  ~SharedComm();  // frees `comm` unless MPI is finalized
  SharedComm(const SharedComm&) = delete;
  SharedComm& operator=(const SharedComm&) = delete;

  MPI_Comm comm = MPI_COMM_NULL;
  std::uint64_t generation = 0;  // made by the group's rank 0, unique per group; never 0
  std::vector<int> group;        // the members as MPI_COMM_WORLD ranks; empty: not shareable
  std::optional<models::contention::Placement> placement;
  // The decisions of the user communicators bound to it (its own lock): they share the group's
  // placement, so they share decide()'s results (pmpi/decision_memo.hpp).
  mutable DecisionMemo decisions;
  // Below: under PrivateComms::mutex_.
  int users = 0;                 // bound user communicators and pins of bindings in progress
  std::uint64_t next_slot = 0;   // rank 0 of the group only: slots are handed out once
  std::uint64_t idle_since = 0;  // LRU stamp, when users dropped to 0
};

class PrivateComms;

// A user communicator's claim on a slot of a shared private communicator; frees its share on
// destruction (the user communicator's attribute delete callback). Movable, so that the outcome
// of a binding carries it without an allocation.
class Binding {
 public:
  Binding(PrivateComms& table, std::shared_ptr<SharedComm> shared, int tag_base) noexcept
      : table_(&table), shared_(std::move(shared)), tag_base_(tag_base) {}
  ~Binding();
  Binding(Binding&& other) noexcept
      : table_(std::exchange(other.table_, nullptr)), shared_(std::move(other.shared_)),
        tag_base_(other.tag_base_) {}
  Binding& operator=(Binding&&) = delete;
  Binding(const Binding&) = delete;
  Binding& operator=(const Binding&) = delete;

  MPI_Comm comm() const { return shared_->comm; }
  int tag_base() const { return tag_base_; }
  const SharedComm& shared() const { return *shared_; }

 private:
  PrivateComms* table_;  // null once moved from
  std::shared_ptr<SharedComm> shared_;
  int tag_base_;
};

// What the binding's allreduce agreed for one user communicator.
struct BindOutcome {
  std::optional<Binding> binding;  // none: this communicator's calls run native
  std::array<char, 32> id{};       // run-wide name of the user communicator (rank 0's)
  bool created = false;            // a new private communicator was made for it
  bool shape_decided = true;       // no rank reported PendingBind::undecided()
};

// Private communicators of one group (or of the groups that cannot be shared), with room made
// ahead for the ones bindings in progress may add: complete() adds without allocating.
struct GroupComms {
  std::vector<std::shared_ptr<SharedComm>> comms;  // oldest first
  int reserved = 0;                                // bindings in progress that may add one
};

// One rank's binding of a user communicator between PrivateComms::prepare() and complete(). The
// caller prepares its own share in between (its context, the call's decision) without throwing,
// and says what failed with fail() or undecided(): the contribution carries it.
class PendingBind {
 public:
  PendingBind(PendingBind&& other) noexcept;
  PendingBind& operator=(PendingBind&&) = delete;
  PendingBind(const PendingBind&) = delete;
  PendingBind& operator=(const PendingBind&) = delete;
  ~PendingBind();  // a binding never completed gives its pin and its room back

  int rank() const { return rank_; }
  int size() const { return size_; }
  bool prepared() const { return (mine_[kFlags] & kUnprepared) == 0; }
  // This rank's current private communicator for the group (nullptr: none): the one the user
  // communicator gets if the verdict is `bind`, with its placement and its decisions.
  const SharedComm* current() const { return pinned_.get(); }
  // This rank cannot bind (`what` failed): every rank runs the communicator natively; said once
  // per process, by this rank.
  void fail(const char* what) noexcept;
  // This rank could not decide the call's shape: every rank runs this call natively.
  void undecided() noexcept { mine_[kFlags] |= kUndecided; }

 private:
  friend class PrivateComms;
  PendingBind(PrivateComms& table, MPI_Comm user, int world_rank) noexcept
      : table_(&table), user_(user), world_rank_(world_rank) {}

  PrivateComms* table_;  // null once completed or moved from
  MPI_Comm user_;
  int world_rank_;
  int rank_ = 0;
  int size_ = 1;
  std::vector<int> group_;
  std::shared_ptr<SharedComm> pinned_;  // counted in its `users` while pending
  std::shared_ptr<SharedComm> spare_;   // the object of a new private communicator, if made
  GroupComms* room_ = nullptr;          // where that one would go; counted in its `reserved`
  BindWords mine_{};
};

class PrivateComms {
 public:
  // `max_comms` ([runtime] max_private_comms) and `tag_ub` (MPI_TAG_UB) are equal on all ranks.
  // `fail_locally`: the test hook (COLLSEL_TEST_FAIL=bind@RANK, pmpi/startup.hpp) making this
  // rank's preparation of every binding throw, as an allocation failure would.
  PrivateComms(int max_comms, int tag_ub, bool gather_placement, bool fail_locally = false)
      : max_comms_(max_comms), gather_placement_(gather_placement), fail_locally_(fail_locally),
        slots_per_comm_(static_cast<std::uint64_t>(tag_ub) / kTagsPerSlot) {}
  ~PrivateComms() = default;
  PrivateComms(const PrivateComms&) = delete;
  PrivateComms& operator=(const PrivateComms&) = delete;

  // This rank's half of binding `user` (an intracommunicator), local; a failure is recorded in
  // the result, never thrown. `serial` names the communicator in the log when this is rank 0.
  PendingBind prepare(MPI_Comm user, int world_rank, std::uint64_t serial) noexcept;
  // Collective over the user communicator: the allreduce and its outcome (see the file comment).
  // Allocates nothing after the allreduce; every rank returns the same verdict.
  BindOutcome complete(PendingBind& pending);

  // Frees the private communicators no user communicator holds (before MPI_Finalize).
  void free_idle();
  // Held now (bound or idle), for tests and the log.
  int held() const;

 private:
  friend class Binding;
  friend class PendingBind;
  void release(const std::shared_ptr<SharedComm>& shared);
  // Gives back a pending binding's pin and room (complete() or its abandonment).
  void settle(PendingBind& pending);
  void note_unprepared(int world_rank, const char* what) noexcept;
  // Below, under mutex_.
  std::shared_ptr<SharedComm> current(const std::vector<int>& group);
  GroupComms& room_for(const std::vector<int>& group);
  int idle_count() const;
  void evict_oldest_idle();
  // Not under mutex_: collective over `user`; null when the dup failed on some rank. `shared` is
  // the object prepared for it; `group` is moved into it on success only.
  std::shared_ptr<SharedComm> create(MPI_Comm user, int user_rank, std::uint64_t generation,
                                     std::vector<int>& group, std::shared_ptr<SharedComm> shared);
  // Prints `message()` once per process from the communicator's rank 0; never throws.
  template <class Message>
  void note_once(int user_rank, bool world_rank_0_only, bool& flag, Message message) noexcept;

  const int max_comms_;
  const bool gather_placement_;
  const bool fail_locally_;
  const std::uint64_t slots_per_comm_;
  mutable std::mutex mutex_;
  // Per group, its private communicators; the one of the highest generation is the current one.
  std::map<std::vector<int>, GroupComms> by_group_;
  // Private communicators of groups that cannot be shared (members outside MPI_COMM_WORLD).
  GroupComms unshared_;
  // One prepared SharedComm object a binding did not use, for the next one.
  std::shared_ptr<SharedComm> spare_;
  int held_ = 0;      // private communicators alive on this rank
  int reserved_ = 0;  // room reserved by bindings in progress
  std::uint64_t clock_ = 0;
  std::uint64_t next_generation_ = 1;
  bool noted_limit_ = false;
  bool noted_failure_ = false;
  bool noted_local_ = false;
  bool noted_placement_ = false;
};

}  // namespace collsel::pmpi
