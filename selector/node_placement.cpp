#include "selector/node_placement.hpp"

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
  std::vector<std::string> names;
  bool ok = true;
  try {
    all.resize(static_cast<std::size_t>(size) * static_cast<std::size_t>(width));
    names.reserve(static_cast<std::size_t>(size));
  } catch (const std::exception&) {
    ok = false;
  }
  if (!all_ok(ok, comm)) return std::nullopt;
  if (width > 0) PMPI_Allgather(name, width, MPI_CHAR, all.data(), width, MPI_CHAR, comm);
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
