// The selection benchmark (issue 3): for each collective and message size, in one run and
// interleaved, the native collective (the MPI library's own choice, measured: MPICH's or Open
// MPI's, whichever the benchmark is built for), every registered collsel algorithm forced, and
// collsel's automatic choice. Rank 0 writes one CSV row per (collective, size,
// variant) with the median, quartiles, min and max over repetitions and the model's prediction;
// bench/selection_report.py turns the CSV into tables and plots.
//
// "auto" is the shim itself when libcollsel.so is preloaded (the call goes through MPI_Bcast /
// MPI_Scatter, and collsel_last_algorithm() says what ran); without the shim, the winner of
// decide() run directly. Native and fixed variants bypass the shim (PMPI and the registry's run
// functions on a private communicator), so all three see the same buffers and the same network.
//
// Every variant's result is checked against the pattern the root sent, once per size (except where
// the payloads are SMPI shared memory, flavour/flavour.hpp: the `checked` column says).
//
// Built for SMPI (tools/simcluster, docs/SIMULATION.md), --all-natives adds SMPI's selectors of
// MPICH and Open MPI and each of its own algorithms, and --also-default-model the choice the
// embedded default model would make, run directly (the shim runs with one model per run).
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "calibrate/compare.hpp"
#include "conf/embedded.hpp"
#include "flavour/flavour.hpp"
#include "models/model_file.hpp"
#include "selector/catalog.hpp"
#include "selector/decide.hpp"

