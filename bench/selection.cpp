// The selection benchmark (issue 3): for each collective and message size, in one run and
// interleaved, the native collective (MPICH's own choice), every registered collsel algorithm
// forced, and collsel's automatic choice. Rank 0 writes one CSV row per (collective, size,
// variant) with the median, quartiles, min and max over repetitions and the model's prediction;
// bench/selection_report.py turns the CSV into tables and plots.
//
// "auto" is the shim itself when libcollsel.so is preloaded (the call goes through MPI_Bcast /
// MPI_Scatter, and collsel_last_algorithm() says what ran); without the shim, the winner of
// decide() run directly. Native and fixed variants bypass the shim (PMPI and the registry's run
// functions on a private communicator), so all three see the same buffers and the same network.
//
// Every variant's result is checked against the pattern the root sent, once per size.
#include <dlfcn.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "conf/embedded.hpp"
#include "models/model_file.hpp"
#include "selector/decide.hpp"
#include "selector/registry.hpp"

namespace {

using collsel::AlgoParams;
using collsel::Collective;

// The shim's C API, looked up at run time so the benchmark also runs without the shim.
using LastAlgorithmFn = const char* (*)();

struct Options {
  std::vector<std::string> colls{"bcast", "scatter"};
  std::vector<std::uint64_t> sizes{1,     4,      16,      64,       256,     1024,
                                   4096,  16384,  65536,   262144,   1048576, 4194304};
  int max_reps = 9;
  int min_reps = 3;
  double budget_s = 20.0;  // per (collective, size): repetitions are cut to fit
  std::string csv = "selection.csv";
  std::string model;  // empty: COLLSEL_MODEL, else the embedded default
  std::string label;  // free text copied into every row (e.g. the profile)
};

enum class Kind { native, fixed, automatic };

struct Variant {
  std::string name;  // "native", an algorithm name, or "auto"
  Kind kind = Kind::fixed;
  int index = -1;  // into the registry, for fixed
  AlgoParams params;
  double predicted_s = NAN;
};

struct Summary {
  double median = 0, p25 = 0, p75 = 0, min = 0, max = 0;
};

Summary summarise(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const auto at = [&](double q) {
    const double pos = q * static_cast<double>(v.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const auto hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
  };
  return {at(0.5), at(0.25), at(0.75), v.front(), v.back()};
}

std::uint8_t pattern(std::uint64_t i, int salt) {
  return static_cast<std::uint8_t>((i * 131 + static_cast<std::uint64_t>(salt) * 17 + 7) & 0xff);
}

class Bench {
 public:
  Bench(const Options& opt, const collsel::ModelSet& models)
      : opt_(opt), models_(models) {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    PMPI_Comm_dup(MPI_COMM_WORLD, &private_);
    last_algorithm_ =
        reinterpret_cast<LastAlgorithmFn>(dlsym(RTLD_DEFAULT, "collsel_last_algorithm"));
  }
  ~Bench() { PMPI_Comm_free(&private_); }
  Bench(const Bench&) = delete;
  Bench& operator=(const Bench&) = delete;

  bool shim_loaded() const { return last_algorithm_ != nullptr; }

  // Returns false when a variant delivered wrong data.
  bool run_point(Collective coll, std::uint64_t bytes, std::FILE* csv) {
    const collsel::CallShape shape{coll, size_, bytes, 0};
    const collsel::Policy policy;
    const collsel::Decision d = collsel::decide(shape, models_, policy);
    std::vector<Variant> variants{{"native", Kind::native, -1, {}, NAN}};
    for (std::size_t i = 0; i < d.table.size(); ++i) {
      if (d.table[i].not_applicable) continue;
      variants.push_back({std::string(d.table[i].name), Kind::fixed, static_cast<int>(i),
                          d.table[i].params, d.table[i].predicted_s});
    }
    variants.push_back({"auto", Kind::automatic, d.winner, d.params(), d.predicted_s()});
    const std::string expected_auto(d.algorithm());

    prepare(coll, bytes);
    // Warm-up round: checks every variant's result and sizes the repetitions to the budget.
    double round_s = 0;
    bool ok = true;
    std::string auto_ran = expected_auto;
    for (const Variant& v : variants) {
      fill_inputs(coll, bytes, 1);
      const double t = timed(coll, v, &auto_ran);
      round_s += t;
      if (!check_outputs(coll, bytes, 1)) {
        if (rank_ == 0) std::fprintf(stderr, "selection: WRONG RESULT from %s\n", v.name.c_str());
        ok = false;
      }
    }
    int reps = opt_.max_reps;
    if (round_s > 0) {
      reps = std::clamp(static_cast<int>(opt_.budget_s / round_s), opt_.min_reps, opt_.max_reps);
    }
    PMPI_Bcast(&reps, 1, MPI_INT, 0, MPI_COMM_WORLD);  // every rank runs the same count

    std::vector<std::vector<double>> samples(variants.size());
    for (int r = 0; r < reps; ++r) {
      // Rotate the order each repetition, so no variant always follows the same one.
      for (std::size_t k = 0; k < variants.size(); ++k) {
        const std::size_t i = (k + static_cast<std::size_t>(r)) % variants.size();
        samples[i].push_back(timed(coll, variants[i], &auto_ran));
      }
    }
    if (rank_ == 0) {
      if (auto_ran != expected_auto) {
        std::fprintf(stderr,
                     "selection: note: the shim ran %s where this benchmark's model picks %s "
                     "(different model or config?)\n",
                     auto_ran.c_str(), expected_auto.c_str());
      }
      for (std::size_t i = 0; i < variants.size(); ++i) {
        const Variant& v = variants[i];
        const Summary s = summarise(samples[i]);
        const std::string algorithm = v.kind == Kind::automatic ? auto_ran : v.name;
        std::fprintf(csv, "\"%s\",%s,%d,%llu,%s,%s,%llu,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%d\n",
                     opt_.label.c_str(), std::string(collsel::collective_name(coll)).c_str(),
                     size_, static_cast<unsigned long long>(bytes), v.name.c_str(),
                     algorithm.c_str(), static_cast<unsigned long long>(v.params.segment_bytes),
                     v.predicted_s, s.median, s.p25, s.p75, s.min, s.max, reps);
      }
      std::fflush(csv);
      std::fprintf(stderr, "selection: %-7s P=%d %9llu B: %zu variants x %d reps, auto = %s\n",
                   std::string(collsel::collective_name(coll)).c_str(), size_,
                   static_cast<unsigned long long>(bytes), variants.size(), reps,
                   auto_ran.c_str());
    }
    return ok;
  }

 private:
  void prepare(Collective coll, std::uint64_t bytes) {
    if (coll == Collective::bcast) {
      buf_.assign(bytes, 0);
    } else {
      send_.assign(rank_ == 0 ? bytes * static_cast<std::uint64_t>(size_) : 0, 0);
      buf_.assign(bytes, 0);
    }
  }

  void fill_inputs(Collective coll, std::uint64_t bytes, int salt) {
    if (coll == Collective::bcast) {
      for (std::uint64_t i = 0; i < bytes; ++i) buf_[i] = rank_ == 0 ? pattern(i, salt) : 0;
    } else {
      for (std::uint64_t i = 0; i < send_.size(); ++i) send_[i] = pattern(i, salt);
      std::fill(buf_.begin(), buf_.end(), 0);
    }
  }

  bool check_outputs(Collective coll, std::uint64_t bytes, int salt) const {
    const std::uint64_t offset =
        coll == Collective::bcast ? 0 : bytes * static_cast<std::uint64_t>(rank_);
    int bad = 0;
    for (std::uint64_t i = 0; i < bytes && !bad; ++i) bad = buf_[i] != pattern(offset + i, salt);
    int any = 0;
    PMPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return any == 0;
  }

  // One call of one variant, timed on every rank; the call's time is the slowest rank's.
  double timed(Collective coll, const Variant& v, std::string* auto_ran) {
    const int count = static_cast<int>(buf_.size());
    PMPI_Barrier(MPI_COMM_WORLD);
    const double t0 = PMPI_Wtime();
    if (coll == Collective::bcast) {
      run_bcast(v, count);
    } else {
      run_scatter(v, count);
    }
    double t = PMPI_Wtime() - t0;
    if (v.kind == Kind::automatic && shim_loaded()) *auto_ran = last_algorithm_();
    double slowest = 0;
    PMPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return slowest;
  }

  void run_bcast(const Variant& v, int count) {
    void* b = buf_.data();
    if (v.kind == Kind::native || (v.kind == Kind::automatic && !shim_loaded() && v.index < 0)) {
      PMPI_Bcast(b, count, MPI_BYTE, 0, MPI_COMM_WORLD);
    } else if (v.kind == Kind::automatic && shim_loaded()) {
      MPI_Bcast(b, count, MPI_BYTE, 0, MPI_COMM_WORLD);
    } else {
      const collsel::BcastCall call{b, count, MPI_BYTE, 0, private_, rank_, size_};
      collsel::bcast_registry()[static_cast<std::size_t>(v.index)].run(call, v.params);
    }
  }

  void run_scatter(const Variant& v, int count) {
    const void* s = send_.data();
    void* r = buf_.data();
    if (v.kind == Kind::native || (v.kind == Kind::automatic && !shim_loaded() && v.index < 0)) {
      PMPI_Scatter(s, count, MPI_BYTE, r, count, MPI_BYTE, 0, MPI_COMM_WORLD);
    } else if (v.kind == Kind::automatic && shim_loaded()) {
      MPI_Scatter(s, count, MPI_BYTE, r, count, MPI_BYTE, 0, MPI_COMM_WORLD);
    } else {
      const collsel::ScatterCall call{s, count, MPI_BYTE, r, count, MPI_BYTE, 0, private_,
                                      rank_, size_};
      collsel::scatter_registry()[static_cast<std::size_t>(v.index)].run(call, v.params);
    }
  }

  const Options& opt_;
  const collsel::ModelSet& models_;
  int rank_ = 0;
  int size_ = 1;
  MPI_Comm private_ = MPI_COMM_NULL;
  LastAlgorithmFn last_algorithm_ = nullptr;
  std::vector<std::uint8_t> buf_;
  std::vector<std::uint8_t> send_;
};

std::optional<collsel::models::ModelFile> load_model(const std::string& path, int rank) {
  const auto load = path.empty() ? collsel::models::parse_model(
                                       collsel::conf::embedded_default_model(),
                                       collsel::conf::kEmbeddedModelName)
                                 : collsel::models::load_model_file(path);
  if (!load.model && rank == 0) {
    for (const auto& diag : load.diagnostics) std::fprintf(stderr, "%s\n", diag.format().c_str());
  }
  return load.model;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);

  Options opt;
  CLI::App app{
      "The selection benchmark: native, every collsel algorithm forced, and collsel's choice, "
      "interleaved, per collective and message size (bytes: Bcast's message, Scatter's block "
      "per rank). Rank 0 appends CSV rows to --csv. Run with and without "
      "LD_PRELOAD=libcollsel.so; with it, 'auto' is the shim's own call."};
  app.add_option("--coll", opt.colls, "collectives")->check(CLI::IsMember({"bcast", "scatter"}));
  app.add_option("--sizes", opt.sizes, "message sizes in bytes")->delimiter(',');
  app.add_option("--reps", opt.max_reps, "repetitions per variant, at most")->capture_default_str();
  app.add_option("--min-reps", opt.min_reps, "repetitions per variant, at least")
      ->capture_default_str();
  app.add_option("--budget", opt.budget_s, "seconds per (collective, size); cuts repetitions")
      ->capture_default_str();
  app.add_option("--csv", opt.csv, "output CSV (appended; header when new)")->capture_default_str();
  app.add_option("--model", opt.model,
                 "model file for predictions (default: COLLSEL_MODEL, else the embedded default)");
  app.add_option("--label", opt.label, "copied into the first column of every row")
      ->check([](const std::string& s) { return s.find('"') == std::string::npos ? "" : "no double quotes"; });
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = rank == 0 ? app.exit(e) : (e.get_exit_code() == 0 ? 0 : 2);
    MPI_Finalize();
    return code;
  }
  if (opt.model.empty()) {
    if (const char* env = std::getenv("COLLSEL_MODEL")) opt.model = env;
  }
  const auto model = load_model(opt.model, rank);
  if (!model) {
    MPI_Finalize();
    return 2;
  }
  const collsel::ModelSet models{opt.model.empty() ? nullptr : &model->plogp,
                                 opt.model.empty() ? &model->plogp : nullptr};

