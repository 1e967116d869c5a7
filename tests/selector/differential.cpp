// Differential test of one algorithm against the native collective (STYLE.md 8.9 #32).
//   mpiexec -n P -genv LD_PRELOAD libcollsel.so -genv COLLSEL_FORCE_BCAST bcast.chain
//       differential bcast bcast.chain
// The algorithm is forced through the same override users set. For every root (Bcast, Scatter),
// count {0, 1, odd, large and not a multiple of the segment}, datatype (int, double, strided
// vector, struct with holes, resized, and ranks mixing different types of one signature, which
// for Alltoall also differ between a rank's send and receive side), MPI_IN_PLACE where legal, on
// MPI_COMM_WORLD and on a reordered MPI_Comm_split sub-communicator, the intercepted call
// (MPI_Bcast / MPI_Scatter / MPI_Alltoall) must leave every buffer byte-identical to what the
// native call (PMPI_Bcast / PMPI_Scatter / PMPI_Alltoall) leaves, holes included, and must have
// run the forced algorithm (asked of the shim through collsel_last_algorithm).
#include <dlfcn.h>
#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <sstream>
#include <string>
#include <vector>

namespace {

using LastAlgorithm = const char* (*)();

// One datatype as a rank uses it: `per_element` elements of the signature's base type per item.
struct Layout {
  std::string name;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  int per_item = 1;  // how many signature elements one item of `type` holds
  bool owned = false;
};

// The datatype families. For "mixed", each rank picks a different layout of the same signature
// (ints), so collsel must not let local layout influence the messages.
struct Family {
  std::string name;
  std::function<Layout(int rank)> layout;
  // MPICH 4.0.2's own MPI_Scatter aborts ("Message truncated" in MPIR_Scatter_intra_binomial)
  // for this struct type from about 1000 elements on, at every P we tried (tests/selector/
  // mpich_struct_scatter.c reproduces it without collsel). For such families the reference is
  // the native scatter of the same data packed with PMPI_Pack, which the standard defines to be
  // equivalent.
  bool native_typed_scatter_broken = false;
  // Likewise MPICH 4.0.2's in-place MPI_Alltoall aborts ("Message truncated") for this struct
  // type from 635 elements per block on (P = 2..8). Its in-place algorithm uses
  // MPI_Sendrecv_replace, which sends the packed bytes, and MPICH fails to receive a message
  // sent as MPI_PACKED or MPI_BYTE into 635 or more of these structs (8255 bytes; 634 work);
  // struct to struct works. The reference is then the native alltoall of the packed blocks.
  bool native_in_place_alltoall_broken = false;
};

MPI_Datatype commit(MPI_Datatype t) {
  MPI_Type_commit(&t);
  return t;
}

Layout make_vector_int() {
  // 2 blocks of 2 ints, stride 3: a hole of one int after each block.
  MPI_Datatype v;
  MPI_Type_vector(2, 2, 3, MPI_INT, &v);
  return {"vector", commit(v), 4, true};
}

Layout make_contig4_int() {
  MPI_Datatype c;
  MPI_Type_contiguous(4, MPI_INT, &c);
  return {"contig4", commit(c), 4, true};
}

Layout make_resized_int() {
  // One int per 12-byte extent: 8 bytes of hole between consecutive elements.
  MPI_Datatype r;
  MPI_Type_create_resized(MPI_INT, 0, 12, &r);
  return {"resized", commit(r), 1, true};
}

struct Holey {
  char c;
  double d;
  int i;
};

Layout make_struct() {
  // Fields listed in decreasing address order on purpose: type-map order != memory order.
  int lengths[3] = {1, 1, 1};
  MPI_Aint displs[3] = {offsetof(Holey, i), offsetof(Holey, d), offsetof(Holey, c)};
  MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
  MPI_Datatype s, r;
  MPI_Type_create_struct(3, lengths, displs, types, &s);
  MPI_Type_create_resized(s, 0, sizeof(Holey), &r);
  MPI_Type_free(&s);
  return {"struct", commit(r), 1, true};
}

std::vector<Family> families() {
  return {
      {"int", [](int) { return Layout{"int", MPI_INT, 1, false}; }},
      {"double", [](int) { return Layout{"double", MPI_DOUBLE, 1, false}; }},
      {"vector", [](int) { return make_vector_int(); }},
      {"struct", [](int) { return make_struct(); }, true, true},
      {"resized", [](int) { return make_resized_int(); }},
      {"mixed",
       [](int rank) {
         switch (rank % 3) {
           case 0:
             return make_vector_int();
           case 1:
             return Layout{"int", MPI_INT, 4, false};  // 4 ints per item: count scaled below
           default:
             return make_contig4_int();
         }
       }},
  };
}

// Bytes a buffer of `items` items of `layout` spans (from 0, including holes).
std::size_t span_bytes(const Layout& l, int items) {
  MPI_Aint lb, extent, true_lb, true_extent;
  MPI_Type_get_extent(l.type, &lb, &extent);
  MPI_Type_get_true_extent(l.type, &true_lb, &true_extent);
  if (items == 0) return 1;
  return static_cast<std::size_t>((items - 1) * extent + true_lb + true_extent);
}

// The item count a rank passes so that all ranks carry `units` signature units. In "mixed",
// plain MPI_INT carries 1 int per item but stands for per_item = 4: it passes 4x the items.
int items_for(const Layout& l, int units) {
  return l.name == "int" && l.per_item == 4 ? units * 4 : units;
}
MPI_Datatype type_for(const Layout& l) { return l.type; }

void fill(std::vector<unsigned char>& b, unsigned seed) {
  for (std::size_t i = 0; i < b.size(); ++i) {
    b[i] = static_cast<unsigned char>((i * 131u + seed * 7919u + (i >> 7)) & 0xff);
  }
}

struct Failure {
  int count = 0;
  void report(const std::string& what, int world_rank) {
    if (count++ < 10) std::fprintf(stderr, "differential: rank %d: %s\n", world_rank, what.c_str());
  }
};

struct Context {
  std::string coll;
  std::string expected_algorithm;
  LastAlgorithm last = nullptr;
  int world_rank = 0;
  Failure failure;
  long calls = 0;
  std::string only_family;  // optional third argument, for debugging one family
  int max_roots = 0;        // --roots=N: at most N roots per communicator, spread; 0: every root
  std::vector<int> units;   // --units=A,B,...: only these unit counts; empty: the default ones

