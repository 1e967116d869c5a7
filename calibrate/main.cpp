// collsel-calibrate: measures this cluster's pLogP parameters and writes the model file.
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

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "calibrate/plogp_measure.hpp"
#include "models/model_file.hpp"

namespace {

struct Options {
  std::string output = "cluster.toml";
  std::string name = "calibrated cluster";
  std::uint64_t max_bytes = 4u << 20;
  bool quick = false;
};

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

int write_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = fmt::format("{}.tmp.{}", path, static_cast<long>(getpid()));
  {
    std::ofstream out(tmp, std::ios::binary);
    out << text;
    if (!out) {
      fmt::print(stderr, "collsel-calibrate: cannot write {}; check the folder exists and is "
                         "writable\n", tmp);
      std::filesystem::remove(tmp);
      return 1;
    }
  }
  std::filesystem::rename(tmp, path);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "collsel-calibrate: measure this cluster's pLogP parameters (L, g(m), o_s(m), o_r(m)) "
      "between ranks 0 and 1 and write the model file collsel reads.\n"
      "Example: mpiexec -n 2 collsel-calibrate -o cluster.toml\n"
      "Place ranks 0 and 1 on two different nodes to measure the network."};
  Options o;
  app.add_option("-o,--output", o.output, "model file to write")->capture_default_str();
  app.add_option("--name", o.name, "name recorded in the model file")->capture_default_str();
  app.add_option("--max-bytes", o.max_bytes, "largest message size measured")
      ->capture_default_str();
  app.add_flag("--quick", o.quick, "fewer repetitions and sizes up to 1 MiB (about 10 s)");
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

  const auto started = std::chrono::steady_clock::now();
  collsel::calibrate::MeasureOptions mo;
  mo.sizes = sizes_up_to(o.quick ? std::min<std::uint64_t>(o.max_bytes, 1u << 20) : o.max_bytes);
  mo.repetitions = o.quick ? 7 : 15;
  mo.min_burst_s = o.quick ? 1e-3 : 2e-3;
  // A progress line rewritten in place on a terminal; one line per tenth of the work otherwise.
  const bool terminal = isatty(STDERR_FILENO) != 0;
  mo.progress = [&](std::size_t i, std::size_t n) {
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    const double left = elapsed / static_cast<double>(i + 1) * static_cast<double>(n - i - 1);
    if (!terminal && (i + 1) * 10 / n == i * 10 / n && i + 1 != n) return;
    fmt::print(stderr, "{}collsel-calibrate: pLogP {:3}/{} sizes, {:5.1f} s, about {:4.0f} s left{}",
               terminal ? "\r" : "", i + 1, n, elapsed, left,
               terminal && i + 1 != n ? "" : "\n");
  };
  const auto measured = collsel::calibrate::measure_plogp(MPI_COMM_WORLD, mo);
  const auto hosts = host_names(MPI_COMM_WORLD);

  int rc = 0;
  if (rank == 0) {
    collsel::models::ModelFile model;
    model.name = o.name;
    model.description = "pLogP parameters measured between ranks 0 and 1 by collsel-calibrate";
    model.provenance.command = command_line(argc, argv, size);
    model.provenance.date = iso_now();
    model.provenance.mpi_library = mpi_library();
    model.provenance.hosts = hosts;
    model.provenance.ranks = size;
    model.plogp = *measured;
    model.plogp.eager_limit_bytes = collsel::calibrate::detect_eager_limit(model.plogp);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    model.provenance.notes = fmt::format(
        "median of {} samples per value; {} sizes; measured in {:.1f} s", mo.repetitions,
        mo.sizes.size(), seconds);
    rc = write_atomically(o.output, collsel::models::write_model(model));
    if (rc == 0) fmt::print(stderr, "collsel-calibrate: wrote {} ({:.1f} s)\n", o.output, seconds);
  }
  MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return rc;
}
