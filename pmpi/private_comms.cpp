#include "pmpi/private_comms.hpp"

#include <algorithm>
#include <cstdio>
#include <new>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "pmpi/errors_returned.hpp"
#include "selector/node_placement.hpp"

namespace collsel::pmpi {
namespace {

// Idle private communicators kept for reuse: a program that splits the same group every
// iteration then binds each new communicator to the one it used last (one allreduce, no dup).
// Few, because each idle one holds a context id the program might want.
constexpr int kKeepIdle = 4;

// The members of `comm` as MPI_COMM_WORLD ranks, in `comm`'s order; empty when a member is not in
// MPI_COMM_WORLD (a spawned process), which makes the group unshareable.
std::vector<int> world_ranks_of(MPI_Comm comm, int size) {
  MPI_Group group = MPI_GROUP_NULL, world = MPI_GROUP_NULL;
  PMPI_Comm_group(comm, &group);
  PMPI_Comm_group(MPI_COMM_WORLD, &world);
  std::vector<int> ranks(static_cast<std::size_t>(size)), out(static_cast<std::size_t>(size));
  for (int i = 0; i < size; ++i) ranks[static_cast<std::size_t>(i)] = i;
  PMPI_Group_translate_ranks(group, size, ranks.data(), world, out.data());
  PMPI_Group_free(&group);
  PMPI_Group_free(&world);
  if (std::find(out.begin(), out.end(), MPI_UNDEFINED) != out.end()) out.clear();
  return out;
}

// Makes room for one more element, so that a later push_back cannot allocate.
template <class T>
void reserve_one_more(std::vector<T>& v, std::size_t pending) {
  const std::size_t need = v.size() + pending + 1;
  if (v.capacity() < need) v.reserve(std::max(need, 2 * v.capacity()));
}

std::string error_text(int rc) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  PMPI_Error_string(rc, text, &length);
  // MPICH appends its error stack on further lines: the first line is the message.
  std::string_view first(text, static_cast<std::size_t>(length));
  first = first.substr(0, first.find('\n'));
  if (first.ends_with(", error stack:")) first.remove_suffix(std::string_view(", error stack:").size());
  return std::string(first);
}


}  // namespace

SharedComm::~SharedComm() {
  int finalized = 0;
  PMPI_Finalized(&finalized);
  // Each rank frees each private communicator once, when it no longer uses it; MPI_Comm_free
  // lets pending traffic complete, and no rank sends on a slot after its own last call.
  if (!finalized && comm != MPI_COMM_NULL) PMPI_Comm_free(&comm);
}

Binding::~Binding() {
  if (table_ != nullptr) table_->release(shared_);
}

PendingBind::PendingBind(PendingBind&& other) noexcept
    : table_(std::exchange(other.table_, nullptr)), user_(other.user_),
      world_rank_(other.world_rank_), rank_(other.rank_), size_(other.size_),
      group_(std::move(other.group_)), pinned_(std::move(other.pinned_)),
      spare_(std::move(other.spare_)), room_(std::exchange(other.room_, nullptr)),
      mine_(other.mine_) {}

PendingBind::~PendingBind() {
  if (table_ != nullptr) table_->settle(*this);
}

void PendingBind::fail(const char* what) noexcept {
  mine_[kFlags] |= kUnprepared;
  if (table_ != nullptr) table_->note_unprepared(world_rank_, what);
}

int PrivateComms::held() const {
  std::lock_guard lock(mutex_);
  return held_;
}

std::shared_ptr<SharedComm> PrivateComms::current(const std::vector<int>& group) {
  const auto it = by_group_.find(group);
  if (it == by_group_.end() || it->second.comms.empty()) return nullptr;
  // The highest generation, not the last installed: threads may install two new ones in
  // different orders on different ranks, but every rank that holds both picks the same.
  const auto& comms = it->second.comms;
  return *std::max_element(comms.begin(), comms.end(), [](const auto& a, const auto& b) {
    return a->generation < b->generation;
  });
}

GroupComms& PrivateComms::room_for(const std::vector<int>& group) {
  GroupComms& g = group.empty() ? unshared_ : by_group_[group];
  try {
    reserve_one_more(g.comms, static_cast<std::size_t>(g.reserved));
  } catch (...) {
    if (&g != &unshared_ && g.comms.empty() && g.reserved == 0) by_group_.erase(group);
    throw;
  }
  ++g.reserved;
  return g;
}

int PrivateComms::idle_count() const {
  int idle = 0;
  for (const auto& [group, g] : by_group_) {
    for (const auto& s : g.comms) idle += s->users == 0 ? 1 : 0;
  }
  return idle;
}