  void check_algorithm(const std::string& where) {
    const char* ran = last();
    if (expected_algorithm != ran) {
      failure.report(where + ": ran " + ran + ", expected " + expected_algorithm, world_rank);
    }
  }
};

// Native scatter of packed blocks: the root packs each rank's block, PMPI_Scatter moves them as
// MPI_PACKED, and every rank unpacks into its own receive arguments.
void packed_native_scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                           int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  int rank, size, block = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  MPI_Pack_size(rank == root ? sendcount : recvcount, rank == root ? sendtype : recvtype, comm,
                &block);
  std::vector<char> packed(static_cast<std::size_t>(block) * static_cast<std::size_t>(size) + 1);
  std::vector<char> mine(static_cast<std::size_t>(block) + 1);
  if (rank == root) {
    MPI_Aint lb, extent;
    MPI_Type_get_extent(sendtype, &lb, &extent);
    for (int r = 0; r < size; ++r) {
      int position = r * block;
      MPI_Pack(static_cast<const char*>(sendbuf) + static_cast<MPI_Aint>(r) * sendcount * extent,
               sendcount, sendtype, packed.data(), static_cast<int>(packed.size()), &position,
               comm);
    }
  }
  PMPI_Scatter(packed.data(), block, MPI_PACKED, mine.data(), block, MPI_PACKED, root, comm);
  if (recvbuf != MPI_IN_PLACE) {
    int position = 0;
    MPI_Unpack(mine.data(), block, &position, recvbuf, recvcount, recvtype, comm);
  }
}

