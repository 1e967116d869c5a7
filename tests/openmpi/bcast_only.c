/* Ten 1-byte MPI_Bcasts from root 0 and nothing else, so that the messages pml/monitoring counts
 * are the broadcasts' (tests/openmpi/ompi_rules_test.sh). */
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  char byte = 1;
  for (int i = 0; i < 10; ++i) MPI_Bcast(&byte, 1, MPI_CHAR, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
