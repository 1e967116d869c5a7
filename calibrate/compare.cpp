#include "calibrate/compare.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <set>

#include "flavour/flavour.hpp"
#include "selector/node_placement.hpp"
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

std::string_view variant_kind_name(VariantKind kind) {
  switch (kind) {
    case VariantKind::native:
      return "native";
    case VariantKind::library:
      return "library";
    case VariantKind::fixed:
      return "fixed";
    case VariantKind::automatic:
      return "auto";
    case VariantKind::choice:
      return "choice";
  }
  return "?";
}

namespace {

// The shim's C API, looked up at run time so the measurement also runs without the shim.
using LastAlgorithmFn = const char* (*)();

std::uint8_t pattern(std::uint64_t i, int salt) {
  return static_cast<std::uint8_t>((i * 131 + static_cast<std::uint64_t>(salt) * 17 + 7) & 0xff);
}

bool wanted(const std::vector<std::string>& natives, std::string_view name) {
  return std::find_if(natives.begin(), natives.end(), [&](const std::string& n) {
           return n == "all" || n == name;
         }) != natives.end();
}

// The flavour's natives of `coll`, as (name, kind) in list order.
template <class Fn>
void list_natives(std::span<const flavour::Native<Fn>> natives, std::vector<VariantResult>& out,
                  std::vector<int>& index, const CompareOptions& o) {
  for (std::size_t i = 0; i < natives.size(); ++i) {
    const bool library_choice = natives[i].kind == flavour::NativeKind::library;
    if (library_choice ? !o.native : !wanted(o.natives, natives[i].name)) {
      continue;
    }
    const std::string name(natives[i].name);
    out.push_back({name, library_choice ? VariantKind::native : VariantKind::library, name, {},
                   NAN, false, false, true, 0.0, 0.0, false, false, {}});
    index.push_back(static_cast<int>(i));
  }
}

}  // namespace

struct Comparer::Impl {
  MPI_Comm comm = MPI_COMM_NULL;  // the user's (world)
  MPI_Comm priv = MPI_COMM_NULL;  // our duplicate, for the algorithms run directly
  // A fresh duplicate for every call of a native routine, freed at the end of the point: some of
  // SMPI's algorithms return with messages still in flight or receive from any source, and on a
  // shared communicator their leftovers were taken by the next call (MPI_ERR_TRUNCATE).
  std::vector<MPI_Comm> native_comms;
  const ModelSet& models;
  const Policy& policy;
  int rank = 0;
  int size = 1;
  models::contention::Placement placement;
  LastAlgorithmFn last_algorithm = nullptr;
  bool shim_warm = false;               // the shim has run a call on `comm` (single_run)
  std::set<std::string> too_costly;     // variants skipped from now on (single_run)
  double start_lag_s = 0;  // isolated: the largest first-to-last start of any call
  flavour::Scratch buf;
  flavour::Scratch send;

  Impl(MPI_Comm c, const ModelSet& m, const Policy& p) : comm(c), models(m), policy(p) {
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    PMPI_Comm_dup(comm, &priv);
    // Without it (no memory on some rank, agreed) decide() uses the closed forms on every rank.
    placement = gather_node_placement(comm).value_or(models::contention::Placement{});
    last_algorithm = reinterpret_cast<LastAlgorithmFn>(dlsym(RTLD_DEFAULT, "collsel_last_algorithm"));
  }
  ~Impl() {
    PMPI_Comm_free(&priv);
    free_native_comms();
  }

  void free_native_comms() {
    for (MPI_Comm& c : native_comms) PMPI_Comm_free(&c);
    native_comms.clear();
  }

  // Alltoall: the byte i of the block from rank `src` to rank `dst`.
  std::uint8_t exchanged(std::uint64_t i, int src, int dst) const {
    return pattern(i, src * size + dst + 2);
  }

