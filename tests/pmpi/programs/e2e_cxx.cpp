// End-to-end C++ program: Bcast of a std::vector<double> and Scatter of ints, from every root.
#include <mpi.h>

#include <cstdio>
#include <numeric>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long errors = 0, calls = 0;
  for (int root = 0; root < size; ++root) {
    std::vector<double> v(20000, rank == root ? 0.0 : -1.0);
    if (rank == root) std::iota(v.begin(), v.end(), 0.5);
    MPI_Bcast(v.data(), static_cast<int>(v.size()), MPI_DOUBLE, root, MPI_COMM_WORLD);
    for (std::size_t i = 0; i < v.size(); ++i) errors += v[i] != static_cast<double>(i) + 0.5;
    std::vector<int> all(static_cast<std::size_t>(size) * 300), mine(300, -1);
    std::iota(all.begin(), all.end(), 0);
    MPI_Scatter(all.data(), 300, MPI_INT, mine.data(), 300, MPI_INT, root, MPI_COMM_WORLD);
    for (int i = 0; i < 300; ++i) errors += mine[static_cast<std::size_t>(i)] != rank * 300 + i;
    calls += 2;
  }
  long total = 0;
  MPI_Reduce(&errors, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) std::printf("E2E calls=%ld errors=%ld\n", calls, total);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