void PrivateComms::evict_oldest_idle() {
  auto oldest_group = by_group_.end();
  std::size_t oldest_index = 0;
  std::uint64_t oldest = UINT64_MAX;
  for (auto it = by_group_.begin(); it != by_group_.end(); ++it) {
    for (std::size_t i = 0; i < it->second.comms.size(); ++i) {
      const SharedComm& s = *it->second.comms[i];
      if (s.users == 0 && s.idle_since < oldest) {
        oldest = s.idle_since;
        oldest_group = it;
        oldest_index = i;
      }
    }
  }
  if (oldest_group == by_group_.end()) return;
  auto& comms = oldest_group->second.comms;
  comms.erase(comms.begin() + static_cast<std::ptrdiff_t>(oldest_index));
  if (comms.empty() && oldest_group->second.reserved == 0) by_group_.erase(oldest_group);
  --held_;
}

void PrivateComms::release(const std::shared_ptr<SharedComm>& shared) {
  std::lock_guard lock(mutex_);
  if (--shared->users > 0) return;
  shared->idle_since = ++clock_;
  if (shared->group.empty()) {  // unshareable: nobody can bind to it again
    std::erase(unshared_.comms, shared);
    --held_;
    return;
  }
  while (idle_count() > kKeepIdle) evict_oldest_idle();
}

void PrivateComms::free_idle() {
  std::lock_guard lock(mutex_);
  while (idle_count() > 0) evict_oldest_idle();
}

template <class Message>
void PrivateComms::note_once(int user_rank, bool world_rank_0_only, bool& flag,
                             Message message) noexcept {
  // From the communicator's rank 0 (every rank took the same outcome; its calls are logged as
  // native either way), once per process; the limit's note only from MPI_COMM_WORLD's rank 0, as
  // a program past it may make thousands of small communicators, each with its own rank 0.
  int world_rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  if (user_rank != 0 || (world_rank_0_only && world_rank != 0)) return;
  try {
    {
      std::lock_guard lock(mutex_);
      if (flag) return;
      flag = true;
    }
    std::fprintf(stderr, "%s\n", message().c_str());
  } catch (...) {
    // The message could not be made (no memory): the outcome stands, on every rank alike.
  }
}

void PrivateComms::note_unprepared(int world_rank, const char* what) noexcept {
  try {
    {
      std::lock_guard lock(mutex_);
      if (std::exchange(noted_local_, true)) return;
    }
  } catch (...) {
    return;
  }
  // std::fprintf: nothing here may need the memory that just ran out.
  std::fprintf(stderr,
               "collsel: rank %d: preparing a new communicator failed (%s); every rank runs its "
               "collectives natively; further such failures are not reported\n",
               world_rank, what);
}

std::shared_ptr<SharedComm> PrivateComms::create(MPI_Comm user, int user_rank,
                                                 std::uint64_t generation, std::vector<int>& group,
                                                 std::shared_ptr<SharedComm> shared) {
  MPI_Comm dup = MPI_COMM_NULL;
  int rc = MPI_SUCCESS;
  {
    // collsel's dup must never abort the program: errors returned, the program's handler given
    // back, and the private communicator reports with the program's handler as before.
    const ErrorsReturned guard(user);
    rc = PMPI_Comm_dup(user, &dup);
    if (rc == MPI_SUCCESS) PMPI_Comm_set_errhandler(dup, guard.saved());
  }
  // The dup may fail on some ranks only; every rank takes the same outcome.
  int ok = rc == MPI_SUCCESS ? 1 : 0;
  PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, user);
  if (!ok) {
    if (dup != MPI_COMM_NULL) PMPI_Comm_free(&dup);
    note_once(user_rank, false, noted_failure_, [&] {
      return fmt::format(
          "collsel: cannot make a private communicator for a communicator of {} ranks (rank 0: "
          "{}); its calls run the MPI library's own collectives; further such communicators are "
          "not reported",
          group.size(), rc == MPI_SUCCESS ? "failed on another rank" : error_text(rc));
    });
    return nullptr;
  }
  shared->comm = dup;
  shared->generation = generation;
  shared->group = std::move(group);  // taken only now: settle() still needs it after a failure
  // Collective over the new X while no other thread can see it yet. Without it (an allocation
  // failed on some rank: agreed inside) every rank predicts with the closed forms.
  if (gather_placement_) {
    shared->placement = gather_node_placement(dup);
    if (!shared->placement) {
      note_once(user_rank, false, noted_placement_, [&] {
        return fmt::format(
            "collsel: gathering the ranks' nodes for a communicator of {} ranks failed on some "
            "rank (no memory); its schedules are predicted without contention; further such "
            "failures are not reported",
            shared->group.size());
      });
    }
  }
  return shared;
}

