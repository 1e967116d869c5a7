// MPI_ERRORS_RETURN on a communicator for the span of one of collsel's own calls, the program's
// handler given back whatever happens: collsel's communication must never end a job that would
// have run natively (pmpi/private_comms.cpp's dup, pmpi/text_gather.cpp's gather).
#pragma once

#include <mpi.h>

namespace collsel::pmpi {

class ErrorsReturned {
 public:
  explicit ErrorsReturned(MPI_Comm comm) : comm_(comm) {
    PMPI_Comm_get_errhandler(comm_, &saved_);
    PMPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  }
  ~ErrorsReturned() {
    PMPI_Comm_set_errhandler(comm_, saved());
    if (saved_ != MPI_ERRHANDLER_NULL) PMPI_Errhandler_free(&saved_);
  }
  ErrorsReturned(const ErrorsReturned&) = delete;
  ErrorsReturned& operator=(const ErrorsReturned&) = delete;

  // The program's handler. SMPI answers MPI_ERRHANDLER_NULL for a communicator whose handler was
  // never set (and warns when it is set back or freed): that is the standard's default, fatal.
  MPI_Errhandler saved() const {
    return saved_ != MPI_ERRHANDLER_NULL ? saved_ : MPI_ERRORS_ARE_FATAL;
  }

 private:
  MPI_Comm comm_;
  MPI_Errhandler saved_ = MPI_ERRHANDLER_NULL;
};

}  // namespace collsel::pmpi
