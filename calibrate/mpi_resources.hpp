// Small MPI helpers the measurement units share: a communicator owner, and a barrier that leaves
// the cores to the ranks being measured.
#pragma once

#include <mpi.h>

namespace collsel::calibrate {

// A communicator a measurement created, freed when it goes out of scope.
class OwnedComm {
 public:
  OwnedComm() = default;
  OwnedComm(const OwnedComm&) = delete;
  OwnedComm& operator=(const OwnedComm&) = delete;
  ~OwnedComm() {
    if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
  }
  [[nodiscard]] MPI_Comm get() const { return comm_; }
  MPI_Comm* out() { return &comm_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

// A barrier that sleeps between polls: ranks that only wait must not take CPU from the measuring
// ones when ranks share cores (MPI_Barrier busy-polls). 1 ms granularity: the waits it serves are
// long, precision is not needed.
void wait_without_polling(MPI_Comm comm);

}  // namespace collsel::calibrate