  // Allocates the buffers; fills them with the pattern unless buffers of this call may be shared
  // memory (their contents then mean nothing, and writing them would only cost time). Returns
  // whether the result can be checked.
  bool fill(Collective coll, std::uint64_t bytes) {
    const auto n = static_cast<std::uint64_t>(size);
    const std::uint64_t recv_bytes = coll == Collective::alltoall ? bytes * n : bytes;
    const std::uint64_t send_bytes =
        coll == Collective::alltoall ? bytes * n
        : coll == Collective::scatter && rank == 0 ? bytes * n
                                                   : 0;
    buf = flavour::Scratch(recv_bytes);
    send = flavour::Scratch(send_bytes);
    // No algorithm holds more than P blocks at once: below that, nothing is shared.
    if (flavour::payload_shared(bytes * n)) return false;
    auto* out = reinterpret_cast<std::uint8_t*>(send.data());
    auto* in = reinterpret_cast<std::uint8_t*>(buf.data());
    if (coll == Collective::alltoall) {
      for (std::uint64_t d = 0; d < n; ++d) {
        for (std::uint64_t i = 0; i < bytes; ++i) {
          out[d * bytes + i] = exchanged(i, rank, static_cast<int>(d));
        }
      }
    } else if (coll == Collective::bcast) {
      if (rank == 0) {
        for (std::uint64_t i = 0; i < bytes; ++i) in[i] = pattern(i, 1);
      }
    } else {
      for (std::uint64_t i = 0; i < send.size(); ++i) out[i] = pattern(i, 1);
    }
    return true;
  }

  bool check(Collective coll, std::uint64_t bytes) const {
    const auto* in = reinterpret_cast<const std::uint8_t*>(buf.data());
    const std::uint64_t offset =
        coll == Collective::bcast ? 0 : bytes * static_cast<std::uint64_t>(rank);
    int bad = 0;
    if (coll == Collective::alltoall) {
      for (std::uint64_t s = 0; s < static_cast<std::uint64_t>(size) && !bad; ++s) {
        for (std::uint64_t i = 0; i < bytes && !bad; ++i) {
          bad = in[s * bytes + i] != exchanged(i, static_cast<int>(s), rank);
        }
      }
    } else {
      for (std::uint64_t i = 0; i < bytes && !bad; ++i) bad = in[i] != pattern(offset + i, 1);
    }
    int any = 0;
    PMPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comm);
    return any == 0;
  }

  // One call of variant `v` (`index`: its registry row, or its flavour native).
  int call(Collective coll, const VariantResult& v, int index, MPI_Comm native_comm) {
    const std::size_t blocks = coll == Collective::alltoall ? static_cast<std::size_t>(size) : 1;
    const int count = static_cast<int>(buf.size() / blocks);
    void* in = buf.data();
    const void* out = send.data();
    const bool automatic = v.kind == VariantKind::automatic;
    const bool native = v.kind == VariantKind::native || v.kind == VariantKind::library ||
                        ((automatic || v.kind == VariantKind::choice) && index < 0 &&
                         !(automatic && last_algorithm));
    const bool through_shim = automatic && last_algorithm;
    const auto at = static_cast<std::size_t>(std::max(index, 0));
    // A choice that fell to the native rung runs the library's routine on the user's communicator.
    if (native_comm == MPI_COMM_NULL) native_comm = comm;
    if (coll == Collective::bcast) {
      if (through_shim) return MPI_Bcast(in, count, MPI_BYTE, 0, comm);
      if (native) {
        return flavour::bcast_natives()[at].run(in, count, MPI_BYTE, 0, native_comm);
      }
      return bcast_registry()[at].run({in, count, MPI_BYTE, 0, priv, rank, size}, v.params);
    }
    if (coll == Collective::alltoall) {
      if (through_shim) return MPI_Alltoall(out, count, MPI_BYTE, in, count, MPI_BYTE, comm);
      if (native) {
        return flavour::alltoall_natives()[at].run(out, count, MPI_BYTE, in, count, MPI_BYTE,
                                                   native_comm);
      }
      return alltoall_registry()[at].run({out, count, MPI_BYTE, in, count, MPI_BYTE, priv, rank,
                                          size},
                                         v.params);
    }
    if (through_shim) return MPI_Scatter(out, count, MPI_BYTE, in, count, MPI_BYTE, 0, comm);
    if (native) {
      return flavour::scatter_natives()[at].run(out, count, MPI_BYTE, in, count, MPI_BYTE, 0,
                                                native_comm);
    }
    return scatter_registry()[at].run({out, count, MPI_BYTE, in, count, MPI_BYTE, 0, priv, rank,
                                       size},
                                      v.params);
  }

  // One call, timed on every rank: from the first start to the last end where the ranks share a
  // clock (flavour::global_clock), else the slowest rank's own duration. Sets v.failed when the
  // routine returned an error on any rank.
  double timed(Collective coll, VariantResult& v, int index, const CompareOptions& o) {
    if (o.trace && rank == 0) std::fprintf(stderr, "compare: %s\n", v.name.c_str());
    MPI_Comm fresh = MPI_COMM_NULL;
    if (v.kind == VariantKind::native || v.kind == VariantKind::library) {
      PMPI_Comm_dup(comm, &fresh);
      native_comms.push_back(fresh);
    }
    PMPI_Barrier(comm);
    const bool global = flavour::global_clock();
    if (o.isolated && global) start_together();
    const auto wall = std::chrono::steady_clock::now();
    const double t0 = PMPI_Wtime();
    const int rc = call(coll, v, index, fresh);
    v.wall_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - wall).count();
    const double t1 = PMPI_Wtime();
    if (o.isolated && global) end_quiet(t1 - t0);
    // {end, -start, failed, start} reduced with max together: one collective per call besides
    // the barrier. With separate clocks the "end" is the duration and the start is not used.
    std::array<double, 4> local{global ? t1 : t1 - t0, -t0, rc == MPI_SUCCESS ? 0.0 : 1.0, t0};
    std::array<double, 4> most{};
    if (v.kind == VariantKind::automatic && last_algorithm) v.algorithm = last_algorithm();
    PMPI_Allreduce(local.data(), most.data(), 4, MPI_DOUBLE, MPI_MAX, comm);
    v.failed = v.failed || most[2] > 0;
    if (o.isolated && global) {
      // Every rank slept to the same instant, so their starts differ by a clock read at most.
      start_lag_s = std::max(start_lag_s, most[3] + most[1]);
    }
    return global ? most[0] + most[1] : most[0];
  }

  // CompareOptions::isolated. A simulated sleep costs no wall time. The lead outlasts the
  // allreduce before it (8 bytes: below 2 ms at 1024 ranks on the slowest platform) and the tail
  // of most calls after it.
  static constexpr double isolation_s = 0.05;

  // The ranks leave together: each reads the shared clock after the barrier, and all sleep to
  // the latest reading plus the lead.
  void start_together() const {
    const double now = PMPI_Wtime();
    double latest = now;
    PMPI_Allreduce(&now, &latest, 1, MPI_DOUBLE, MPI_MAX, comm);
    flavour::busy_until(latest + isolation_s);
  }

  // A rank done with its part of the call stays off the network for the lead, or as long again
  // as its part took if that is longer, before the timing's allreduce: a root that sends its
  // last message and enters the allreduce at once delays that message, whose receiver ends the
  // call (a flat Bcast of 64 B at P = 48 on fast-ethernet: 799 us, 589 us with this quiet end).
  static void end_quiet(double own_s) { flavour::sleep_for(std::max(isolation_s, own_s)); }
};

