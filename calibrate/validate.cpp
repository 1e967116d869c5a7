#include "calibrate/validate.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "common/duration_format.hpp"
#include "common/size_parse.hpp"

namespace collsel::calibrate {
namespace {

double median_of(std::vector<double> v) { return summarise(std::move(v)).median; }

}  // namespace

ValidationResult run_validation(MPI_Comm comm, const models::ModelFile& model,
                                const ValidateOptions& o) {
  const ModelSet models{&model, nullptr};
  const Policy policy;
  Comparer comparer(comm, models, policy);
  CompareOptions co = o.compare;
  co.native = false;
  co.automatic = false;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  ValidationResult out;
  for (const Collective coll : o.colls) {
    for (const std::uint64_t bytes : o.sizes) {
      const PointResult p = comparer.run(coll, bytes, co);
      if (rank != 0) continue;
      ValidationPoint vp{coll, bytes, p.model_choice, "", 1.0, p.correct};
      double best = INFINITY;
      double chosen = NAN;
      for (const auto& v : p.variants) {
        ValidationRow row{coll, p.comm_size, bytes, v.name, v.predicted_s, summarise(v.samples),
                          0.0};
        row.e_rel = (row.predicted_s - row.measured.median) / row.measured.median;
        if (row.measured.median < best) {
          best = row.measured.median;
          vp.measured_best = v.name;
        }
        if (v.name == p.model_choice) chosen = row.measured.median;
        out.rows.push_back(std::move(row));
      }
      vp.penalty = std::isfinite(chosen) ? chosen / best : NAN;
      out.points.push_back(vp);
      fmt::print(stderr, "collsel-calibrate: validate {} {}: model picks {}, fastest {} ({:.2f}x)\n",
                 collective_name(coll), common::format_size(bytes), vp.model_choice, vp.measured_best,
                 vp.penalty);
    }
  }
  return out;
}

std::string validation_markdown(const ValidationResult& r, const std::string& model_name) {
  std::string out;
  if (r.rows.empty()) return out;
  const int P = r.rows.front().comm_size;
  out += fmt::format("Model \"{}\" against measurements at P = {}. E_rel = (predicted - measured) "
                     "/ measured, on medians.\n\n",
                     model_name, P);
  // Overall.
  std::vector<double> all;
  for (const auto& row : r.rows) all.push_back(std::abs(row.e_rel));
  int within = 0, counted = 0;
  for (const auto& p : r.points) {
    if (!std::isfinite(p.penalty)) continue;
    ++counted;
    within += p.penalty <= 1.05;
  }
  out += fmt::format("- median |E_rel| over all algorithms and sizes: {:.1f} %\n",
                     100 * median_of(all));
  out += fmt::format("- the model's choice within 5 % of the measured best: {} of {} sizes "
                     "({:.0f} %)\n\n",
                     within, counted, counted ? 100.0 * within / counted : 0.0);
  // Per algorithm.
  std::map<std::pair<int, std::string>, std::vector<double>> per_algo;
  for (const auto& row : r.rows) {
    per_algo[{static_cast<int>(row.coll), row.algorithm}].push_back(row.e_rel);
  }
  out += "| algorithm | sizes | mean E_rel | mean abs(E_rel) | median abs(E_rel) |\n";
  out += "|---|---|---|---|---|\n";
  for (const auto& [key, e] : per_algo) {
    double sum = 0, abs_sum = 0;
    std::vector<double> abs_e;
    for (double x : e) {
      sum += x;
      abs_sum += std::abs(x);
      abs_e.push_back(std::abs(x));
    }
    out += fmt::format("| {} | {} | {:+.1f} % | {:.1f} % | {:.1f} % |\n", key.second, e.size(),
                       100 * sum / e.size(), 100 * abs_sum / e.size(), 100 * median_of(abs_e));
  }
  // Per size.
  out += "\n| collective | size | model's choice | measured best | penalty | results |\n";
  out += "|---|---|---|---|---|---|\n";
  for (const auto& p : r.points) {
    out += fmt::format("| {} | {} | {} | {} | {:.2f} | {} |\n", collective_name(p.coll),
                       common::format_size(p.bytes), p.model_choice, p.measured_best, p.penalty,
                       p.correct ? "ok" : "WRONG");
  }
  // Every point.
  out += "\n| collective | size | algorithm | predicted | measured (median) | IQR | E_rel |\n";
  out += "|---|---|---|---|---|---|---|\n";
  for (const auto& row : r.rows) {
    out += fmt::format("| {} | {} | {} | {} | {} | {} - {} | {:+.1f} % |\n",
                       collective_name(row.coll), common::format_size(row.bytes), row.algorithm,
                       common::format_duration(row.predicted_s), common::format_duration(row.measured.median),
                       common::format_duration(row.measured.p25), common::format_duration(row.measured.p75),
                       100 * row.e_rel);
  }
  return out;
}

std::string validation_csv(const ValidationResult& r) {
  std::string out = "coll,P,bytes,algorithm,predicted_s,median_s,p25_s,p75_s,min_s,max_s,e_rel\n";
  for (const auto& row : r.rows) {
    out += fmt::format("{},{},{},{},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.6g}\n",
                       collective_name(row.coll), row.comm_size, row.bytes, row.algorithm,
                       row.predicted_s, row.measured.median, row.measured.p25, row.measured.p75,
                       row.measured.min, row.measured.max, row.e_rel);
  }
  return out;
}

namespace {

// (collective, algorithm) in plotting order: collectives ascending, algorithms as first seen.
std::vector<std::pair<Collective, std::string>> plot_blocks(const ValidationResult& r) {
  std::vector<std::pair<Collective, std::string>> blocks;
  for (const auto& row : r.rows) {
    const std::pair<Collective, std::string> key{row.coll, row.algorithm};
    if (std::find(blocks.begin(), blocks.end(), key) == blocks.end()) blocks.push_back(key);
  }
  std::stable_sort(blocks.begin(), blocks.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  return blocks;
}

}  // namespace

std::string validation_gnuplot_data(const ValidationResult& r) {
  std::string out;
  for (const auto& [coll, algo] : plot_blocks(r)) {
    out += fmt::format("# {} {}\n", collective_name(coll), algo);
    for (const auto& row : r.rows) {
      if (row.coll != coll || row.algorithm != algo) continue;
      out += fmt::format("{} {:.9g} {:.9g}\n", std::max<std::uint64_t>(row.bytes, 1),
                         row.predicted_s, row.measured.median);
    }
    out += "\n\n";
  }
  return out;
}

std::string validation_gnuplot(const ValidationResult& r, const std::string& data_path,
                               const std::string& svg_path) {
  // One panel per collective: measured medians (points and solid lines) and predictions (dashed),
  // one colour per algorithm. The data file has one block per (collective, algorithm).
  const auto blocks = plot_blocks(r);
  std::set<Collective> colls;
  for (const auto& b : blocks) colls.insert(b.first);
  std::string script = fmt::format(
      "set terminal svg size 1100,{} dynamic font 'sans,10' noenhanced\nset output '{}'\n"
      "set multiplot layout {},1\nset logscale xy\nset grid\nset key outside right top\n"
      "set xlabel 'bytes (Scatter, Alltoall: per block)'\nset ylabel 'seconds'\n"
      "set format x '%.0s%cB'\nset format y '%.0s%cs'\n",
      450 * colls.size(), svg_path, colls.size());
  for (const Collective c : colls) {
    std::vector<std::string> curves;
    int colour = 1;
    for (std::size_t i = 0; i < blocks.size(); ++i) {
      if (blocks[i].first != c) continue;
      curves.push_back(fmt::format("'{}' index {} using 1:3 with linespoints lc {} pt 7 ps 0.5 "
                                   "title '{}'",
                                   data_path, i, colour, blocks[i].second));
      curves.push_back(fmt::format("'{}' index {} using 1:2 with lines lc {} dt 2 notitle",
                                   data_path, i, colour));
      ++colour;
    }
    script += fmt::format("set title '{}: measured (solid) and predicted (dashed)'\nplot {}\n",
                          collective_name(c), fmt::join(curves, ", \\\n  "));
  }
  script += "unset multiplot\n";
  return script;
}

}  // namespace collsel::calibrate
