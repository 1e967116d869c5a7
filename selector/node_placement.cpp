#include "selector/node_placement.hpp"

#include <cstring>
#include <string>
#include <vector>

namespace collsel {

models::contention::Placement gather_node_placement(MPI_Comm comm) {
  int size = 1;
  PMPI_Comm_size(comm, &size);
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  PMPI_Get_processor_name(name, &length);
  // The names are exchanged at the width of the longest, so the buffer stays small.
  int width = length;
  PMPI_Allreduce(MPI_IN_PLACE, &width, 1, MPI_INT, MPI_MAX, comm);
  std::vector<char> all(static_cast<std::size_t>(size) * static_cast<std::size_t>(width));
  if (width > 0) PMPI_Allgather(name, width, MPI_CHAR, all.data(), width, MPI_CHAR, comm);
  std::vector<std::string> names;
  names.reserve(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) {
    const char* begin = all.data() + static_cast<std::size_t>(r) * static_cast<std::size_t>(width);
    names.emplace_back(begin, strnlen(begin, static_cast<std::size_t>(width)));
  }
  return models::contention::placement_from_names(names);
}

}  // namespace collsel
