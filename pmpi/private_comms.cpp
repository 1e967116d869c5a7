#include "pmpi/private_comms.hpp"

#include <algorithm>
#include <cstdio>
#include <new>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "pmpi/bind_agreement.hpp"
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

// Sets MPI_ERRORS_RETURN on a user communicator for one call of collsel's and gives the program
// its own handler back, whatever happens.
class ErrorsReturned {
 public:
  explicit ErrorsReturned(MPI_Comm comm) : comm_(comm) {
    PMPI_Comm_get_errhandler(comm_, &saved_);
    PMPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  }
  ~ErrorsReturned() {
    PMPI_Comm_set_errhandler(comm_, saved_);
    PMPI_Errhandler_free(&saved_);
  }
  ErrorsReturned(const ErrorsReturned&) = delete;
  ErrorsReturned& operator=(const ErrorsReturned&) = delete;
  MPI_Errhandler saved() const { return saved_; }

 private:
  MPI_Comm comm_;
  MPI_Errhandler saved_ = MPI_ERRHANDLER_NULL;
};

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

Binding::~Binding() { table_->release(shared_); }

int PrivateComms::held() const {
  std::lock_guard lock(mutex_);
  return held_;
}

std::shared_ptr<SharedComm> PrivateComms::current(const std::vector<int>& group) {
  const auto it = by_group_.find(group);
  if (it == by_group_.end() || it->second.empty()) return nullptr;
  // The highest generation, not the last installed: threads may install two new ones in
  // different orders on different ranks, but every rank that holds both picks the same.
  return *std::max_element(it->second.begin(), it->second.end(),
                           [](const auto& a, const auto& b) { return a->generation < b->generation; });
}

int PrivateComms::idle_count() const {
  int idle = 0;
  for (const auto& [group, list] : by_group_) {
    for (const auto& s : list) idle += s->users == 0 ? 1 : 0;
  }
  return idle;
}

void PrivateComms::evict_oldest_idle() {
  auto oldest_group = by_group_.end();
  std::size_t oldest_index = 0;
  std::uint64_t oldest = UINT64_MAX;
  for (auto it = by_group_.begin(); it != by_group_.end(); ++it) {
    for (std::size_t i = 0; i < it->second.size(); ++i) {
      const SharedComm& s = *it->second[i];
      if (s.users == 0 && s.idle_since < oldest) {
        oldest = s.idle_since;
        oldest_group = it;
        oldest_index = i;
      }
    }
  }
  if (oldest_group == by_group_.end()) return;
  oldest_group->second.erase(oldest_group->second.begin() +
                             static_cast<std::ptrdiff_t>(oldest_index));
  if (oldest_group->second.empty()) by_group_.erase(oldest_group);
  --held_;
}

void PrivateComms::release(const std::shared_ptr<SharedComm>& shared) {
  std::lock_guard lock(mutex_);
  if (--shared->users > 0) return;
  shared->idle_since = ++clock_;
  if (shared->group.empty()) {  // unshareable: nobody can bind to it again
    std::erase(unshared_, shared);
    --held_;
    return;
  }
  while (idle_count() > kKeepIdle) evict_oldest_idle();
}

void PrivateComms::free_idle() {
  std::lock_guard lock(mutex_);
  while (idle_count() > 0) evict_oldest_idle();
}

void PrivateComms::note_once(int user_rank, bool world_rank_0_only, bool& flag,
                             const std::string& message) {
  // From the communicator's rank 0 (every rank took the same outcome; its calls are logged as
  // native either way), once per process; the limit's note only from MPI_COMM_WORLD's rank 0, as
  // a program past it may make thousands of small communicators, each with its own rank 0.
  int world_rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  if (user_rank != 0 || (world_rank_0_only && world_rank != 0)) return;
  {
    std::lock_guard lock(mutex_);
    if (flag) return;
    flag = true;
  }
  std::fprintf(stderr, "%s\n", message.c_str());
}

std::shared_ptr<SharedComm> PrivateComms::create(MPI_Comm user, int user_rank,
                                                 std::uint64_t generation,
                                                 std::vector<int> group) {
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
    note_once(user_rank, false, noted_failure_,
              fmt::format("collsel: cannot make a private communicator for a communicator of {} "
                          "ranks (rank 0: {}); its calls run the MPI library's own collectives; "
                          "further such communicators are not reported",
                          group.size(), rc == MPI_SUCCESS ? "failed on another rank"
                                                          : error_text(rc)));
    return nullptr;
  }
  auto shared = std::make_shared<SharedComm>();
  shared->comm = dup;
  shared->generation = generation;
  shared->group = std::move(group);
  // Collective over the new X while no other thread can see it yet.
  if (gather_placement_) shared->placement = gather_node_placement(dup);
  return shared;
}