// Native alltoall of packed blocks: every rank packs its outgoing blocks (the receive buffer's
// with MPI_IN_PLACE), PMPI_Alltoall moves them as MPI_PACKED, and every rank unpacks each block
// into its receive arguments.
void packed_native_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                            void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  int size, block = 0;
  MPI_Comm_size(comm, &size);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  const void* from = in_place ? recvbuf : sendbuf;
  const int from_count = in_place ? recvcount : sendcount;
  const MPI_Datatype from_type = in_place ? recvtype : sendtype;
  MPI_Pack_size(from_count, from_type, comm, &block);
  const int total = block * size;
  std::vector<char> out(static_cast<std::size_t>(total) + 1), in(out.size());
  MPI_Aint lb, from_extent, recv_extent;
  MPI_Type_get_extent(from_type, &lb, &from_extent);
  MPI_Type_get_extent(recvtype, &lb, &recv_extent);
  for (int r = 0; r < size; ++r) {
    int position = r * block;
    MPI_Pack(static_cast<const char*>(from) + static_cast<MPI_Aint>(r) * from_count * from_extent,
             from_count, from_type, out.data(), total, &position, comm);
  }
  PMPI_Alltoall(out.data(), block, MPI_PACKED, in.data(), block, MPI_PACKED, comm);
  for (int r = 0; r < size; ++r) {
    int position = r * block;
    MPI_Unpack(in.data(), total, &position,
               static_cast<char*>(recvbuf) + static_cast<MPI_Aint>(r) * recvcount * recv_extent,
               recvcount, recvtype, comm);
  }
}

void bcast_case(Context& cx, MPI_Comm comm, const std::string& comm_name, const Family& family,
                int units, int root) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const Layout layout = family.layout(rank);
  const int items = items_for(layout, units);
  const std::size_t bytes = span_bytes(layout, items);
  std::vector<unsigned char> mine(bytes), native(bytes);
  const unsigned seed = rank == root ? 1000u + static_cast<unsigned>(units) : 7u + rank;
  fill(mine, seed);
  fill(native, seed);
  MPI_Bcast(mine.data(), items, type_for(layout), root, comm);
  ++cx.calls;
  const std::string where = "bcast " + family.name + " comm=" + comm_name +
                            " P=" + std::to_string(size) + " root=" + std::to_string(root) +
                            " units=" + std::to_string(units);
  cx.check_algorithm(where);
  PMPI_Bcast(native.data(), items, type_for(layout), root, comm);
  if (mine != native) cx.failure.report(where + ": buffer differs from native", cx.world_rank);
  if (layout.owned) {
    MPI_Datatype t = layout.type;
    MPI_Type_free(&t);
  }
}

// The end of a two-buffer case: collsel's buffers must equal the native call's (the send buffer
// untouched), then the case's datatypes are freed.
void compare_and_release(Context& cx, const std::string& where,
                         const std::vector<unsigned char>& send_mine,
                         const std::vector<unsigned char>& send_native,
                         const std::vector<unsigned char>& recv_mine,
                         const std::vector<unsigned char>& recv_native,
                         std::initializer_list<const Layout*> layouts) {
  if (recv_mine != recv_native) {
    cx.failure.report(where + ": receive buffer differs from native", cx.world_rank);
  }
  if (send_mine != send_native) {
    cx.failure.report(where + ": send buffer was modified", cx.world_rank);
  }
  for (const Layout* l : layouts) {
    if (l->owned) {
      MPI_Datatype t = l->type;
      MPI_Type_free(&t);
    }
  }
}