  std::FILE* csv = nullptr;
  if (rank == 0) {
    csv = std::fopen(opt.csv.c_str(), "a");
    if (csv == nullptr) {
      std::fprintf(stderr, "selection: cannot open %s: %s\n", opt.csv.c_str(),
                   std::strerror(errno));
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (std::ftell(csv) == 0) {
      std::fprintf(csv,
                   "label,coll,P,bytes,variant,algorithm,segment_bytes,predicted_s,median_s,"
                   "p25_s,p75_s,min_s,max_s,reps\n");
    }
    std::fprintf(stderr, "selection: model %s; auto = %s\n", model->name.c_str(),
                 dlsym(RTLD_DEFAULT, "collsel_last_algorithm") ? "the shim (preloaded)"
                                                               : "decide() run directly");
  }
  bool ok = true;
  {
    Bench bench(opt, models);
    std::vector<std::uint64_t> sizes = opt.sizes;
    std::sort(sizes.begin(), sizes.end());
    for (const std::string& name : opt.colls) {
      const Collective coll = *collsel::collective_from_name(name);
      for (const std::uint64_t bytes : sizes) ok = bench.run_point(coll, bytes, csv) && ok;
    }
  }
  if (csv != nullptr) std::fclose(csv);
  if (rank == 0) std::fprintf(stderr, "selection: %s\n", ok ? "done" : "FAILED (wrong results)");
  std::fflush(nullptr);
  MPI_Finalize();
  return ok ? 0 : 1;
}
