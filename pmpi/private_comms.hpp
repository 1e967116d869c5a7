// collsel's private communicators, shared by every user communicator over the same ordered group
// (issue 20): a program that duplicates MPI_COMM_WORLD 2,000 times costs collsel one
// communicator, not 2,000, so collsel never takes the context ids a program needs.
//
// How a user communicator C finds its private communicator X and its tags (bind(), one
// collective over C, inside the first served call on C, where every rank of C is by definition):
//  - each rank looks up, under the table's mutex, its current X for C's group (the ordered list of
//    C's members as MPI_COMM_WORLD ranks) and pins it so it cannot be freed meanwhile;
//  - rank 0 of C (always the same process for a group: the group is ordered) also takes the next
//    slot of its X. Slots are never reused while X lives: a slot is a range of kTagsPerSlot tags,
//    so a freed communicator's late messages can never match a new communicator's receives;
//  - one PMPI_Allreduce(BOR) over C carries every rank's X generation g and ~g (all equal iff
//    (OR g) & (OR ~g) == 0), whether the rank could hold one more private communicator, and rank
//    0's slot, communicator id and new generation. The outcome is a function of that one result,
//    so every rank takes the same branch: bind to the agreed X and slot; or, when the ranks do
//    not agree on an X (none yet, rank 0's is out of slots, or threads raced), make a new one by
//    PMPI_Comm_dup(C) with errors returned; or run native when some rank is at
//    [runtime] max_private_comms.
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
// agreement uses the slot's tags (CommContext::agree_max).
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "models/contention/schedule.hpp"

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
  // Below: under PrivateComms::mutex_.
  int users = 0;                 // bound user communicators and pins of bind() in progress
  std::uint64_t next_slot = 0;   // rank 0 of the group only: slots are handed out once
  std::uint64_t idle_since = 0;  // LRU stamp, when users dropped to 0
};

class PrivateComms;

// A user communicator's claim on a slot of a shared private communicator; frees its share on
// destruction (the user communicator's attribute delete callback).
class Binding {
 public:
  Binding(PrivateComms& table, std::shared_ptr<SharedComm> shared, int tag_base)
      : table_(&table), shared_(std::move(shared)), tag_base_(tag_base) {}
  ~Binding();
  Binding(const Binding&) = delete;
  Binding& operator=(const Binding&) = delete;

  MPI_Comm comm() const { return shared_->comm; }
  int tag_base() const { return tag_base_; }
  const SharedComm& shared() const { return *shared_; }

 private:
  PrivateComms* table_;
  std::shared_ptr<SharedComm> shared_;
  int tag_base_;
};

// What bind() agreed for one user communicator.
struct BindOutcome {
  std::unique_ptr<Binding> binding;  // null: this communicator's calls run native
  std::array<char, 32> id{};         // run-wide name of the user communicator (rank 0's)
  bool created = false;              // a new private communicator was made for it
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

  // Collective over `user` (an intracommunicator): see the file comment.
  BindOutcome bind(MPI_Comm user, int world_rank, std::uint64_t serial);

  // Frees the private communicators no user communicator holds (before MPI_Finalize).
  void free_idle();
  // Held now (bound or idle), for tests and the log.
  int held() const;

 private:
  friend class Binding;
  void release(const std::shared_ptr<SharedComm>& shared);
  // Below, under mutex_.
  std::shared_ptr<SharedComm> current(const std::vector<int>& group);
  int idle_count() const;
  void evict_oldest_idle();
  // Not under mutex_: collective over `user`; null when the dup failed on some rank.
  std::shared_ptr<SharedComm> create(MPI_Comm user, int user_rank, std::uint64_t generation,
                                     std::vector<int> group);
  void note_once(int user_rank, bool world_rank_0_only, bool& flag, const std::string& message);

  const int max_comms_;
  const bool gather_placement_;
  const bool fail_locally_;
  const std::uint64_t slots_per_comm_;
  mutable std::mutex mutex_;
  // Per group, its private communicators, oldest first; the last is the current one.
  std::map<std::vector<int>, std::vector<std::shared_ptr<SharedComm>>> by_group_;
  // Private communicators of groups that cannot be shared (members outside MPI_COMM_WORLD).
  std::vector<std::shared_ptr<SharedComm>> unshared_;
  int held_ = 0;      // private communicators alive on this rank
  int reserved_ = 0;  // room reserved by bind() calls in progress
  std::uint64_t clock_ = 0;
  std::uint64_t next_generation_ = 1;
  bool noted_limit_ = false;
  bool noted_failure_ = false;
  bool noted_local_ = false;
};

}  // namespace collsel::pmpi
