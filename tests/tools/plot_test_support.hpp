// Shared by plots_test.cpp and html_report_test.cpp: a Report made by hand (so the plots are
// tested on known numbers, independently of the log aggregation), a reader of gnuplot data files,
// and an XML check of gnuplot's SVG by Python's parser (a real XML parser, which the C++ build
// does not otherwise need).
#pragma once

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "command.hpp"
#include "temp_dir.hpp"
#include "tools/report/report.hpp"

namespace collsel::testing {

inline report::MergedCall merged(std::string coll, std::string algorithm, std::uint64_t bytes,
                                 int comm_size, std::optional<double> predicted, double actual) {
  report::MergedCall c;
  c.run = "r";
  c.comm = "0.0";
  c.coll = std::move(coll);
  c.algorithm = std::move(algorithm);
  c.bytes = bytes;
  c.comm_size = comm_size;
  c.predicted_s = predicted;
  c.actual_s = actual;
  c.ranks_present = comm_size;
  return c;
}

inline report::ErrorRow error_row(std::string coll, std::string algorithm, std::uint64_t lo,
                                  std::uint64_t hi, int comm_size, std::int64_t predicted_calls,
                                  double rel) {
  report::ErrorRow e;
  e.coll = std::move(coll);
  e.algorithm = std::move(algorithm);
  e.bucket = {lo, hi};
  e.comm_size = comm_size;
  e.calls = predicted_calls == 0 ? 3 : predicted_calls;
  e.predicted_calls = predicted_calls;
  e.mean_actual_s = 1e-3;
  e.mean_predicted_s = predicted_calls == 0 ? NAN : 1e-3 * (1.0 + rel);
  e.mean_rel_error = predicted_calls == 0 ? NAN : rel;
  e.mean_abs_rel_error = predicted_calls == 0 ? NAN : std::abs(rel);
  e.source = "trace";
  return e;
}

inline report::CallSiteRow site(std::string text, std::string coll, double time_s,
                                std::int64_t calls) {
  report::CallSiteRow s;
  s.site = std::move(text);
  s.coll = std::move(coll);
  s.time_s = time_s;
  s.calls = calls;
  s.ranks = 4;
  s.mean_s = time_s / static_cast<double>(calls);
  s.min_s = s.mean_s / 2;
  s.max_s = s.mean_s * 2;
  return s;
}

// Six comparable calls over three algorithms of two collectives, one native call (no prediction)
// and one with actual 0 (not comparable); errors in four buckets, the 0-byte one included; three
// call sites, one with characters that need escaping in every format involved.
inline report::Report hand_made_report() {
  report::Report r;
  r.run_id = "20261124-100000-p42";
  r.dir = "/logs/20261124-100000-p42";
  r.world_size = 4;
  r.rank_files = 4;
  r.hosts = {"node1", "node2"};
  r.models = {"<embedded default model>"};
  r.configs = {"<built-in defaults>"};
  r.collsel_versions = {"0.1.0"};
  r.merged = {
      merged("bcast", "bcast.binomial", 1024, 4, 2e-5, 3e-5),
      merged("bcast", "bcast.binomial", 1024, 4, 2e-5, 2.5e-5),
      merged("bcast", "bcast.chain_segmented", 1 << 20, 4, 1.2e-3, 1.5e-3),
      merged("bcast", "native", 4096, 4, std::nullopt, 4e-5),
      merged("scatter", "scatter.flat", 4096, 4, 3e-5, 2e-5),
      merged("scatter", "scatter.flat", 4096, 4, 3e-5, 2.2e-5),
      merged("scatter", "scatter.flat", 4096, 4, 3e-5, 0.0),
      merged("bcast", "bcast.binomial", 65536, 2, 9e-5, 8e-5),
  };
  r.calls = r.merged.size();
  r.errors = {
      error_row("bcast", "bcast.binomial", 0, 0, 4, 2, -0.5),
      error_row("bcast", "bcast.binomial", 1024, 2047, 4, 2, -0.3),
      error_row("bcast", "bcast.binomial", 65536, 131071, 2, 1, 0.125),
      error_row("bcast", "native", 4096, 8191, 4, 0, 0.0),
      error_row("scatter", "scatter.flat", 4096, 8191, 4, 2, 0.4),
  };
  r.call_sites = {
      site("main (ring.c:42)", "bcast", 0.04, 80),
      site("solver_step<std::vector<int>> \"x\" & 'y' in solver+0x1a2b", "alltoall", 0.02, 24),
      site("(no call site)", "scatter", 5e-4, 24),
  };
  report::Total t;
  t.coll = "bcast";
  t.algorithm = "bcast.binomial";
  t.calls = 3;
  t.time_s = 1.35e-4;
  t.bytes = 67584;
  t.share = 1.0;
  r.totals = {t};
  r.total_time_s = t.time_s;
  report::SavingRow s;
  s.coll = "bcast";
  s.comm_size = 4;
  s.bucket = {1024, 2047};
  s.algorithm = "bcast.binomial";
  s.calls = 2;
  s.actual_s = 5.5e-5;
  s.native_s = 7e-5;
  s.saved_s = 1.5e-5;
  s.native_basis = "measured";
  r.savings = {s};
  r.measured_saving_rows = 1;
  r.saved_measured_s = 1.5e-5;
  r.saving_basis = "measured: collsel's calls against native calls in this run";
  return r;
}

// The data lines of a gnuplot data file, split into fields ("..." is one field, without quotes);
// comment lines and blank lines (the block separators) are dropped.
inline std::vector<std::vector<std::string>> data_rows(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields;
    for (std::size_t i = 0; i < line.size();) {
      if (line[i] == ' ') {
        ++i;
      } else if (line[i] == '"') {
        const std::size_t close = line.find('"', i + 1);
        fields.push_back(line.substr(i + 1, close - i - 1));
        i = close + 1;
      } else {
        const std::size_t space = std::min(line.find(' ', i), line.size());
        fields.push_back(line.substr(i, space - i));
        i = space;
      }
    }
    rows.push_back(std::move(fields));
  }
  return rows;
}

// Parses `svg` with Python's XML parser; returns the number of <path> elements (SVG namespace
// when `namespaced`, else any), or -1 when it is not well-formed XML.
inline int xml_path_count(const std::string& svg, bool namespaced = true) {
  const TempDir dir("svg");
  const auto file = dir.path() / "plot.svg";
  std::ofstream(file, std::ios::binary) << svg;
  const std::string ns = namespaced ? "{http://www.w3.org/2000/svg}" : "";
  const std::string command =
      "python3 -c \"import sys, xml.etree.ElementTree as ET; "
      "print(len(ET.parse(sys.argv[1]).getroot().findall('.//" + ns + "path')))\" " +
      shell_quote(file.string()) + " 2>/dev/null";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return -1;
  char buffer[64] = {};
  const bool read = std::fgets(buffer, sizeof buffer, pipe) != nullptr;
  const int status = ::pclose(pipe);
  if (!read || status != 0) return -1;
  return std::atoi(buffer);
}

}  // namespace collsel::testing
