// collsel-calibrate: measures this cluster's pLogP parameters (and, with more ranks, the
// All-to-All signature, the contention graphs and LogfP) and writes the model file.
//   mpiexec -n 2 collsel-calibrate -o cluster.toml
// The file is written to a temporary name and renamed at the end, so an interrupted run never
// leaves a half-written model.
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <optional>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "calibrate/alltoall_measure.hpp"
#include "calibrate/contention_measure.hpp"
#include "calibrate/logfp_measure.hpp"
#include "calibrate/mpi_resources.hpp"
#include "calibrate/node_layout.hpp"
#include "calibrate/plogp_measure.hpp"
#include "calibrate/validate.hpp"
#include "models/model_file.hpp"
#include "common/size_option.hpp"
#include "common/size_parse.hpp"

namespace {

struct Options {
  std::string output = "cluster.toml";
  std::string name = "calibrated cluster";
  std::uint64_t max_bytes = 4u << 20;
  bool quick = false;
  double budget_s = 0.0;  // 0: the mode's default
  int step_depth = -1;    // -1: the mode's default
  bool alltoall = true;
  double alltoall_budget_s = 0.0;  // 0: the mode's default
  bool contention = true;
  std::string contention_bytes;  // empty: the mode's default
  int contention_repeats = 0;    // 0: the mode's default
  bool logfp = true;
  std::string validate;   // a model file: validate it instead of calibrating
  std::string validate_prefix = "validation";
  std::vector<std::string> validate_colls{"bcast", "scatter", "alltoall"};
  std::vector<std::uint64_t> validate_sizes{1,     16,     256,    1024,    4096,
                                            16384, 65536,  262144, 1048576, 4194304};
};

// A communicator whose ranks 0 and 1 are world rank 0 and its peer for the measurement: the
// first rank on another node (same_node false) or on rank 0's node (same_node true); rank 2, when
// there is one (*second_receiver), the next such rank. *peer is -1 and the result MPI_COMM_NULL
// when there is none.
MPI_Comm measuring_order(MPI_Comm comm, bool same_node, int* peer, bool* second_receiver) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  char mine[MPI_MAX_PROCESSOR_NAME] = {}, root[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(mine, &length);
  std::copy(mine, mine + MPI_MAX_PROCESSOR_NAME, root);
  MPI_Bcast(root, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, comm);
  const bool same = std::string(mine) == std::string(root);
  int candidate = rank != 0 && same == same_node ? rank : size;
  MPI_Allreduce(MPI_IN_PLACE, &candidate, 1, MPI_INT, MPI_MIN, comm);
  *peer = candidate < size ? candidate : -1;
  if (*peer < 0) return MPI_COMM_NULL;
  // Rank 2 is the next rank of the same kind, the fan-out share's second receiver: its message
  // must leave by the same link as the peer's.
  int second = rank != 0 && rank != *peer && same == same_node ? rank : size;
  MPI_Allreduce(MPI_IN_PLACE, &second, 1, MPI_INT, MPI_MIN, comm);
  *second_receiver = second < size;
  const int key = rank == 0 ? 0 : rank == *peer ? 1 : rank == second ? 2 : rank + 3;
  MPI_Comm ordered = MPI_COMM_NULL;
  MPI_Comm_split(comm, 0, key, &ordered);
  return ordered;
}

// Measures between world rank 0 and `peer`'s ordering; the parameters are valid on rank 0.
std::optional<collsel::models::plogp::Params> measure_pair(MPI_Comm ordered,
                                                           const collsel::calibrate::MeasureOptions& mo) {
  auto params = collsel::calibrate::measure_plogp(ordered, mo);
  if (!params) return params;
  params->eager_limit_bytes = collsel::calibrate::detect_eager_limit(*params);
  // A gap of 0 means the bursts took no longer than one undisturbed round trip: the ranks were
  // descheduled while they were measured (more ranks than free cores). The model is written as
  // measured, but the user learns that it will under-predict, and why.
  int rank = 0;
  MPI_Comm_rank(ordered, &rank);
  const auto zero = std::count_if(params->table.begin(), params->table.end(),
                                  [](const auto& p) { return p.gap_s <= 0.0; });
  if (rank == 0 && zero > 0) {
    fmt::print(stderr,
               "collsel-calibrate: warning: g(m) came out 0 at {} of {} sizes: the ranks were not "
               "running during the measurement (a busy machine, or more ranks than free cores); "
               "the model will under-predict. Calibrate again on an idle machine, one rank per "
               "core.\n",
               zero, params->table.size());
  }
  return params;
}

// Ranks per node, seen from the shared-memory split (the largest node counts).
int ranks_per_node(MPI_Comm comm) {
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int local = 1;
  MPI_Comm_size(node, &local);
  MPI_Comm_free(&node);
  int most = local;
  MPI_Allreduce(&local, &most, 1, MPI_INT, MPI_MAX, comm);
  return most;
}

std::vector<std::uint64_t> sizes_up_to(std::uint64_t max_bytes) {
  // Powers of two plus the midpoints between them, so interpolation has points near every size.
  std::vector<std::uint64_t> sizes{0, 1};
  for (std::uint64_t m = 2; m <= max_bytes; m *= 2) {
    if (m >= 8 && m + m / 2 <= max_bytes) {
      sizes.push_back(m);
      sizes.push_back(m + m / 2);
    } else {
      sizes.push_back(m);
    }
  }
  std::sort(sizes.begin(), sizes.end());
  return sizes;
}

std::string command_line(int argc, char** argv, int ranks) {
  std::string s = fmt::format("mpiexec -n {}", ranks);
  for (int i = 0; i < argc; ++i) {
    std::string arg = i == 0 ? std::filesystem::path(argv[0]).filename().string() : argv[i];
    // Quoted where needed, so the recorded command can be pasted back into a shell.
    if (arg.find_first_of(" \t'\"()$;&|<>*?") != std::string::npos) {
      std::string quoted = "'";
      for (char c : arg) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
      arg = quoted + "'";
    }
    s += ' ' + arg;
  }
  return s;
}

std::string iso_now() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return stamp;
}

