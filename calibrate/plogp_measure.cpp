#include "calibrate/plogp_measure.hpp"

#include <algorithm>
#include <cstddef>

namespace collsel::calibrate {
namespace {

constexpr int kTag = 77;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n == 0 ? 0.0 : (n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]));
}

void spin_until(double t) {
  while (MPI_Wtime() < t) {
  }
}

class Pair {
 public:
  Pair(MPI_Comm comm, int rank, std::size_t max_bytes)
      : comm_(comm), rank_(rank), buffer_(std::max<std::size_t>(max_bytes, 1)) {}

  // Ping-pong, median over repetitions; meaningful on rank 0.
  double round_trip(std::uint64_t m, int repetitions) {
    std::vector<double> samples;
    for (int r = 0; r < repetitions + 1; ++r) {
      const double t0 = MPI_Wtime();
      if (rank_ == 0) {
        send(m);
        recv(m);
      } else {
        recv(m);
        send(m);
      }
      if (r > 0) samples.push_back(MPI_Wtime() - t0);  // the first round warms up
    }
    return median(samples);
  }

  // n back-to-back sends then a zero-byte reply; n grows until the burst lasts min_burst_s.
  double gap(std::uint64_t m, double rtt0, const MeasureOptions& o) {
    std::vector<double> samples;
    int n = 4;
    for (int r = 0; r < o.repetitions; ++r) {
      double elapsed = 0.0;
      for (;;) {
        MPI_Barrier(comm_);
        const double t0 = MPI_Wtime();
        if (rank_ == 0) {
          for (int i = 0; i < n; ++i) send(m);
          recv(0);
        } else {
          for (int i = 0; i < n; ++i) recv(m);
          send(0);
        }
        elapsed = MPI_Wtime() - t0;
        int grow = rank_ == 0 && elapsed < o.min_burst_s && n < (1 << 20);
        MPI_Bcast(&grow, 1, MPI_INT, 0, comm_);
        if (!grow) break;
        n *= 2;
      }
      samples.push_back(std::max(0.0, (elapsed - rtt0) / n));
    }
    return median(samples);
  }

  // Time of the send call with the receiver already waiting and the link idle.
  double send_overhead(std::uint64_t m, int repetitions) {
    std::vector<double> samples;
    for (int r = 0; r < repetitions; ++r) {
      MPI_Barrier(comm_);
      if (rank_ == 0) {
        const double t0 = MPI_Wtime();
        send(m);
        samples.push_back(MPI_Wtime() - t0);
        recv(0);
      } else {
        recv(m);
        send(0);
      }
    }
    return median(samples);
  }

  // Time of the receive call for a message that arrived while the receiver was busy for
  // `delay` seconds (longer than a round trip of m).
  double recv_overhead(std::uint64_t m, double delay, int repetitions) {
    std::vector<double> samples;
    for (int r = 0; r < repetitions; ++r) {
      MPI_Barrier(comm_);
      if (rank_ == 0) {
        send(m);
        recv(0);
      } else {
        spin_until(MPI_Wtime() + delay);
        const double t0 = MPI_Wtime();
        recv(m);
        samples.push_back(MPI_Wtime() - t0);
        send(0);
      }
    }
    double value = rank_ == 1 ? median(samples) : 0.0;
    MPI_Bcast(&value, 1, MPI_DOUBLE, 1, comm_);
    return value;
  }

 private:
  void send(std::uint64_t m) {
    MPI_Send(buffer_.data(), static_cast<int>(m), MPI_BYTE, 1 - rank_, kTag, comm_);
  }
  void recv(std::uint64_t m) {
    MPI_Recv(buffer_.data(), static_cast<int>(m), MPI_BYTE, 1 - rank_, kTag, comm_,
             MPI_STATUS_IGNORE);
  }

  MPI_Comm comm_;
  int rank_;
  std::vector<std::byte> buffer_;
};

}  // namespace

std::optional<models::plogp::Params> measure_plogp(MPI_Comm comm, const MeasureOptions& o) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  // Only ranks 0 and 1 take part; the pair communicator keeps the others out of the way.
  MPI_Comm pair = MPI_COMM_NULL;
  MPI_Comm_split(comm, rank < 2 ? 0 : MPI_UNDEFINED, rank, &pair);
  std::optional<models::plogp::Params> result;
  if (pair != MPI_COMM_NULL) {
    Pair p(pair, rank, o.sizes.empty() ? 1 : o.sizes.back());
    models::plogp::Params params;
    const double rtt0 = p.round_trip(0, o.repetitions);
    for (std::size_t i = 0; i < o.sizes.size(); ++i) {
      const std::uint64_t m = o.sizes[i];
      models::plogp::SizePoint point;
      point.bytes = m;
      const double rtt = p.round_trip(m, o.repetitions);
      point.gap_s = p.gap(m, rtt0, o);
      point.send_overhead_s = p.send_overhead(m, o.repetitions);
      point.recv_overhead_s = p.recv_overhead(m, 2.0 * rtt + 20e-6, o.repetitions);
      params.table.push_back(point);
      if (rank == 0 && o.progress) o.progress(i, o.sizes.size());
    }
    params.latency_s = std::max(0.0, rtt0 / 2.0 - params.table.front().gap_s);
    if (rank == 0) result = std::move(params);
    MPI_Comm_free(&pair);
  }
  MPI_Barrier(comm);
  return result;
}

std::optional<std::uint64_t> detect_eager_limit(const models::plogp::Params& params) {
  // A protocol switch is a discontinuity of g(m): between neighbouring sizes the gap grows far
  // more than the size does (8 KiB -> 12 KiB: g x7 on MPICH/UCX shared memory). The largest such
  // excess wins; bandwidth alone never makes g grow faster than m, and scheduler noise on small
  // sizes stays well below a factor 2.
  const auto& t = params.table;
  double best_excess = 2.0;
  std::optional<std::uint64_t> limit;
  for (std::size_t i = 1; i < t.size(); ++i) {
    if (t[i - 1].bytes == 0 || t[i - 1].gap_s <= 0.0) continue;
    const double growth = t[i].gap_s / t[i - 1].gap_s;
    const double size_growth =
        static_cast<double>(t[i].bytes) / static_cast<double>(t[i - 1].bytes);
    const double excess = growth / size_growth;
    if (excess > best_excess) {
      best_excess = excess;
      limit = t[i - 1].bytes;
    }
  }
  return limit;
}

}  // namespace collsel::calibrate
