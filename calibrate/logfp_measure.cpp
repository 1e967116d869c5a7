#include "calibrate/logfp_measure.hpp"

#include <time.h>

#include <algorithm>

#include "calibrate/plogp_measure.hpp"
#include "calibrate/mpi_resources.hpp"

namespace collsel::calibrate {
namespace {

constexpr int kTag = 79;

}  // namespace

std::vector<int> peer_order(const NodeLayout& layout, int root) {
  std::vector<int> order;
  const int home = layout.node_of_rank.at(static_cast<std::size_t>(root));
  for (std::size_t depth = 0;; ++depth) {
    bool any = false;
    for (int n = 0; n < layout.nodes(); ++n) {
      const auto& ranks = layout.ranks_of_node[static_cast<std::size_t>(n)];
      if (n == home || depth >= ranks.size()) continue;
      order.push_back(ranks[depth]);
      any = true;
    }
    if (!any) break;
  }
  for (const int r : layout.ranks_of_node[static_cast<std::size_t>(home)]) {
    if (r != root) order.push_back(r);
  }
  return order;
}

LogfpMeasurement measure_logfp(MPI_Comm user, const NodeLayout& layout,
                               const LogfpMeasureOptions& o) {
  OwnedComm comm;  // private: the benchmark's messages never meet the caller's
  MPI_Comm_dup(user, comm.out());
  int rank = 0, size = 1;
  MPI_Comm_rank(comm.get(), &rank);
  MPI_Comm_size(comm.get(), &size);
  LogfpMeasurement out;
  const std::vector<int> order = peer_order(layout, 0);
  if (rank == 0) out.peers = order;
  // 1-based position of this rank among the peers; 0 for rank 0 (and never for a peer).
  const int position =
      rank == 0 ? 0
                : static_cast<int>(std::find(order.begin(), order.end(), rank) - order.begin()) + 1;
  const auto block = static_cast<std::size_t>(std::max<std::uint64_t>(o.bytes, 1));
  const int count = static_cast<int>(o.bytes);
  std::vector<unsigned char> message(block, 1);
  std::vector<unsigned char> answers(rank == 0 ? block * static_cast<std::size_t>(size) : block);
  const int most = size - 1;
  const double share = o.budget_s / std::max(1, most);
  const double started = MPI_Wtime();

  for (int p = 1; p <= most; ++p) {
    const bool addressed = rank == 0 || position <= p;
    OwnedComm sub;  // rank 0 is 0 in it, the i-th peer is i
    MPI_Comm_split(comm.get(), addressed ? 0 : MPI_UNDEFINED, position, sub.out());
    if (addressed) {
      std::vector<double> overhead, rtt;
      std::vector<MPI_Request> received(static_cast<std::size_t>(p)), sent(received.size());
      const double until = MPI_Wtime() + share;
      for (int run = 0;; ++run) {
        if (rank == 0) {
          for (int i = 1; i <= p; ++i) {
            MPI_Irecv(&answers[static_cast<std::size_t>(i) * block], count, MPI_BYTE, i, kTag,
                      sub.get(), &received[static_cast<std::size_t>(i - 1)]);
          }
          MPI_Barrier(sub.get());
          const double t0 = MPI_Wtime();
          for (int i = 1; i <= p; ++i) {
            MPI_Isend(message.data(), count, MPI_BYTE, i, kTag, sub.get(),
                      &sent[static_cast<std::size_t>(i - 1)]);
          }
          const double posted = MPI_Wtime();
          MPI_Waitall(p, received.data(), MPI_STATUSES_IGNORE);
          const double back = MPI_Wtime();
          MPI_Waitall(p, sent.data(), MPI_STATUSES_IGNORE);
          if (run >= o.warmup) {
            overhead.push_back((posted - t0) / p);
            rtt.push_back(back - t0);
          }
        } else {
          // Pre-posted, so the answer leaves as soon as the message is in.
          MPI_Request request = MPI_REQUEST_NULL;
          MPI_Irecv(answers.data(), count, MPI_BYTE, 0, kTag, sub.get(), &request);
          MPI_Barrier(sub.get());
          MPI_Wait(&request, MPI_STATUS_IGNORE);
          MPI_Send(answers.data(), count, MPI_BYTE, 0, kTag, sub.get());
        }
        int more = 0;
        if (rank == 0) {
          const int n = static_cast<int>(rtt.size());
          more = run < o.warmup || n < o.min_samples ||
                 (n < o.max_samples && MPI_Wtime() < until);
        }
        MPI_Bcast(&more, 1, MPI_INT, 0, sub.get());
        if (!more) break;
      }
      if (rank == 0) out.samples.push_back({p, estimate(overhead).median, estimate(rtt).median});
    }
    wait_without_polling(comm.get());
    if (rank == 0 && o.progress) o.progress(p, most, MPI_Wtime() - started);
  }
  return out;
}

}  // namespace collsel::calibrate