Comparer::Comparer(MPI_Comm comm, const ModelSet& models, const Policy& policy)
    : impl_(std::make_unique<Impl>(comm, models, policy)) {}
Comparer::~Comparer() = default;

bool Comparer::shim_loaded() const { return impl_->last_algorithm != nullptr; }

double Comparer::start_lag_s() const { return impl_->start_lag_s; }

void Comparer::run_once(Collective coll, std::uint64_t bytes, const CompareOptions& o,
                        const std::vector<int>& index, PointResult& out) {
  Impl& im = *impl_;
  out.reps = 1;
  for (std::size_t i = 0; i < out.variants.size(); ++i) {
    VariantResult& v = out.variants[i];
    const bool choice = v.kind == VariantKind::automatic || v.kind == VariantKind::choice;
    // The shim's first call of the run also creates its context: that one is always run.
    const bool shim_first = v.kind == VariantKind::automatic && !im.shim_warm;
    if (choice && !shim_first) {
      const auto same = std::find_if(out.variants.begin(), out.variants.begin() + i,
                                     [&](const VariantResult& f) {
                                       return (f.kind == VariantKind::fixed ||
                                               f.kind == VariantKind::automatic ||
                                               f.kind == VariantKind::choice) &&
                                              !f.failed && !f.skipped && !f.samples.empty() &&
                                              f.algorithm == v.algorithm && f.params == v.params;
                                     });
      if (same != out.variants.begin() + i) {
        v.samples = same->samples;
        v.warmup_s = same->warmup_s;
        v.correct = same->correct;
        v.reused = true;
        continue;
      }
    }
    if (im.too_costly.count(v.name) != 0) {
      v.skipped = true;
      continue;
    }
    const bool checkable = im.fill(coll, bytes);
    out.checked = out.checked && checkable;
    v.warmup_s = im.timed(coll, v, index[i], o);
    if (checkable && !v.failed) {
      v.correct = im.check(coll, bytes);
      if (v.kind != VariantKind::library) out.correct = out.correct && v.correct;
    }
    if (v.failed) continue;
    // Through the shim, a shape's first call also agrees its decision (one allreduce, and the
    // first call on a communicator builds its context): that is warmup_s, what the first call of
    // a shape costs the application; the sample is the second call, like a forced algorithm's
    // steady state. Without it a choice measured alone (at_scale.py rechoose) carried the
    // agreement, about 10 us on ib-fattree, that the forced rows it is compared with do not.
    const bool again = shim_first || v.kind == VariantKind::automatic;
    v.samples.push_back(again ? im.timed(coll, v, index[i], o) : v.warmup_s);
    if (v.kind == VariantKind::automatic) im.shim_warm = true;
    // Every rank decides from rank 0's reading, so all skip the same variants.
    int costly = o.max_variant_wall_s > 0 && v.wall_s > o.max_variant_wall_s ? 1 : 0;
    PMPI_Bcast(&costly, 1, MPI_INT, 0, im.comm);
    if (costly) im.too_costly.insert(v.name);
  }
}

