#include "calibrate/mpi_resources.hpp"

#include "flavour/flavour.hpp"

namespace collsel::calibrate {

void wait_without_polling(MPI_Comm comm) {
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Ibarrier(comm, &request);
  int done = 0;
  while (!done) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (!done) flavour::sleep_for(1e-3);
  }
}

}  // namespace collsel::calibrate
