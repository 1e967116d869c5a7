#include "selector/node_placement.hpp"

#include <algorithm>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

namespace collsel {
namespace {

// The minimum of `ok` over the ranks of `comm`.
bool all_ok(bool ok, MPI_Comm comm) {
  int value = ok ? 1 : 0;
  PMPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_INT, MPI_MIN, comm);
  return value == 1;
}

}  // namespace

void allgather_blocks(const void* mine, int width, void* all, void* scratch, MPI_Comm comm,
                      int tag) {
  if (width <= 0) return;
  int size = 1, rank = 0;
  PMPI_Comm_size(comm, &size);
  PMPI_Comm_rank(comm, &rank);
  const auto at = [&](int i) {
    return static_cast<std::size_t>(i) * static_cast<std::size_t>(width);
  };
  // Bruck: `rotated` holds the blocks of ranks rank, rank + 1, ... (mod size) in that order; after
  // the round of distance d, the first min(2d, size) of them.
  auto* rotated = static_cast<char*>(scratch);
  std::memcpy(rotated, mine, at(1));
  for (int d = 1; d < size; d *= 2) {
    const int count = std::min(d, size - d);
    PMPI_Sendrecv(rotated, count * width, MPI_BYTE, (rank - d + size) % size, tag,
                  rotated + at(d), count * width, MPI_BYTE, (rank + d) % size, tag, comm,
                  MPI_STATUS_IGNORE);
  }
  auto* out = static_cast<char*>(all);
  for (int i = 0; i < size; ++i) std::memcpy(out + at((rank + i) % size), rotated + at(i), at(1));
}

std::optional<models::contention::Placement> gather_node_placement(MPI_Comm comm) {
  int size = 1;
  PMPI_Comm_size(comm, &size);
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  PMPI_Get_processor_name(name, &length);
  // The names are exchanged at the width of the longest, so the buffer stays small.
  int width = length;
  PMPI_Allreduce(MPI_IN_PLACE, &width, 1, MPI_INT, MPI_MAX, comm);
  // Each allocation below may fail on one rank alone: the ranks agree on it before the next
  // collective (which a rank gone would leave the others waiting in) and before anyone uses a
  // placement (which one rank without it would decide differently with).
  std::vector<char> all;
  std::vector<char> scratch;  // allgather_blocks' own buffer, reserved before the agreement
  std::vector<std::string> names;
  bool ok = true;
  try {
    all.resize(static_cast<std::size_t>(size) * static_cast<std::size_t>(width));
    scratch.resize(all.size());
    names.reserve(static_cast<std::size_t>(size));
  } catch (const std::exception&) {
    ok = false;
  }
  if (!all_ok(ok, comm)) return std::nullopt;
  allgather_blocks(name, width, all.data(), scratch.data(), comm);
  std::optional<models::contention::Placement> placement;
  try {
    for (int r = 0; r < size; ++r) {
      const char* begin =
          all.data() + static_cast<std::size_t>(r) * static_cast<std::size_t>(width);
      names.emplace_back(begin, strnlen(begin, static_cast<std::size_t>(width)));
    }
    placement = models::contention::placement_from_names(names);
  } catch (const std::exception&) {
    placement.reset();
  }
  if (!all_ok(placement.has_value(), comm)) return std::nullopt;
  return placement;
}

}  // namespace collsel
