#include "calibrate/mpi_resources.hpp"

#include <time.h>

#include <cmath>

namespace collsel::calibrate {

void sleep_for(double seconds) {
  timespec pause{static_cast<time_t>(seconds), static_cast<long>(std::fmod(seconds, 1.0) * 1e9)};
  nanosleep(&pause, nullptr);
}

void wait_without_polling(MPI_Comm comm) {
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Ibarrier(comm, &request);
  int done = 0;
  while (!done) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (!done) sleep_for(1e-3);
  }
}

}  // namespace collsel::calibrate