void scatter_case(Context& cx, MPI_Comm comm, const std::string& comm_name, const Family& family,
                  int units, int root, bool in_place) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  // The root sends plain ints (or the family's own type) and every rank receives with its own
  // layout: the same signature, different local types.
  const Layout recv_layout = family.layout(rank);
  const Layout send_layout = family.name == "mixed" ? Layout{"int", MPI_INT, 4, false}
                                                     : family.layout(root);
  const int recv_items = items_for(recv_layout, units);
  const int send_items = items_for(send_layout, units);
  std::vector<unsigned char> send_mine(span_bytes(send_layout, send_items * size));
  std::vector<unsigned char> recv_mine(span_bytes(recv_layout, recv_items));
  fill(send_mine, 500u + static_cast<unsigned>(units));
  fill(recv_mine, 9u + rank);
  std::vector<unsigned char> send_native = send_mine, recv_native = recv_mine;
  const bool root_in_place = in_place && rank == root;
  void* rm = root_in_place ? MPI_IN_PLACE : recv_mine.data();
  void* rn = root_in_place ? MPI_IN_PLACE : recv_native.data();
  MPI_Scatter(send_mine.data(), send_items, send_layout.type, rm, recv_items, recv_layout.type,
              root, comm);
  ++cx.calls;
  const std::string where = "scatter " + family.name + " comm=" + comm_name +
                            " P=" + std::to_string(size) + " root=" + std::to_string(root) +
                            " units=" + std::to_string(units) + (in_place ? " in_place" : "");
  cx.check_algorithm(where);
  if (family.native_typed_scatter_broken) {
    packed_native_scatter(send_native.data(), send_items, send_layout.type, rn, recv_items,
                          recv_layout.type, root, comm);
  } else {
    PMPI_Scatter(send_native.data(), send_items, send_layout.type, rn, recv_items,
                 recv_layout.type, root, comm);
  }
  compare_and_release(cx, where, send_mine, send_native, recv_mine, recv_native,
                      {&recv_layout, &send_layout});
}

void alltoall_case(Context& cx, MPI_Comm comm, const std::string& comm_name, const Family& family,
                   int units, bool in_place) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  // In "mixed", a rank's send layout is its right neighbour's receive layout: the two sides of
  // one rank differ, and so do the receive layouts of neighbouring ranks.
  const Layout recv_layout = family.layout(rank);
  const Layout send_layout = family.layout(rank + 1);
  const int recv_items = items_for(recv_layout, units);
  const int send_items = items_for(send_layout, units);
  std::vector<unsigned char> send_mine(span_bytes(send_layout, send_items * size));
  std::vector<unsigned char> recv_mine(span_bytes(recv_layout, recv_items * size));
  fill(send_mine, 500u + static_cast<unsigned>(units) + 31u * rank);
  fill(recv_mine, 9u + rank);
  std::vector<unsigned char> send_native = send_mine, recv_native = recv_mine;
  // With MPI_IN_PLACE the send arguments are not significant; pass what a C user typically does.
  const void* sm = in_place ? MPI_IN_PLACE : send_mine.data();
  const void* sn = in_place ? MPI_IN_PLACE : send_native.data();
  const int send_count = in_place ? 0 : send_items;
  const MPI_Datatype send_type = in_place ? MPI_DATATYPE_NULL : send_layout.type;
  MPI_Alltoall(sm, send_count, send_type, recv_mine.data(), recv_items, recv_layout.type, comm);
  ++cx.calls;
  const std::string where = "alltoall " + family.name + " comm=" + comm_name +
                            " P=" + std::to_string(size) + " units=" + std::to_string(units) +
                            (in_place ? " in_place" : "");
  cx.check_algorithm(where);
  if (in_place && family.native_in_place_alltoall_broken) {
    packed_native_alltoall(sn, send_count, send_type, recv_native.data(), recv_items,
                           recv_layout.type, comm);
  } else {
    PMPI_Alltoall(sn, send_count, send_type, recv_native.data(), recv_items, recv_layout.type,
                  comm);
  }
  compare_and_release(cx, where, send_mine, send_native, recv_mine, recv_native,
                      {&recv_layout, &send_layout});
}

// Every root, or at most `most` of them: the first, the second, the middle and the last first (a
// root's vrank order differs from rank order in each), then evenly spread.
std::vector<int> roots(int size, int most) {
  std::vector<int> out;
  if (most <= 0 || most >= size) {
    for (int r = 0; r < size; ++r) out.push_back(r);
    return out;
  }
  for (int r : {0, 1, size / 2, size - 1}) {
    if (static_cast<int>(out.size()) < most &&
        std::find(out.begin(), out.end(), r) == out.end()) {
      out.push_back(r);
    }
  }
  for (int k = 1; static_cast<int>(out.size()) < most; ++k) {
    const int r = static_cast<int>(static_cast<long>(k) * size / most);
    if (std::find(out.begin(), out.end(), r) == out.end()) out.push_back(r);
  }
  return out;
}

