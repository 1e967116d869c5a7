// allgather_blocks (selector/node_placement.hpp), the placement gather's Bruck allgather over
// PMPI point-to-point, against what an allgather must deliver: every rank's block, at its rank's
// place, for widths 1 to 300 bytes (a processor name's), on communicator sizes 1 to 8 (run by
// CTest at each, odd and non-powers of two included) and on a reordered split. Exits 1 on a
// wrong byte; prints "ALLGATHER OK" from rank 0 otherwise.
#include <mpi.h>

#include <cstdio>
#include <vector>

#include "selector/node_placement.hpp"

namespace {

// The byte `i` of rank `r`'s block: distinct per rank and position.
char expected(int r, int i) { return static_cast<char>((r * 131 + i * 7 + 1) & 0xff); }

int check(MPI_Comm comm, int width) {
  int size = 1, rank = 0;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  std::vector<char> mine(static_cast<std::size_t>(width));
  for (int i = 0; i < width; ++i) mine[static_cast<std::size_t>(i)] = expected(rank, i);
  const std::size_t all_bytes = static_cast<std::size_t>(size) * static_cast<std::size_t>(width);
  std::vector<char> all(all_bytes, 0), scratch(all_bytes, 0);
  collsel::allgather_blocks(mine.data(), width, all.data(), scratch.data(), comm);
  int wrong = 0;
  for (int r = 0; r < size; ++r) {
    for (int i = 0; i < width; ++i) {
      wrong += all[static_cast<std::size_t>(r) * static_cast<std::size_t>(width) +
                   static_cast<std::size_t>(i)] != expected(r, i);
    }
  }
  if (wrong > 0) std::fprintf(stderr, "rank %d: %d wrong bytes (width %d, size %d)\n", rank, wrong, width, size);
  return wrong > 0 ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int world_rank = 0, world_size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  int bad = 0;
  // Reversed and split in two: ranks of a communicator are not world ranks.
  MPI_Comm reordered;
  MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, world_size - world_rank, &reordered);
  for (int width : {1, 2, 9, 300}) {
    bad |= check(MPI_COMM_WORLD, width);
    bad |= check(reordered, width);
  }
  MPI_Comm_free(&reordered);
  int any = bad;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (world_rank == 0 && any == 0) std::printf("ALLGATHER OK\n");
  MPI_Finalize();
  return any;
}
