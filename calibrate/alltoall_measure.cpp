#include "calibrate/alltoall_measure.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "calibrate/plogp_measure.hpp"
#include "selector/registry.hpp"

namespace collsel::calibrate {
namespace {

const Algorithm<AlltoallCall>& registered(std::string_view name) {
  for (const auto& a : alltoall_registry()) {
    if (a.view.name == name) return a;
  }
  throw std::logic_error("alltoall algorithm missing from the registry");
}

class Exchange {
 public:
  Exchange(MPI_Comm comm, std::uint64_t max_block) : comm_(comm) {
    MPI_Comm_rank(comm, &rank_);
    MPI_Comm_size(comm, &size_);
    const auto bytes = max_block * static_cast<std::uint64_t>(size_);
    send_.assign(bytes, static_cast<unsigned char>(rank_));
    recv_.assign(bytes, 0);
  }

  // One call of `algo` with blocks of m bytes; the slowest rank's time.
  double time(const Algorithm<AlltoallCall>& algo, std::uint64_t m) {
    const int count = static_cast<int>(m);
    const AlltoallCall call{send_.data(), count, MPI_BYTE, recv_.data(), count, MPI_BYTE,
                            comm_, rank_, size_};
    MPI_Barrier(comm_);
    const double t0 = MPI_Wtime();
    algo.run(call, AlgoParams{});
    double t = MPI_Wtime() - t0;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, comm_);
    return t;
  }

 private:
  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  std::vector<unsigned char> send_, recv_;
};

// Local copy cost: the median of a few copies of 16 MiB (cache-cold, as Bruck's buffers are).
double copy_cost() {
  constexpr std::size_t kBytes = 16u << 20;
  std::vector<unsigned char> a(kBytes, 1), b(kBytes, 0);
  std::vector<double> t;
  for (int i = 0; i < 5; ++i) {
    const double t0 = MPI_Wtime();
    std::memcpy(b.data(), a.data(), kBytes);
    t.push_back(MPI_Wtime() - t0);
    a[static_cast<std::size_t>(i)] = b[kBytes - 1];  // keep the copy observable
  }
  return estimate(t).median / static_cast<double>(kBytes);
}

}  // namespace

AlltoallMeasurement measure_alltoall(MPI_Comm user, const AlltoallMeasureOptions& o) {
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_dup(user, &comm);
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const std::uint64_t largest = o.sizes.empty() ? 0 : o.sizes.back();
  Exchange ex(comm, largest);
  const auto& direct = registered("alltoall.direct_exchange");
  const auto& flood = registered("alltoall.all_at_once");
  double weight_total = 0;
  for (auto m : o.sizes) weight_total += size_weight(m);

  AlltoallMeasurement out;
  const auto started = std::chrono::steady_clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  };
  for (std::size_t i = 0; i < o.sizes.size(); ++i) {
    const std::uint64_t m = o.sizes[i];
    const double share = o.budget_s * size_weight(m) / weight_total;
    const double until = elapsed() + share;
    std::vector<double> td, tf;
    ex.time(direct, m);  // warm-up: connections, registration caches
    ex.time(flood, m);
    int stop = 0;
    while (!stop) {
      // Interleaved, so a slow phase of the machine hits both schedules alike.
      td.push_back(ex.time(direct, m));
      tf.push_back(ex.time(flood, m));
      const int n = static_cast<int>(td.size());
      if (rank == 0) {
        const bool tight = estimate(td).spread <= o.target_spread &&
                           estimate(tf).spread <= o.target_spread;
        stop = n >= o.max_samples || (n >= o.min_samples && (tight || elapsed() > until));
      }
      MPI_Bcast(&stop, 1, MPI_INT, 0, comm);
    }
    out.direct.push_back({size, m, estimate(td).median});
    out.flood.push_back({size, m, estimate(tf).median});
    if (rank == 0 && o.progress) o.progress(i, o.sizes.size(), elapsed());
  }
  out.copy_s_per_byte = rank == 0 ? copy_cost() : 0.0;
  MPI_Comm_free(&comm);
  return out;
}

ContentionFit fit_contention(const AlltoallMeasurement& m, const models::plogp::Params& pair,
                             int ranks) {
  namespace a = models::alltoall;
  ContentionFit out;
  a::Contention& c = out.contention;
  c.sample_ranks = ranks;
  c.hockney = a::hockney_from_plogp(pair);
  c.copy_s_per_byte = m.copy_s_per_byte;
  const a::SignatureFit fit = a::fit_signature(m.direct, c.hockney);
  if (fit.error) {
    out.error = fit.error;
    return out;
  }
  c.signature = fit.signature;
  c.signature_fit = fit.quality;
  out.direct_predicted = fit.predicted;

  c.beta_free_s_per_byte = c.hockney.beta_s_per_byte;
  const a::Sample& big = m.flood.back();
  c.beta_contention_s_per_byte =
      big.seconds / (static_cast<double>(std::max(1, big.n - 1)) * static_cast<double>(big.bytes));
  // rho is about bytes: fit it where bytes dominate, at and above M.
  const auto at_least = [&](const std::vector<a::Sample>& v) {
    std::vector<a::Sample> kept;
    for (const auto& s : v) {
      if (c.signature.threshold_bytes == a::kNoThreshold || s.bytes >= c.signature.threshold_bytes) {
        kept.push_back(s);
      }
    }
    return kept.empty() ? v : kept;
  };
  c.rho_single = a::fit_rho(at_least(m.direct), c, 1);
  c.rho_flood = a::fit_rho(at_least(m.flood), c, 0);
  return out;
}

}  // namespace collsel::calibrate
