// The arguments of one collective call as the algorithms see them: the user's buffers and types,
// and collsel's private communicator (never the user's own, STYLE 8.2 #6), shared by every user
// communicator over the same group, with the tags of this user communicator's slot on it.
#pragma once

#include <mpi.h>

namespace collsel {

struct BcastCall {
  void* buffer = nullptr;
  int count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  int root = 0;
  MPI_Comm comm = MPI_COMM_NULL;  // private communicator
  int rank = 0;
  int size = 1;
  int tag_base = 0;  // this user communicator's tags on `comm`: tag_base + kTag*
};

struct ScatterCall {
  const void* sendbuf = nullptr;  // significant at the root only
  int sendcount = 0;
  MPI_Datatype sendtype = MPI_DATATYPE_NULL;
  void* recvbuf = nullptr;  // MPI_IN_PLACE allowed at the root
  int recvcount = 0;
  MPI_Datatype recvtype = MPI_DATATYPE_NULL;
  int root = 0;
  MPI_Comm comm = MPI_COMM_NULL;  // private communicator
  int rank = 0;
  int size = 1;
  int tag_base = 0;  // this user communicator's tags on `comm`: tag_base + kTag*
};

struct AlltoallCall {
  const void* sendbuf = nullptr;  // MPI_IN_PLACE: the blocks are taken from recvbuf
  int sendcount = 0;              // ignored with MPI_IN_PLACE
  MPI_Datatype sendtype = MPI_DATATYPE_NULL;
  void* recvbuf = nullptr;
  int recvcount = 0;
  MPI_Datatype recvtype = MPI_DATATYPE_NULL;
  MPI_Comm comm = MPI_COMM_NULL;  // private communicator
  int rank = 0;
  int size = 1;
  int tag_base = 0;  // this user communicator's tags on `comm`: tag_base + kTag*
};

// Tags on the private communicator, as offsets from the call's tag_base (pmpi/private_comms.hpp
// hands each user communicator its own range of pmpi::kTagsPerSlot). Each algorithm matches by
// explicit (source, tag) in posting order, never MPI_ANY_SOURCE or MPI_ANY_TAG: MPI's
// non-overtaking rule then keeps consecutive calls of one user communicator apart, and the ranges
// keep concurrent calls of different user communicators on the shared communicator apart.
inline constexpr int kTagData = 0;
inline constexpr int kTagRequest = 1;  // rendezvous: "I have data for you"
inline constexpr int kTagReady = 2;    // rendezvous: "my receive is posted"
inline constexpr int kTagAgree = 3;    // [adapt]'s agreement on measured times (pmpi)

template <class Call>
constexpr int data_tag(const Call& call) {
  return call.tag_base + kTagData;
}
template <class Call>
constexpr int request_tag(const Call& call) {
  return call.tag_base + kTagRequest;
}
template <class Call>
constexpr int ready_tag(const Call& call) {
  return call.tag_base + kTagReady;
}

}  // namespace collsel
