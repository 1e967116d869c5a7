// collsel-calibrate --validate MODEL: how good is a model on this cluster? Runs every registered
// algorithm at a grid of sizes on the current P (calibrate/compare.hpp, the selection benchmark's
// engine), and compares the measured medians with the model's predictions.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "calibrate/compare.hpp"
#include "models/model_file.hpp"

namespace collsel::calibrate {

struct ValidateOptions {
  std::vector<Collective> colls{Collective::bcast, Collective::scatter, Collective::alltoall};
  std::vector<std::uint64_t> sizes;
  std::string output_prefix = "validation";  // writes PREFIX.csv, PREFIX.md, PREFIX.svg
  CompareOptions compare;
};

// One algorithm at one size.
struct ValidationRow {
  Collective coll = Collective::bcast;
  int comm_size = 1;
  std::uint64_t bytes = 0;
  std::string algorithm;
  double predicted_s = 0.0;
  Summary measured;
  double e_rel = 0.0;  // (predicted - measured median) / measured median
};

// One size: what the model chose against what measured fastest.
struct ValidationPoint {
  Collective coll = Collective::bcast;
  std::uint64_t bytes = 0;
  std::string model_choice;
  std::string measured_best;
  double penalty = 1.0;  // measured(model's choice) / measured(best)
  bool correct = true;
};

struct ValidationResult {
  std::vector<ValidationRow> rows;
  std::vector<ValidationPoint> points;
};

// Collective over `comm`; the result is complete on rank 0.
ValidationResult run_validation(MPI_Comm comm, const models::ModelFile& model,
                                const ValidateOptions& options);

// Pure (no MPI): the markdown report, the CSV, and the gnuplot script of the plot.
std::string validation_markdown(const ValidationResult& r, const std::string& model_name);
std::string validation_csv(const ValidationResult& r);
// Blocks of "bytes predicted measured" per (collective, algorithm), in validation_gnuplot's order.
std::string validation_gnuplot_data(const ValidationResult& r);
std::string validation_gnuplot(const ValidationResult& r, const std::string& data_path,
                               const std::string& svg_path);

}  // namespace collsel::calibrate
