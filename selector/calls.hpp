// The arguments of one collective call as the algorithms see them: the user's buffers and types,
// and collsel's private duplicate of the user's communicator (never the user's own, STYLE 8.2 #6).
#pragma once

#include <mpi.h>

namespace collsel {

struct BcastCall {
  void* buffer = nullptr;
  int count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  int root = 0;
  MPI_Comm comm = MPI_COMM_NULL;  // private duplicate
  int rank = 0;
  int size = 1;
};

struct ScatterCall {
  const void* sendbuf = nullptr;  // significant at the root only
  int sendcount = 0;
  MPI_Datatype sendtype = MPI_DATATYPE_NULL;
  void* recvbuf = nullptr;  // MPI_IN_PLACE allowed at the root
  int recvcount = 0;
  MPI_Datatype recvtype = MPI_DATATYPE_NULL;
  int root = 0;
  MPI_Comm comm = MPI_COMM_NULL;  // private duplicate
  int rank = 0;
  int size = 1;
};

struct AlltoallCall {
  const void* sendbuf = nullptr;  // MPI_IN_PLACE: the blocks are taken from recvbuf
  int sendcount = 0;              // ignored with MPI_IN_PLACE
  MPI_Datatype sendtype = MPI_DATATYPE_NULL;
  void* recvbuf = nullptr;
  int recvcount = 0;
  MPI_Datatype recvtype = MPI_DATATYPE_NULL;
  MPI_Comm comm = MPI_COMM_NULL;  // private duplicate
  int rank = 0;
  int size = 1;
};

// Tags on the private communicator. Each algorithm matches by (source, tag) in posting order, and
// MPI's non-overtaking rule keeps consecutive calls apart.
inline constexpr int kTagData = 1;
inline constexpr int kTagRequest = 2;  // rendezvous: "I have data for you"
inline constexpr int kTagReady = 3;    // rendezvous: "my receive is posted"

}  // namespace collsel
