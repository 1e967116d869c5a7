// The collectives collsel serves, and the rank-invariant shape of one call (STYLE.md 8.5 #17).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace collsel {

enum class Collective { bcast, scatter, alltoall };

inline constexpr std::array kCollectives{Collective::bcast, Collective::scatter,
                                         Collective::alltoall};

// "bcast", "scatter", "alltoall": the prefix of every algorithm name and the key in configs and logs.
std::string_view collective_name(Collective c);
std::optional<Collective> collective_from_name(std::string_view name);

// Everything decide() may depend on. Every field is equal on all ranks of the call:
//   bytes: Bcast count x size(type); Scatter one block, i.e. sendcount x size(sendtype) at the
//   root and recvcount x size(recvtype) elsewhere (equal by the type-signature rule); Alltoall
//   one block, i.e. sendcount x size(sendtype) (recvcount x size(recvtype) with MPI_IN_PLACE),
//   root 0 (it has none).
// Local datatype layout and MPI_IN_PLACE are deliberately absent: they may differ across ranks.
struct CallShape {
  Collective coll = Collective::bcast;
  int comm_size = 1;
  std::uint64_t bytes = 0;
  int root = 0;

  // No algorithm sends anything: one rank, or 0 bytes. Schedules are empty and count 0 messages.
  [[nodiscard]] bool moves_nothing() const { return comm_size <= 1 || bytes == 0; }

  friend bool operator==(const CallShape&, const CallShape&) = default;
};

}  // namespace collsel