void run_comm(Context& cx, MPI_Comm comm, const std::string& comm_name) {
  int size;
  MPI_Comm_size(comm, &size);
  // 0, 1, odd, and large: 3001 units is 12004+ bytes, not a multiple of any segment size the
  // differential tests force (COLLSEL_SEGMENT_BYTES=1000 cuts elements in the middle, too).
  std::vector<int> unit_counts = {0, 1, 7, 3001};
  // Alltoall moves P blocks per rank per call, so its large count is smaller; 1001 is still past
  // the in-place struct failure of native MPICH (Family).
  std::vector<int> alltoall_unit_counts = {0, 1, 7, 1001};
  // --units: a smaller large count where a smaller P already covers the default ones (the
  // simulated All-to-All at P = 64, whose P^2 concurrent flows of 1001 units cost SimGrid's
  // solver 7 s of wall time a call).
  if (!cx.units.empty()) unit_counts = alltoall_unit_counts = cx.units;
  for (const Family& family : families()) {
    if (!cx.only_family.empty() && family.name != cx.only_family) continue;
    if (cx.coll == "alltoall") {
      for (int units : alltoall_unit_counts) {
        alltoall_case(cx, comm, comm_name, family, units, false);
        alltoall_case(cx, comm, comm_name, family, units, true);
      }
      continue;
    }
    for (int units : unit_counts) {
      for (int root : roots(size, cx.max_roots)) {
        if (cx.coll == "bcast") {
          bcast_case(cx, comm, comm_name, family, units, root);
        } else {
          scatter_case(cx, comm, comm_name, family, units, root, false);
          scatter_case(cx, comm, comm_name, family, units, root, true);
        }
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  Context cx;
  MPI_Comm_rank(MPI_COMM_WORLD, &cx.world_rank);
  // Options first (--roots=N), then the positional arguments.
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--roots=", 0) == 0) {
      cx.max_roots = std::atoi(a.c_str() + 8);
    } else if (a.rfind("--units=", 0) == 0) {
      std::stringstream list(a.substr(8));
      for (std::string item; std::getline(list, item, ',');) cx.units.push_back(std::stoi(item));
    } else {
      args.push_back(a);
    }
  }
  if (args.size() != 2 && args.size() != 3) {
    if (cx.world_rank == 0) {
      std::fprintf(stderr, "usage: differential [--roots=N] [--units=A,B,...] "
                           "bcast|scatter|alltoall ALGORITHM [DATATYPE_FAMILY]\n");
    }
    MPI_Finalize();
    return 2;
  }
  cx.coll = args[0];
  cx.expected_algorithm = args[1];
  if (args.size() == 3) cx.only_family = args[2];
  cx.last = reinterpret_cast<LastAlgorithm>(dlsym(RTLD_DEFAULT, "collsel_last_algorithm"));
  int ok = cx.last != nullptr;
  if (!ok) std::fprintf(stderr, "differential: libcollsel.so is not preloaded\n");

  if (ok) {
    run_comm(cx, MPI_COMM_WORLD, "world");
    // Reordered halves: ranks of the sub-communicator differ from world ranks.
    MPI_Comm half;
    int world_size;
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    MPI_Comm_split(MPI_COMM_WORLD, cx.world_rank % 2, world_size - cx.world_rank, &half);
    run_comm(cx, half, "split");
    MPI_Comm_free(&half);
    ok = cx.failure.count == 0;
  }
  int all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (cx.world_rank == 0) {
    std::printf("differential %s %s: %ld calls per rank, %s\n", cx.coll.c_str(),
                cx.expected_algorithm.c_str(), cx.calls,
                all_ok ? "all identical to native" : "FAILED");
  }
  MPI_Finalize();
  return all_ok ? 0 : 1;
}