// Value of a "KEY:  value" line of MPICH's library version text, empty if absent.
std::string version_field(const std::string& text, std::string_view key) {
  const auto at = text.find(key);
  if (at == std::string::npos) return {};
  const auto begin = text.find_first_not_of(" \t", at + key.size());
  const auto end = text.find('\n', begin);
  return begin == std::string::npos ? std::string() : text.substr(begin, end - begin);
}

std::string mpi_library() {
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(version, &length);
  const std::string v(version, static_cast<std::size_t>(length));
  const std::string mpich = version_field(v, "MPICH Version:");
  if (!mpich.empty()) {
    return fmt::format("MPICH {} {}", mpich, version_field(v, "MPICH Device:"));
  }
  return v.substr(0, v.find('\n'));  // other libraries: their first line
}

std::vector<std::string> host_names(MPI_Comm comm) {
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(name, &length);
  int size = 1, rank = 0;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  std::vector<char> all(static_cast<std::size_t>(size) * MPI_MAX_PROCESSOR_NAME);
  MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
             0, comm);
  std::vector<std::string> hosts;
  for (int r = 0; r < size; ++r) {
    std::string h(&all[static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME]);
    if (std::find(hosts.begin(), hosts.end(), h) == hosts.end()) hosts.push_back(h);
  }
  return hosts;
}

// "fair 12.3 %, infiniband 20.1 %, ..." (mean |E_rel| of each rule on the calibration graphs).
std::string rule_scores(const collsel::calibrate::ContentionCalibration& c) {
  std::string out;
  for (const auto& s : c.scores) {
    out += fmt::format("{}{} ", out.empty() ? "" : ", ",
                       collsel::models::contention::rule_name(s.rule));
    out += !s.error.empty() ? fmt::format("n/a ({})", s.error)
           : s.comms == 0   ? std::string("n/a (no graph to compare with)")
                            : fmt::format("{:.1f} %", 100 * s.mean_abs_rel);
  }
  return out;
}

bool write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  return static_cast<bool>(out.flush());
}