PendingBind PrivateComms::prepare(MPI_Comm user, int world_rank, std::uint64_t serial) noexcept {
  PendingBind p(*this, user, world_rank);
  PMPI_Comm_rank(user, &p.rank_);
  PMPI_Comm_size(user, &p.size_);
  // Everything after the allreduce is made here, so that a failure (an allocation) is this
  // rank's alone and every rank learns of it from the allreduce, instead of this rank running
  // native while the others wait in the agreement or in a schedule.
  bool prepared = true;
  const char* what = "";
  try {
    if (fail_locally_) throw std::bad_alloc();
    p.group_ = world_ranks_of(user, p.size_);
    {
      std::lock_guard lock(mutex_);
      p.spare_ = std::move(spare_);
    }
    if (!p.spare_) p.spare_ = std::make_shared<SharedComm>();
  } catch (const std::exception& e) {
    prepared = false;
    what = e.what();
  }
  {
    std::lock_guard lock(mutex_);
    if (prepared) {
      try {
        p.room_ = &room_for(p.group_);
      } catch (const std::exception& e) {
        prepared = false;
        what = e.what();
      }
    }
    if (prepared && !p.group_.empty()) p.pinned_ = current(p.group_);
    // Only rank 0 hands out slots, so only it knows when its X has none left; it then proposes
    // none, the ranks disagree, and a new X is made.
    if (p.pinned_ && p.rank_ == 0 && p.pinned_->next_slot >= slots_per_comm_) p.pinned_ = nullptr;
    if (p.pinned_) ++p.pinned_->users;  // not evicted before the agreement says whether it is used
    // Idle private communicators count as room: one is evicted if a new one is needed.
    p.mine_ = bind_contribution(p.pinned_ ? p.pinned_->generation : 0,
                                held_ - idle_count() + reserved_ < max_comms_);
    ++reserved_;
    if (p.rank_ == 0) {
      if (p.pinned_) p.mine_[kSlot] = p.pinned_->next_slot++;
      p.mine_[kCreatorRank] = static_cast<std::uint64_t>(world_rank);
      p.mine_[kSerial] = serial;
      p.mine_[kNewGeneration] = next_generation_++;
    }
  }
  if (!prepared) p.fail(what);
  return p;
}

void PrivateComms::settle(PendingBind& p) {
  if (p.pinned_) release(p.pinned_);
  p.pinned_ = nullptr;
  std::lock_guard lock(mutex_);
  --reserved_;
  if (p.room_ != nullptr) {
    --p.room_->reserved;
    if (p.room_ != &unshared_ && p.room_->comms.empty() && p.room_->reserved == 0) {
      by_group_.erase(p.group_);
    }
    p.room_ = nullptr;
  }
  if (p.spare_ && !spare_) spare_ = std::move(p.spare_);
  p.table_ = nullptr;
}

BindOutcome PrivateComms::complete(PendingBind& p) {
  BindWords all{};
  PMPI_Allreduce(p.mine_.data(), all.data(), kBindFields, MPI_UINT64_T, MPI_BOR, p.user_);

  // From here on nothing allocates outside create()'s agreed steps: every rank must take the
  // verdict the words give.
  BindOutcome out;
  out.shape_decided = shape_decided(all);
  // The id is agreed here, so every rank logs the same name for the communicator.
  fmt::format_to_n(out.id.data(), out.id.size() - 1, "{}.{}", all[kCreatorRank], all[kSerial]);
  const BindVerdict verdict = bind_verdict(all);
  if (verdict == BindVerdict::bind) {
    // The pin becomes the binding's share.
    out.binding.emplace(*this, std::move(p.pinned_), static_cast<int>(all[kSlot]) * kTagsPerSlot);
    settle(p);
    return out;
  }
  if (verdict == BindVerdict::native) {
    settle(p);
    // A rank that failed to prepare said why itself; the limit is said by world rank 0.
    if ((all[kFlags] & kUnprepared) != 0) return out;
    note_once(p.rank_, true, noted_limit_, [&] {
      return fmt::format(
          "collsel: [runtime] max_private_comms = {} private communicators are in use; a new "
          "communicator of {} ranks runs the MPI library's own collectives (logged as native); "
          "further such communicators are not reported",
          max_comms_, p.size_);
    });
    return out;
  }
  if (p.pinned_) release(p.pinned_);
  p.pinned_ = nullptr;
  std::shared_ptr<SharedComm> made =
      create(p.user_, p.rank_, all[kNewGeneration], p.group_, std::move(p.spare_));
  if (made) {
    std::lock_guard lock(mutex_);
    if (held_ >= max_comms_) evict_oldest_idle();
    ++held_;
    made->users = 1;
    made->next_slot = 1;  // slot 0 is this communicator's
    p.room_->comms.push_back(made);  // within the room prepare() made: no allocation
    --p.room_->reserved;
    p.room_ = nullptr;
    out.created = true;
    out.binding.emplace(*this, std::move(made), 0);
  }
  settle(p);
  return out;
}

}  // namespace collsel::pmpi
