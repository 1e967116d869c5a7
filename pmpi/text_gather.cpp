#include "pmpi/text_gather.hpp"

#include <climits>

#include <mpi.h>

#include "pmpi/errors_returned.hpp"

namespace collsel::pmpi {

std::vector<std::string> gather_text_to_world_root(const std::string& mine) {
  int rank = 0, size = 1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  const ErrorsReturned guard(MPI_COMM_WORLD);
  std::string all;
  std::vector<int> lengths(rank == 0 ? size : 0);
  std::vector<int> offsets(lengths.size());
  // Each rank's share of an int's worth of displacements: a longer text is sent empty, so the
  // root's counts and offsets always fit (and every rank still takes part).
  const std::size_t cap = static_cast<std::size_t>(INT_MAX / size);
  const int length = mine.size() <= cap ? static_cast<int>(mine.size()) : 0;
  int rc = PMPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rc == MPI_SUCCESS && rank == 0) {
    int total = 0;
    for (int r = 0; r < size; ++r) {
      offsets[r] = total;
      total += lengths[r];
    }
    all.resize(static_cast<std::size_t>(total));
  }
  if (rc == MPI_SUCCESS) {
    rc = PMPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(),
                      MPI_CHAR, 0, MPI_COMM_WORLD);
  }
  std::vector<std::string> out;
  if (rc != MPI_SUCCESS || rank != 0) return out;
  for (int r = 0; r < size; ++r) out.push_back(all.substr(offsets[r], lengths[r]));
  return out;
}

}  // namespace collsel::pmpi