PointResult Comparer::run(Collective coll, std::uint64_t bytes, const CompareOptions& o) {
  Impl& im = *impl_;
  const CallShape shape{coll, im.size, bytes, 0};
  const Decision d = decide(shape, im.models, im.policy, &im.placement);
  PointResult out;
  out.coll = coll;
  out.comm_size = im.size;
  out.nodes = im.placement.nodes();
  out.bytes = bytes;
  out.model_choice = std::string(d.algorithm());
  std::vector<int> index;  // registry index per variant; the flavour native's for natives
  if (coll == Collective::bcast) {
    list_natives(flavour::bcast_natives(), out.variants, index, o);
  } else if (coll == Collective::scatter) {
    list_natives(flavour::scatter_natives(), out.variants, index, o);
  } else {
    list_natives(flavour::alltoall_natives(), out.variants, index, o);
  }
  for (std::size_t i = 0; o.fixed && i < d.table.size(); ++i) {
    if (d.table[i].not_applicable) continue;
    const std::string name(d.table[i].name);
    if (!o.fixed_only.empty() &&
        std::find(o.fixed_only.begin(), o.fixed_only.end(), name) == o.fixed_only.end()) {
      continue;
    }
    out.variants.push_back({name, VariantKind::fixed, name, d.table[i].params,
                            d.table[i].predicted_s, d.table[i].simulated, false, true, 0.0, 0.0, false, false, {}});
    index.push_back(static_cast<int>(i));
  }
  if (o.automatic) {
    out.variants.push_back({"auto", VariantKind::automatic, out.model_choice, d.params(),
                            d.predicted_s(), d.simulated(), false, true, 0.0, 0.0, false, false, {}});
    index.push_back(d.winner);
  }
  for (const ExtraChoice& extra : o.choices) {
    const Decision e =
        decide(shape, extra.models, im.policy, extra.placement ? &im.placement : nullptr);
    out.variants.push_back({extra.name, VariantKind::choice, std::string(e.algorithm()),
                            e.params(), e.predicted_s(), e.simulated(), false, true, 0.0, 0.0, false, false, {}});
    index.push_back(e.winner);
  }

  if (o.single_run) {
    run_once(coll, bytes, o, index, out);
    im.free_native_comms();
    return out;
  }

  // Warm-up round: checks every variant's result and sizes the repetitions to the budget.
  double round_s = 0;
  for (std::size_t i = 0; i < out.variants.size(); ++i) {
    const bool checkable = im.fill(coll, bytes);
    out.checked = out.checked && checkable;
    const double first = im.timed(coll, out.variants[i], index[i], o);
    out.variants[i].warmup_s = first;
    round_s += first;
    VariantResult& v = out.variants[i];
    if (checkable && !v.failed) {
      v.correct = im.check(coll, bytes);
      if (v.kind != VariantKind::library) out.correct = out.correct && v.correct;
    }
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
      VariantResult& v = out.variants[i];
      if (v.failed) continue;  // every rank knows (reduced), so all skip it alike
      const double t = im.timed(coll, v, index[i], o);
      if (!v.failed) v.samples.push_back(t);
    }
  }
  im.free_native_comms();
  return out;
}

}  // namespace collsel::calibrate