BindOutcome PrivateComms::bind(MPI_Comm user, int world_rank, std::uint64_t serial) {
  int rank = 0, size = 1;
  PMPI_Comm_rank(user, &rank);
  PMPI_Comm_size(user, &size);
  // A failure here is this rank's alone (an allocation): it must not send this rank to the
  // native routine while the others wait in the agreement below, so the rank joins the
  // agreement saying it failed, and every rank runs this communicator natively.
  std::vector<int> group;
  bool prepared = true;
  try {
    if (fail_locally_) throw std::bad_alloc();
    group = world_ranks_of(user, size);
  } catch (const std::exception& e) {
    prepared = false;
    bool first = false;
    {
      std::lock_guard lock(mutex_);
      first = !std::exchange(noted_local_, true);
    }
    if (first) {
      std::fprintf(stderr,
                   "collsel: rank %d: preparing a new communicator failed (%s); every rank runs "
                   "its collectives natively; further such failures are not reported\n",
                   world_rank, e.what());
    }
  }

  BindWords mine{};
  std::shared_ptr<SharedComm> pinned;
  {
    std::lock_guard lock(mutex_);
    if (!group.empty()) pinned = current(group);
    // Only rank 0 hands out slots, so only it knows when its X has none left; it then proposes
    // none, the ranks disagree, and a new X is made.
    if (pinned && rank == 0 && pinned->next_slot >= slots_per_comm_) pinned = nullptr;
    if (pinned) ++pinned->users;  // not evicted before the agreement says whether it is used
    // Idle private communicators count as room: one is evicted if a new one is needed.
    mine = bind_contribution(pinned ? pinned->generation : 0,
                             held_ - idle_count() + reserved_ < max_comms_);
    if (!prepared) mine[kNoRoom] |= 2;
    ++reserved_;
    if (rank == 0) {
      if (pinned) mine[kSlot] = pinned->next_slot++;
      mine[kCreatorRank] = static_cast<std::uint64_t>(world_rank);
      mine[kSerial] = serial;
      mine[kNewGeneration] = next_generation_++;
    }
  }
  BindWords all{};
  PMPI_Allreduce(mine.data(), all.data(), kBindFields, MPI_UINT64_T, MPI_BOR, user);

  BindOutcome out;
  // The id is agreed here, so every rank logs the same name for the communicator.
  fmt::format_to_n(out.id.data(), out.id.size() - 1, "{}.{}", all[kCreatorRank], all[kSerial]);
  const BindVerdict verdict = bind_verdict(all);
  if (verdict == BindVerdict::bind) {
    {
      std::lock_guard lock(mutex_);
      --reserved_;
    }
    out.binding = std::make_unique<Binding>(
        *this, std::move(pinned), static_cast<int>(all[kSlot]) * kTagsPerSlot);
    return out;
  }
  if (pinned) release(pinned);
  if (verdict == BindVerdict::native) {
    {
      std::lock_guard lock(mutex_);
      --reserved_;
    }
    // A rank that failed to prepare said why itself; the limit is said by world rank 0.
    if ((all[kNoRoom] & 1) == 0) return out;
    note_once(rank, true, noted_limit_,
              fmt::format("collsel: [runtime] max_private_comms = {} private communicators are in "
                          "use; a new communicator of {} ranks runs the MPI library's own "
                          "collectives (logged as native); further such communicators are not "
                          "reported",
                          max_comms_, size));
    return out;
  }
  std::shared_ptr<SharedComm> made = create(user, rank, all[kNewGeneration], group);
  std::lock_guard lock(mutex_);
  --reserved_;
  if (!made) return out;
  if (held_ >= max_comms_) evict_oldest_idle();
  ++held_;
  made->users = 1;
  made->next_slot = 1;  // slot 0 is this communicator's
  if (made->group.empty()) {
    unshared_.push_back(made);
  } else {
    by_group_[made->group].push_back(made);
  }
  out.created = true;
  out.binding = std::make_unique<Binding>(*this, std::move(made), 0);
  return out;
}

}  // namespace collsel::pmpi