// --validate: every rank runs the measurements; rank 0 writes the files and draws the plot.
int validate(const Options& o, int rank) {
  const auto load = collsel::models::load_model_file(o.validate);
  int ok = load.model ? 1 : 0;
  if (rank == 0) {
    for (const auto& d : load.diagnostics) fmt::print(stderr, "{}\n", d.format());
  }
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!ok) return 2;
  collsel::calibrate::ValidateOptions vo;
  vo.sizes = o.validate_sizes;
  vo.colls.clear();
  for (const auto& c : o.validate_colls) vo.colls.push_back(*collsel::collective_from_name(c));
  std::sort(vo.sizes.begin(), vo.sizes.end());
  vo.output_prefix = o.validate_prefix;
  vo.compare.min_reps = 3;
  vo.compare.max_reps = o.quick ? 5 : 11;
  vo.compare.budget_s = o.quick ? 3.0 : 15.0;
  const auto result = collsel::calibrate::run_validation(MPI_COMM_WORLD, *load.model, vo);
  int rc = 0;
  if (rank == 0) {
    const std::string md = vo.output_prefix + ".md", csv = vo.output_prefix + ".csv",
                      dat = vo.output_prefix + ".dat", svg = vo.output_prefix + ".svg";
    const std::string report = collsel::calibrate::validation_markdown(result, load.model->name);
    if (!write_file(md, report) || !write_file(csv, collsel::calibrate::validation_csv(result)) ||
        !write_file(dat, collsel::calibrate::validation_gnuplot_data(result))) {
      fmt::print(stderr, "collsel-calibrate: cannot write {}.*; check the folder\n",
                 vo.output_prefix);
      rc = 1;
    } else {
      // The plot needs gnuplot (Debian: gnuplot-nox); without it the tables are still written.
      FILE* gp = popen("gnuplot 2>/dev/null", "w");
      const std::string script = collsel::calibrate::validation_gnuplot(result, dat, svg);
      const bool plotted = gp != nullptr && std::fputs(script.c_str(), gp) >= 0 && pclose(gp) == 0;
      fmt::print("{}", report.substr(0, report.find("\n| collective | size | algorithm")));
      fmt::print(stderr, "collsel-calibrate: wrote {}, {}{}\n", md, csv,
                 plotted ? ", " + svg : " (no plot: install gnuplot-nox)");
    }
    for (const auto& p : result.points) {
      if (!p.correct) {
        fmt::print(stderr, "collsel-calibrate: WRONG RESULTS at {} {} B\n",
                   collsel::collective_name(p.coll), p.bytes);
        rc = 1;
      }
    }
  }
  MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return rc;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "collsel-calibrate: measure this cluster's pLogP parameters (L, g(m), g_p(m), o_s(m),\n"
      "o_r(m); g_p is the gap with receives posted ahead; with 3 ranks or more the fan-out\n"
      "share sigma(m)) between ranks 0 and 1 and write the model file collsel reads.\n"
      "Example: mpiexec -n 2 collsel-calibrate -o cluster.toml\n"
      "It measures rank 0 against the first rank on another node (rank 1 when all share a node),\n"
      "then the All-to-All contention signature (seed 000: direct exchange and every message at\n"
      "once over block sizes up to 1 MiB; with all ranks, or one per node on 4 nodes or more\n"
      "when nodes hold several), the contention graphs between nodes\n"
      "(seeds 002, 003; needs 2 or more ranks on a node, e.g. mpiexec -ppn 2) and the LogfP\n"
      "1:P-P:1 benchmark (seed 004).\n"
      "Validate a model with: mpiexec -n P collsel-calibrate --validate cluster.toml"};
  Options o;
  app.add_option("-o,--output", o.output, "model file to write")->capture_default_str();
  app.add_option("--name", o.name, "name recorded in the model file")->capture_default_str();
  app.add_option("--max-bytes", o.max_bytes, "largest message size measured")
      ->capture_default_str();
  app.add_flag("--quick", o.quick,
               "sizes up to 1 MiB, fewer samples, a 40 s budget (under a minute on 8 ranks)");
  app.add_option("--budget", o.budget_s,
                 "seconds the measurement may take (default 240, --quick 40); each size gets a "
                 "share, and a value stops sampling when its share is spent")
      ->check(CLI::PositiveNumber);
  app.add_option("--step-depth", o.step_depth,
                 "halvings of the step search between neighbouring sizes: their midpoint is "
                 "measured and kept where the straight line between them misses it by more than "
                 "10 %, and its halves are searched again (default 3, --quick 0: off; up to as "
                 "long again as the sizes; docs/MODELS.md, \"Steps between calibrated sizes\")")
      ->check(CLI::Range(0, 8));
  app.add_flag("!--no-alltoall", o.alltoall,
               "skip the All-to-All contention measurement (the model file then has no "
               "[alltoall] section and All-to-All is predicted contention-free)");
  app.add_option("--alltoall-budget", o.alltoall_budget_s,
                 "seconds the All-to-All measurement may take (default 60, --quick 15)")
      ->check(CLI::PositiveNumber);
  app.add_flag("!--no-contention", o.contention,
               "skip the contention graphs (the model file then has no [contention] section)");
  app.add_option("--contention-bytes", o.contention_bytes,
                 "message size of the contention graphs (default 1MiB, --quick 256KiB)")
      ->check(collsel::common::size_validator(1, 1u << 30));
  app.add_option("--contention-repeats", o.contention_repeats,
                 "runs of each contention graph; the median is kept (default 5, --quick 3)")
      ->check(CLI::Range(1, 1000));
  app.add_flag("!--no-logfp", o.logfp,
               "skip the 1:P-P:1 benchmark (the model file then has no [logfp] section)");
  app.add_option("--validate", o.validate,
                 "instead of calibrating: run every algorithm at a grid of sizes on this P and "
                 "compare with MODEL's predictions; writes PREFIX.md, PREFIX.csv, PREFIX.svg")
      ->check(CLI::ExistingFile);
  app.add_option("--validate-prefix", o.validate_prefix, "output files of --validate")
      ->capture_default_str();
  app.add_option("--validate-sizes", o.validate_sizes,
                 "message sizes of --validate (bytes; Scatter and Alltoall: one block)")
      ->delimiter(',');
  app.add_option("--validate-colls", o.validate_colls, "collectives of --validate")
      ->delimiter(',')
      ->check(CLI::IsMember({"bcast", "scatter", "alltoall"}))
      ->capture_default_str();
  // Parse before MPI_Init so --help works without mpiexec.
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) {
    if (rank == 0) {
      fmt::print(stderr, "collsel-calibrate: needs at least 2 ranks; run it as "
                         "mpiexec -n 2 collsel-calibrate -o {}\n", o.output);
    }
    MPI_Finalize();
    return 2;
  }

  if (!o.validate.empty()) {
    const int rc = validate(o, rank);
    MPI_Finalize();
    return rc;
  }

  const auto started = std::chrono::steady_clock::now();
  // MPI_Wtime's clock too: on a simulated cluster (SMPI) it is the simulated time, which is what
  // the calibration would take on the real one (docs/SIMULATION.md).
  const double mpi_started = MPI_Wtime();
  collsel::calibrate::MeasureOptions mo;
  mo.sizes = sizes_up_to(o.quick ? std::min<std::uint64_t>(o.max_bytes, 1u << 20) : o.max_bytes);
  mo.min_samples = o.quick ? 3 : 5;
  mo.max_samples = o.quick ? 9 : 25;
  mo.budget_s = o.budget_s > 0 ? o.budget_s : (o.quick ? 40.0 : 240.0);
  mo.min_burst_s = o.quick ? 1e-3 : 2e-3;
  // A quick run is a first look, not the model the cluster keeps: it skips the step search.
  mo.step_depth = o.step_depth >= 0 ? o.step_depth : (o.quick ? 0 : 3);
  // A progress line rewritten in place on a terminal; one line per tenth of the work otherwise.
  const bool terminal = isatty(STDERR_FILENO) != 0;
  mo.progress = [&](std::size_t i, std::size_t n, double elapsed, double left) {
    if (!terminal && (i + 1) * 10 / n == i * 10 / n && i + 1 != n) return;
    constexpr int kWidth = 24;
    const int filled = static_cast<int>(kWidth * (i + 1) / n);
    fmt::print(stderr, "{}collsel-calibrate: [{}{}] pLogP {:3}/{} sizes (last {} B), {:5.1f} s, "
               "about {:4.0f} s left{}",
               terminal ? "\r" : "", std::string(filled, '#'), std::string(kWidth - filled, '.'),
               i + 1, n, mo.sizes[i], elapsed, left, terminal && i + 1 != n ? "" : "\n");
  };
  // Across nodes when the job spans several, else within the node; and, when ranks also share
  // nodes, a second, smaller measurement within rank 0's node.
  int peer = -1, intra_peer = -1;
  bool across_second = false, within_second = false;
  MPI_Comm across = measuring_order(MPI_COMM_WORLD, false, &peer, &across_second);
  MPI_Comm within = measuring_order(MPI_COMM_WORLD, true, &intra_peer, &within_second);
  const bool both = across != MPI_COMM_NULL && within != MPI_COMM_NULL;
  collsel::calibrate::MeasureOptions intra_mo = mo;
  if (both) {  // a quarter of the budget for the intra-node table, which is not used to select
    intra_mo.budget_s = mo.budget_s / 4;
    mo.budget_s -= intra_mo.budget_s;
  }
  mo.fanout_share = across != MPI_COMM_NULL ? across_second : within_second;
  intra_mo.fanout_share = within_second;
  const auto measured = measure_pair(across != MPI_COMM_NULL ? across : within, mo);
  if (across == MPI_COMM_NULL) peer = intra_peer;
  std::optional<collsel::models::plogp::Params> intra;
  if (both) {
    if (rank == 0) fmt::print(stderr, "collsel-calibrate: now within one node (ranks 0 and {})\n",
                              intra_peer);
    intra = measure_pair(within, intra_mo);
  }
  if (across != MPI_COMM_NULL) MPI_Comm_free(&across);
  if (within != MPI_COMM_NULL) MPI_Comm_free(&within);
  // The contention graphs, LogfP and the All-to-All place their ranks by node.
  const collsel::calibrate::NodeLayout layout = collsel::calibrate::node_layout(MPI_COMM_WORLD);
  std::optional<collsel::calibrate::ContentionFit> contention;
  int a2a_ranks = size;
  if (o.alltoall) {
    // One rank per node when the job spans 4 nodes or more with several ranks on some: the
    // closed forms that read the signature serve calls with one rank per node (with several,
    // the schedule simulation decides), and ranks sharing a node's link measure its contention
    // instead (simulated gige, 2 per node: all_at_once predicted 1.6-1.8x slow at 1 per node).
    const bool per_node = !layout.fake && layout.nodes() >= 4 && layout.max_ranks_per_node() > 1;
    bool first_of_node = true;
    if (per_node) {
      const int node = layout.node_of_rank[static_cast<std::size_t>(rank)];
      first_of_node = layout.ranks_of_node[static_cast<std::size_t>(node)].front() == rank;
      a2a_ranks = layout.nodes();
    }
    collsel::calibrate::OwnedComm measuring;
    MPI_Comm_split(MPI_COMM_WORLD, first_of_node ? 0 : MPI_UNDEFINED, rank, measuring.out());
    collsel::calibrate::AlltoallMeasureOptions ao;
    const std::uint64_t top = std::min<std::uint64_t>(o.max_bytes, o.quick ? 256u << 10 : 1u << 20);
    for (std::uint64_t m = 64; m <= top; m *= 4) ao.sizes.push_back(m);
    ao.budget_s = o.alltoall_budget_s > 0 ? o.alltoall_budget_s : (o.quick ? 15.0 : 60.0);
    ao.max_samples = o.quick ? 5 : 9;
    ao.progress = [&](std::size_t i, std::size_t n, double elapsed) {
      fmt::print(stderr, "collsel-calibrate: All-to-All at {} ranks: {}/{} sizes (last {} B), "
                 "{:.1f} s\n", a2a_ranks, i + 1, n, ao.sizes[i], elapsed);
    };
    if (rank == 0) {
      fmt::print(stderr, "collsel-calibrate: All-to-All contention signature with {}\n",
                 per_node ? fmt::format("one rank per node ({} ranks)", a2a_ranks)
                          : fmt::format("all {} ranks", size));
    }
    if (measuring.get() != MPI_COMM_NULL) {
      const auto measured_a2a = collsel::calibrate::measure_alltoall(measuring.get(), ao);
      if (rank == 0) {
        contention = collsel::calibrate::fit_contention(measured_a2a, *measured, a2a_ranks);
      }
    }
    collsel::calibrate::wait_without_polling(MPI_COMM_WORLD);
  }
  if (rank == 0 && layout.fake && (o.contention || o.logfp)) {
    fmt::print(stderr, "collsel-calibrate: {}: {} pseudo-nodes of consecutive ranks (a test knob: "
               "[contention] and [logfp] then measure this machine, not a network)\n",
               collsel::calibrate::kFakeNodesVariable, layout.nodes());
  }
  std::optional<collsel::calibrate::ContentionCalibration> graphs;
  collsel::calibrate::ContentionOptions co;
  if (o.contention) {
    co.bytes = o.contention_bytes.empty()
                   ? (o.quick ? 256u << 10 : 1u << 20)
                   : *collsel::common::parse_size(o.contention_bytes).bytes;
    co.repeats = o.contention_repeats > 0 ? o.contention_repeats : (o.quick ? 3 : 5);
    co.progress = [](const std::string& line) {
      fmt::print(stderr, "collsel-calibrate: {}\n", line);
    };
    graphs = collsel::calibrate::calibrate_contention(MPI_COMM_WORLD, layout, co);
    if (rank == 0 && !graphs->skipped.empty()) {
      fmt::print(stderr, "collsel-calibrate: no [contention] section: {}\n", graphs->skipped);
    }
  }
  std::optional<collsel::models::logfp::Params> logfp;
  std::string logfp_problem;
  collsel::calibrate::LogfpMeasureOptions lo;
  if (o.logfp) {
    lo.min_samples = o.quick ? 3 : 5;
    lo.max_samples = o.quick ? 9 : 25;
    lo.budget_s = o.quick ? 5.0 : 20.0;
    lo.progress = [](int p, int most, double elapsed) {
      // Five lines at most: P = 1, every quarter, the last.
      const int step = std::max(1, (most + 3) / 4);
      if (p != 1 && p != most && p % step != 0) return;
      fmt::print(stderr, "collsel-calibrate: LogfP 1:P-P:1 at P = {}/{}, {:.1f} s\n", p, most,
                 elapsed);
    };
    if (rank == 0) {
      fmt::print(stderr, "collsel-calibrate: LogfP 1:P-P:1 benchmark, {}-byte messages to P = "
                 "1..{} peers (other nodes first)\n", lo.bytes, size - 1);
    }
    const auto samples = collsel::calibrate::measure_logfp(MPI_COMM_WORLD, layout, lo);
    if (rank == 0) {
      try {
        logfp = collsel::models::logfp::fit(samples.samples, lo.bytes);
        logfp->max_bytes = lo.bytes;
        if (auto reason = logfp->invalid_reason()) {
          logfp_problem = *reason;
          logfp.reset();
        }
      } catch (const std::exception& e) {
        logfp_problem = e.what();
      }
    }
  }
  const auto hosts = host_names(MPI_COMM_WORLD);
  const int per_node = ranks_per_node(MPI_COMM_WORLD);

  int rc = 0;
  if (rank == 0) {
    collsel::models::ModelFile model;
    model.name = o.name;
    model.description =
        fmt::format("pLogP parameters measured by collsel-calibrate between ranks 0 and {}", peer);
    model.provenance.command = command_line(argc, argv, size);
    model.provenance.date = iso_now();
    model.provenance.mpi_library = mpi_library();
    model.provenance.hosts = hosts;
    model.provenance.ranks = size;
    model.provenance.ranks_per_node = per_node;
    model.plogp = *measured;
    model.intra_node = intra;
    if (contention && contention->error) {
      fmt::print(stderr, "collsel-calibrate: no [alltoall] section: {}\n", *contention->error);
    } else if (contention) {
      const auto& c = contention->contention;
      model.alltoall = c;
      fmt::print(stderr,
                 "collsel-calibrate: All-to-All signature at n' = {}: gamma {:.4g}, delta {:.4g} s "
                 "from M = {}, fit rms {:.1f} % over {} sizes; beta_F {:.4g}, beta_C {:.4g} s/B, "
                 "rho {:.3f} (one in flight) .. {:.3f} (all at once)\n",
                 c.sample_ranks, c.signature.gamma, c.signature.delta_s,
                 c.signature.threshold_bytes == collsel::models::alltoall::kNoThreshold
                     ? std::string("none")
                     : fmt::format("{} B", c.signature.threshold_bytes),
                 100 * c.signature_fit.rms_rel, c.signature_fit.points, c.beta_free_s_per_byte,
                 c.beta_contention_s_per_byte, c.rho_single, c.rho_flood);
    }
    std::string more_notes;
    if (graphs && graphs->params) {
      const auto& c = *graphs->params;
      model.contention = c;
      fmt::print(stderr,
                 "collsel-calibrate: contention rule {} (mean |E_rel| on {} graphs: {}); "
                 "T_ref {:.4g} s for {} B, alpha {:.4g} s/B, intra-node {:.4g} s/B; GigE beta "
                 "{:.3g}, gamma_i {:.3g}, gamma_o {:.3g} ({})\n",
                 collsel::models::contention::rule_name(c.rule), c.measured.size(),
                 rule_scores(*graphs), graphs->t_ref_s, co.bytes, c.alpha_s_per_byte,
                 c.intra_alpha_s_per_byte, c.gige.beta, c.gige.gamma_i, c.gige.gamma_o,
                 graphs->gige_note);
      more_notes += fmt::format(
          "; [contention] from {} static-synchronous graphs of {} B (median of {} runs), T_ref "
          "{:.6g} s, rule by mean |E_rel|: {}; GigE parameters {}",
          graphs->graphs.size(), co.bytes, co.repeats, graphs->t_ref_s, rule_scores(*graphs),
          graphs->gige_note);
    } else if (graphs) {
      more_notes += fmt::format("; no [contention]: {}", graphs->skipped);
    }
    if (logfp) {
      model.logfp = logfp;
      fmt::print(stderr,
                 "collsel-calibrate: LogfP L {:.4g} s, o_min {:.4g} s, o_max {:.4g} s, g {:.4g} s, "
                 "f {}\n",
                 logfp->latency_s, logfp->o_min_s, logfp->o_max_s, logfp->gap_s, logfp->f);
      more_notes += fmt::format("; [logfp] from the 1:P-P:1 benchmark, {}-byte messages, P = 1..{}",
                                lo.bytes, size - 1);
    } else if (o.logfp) {
      fmt::print(stderr, "collsel-calibrate: no [logfp] section: {}\n", logfp_problem);
      more_notes += fmt::format("; no [logfp]: {}", logfp_problem);
    }
    if (contention && a2a_ranks != size) {
      more_notes += fmt::format("; [alltoall] from one rank per node ({} ranks)", a2a_ranks);
    }
    if (layout.fake) {
      more_notes += fmt::format("; {}={} (test knob)", collsel::calibrate::kFakeNodesVariable,
                                layout.nodes());
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    model.provenance.duration_s = seconds;
    model.provenance.notes = fmt::format(
        "each value is the median of {} to {} samples, taken until its 95 % interval was within "
        "+-{:.0f} % or its share of the {:.0f} s budget was spent (spreads below); {} sizes{}; "
        "[plogp] measured between ranks 0 and {} ({}){}",
        mo.min_samples, mo.max_samples, 100 * mo.target_spread, mo.budget_s, mo.sizes.size(),
        mo.step_depth == 0 ? std::string(", no step search")
                           : fmt::format(" and {} found by the step search (depth {})",
                                         measured->table.size() - mo.sizes.size(), mo.step_depth),
        peer, hosts.size() > 1 ? "different nodes" : "one node, shared memory",
        intra ? fmt::format(", [intra_node] between ranks 0 and {}", intra_peer) : "");
    model.provenance.notes += more_notes;
    if (const auto problem = collsel::models::save_model_file(model, o.output)) {
      fmt::print(stderr, "collsel-calibrate: {}\n", *problem);
      rc = 1;
    } else {
      fmt::print(stderr, "collsel-calibrate: wrote {} ({:.1f} s; MPI_Wtime: {:.3f} s)\n", o.output,
                 seconds, MPI_Wtime() - mpi_started);
    }
  }
  MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return rc;
}
