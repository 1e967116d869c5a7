// The one allreduce that binds a user communicator to a shared private communicator
// (pmpi/private_comms.hpp): what each rank contributes and what every rank reads from the
// MPI_BOR of all contributions. No MPI here, so tests/pmpi checks the verdicts directly.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace collsel::pmpi {

// The fields of the contribution (uint64 each, combined with bitwise OR).
enum BindField : std::size_t {
  kGeneration,     // this rank's current private communicator for the group; 0: none
  kNotGeneration,  // ~kGeneration: all ranks agree iff (OR g) & (OR ~g) == 0
  kFlags,          // the bits below: what this rank could not do
  kSlot,           // rank 0: its slot of its private communicator
  kCreatorRank,    // rank 0: its MPI_COMM_WORLD rank (the id's first part)
  kSerial,         // rank 0: its communicator serial (the id's second part)
  kNewGeneration,  // rank 0: the generation of a new private communicator, if one is made
  kBindFields
};
using BindWords = std::array<std::uint64_t, kBindFields>;

// The bits of kFlags. Each stands for something that can fail on one rank alone, said here so that
// every rank reads the same outcome from the same words.
inline constexpr std::uint64_t kNoRoom = 1;      // this rank holds max_private_comms already
inline constexpr std::uint64_t kUnprepared = 2;  // it failed to prepare the binding (an
                                                 // allocation): every rank runs native
inline constexpr std::uint64_t kUndecided = 4;   // it failed to decide the call's shape: every
                                                 // rank runs this call natively

enum class BindVerdict { bind, create, native };

// What every rank does, from the OR of all contributions: the same words on every rank, so the
// same verdict. `bind`: every rank has the same current private communicator (rank 0's slot is
// then free on all ranks, since rank 0 hands each slot out once); `create`: they do not, and
// every rank has room; `native`: some rank failed to prepare, or some rank is at its bound and
// there is no private communicator all ranks share.
constexpr BindVerdict bind_verdict(const BindWords& all) {
  if ((all[kFlags] & kUnprepared) != 0) return BindVerdict::native;
  if (all[kGeneration] != 0 && (all[kGeneration] & all[kNotGeneration]) == 0) {
    return BindVerdict::bind;
  }
  return (all[kFlags] & kNoRoom) != 0 ? BindVerdict::native : BindVerdict::create;
}

// Whether every rank decided the call's shape before the allreduce (the first call's decision,
// agreed in the same allreduce: runtime.cpp). Read apart from the verdict: a failed decision makes
// this one call native, not the communicator.
constexpr bool shape_decided(const BindWords& all) { return (all[kFlags] & kUndecided) == 0; }

// One rank's contribution: `generation` 0 when it has no private communicator for the group.
constexpr BindWords bind_contribution(std::uint64_t generation, bool room) {
  BindWords w{};
  w[kGeneration] = generation;
  w[kNotGeneration] = ~generation;
  w[kFlags] = room ? 0 : kNoRoom;
  return w;
}

}  // namespace collsel::pmpi
