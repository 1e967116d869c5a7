// The one owned runtime object of the shim (STYLE.md 8.6 #24): configuration, models, the
// attribute keyval of the per-communicator contexts, and the call log. The extern "C" entry points
// in entry.cpp only forward here. MPI and toml details stay in runtime.cpp (pimpl).
#pragma once

#include <mpi.h>

#include <memory>

#include "pmpi/call_log.hpp"

namespace collsel::pmpi {

class Runtime {
 public:
  Runtime();
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // After PMPI_Init/PMPI_Init_thread succeeded: collective over MPI_COMM_WORLD. Rank 0 reads the
  // config and the model and broadcasts them; problems are printed once, by rank 0.
  void initialize();
  // Before PMPI_Finalize: writes the logs. Also reached from the MPI_COMM_SELF attribute callback
  // when a program calls PMPI_Finalize directly (mpi_f08 does), and, with `how` saying so, from
  // the atexit handler (exit() without MPI_Finalize) and MPI_Abort (`code`: its errorcode).
  void finalize(Ending how = Ending::finalize, int code = 0, std::string_view cause = {});
  // In MPI_Finalize, before finalize(): what every rank's communicators learned reaches world
  // rank 0, which writes the learned table, so a communicator without world rank 0 is kept too.
  // Collective over MPI_COMM_WORLD, whatever this rank's state: only MPI_Finalize calls it.
  void gather_learned();
  // In MPI_Finalize, after finalize(): frees the context of MPI_COMM_WORLD.
  void release_world();

  int bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm);
  int scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
  int alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               int recvcount, MPI_Datatype recvtype, MPI_Comm comm);

  // A communicator's context is being freed (its attribute's delete callback): what its monitors
  // learned is kept for the learned table.
  void retire_context(class CommContext* ctx);

  // Private communicators held now (collsel_private_comms), for tests.
  int private_comms_held() const;

  // The algorithm name this thread's last intercepted call ran ("native" included), for tests.
  static const char* last_algorithm();

 private:
  void write_learned();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The process's runtime. Constructed on first use, never destroyed before exit.
Runtime& runtime();

}  // namespace collsel::pmpi
