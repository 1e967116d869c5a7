// alltoall.mesh2d: Faraj and Yuan's 2-D mesh All-to-All, packed. The ranks form a rows x cols
// grid (models/alltoall/contention.hpp mesh_grid; rank r in row r / cols, column r % cols). Phase
// 1, along the row: every rank sends each row peer in column k the rows blocks bound for column k,
// all messages in flight at once. Phase 2, along the column: every rank now holds, for each rank
// of its column, the blocks its whole row sends there, and sends them, cols blocks a message.
// (cols - 1) + (rows - 1) messages per rank where the direct schedules send P - 1 and Bruck's
// log2 P one after another: two rounds of start-ups, for twice the direct schedules' bytes.
// SMPI's alltoall 2dmesh sends a row peer the whole send buffer; this one sends only the blocks
// bound for the peer's column, (cols - 1) rows m + (rows - 1) cols m bytes per rank.
// The posting order in each phase is all_at_once's (receive from +t, send to -t).
// Cost: models/alltoall/contention.hpp mesh2d. Scratch: 3 P m bytes.
// Works for any P (prime P is one row: one phase of P - 1 single blocks), count (0 included),
// datatypes (packed, byte_view.hpp) and MPI_IN_PLACE (every block is packed before any arrives).
// Needs max(rows, cols) m <= INT_MAX (registry applicability).
#include <algorithm>
#include <cstddef>

#include "flavour/flavour.hpp"
#include "models/alltoall/contention.hpp"
#include "selector/alltoall/algorithms.hpp"
#include "selector/alltoall/blocks.hpp"
#include "selector/byte_view.hpp"

namespace collsel::alltoall {

int mesh2d(const AlltoallCall& call, const AlgoParams&) {
  const std::size_t m = block_bytes(call);
  if (m == 0) return MPI_SUCCESS;
  const int n = call.size;
  const auto [rows, cols] = models::alltoall::mesh_grid(n);
  const int row = call.rank / cols;
  const int col = call.rank % cols;
  const auto at = [m](std::byte* base, std::size_t blocks) { return base + blocks * m; };
  const Outgoing out = outgoing(call);

  // packed: segment k (rows blocks) holds the blocks bound for column k, by row.
  flavour::Scratch packed(static_cast<std::size_t>(n) * m);
  for (int k = 0; k < cols; ++k) {
    for (int i = 0; i < rows; ++i) {
      std::byte* slot = at(packed.data(), static_cast<std::size_t>(k * rows + i));
      if (int e = pack_block(out.buffer, out.count, out.type, i * cols + k, slot, call.comm);
          e != MPI_SUCCESS) {
        return e;
      }
    }
  }

  // Phase 1. from_row[k]: the rows blocks that rank (row, k) sends to this column; this rank's
  // own is its packed segment.
  flavour::Scratch row_in(static_cast<std::size_t>(n) * m);
  const auto segment = static_cast<std::size_t>(rows);
  const auto from_row = [&](int k) {
    return at(k == col ? packed.data() : row_in.data(), static_cast<std::size_t>(k) * segment);
  };
  const int row_bytes = static_cast<int>(segment * m);
  {
    Requests pending;
    for (int t = 1; t < cols; ++t) {
      const int k = (col + t) % cols;
      if (int e = PMPI_Irecv(from_row(k), row_bytes, MPI_BYTE, row * cols + k, data_tag(call),
                             call.comm, pending.add());
          e != MPI_SUCCESS) {
        return e;
      }
    }
    for (int t = 1; t < cols; ++t) {
      const int k = (col - t + cols) % cols;
      if (int e = PMPI_Isend(at(packed.data(), static_cast<std::size_t>(k) * segment), row_bytes,
                             MPI_BYTE, row * cols + k, data_tag(call), call.comm, pending.add());
          e != MPI_SUCCESS) {
        return e;
      }
    }
    if (int e = pending.wait(); e != MPI_SUCCESS) return e;
  }

  // This row's blocks for this rank are here already; the other rows' go out gathered by row:
  // to_rows segment i (cols blocks) holds what rank (i, col) gets from each rank of this row.
  for (int k = 0; k < cols; ++k) {
    if (int e = unpack_block(at(from_row(k), static_cast<std::size_t>(row)), call.recvbuf,
                             call.recvcount, call.recvtype, row * cols + k, call.comm);
        e != MPI_SUCCESS) {
      return e;
    }
  }
  if (rows == 1) return MPI_SUCCESS;
  flavour::Scratch to_rows(static_cast<std::size_t>(n) * m);
  for (int i = 0; i < rows; ++i) {
    if (i == row) continue;
    for (int k = 0; k < cols; ++k) {
      std::copy_n(at(from_row(k), static_cast<std::size_t>(i)), m,
                  at(to_rows.data(), static_cast<std::size_t>(i * cols + k)));
    }
  }

  // Phase 2: row_in is free again and receives, by row, what each rank of this column gathered.
  const int col_bytes = static_cast<int>(static_cast<std::size_t>(cols) * m);
  Requests pending;
  for (int t = 1; t < rows; ++t) {
    const int i = (row + t) % rows;
    if (int e = PMPI_Irecv(at(row_in.data(), static_cast<std::size_t>(i * cols)), col_bytes,
                           MPI_BYTE, i * cols + col, data_tag(call), call.comm, pending.add());
        e != MPI_SUCCESS) {
      return e;
    }
  }
  for (int t = 1; t < rows; ++t) {
    const int i = (row - t + rows) % rows;
    if (int e = PMPI_Isend(at(to_rows.data(), static_cast<std::size_t>(i * cols)), col_bytes,
                           MPI_BYTE, i * cols + col, data_tag(call), call.comm, pending.add());
        e != MPI_SUCCESS) {
      return e;
    }
  }
  if (int e = pending.wait(); e != MPI_SUCCESS) return e;
  for (int i = 0; i < rows; ++i) {
    if (i == row) continue;
    for (int k = 0; k < cols; ++k) {
      const int source = i * cols + k;
      if (int e = unpack_block(at(row_in.data(), static_cast<std::size_t>(source)), call.recvbuf,
                               call.recvcount, call.recvtype, source, call.comm);
          e != MPI_SUCCESS) {
        return e;
      }
    }
  }
  return MPI_SUCCESS;
}

}  // namespace collsel::alltoall