namespace {

using collsel::Collective;

struct Options {
  std::vector<std::string> colls{"bcast", "scatter", "alltoall"};
  std::vector<std::uint64_t> sizes{1,     4,      16,      64,       256,     1024,
                                   4096,  16384,  65536,   262144,   1048576, 4194304};
  int max_reps = 9;
  int min_reps = 3;
  double budget_s = 20.0;  // per (collective, size): repetitions are cut to fit
  std::string csv = "selection.csv";
  std::string model;  // empty: COLLSEL_MODEL, else the embedded default
  std::string label;  // free text copied into every row (e.g. the profile)
  std::vector<std::string> natives;
  std::vector<std::string> fixed_only;
  bool native = true;
  bool collsel = true;
  bool forced = true;
  bool automatic = true;
  bool also_default_model = false;
  bool also_closed_form = false;
  bool trace = false;
  bool list_natives = false;
  bool single_run = false;
  double max_variant_wall_s = 0.0;
  bool isolated = false;
};

void write_rows(std::FILE* csv, const std::string& label,
                const collsel::calibrate::PointResult& p) {
  for (const auto& v : p.variants) {
    const auto s = collsel::calibrate::summarise(v.samples);
    const bool none = v.failed || v.samples.empty();
    std::fprintf(csv,
                 "\"%s\",%s,%d,%llu,%s,%s,%llu,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%d,%d,%s,%d,%d,%d,%d,"
                 "%s,%d,%.3f,%.9g,%d,%d\n",
                 label.c_str(), std::string(collsel::collective_name(p.coll)).c_str(),
                 p.comm_size, static_cast<unsigned long long>(p.bytes), v.name.c_str(),
                 v.algorithm.c_str(), static_cast<unsigned long long>(v.params.segment_bytes),
                 v.predicted_s, none ? NAN : s.median, none ? NAN : s.p25,
                 none ? NAN : s.p75, none ? NAN : s.min, none ? NAN : s.max, p.reps,
                 v.params.window, std::string(collsel::calibrate::variant_kind_name(v.kind)).c_str(),
                 p.checked ? 1 : 0, p.nodes, v.failed ? 1 : 0, v.simulated ? 1 : 0,
                 std::string(collsel::flavour::name()).c_str(), v.correct ? 1 : 0, v.wall_s,
                 v.warmup_s, v.reused ? 1 : 0, v.skipped ? 1 : 0);
  }
  std::fflush(csv);
}

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
      "interleaved, per collective and message size (bytes: Bcast's message, Scatter's and "
      "Alltoall's block). Rank 0 appends CSV rows to --csv. Run with and without "
      "LD_PRELOAD=libcollsel.so; with it, 'auto' is the shim's own call."};
  app.add_option("--coll", opt.colls, "collectives")->check(CLI::IsMember({"bcast", "scatter", "alltoall"}));
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
  app.add_option("--natives", opt.natives,
                 "also these native routines of the MPI library besides its own choice, by name, "
                 "or \"all\" (SMPI: its MPICH and Open MPI selectors \"smpi:mpich\", "
                 "\"smpi:ompi\", and each of its algorithms, \"smpi:binomial_tree\"...)")
      ->delimiter(',');
  app.add_option("--fixed", opt.fixed_only,
                 "only these collsel algorithms forced, by name (default: every applicable one)")
      ->delimiter(',');
  app.add_flag("!--no-fixed", opt.forced,
               "leave out the forced algorithms: only collsel's choices (re-measuring them after a "
               "model change, beside an earlier run's forced rows)");
  app.add_flag("!--no-auto", opt.automatic,
               "leave out collsel's choices: only the forced algorithms (measuring a new "
               "algorithm beside an earlier run's rows)");
  app.add_flag("!--no-native", opt.native, "leave out the library's own choice (\"native\")");
  app.add_flag("!--no-collsel", opt.collsel,
               "leave out collsel's algorithms and choices: only the native routines");
  app.add_flag("--also-default-model", opt.also_default_model,
               "with --model: also the embedded default model's choice (\"auto:default\"), run "
               "directly");
  app.add_flag("--also-closed-form", opt.also_closed_form,
               "also the choice decide() makes without the ranks' placement (\"auto:closed-form\", "
               "run directly): what simulating schedules on the placement changes");
  app.add_flag("--trace", opt.trace, "rank 0 names every call before it starts");
  app.add_flag("--single-run", opt.single_run,
               "for a deterministic clock (a simulated cluster): every variant once, a choice "
               "that picks a forced variant's algorithm takes its time (the `reused` column)");
  app.add_option("--max-variant-wall", opt.max_variant_wall_s,
                 "with --single-run: skip a variant at the larger sizes once one of its calls "
                 "took more than this many seconds of wall time to simulate (`skipped`)");
  app.add_flag("--isolated", opt.isolated,
               "on a simulated cluster (one clock): every call starts on every rank at one "
               "instant, and no rank sends the timing's reduction until it has been idle 50 ms");
  app.add_flag("--list-natives", opt.list_natives,
               "print the native routines of each collective (\"COLL NAME KIND\") and exit");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = rank == 0 ? app.exit(e) : (e.get_exit_code() == 0 ? 0 : 2);
    MPI_Finalize();
    return code;
  }
  if (opt.list_natives) {
    if (rank == 0) {
      const auto print = [](const char* coll, auto natives) {
        for (const auto& n : natives) {
          std::printf("%s %.*s %s\n", coll, static_cast<int>(n.name.size()), n.name.data(),
                      n.kind == collsel::flavour::NativeKind::library    ? "library"
                      : n.kind == collsel::flavour::NativeKind::selector ? "selector"
                                                                         : "algorithm");
        }
      };
      print("bcast", collsel::flavour::bcast_natives());
      print("scatter", collsel::flavour::scatter_natives());
      print("alltoall", collsel::flavour::alltoall_natives());
    }
    MPI_Finalize();
    return 0;
  }
  if (opt.isolated && !collsel::flavour::global_clock()) {
    if (rank == 0) {
      std::fprintf(stderr, "selection: --isolated needs one clock for every rank, a "
                           "simulated cluster (the SMPI build, tools/simcluster); this MPI's "
                           "ranks each have their own: leave it out\n");
    }
    MPI_Finalize();
    return 2;
  }
  // A misspelt --fixed name would silently measure nothing for it.
  for (const std::string& name : opt.fixed_only) {
    const bool known = std::any_of(opt.colls.begin(), opt.colls.end(), [&](const std::string& c) {
      return collsel::find_algorithm(*collsel::collective_from_name(c), name) != nullptr;
    });
    if (!known) {
      if (rank == 0) {
        std::string names;
        for (const std::string& c : opt.colls) {
          names += (names.empty() ? "" : ", ") +
                   collsel::algorithm_names(*collsel::collective_from_name(c));
        }
        std::fprintf(stderr, "selection: --fixed %s is not an algorithm of --coll; names: %s\n",
                     name.c_str(), names.c_str());
      }
      MPI_Finalize();
      return 2;
    }
  }
  if (opt.model.empty()) {
    if (const char* env = std::getenv("COLLSEL_MODEL")) opt.model = env;
  }
  const auto model = load_model(opt.model, rank);
  if (!model) {
    MPI_Finalize();
    return 2;
  }
  const collsel::ModelSet models{opt.model.empty() ? nullptr : &*model,
                                 opt.model.empty() ? &*model : nullptr};

  // Rank 0 writes the CSV; the others hold no file.
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> csv_file(nullptr, &std::fclose);
  std::FILE* csv = nullptr;
  if (rank == 0) {
    csv_file.reset(std::fopen(opt.csv.c_str(), "a"));
    csv = csv_file.get();
    if (csv == nullptr) {
      std::fprintf(stderr, "selection: cannot open %s: %s\n", opt.csv.c_str(),
                   std::strerror(errno));
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (std::ftell(csv) == 0) {
      std::fprintf(csv,
                   "label,coll,P,bytes,variant,algorithm,segment_bytes,predicted_s,median_s,"
                   "p25_s,p75_s,min_s,max_s,reps,window,kind,checked,nodes,failed,simulated,"
                   "flavour,correct,wall_s,warmup_s,reused,skipped\n");
    }
  }
  bool ok = true;
  {
    const collsel::Policy policy;
    collsel::calibrate::Comparer comparer(MPI_COMM_WORLD, models, policy);
    if (rank == 0) {
      std::fprintf(stderr, "selection: model %s; auto = %s\n", model->name.c_str(),
                   comparer.shim_loaded() ? "the shim (preloaded)" : "decide() run directly");
    }
    collsel::calibrate::CompareOptions co;
    co.min_reps = opt.min_reps;
    co.max_reps = opt.max_reps;
    co.budget_s = opt.budget_s;
    co.natives = opt.natives;
    co.native = opt.native;
    co.fixed = opt.collsel && opt.forced;
    co.automatic = opt.collsel && opt.automatic;
    co.fixed_only = opt.fixed_only;
    co.trace = opt.trace;
    co.single_run = opt.single_run;
    co.max_variant_wall_s = opt.max_variant_wall_s;
    co.isolated = opt.isolated;
    std::optional<collsel::models::ModelFile> embedded;
    if (opt.collsel && opt.also_default_model && !opt.model.empty()) {
      embedded = load_model("", rank);
      if (embedded) co.choices.push_back({"auto:default", {nullptr, &*embedded}});
    }
    // Where ranks share nodes and the model simulates schedules on the placement, what the
    // closed forms alone would have chosen.
    if (opt.collsel && opt.also_closed_form) {
      co.choices.push_back({"auto:closed-form", models, false});
    }
    std::vector<std::uint64_t> sizes = opt.sizes;
    std::sort(sizes.begin(), sizes.end());
    for (const std::string& name : opt.colls) {
      const Collective coll = *collsel::collective_from_name(name);
      for (const std::uint64_t bytes : sizes) {
        const auto point = comparer.run(coll, bytes, co);
        ok = ok && point.correct;
        if (rank != 0) continue;
        write_rows(csv, opt.label, point);
        const auto automatic =
            std::find_if(point.variants.begin(), point.variants.end(),
                         [](const auto& v) { return v.kind == collsel::calibrate::VariantKind::automatic; });
        const std::string ran = automatic == point.variants.end() ? "" : automatic->algorithm;
        if (comparer.shim_loaded() && !ran.empty() && ran != point.model_choice) {
          std::fprintf(stderr,
                       "selection: note: the shim ran %s where this benchmark's model picks %s "
                       "(different model or config?)\n",
                       ran.c_str(), point.model_choice.c_str());
        }
        std::fprintf(stderr, "selection: %-7s P=%d %9llu B: %zu variants x %d reps, auto = %s%s\n",
                     name.c_str(), point.comm_size, static_cast<unsigned long long>(bytes),
                     point.variants.size(), point.reps, ran.c_str(),
                     point.correct ? "" : "  WRONG RESULTS");
      }
    }
    if (opt.isolated && rank == 0) {
      std::fprintf(stderr, "selection: isolated calls: the ranks' starts at most %.3f us apart\n",
                   comparer.start_lag_s() * 1e6);
    }
  }
  csv_file.reset();
  if (rank == 0) std::fprintf(stderr, "selection: %s\n", ok ? "done" : "FAILED (wrong results)");
  std::fflush(nullptr);
  MPI_Finalize();
  return ok ? 0 : 1;
}
