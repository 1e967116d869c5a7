#include "calibrate/compare.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cmath>

#include "selector/registry.hpp"

namespace collsel::calibrate {

Summary summarise(std::vector<double> v) {
  if (v.empty()) return {};
  std::sort(v.begin(), v.end());
  const auto at = [&](double q) {
    const double pos = q * static_cast<double>(v.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const auto hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
  };
  return {at(0.5), at(0.25), at(0.75), v.front(), v.back()};
}

namespace {

// The shim's C API, looked up at run time so the measurement also runs without the shim.
using LastAlgorithmFn = const char* (*)();

std::uint8_t pattern(std::uint64_t i, int salt) {
  return static_cast<std::uint8_t>((i * 131 + static_cast<std::uint64_t>(salt) * 17 + 7) & 0xff);
}

}  // namespace

struct Comparer::Impl {
  MPI_Comm comm = MPI_COMM_NULL;  // the user's (world)
  MPI_Comm priv = MPI_COMM_NULL;  // our duplicate, for the algorithms run directly
  const ModelSet& models;
  const Policy& policy;
  int rank = 0;
  int size = 1;
  LastAlgorithmFn last_algorithm = nullptr;
  std::vector<std::uint8_t> buf;
  std::vector<std::uint8_t> send;

  Impl(MPI_Comm c, const ModelSet& m, const Policy& p) : comm(c), models(m), policy(p) {
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    PMPI_Comm_dup(comm, &priv);
    last_algorithm = reinterpret_cast<LastAlgorithmFn>(dlsym(RTLD_DEFAULT, "collsel_last_algorithm"));
  }
  ~Impl() { PMPI_Comm_free(&priv); }

  // Alltoall: the byte i of the block from rank `src` to rank `dst`.
  std::uint8_t exchanged(std::uint64_t i, int src, int dst) const {
    return pattern(i, src * size + dst + 2);
  }

  void fill(Collective coll, std::uint64_t bytes) {
    const auto n = static_cast<std::uint64_t>(size);
    if (coll == Collective::alltoall) {
      send.assign(bytes * n, 0);
      for (std::uint64_t d = 0; d < n; ++d) {
        for (std::uint64_t i = 0; i < bytes; ++i) {
          send[d * bytes + i] = exchanged(i, rank, static_cast<int>(d));
        }
      }
      buf.assign(bytes * n, 0);
    } else if (coll == Collective::bcast) {
      buf.assign(bytes, 0);
      if (rank == 0) {
        for (std::uint64_t i = 0; i < bytes; ++i) buf[i] = pattern(i, 1);
      }
    } else {
      send.assign(rank == 0 ? bytes * static_cast<std::uint64_t>(size) : 0, 0);
      for (std::uint64_t i = 0; i < send.size(); ++i) send[i] = pattern(i, 1);
      buf.assign(bytes, 0);
    }
  }

  bool check(Collective coll, std::uint64_t bytes) const {
    const std::uint64_t offset =
        coll == Collective::bcast ? 0 : bytes * static_cast<std::uint64_t>(rank);
    int bad = 0;
    if (coll == Collective::alltoall) {
      for (std::uint64_t s = 0; s < static_cast<std::uint64_t>(size) && !bad; ++s) {
        for (std::uint64_t i = 0; i < bytes && !bad; ++i) {
          bad = buf[s * bytes + i] != exchanged(i, static_cast<int>(s), rank);
        }
      }
    } else {
      for (std::uint64_t i = 0; i < bytes && !bad; ++i) bad = buf[i] != pattern(offset + i, 1);
    }
    int any = 0;
    PMPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comm);
    return any == 0;
  }

  // One call, timed on every rank; the call's time is the slowest rank's.
  double timed(Collective coll, const VariantResult& v, int index, std::string* ran) {
    const std::size_t blocks = coll == Collective::alltoall ? static_cast<std::size_t>(size) : 1;
    const int count = static_cast<int>(buf.size() / blocks);
    PMPI_Barrier(comm);
    const double t0 = PMPI_Wtime();
    const bool native = v.kind == VariantKind::native ||
                        (v.kind == VariantKind::automatic && !last_algorithm && index < 0);
    const bool through_shim = v.kind == VariantKind::automatic && last_algorithm;
    if (coll == Collective::bcast) {
      if (native) {
        PMPI_Bcast(buf.data(), count, MPI_BYTE, 0, comm);
      } else if (through_shim) {
        MPI_Bcast(buf.data(), count, MPI_BYTE, 0, comm);
      } else {
        const BcastCall call{buf.data(), count, MPI_BYTE, 0, priv, rank, size};
        bcast_registry()[static_cast<std::size_t>(index)].run(call, v.params);
      }
    } else if (coll == Collective::alltoall) {
      if (native) {
        PMPI_Alltoall(send.data(), count, MPI_BYTE, buf.data(), count, MPI_BYTE, comm);
      } else if (through_shim) {
        MPI_Alltoall(send.data(), count, MPI_BYTE, buf.data(), count, MPI_BYTE, comm);
      } else {
        const AlltoallCall call{send.data(), count, MPI_BYTE, buf.data(), count, MPI_BYTE,
                                priv, rank, size};
        alltoall_registry()[static_cast<std::size_t>(index)].run(call, v.params);
      }
    } else {
      if (native) {
        PMPI_Scatter(send.data(), count, MPI_BYTE, buf.data(), count, MPI_BYTE, 0, comm);
      } else if (through_shim) {
        MPI_Scatter(send.data(), count, MPI_BYTE, buf.data(), count, MPI_BYTE, 0, comm);
      } else {
        const ScatterCall call{send.data(), count, MPI_BYTE, buf.data(), count, MPI_BYTE, 0,
                               priv, rank, size};
        scatter_registry()[static_cast<std::size_t>(index)].run(call, v.params);
      }
    }
    double t = PMPI_Wtime() - t0;
    if (through_shim && ran != nullptr) *ran = last_algorithm();
    double slowest = 0;
    PMPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
    return slowest;
  }
};

Comparer::Comparer(MPI_Comm comm, const ModelSet& models, const Policy& policy)
    : impl_(std::make_unique<Impl>(comm, models, policy)) {}
Comparer::~Comparer() = default;

bool Comparer::shim_loaded() const { return impl_->last_algorithm != nullptr; }

PointResult Comparer::run(Collective coll, std::uint64_t bytes, const CompareOptions& o) {
  Impl& im = *impl_;
  const CallShape shape{coll, im.size, bytes, 0};
  const Decision d = decide(shape, im.models, im.policy);
  PointResult out;
  out.coll = coll;
  out.comm_size = im.size;
  out.bytes = bytes;
  out.model_choice = std::string(d.algorithm());
  std::vector<int> index;  // registry index per variant, -1 for native
  if (o.native) {
    out.variants.push_back({"native", VariantKind::native, "native", {}, NAN, {}});
    index.push_back(-1);
  }
  for (std::size_t i = 0; i < d.table.size(); ++i) {
    if (d.table[i].not_applicable) continue;
    const std::string name(d.table[i].name);
    out.variants.push_back(
        {name, VariantKind::fixed, name, d.table[i].params, d.table[i].predicted_s, {}});
    index.push_back(static_cast<int>(i));
  }
  if (o.automatic) {
    out.variants.push_back({"auto", VariantKind::automatic, out.model_choice, d.params(),
                            d.predicted_s(), {}});
    index.push_back(d.winner);
  }

  // Warm-up round: checks every variant's result and sizes the repetitions to the budget.
  double round_s = 0;
  for (std::size_t i = 0; i < out.variants.size(); ++i) {
    im.fill(coll, bytes);
    round_s += im.timed(coll, out.variants[i], index[i], &out.variants[i].algorithm);
    out.correct = im.check(coll, bytes) && out.correct;
  }
  int reps = o.max_reps;
  if (round_s > 0) {
    reps = std::clamp(static_cast<int>(o.budget_s / round_s), o.min_reps, o.max_reps);
  }
  PMPI_Bcast(&reps, 1, MPI_INT, 0, im.comm);  // every rank runs the same count
  out.reps = reps;
  for (int r = 0; r < reps; ++r) {
    // Rotate the order each repetition, so no variant always follows the same one.
    for (std::size_t k = 0; k < out.variants.size(); ++k) {
      const std::size_t i = (k + static_cast<std::size_t>(r)) % out.variants.size();
      out.variants[i].samples.push_back(
          im.timed(coll, out.variants[i], index[i], &out.variants[i].algorithm));
    }
  }
  return out;
}

}  // namespace collsel::calibrate
