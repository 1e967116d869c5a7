// The cluster model file (TOML), format version 1. Layout and every key: docs/MODELS.md,
// "Model file". Pure C++ (toml++ only), so tools and tests read models without MPI.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/alltoall/contention.hpp"
#include "models/contention/params.hpp"
#include "models/diagnostic.hpp"
#include "models/logfp/logfp.hpp"
#include "models/plogp/params.hpp"

namespace collsel::models {

inline constexpr int kModelFormatVersion = 1;

struct Provenance {
  std::string command;      // the command that measured the parameters
  std::string date;         // ISO 8601
  std::string mpi_library;  // e.g. "MPICH 4.0.2 ch4:ucx"
  std::vector<std::string> hosts;
  int ranks = 0;
  int ranks_per_node = 0;    // 0: unknown
  double duration_s = 0.0;   // how long the measurement took; 0: unknown
  std::string notes;
};

struct ModelFile {
  int format_version = kModelFormatVersion;
  std::string name;
  std::string description;
  Provenance provenance;
  plogp::Params plogp;  // between nodes (or within the one node, when there is one)
  // Between two ranks of the same node, when the calibration had ranks sharing nodes across
  // several nodes. Recorded for inspection and later hierarchical models; the selection uses
  // `plogp`, since a collective spanning nodes is paced by its inter-node messages.
  std::optional<plogp::Params> intra_node;
  // The All-to-All contention signature and throughput parameters (seed 000), when the
  // calibration measured them. Absent: the All-to-All models use alltoall::contention_free(plogp).
  std::optional<alltoall::Contention> alltoall;
  // Contention graphs (seeds 002, 003): the penalty rule, the Gigabit Ethernet parameters and the
  // static-synchronous graphs the calibration measured. Absent: no schedule simulation.
  std::optional<models::contention::Params> contention;
  // LogfP (seed 004) for small messages, from the 1:P-P:1 benchmark. Absent: not measured.
  std::optional<models::logfp::Params> logfp;
  // [corrections]: algorithm name -> factor its predictions are multiplied by, fitted by
  // `collsel refit` to logged (prediction, measurement) pairs where the model's terms cannot
  // express what was measured (docs/MODELS.md, "Corrections"). Sorted by name; empty: none.
  std::vector<std::pair<std::string, double>> corrections;

  // The factor of `algorithm` (1 when it has none).
  [[nodiscard]] double correction(std::string_view algorithm) const;
};

struct ModelLoad {
  std::optional<ModelFile> model;  // empty when an error made the file unusable
  Diagnostics diagnostics;         // warnings (model still used) and errors (model rejected)
};

// Parses `text`; `source` is the name used in diagnostics (a path, or "<embedded default model>").
// Errors (model rejected): TOML syntax error (line of the error), missing required key, wrong type,
// format_version other than kModelFormatVersion, table arrays of different lengths, sizes not
// strictly increasing, negative or non-finite values. Warnings (model still used): unknown keys,
// each naming the valid keys of its table.
ModelLoad parse_model(std::string_view text, std::string_view source);

// Reads the file at `path` (an unreadable file is one error diagnostic) and parses it.
ModelLoad load_model_file(const std::string& path);

// TOML text that parse_model reads back to an equal ModelFile (doubles written with full
// round-trip precision).
std::string write_model(const ModelFile& model);

// Writes write_model(model) to `path` through a temporary file beside it (PATH.tmp.PID), renamed
// at the end: a reader never sees half a model, and a failure or an interruption leaves no model
// file. Empty on success; otherwise what went wrong and what to do, as one sentence.
std::optional<std::string> save_model_file(const ModelFile& model, const std::string& path);

}  // namespace collsel::models
