// The learned table (docs/ADAPT.md): what the monitors measured per call shape, written by rank 0
// at finalize next to the logs (LOG_DIR/RUN/learned.toml) and read back by a later run
// ([adapt] learned = "FILE") and by `collsel report` and `collsel explain`. The format is declared
// here once: format_learned() writes what parse_learned() reads.
//
//   format_version = 1
//   model = "gige"                      # the model file's name the shapes were measured against
//   [[shape]]
//   coll = "bcast"                      # the call shape: collective, ranks, bytes, root
//   comm_size = 8
//   bytes = 65536
//   root = 0
//   model_choice = "bcast.chain_segmented"
//   chosen = "bcast.binomial_segmented" # what the measurements chose (may equal model_choice)
//   calls = 200                         # calls of the shape in that run, trials included
//   explore_calls = 12                  # trial calls of runners-up
//   measured_s = { "bcast.chain_segmented" = 0.0021, "bcast.binomial_segmented" = 0.0011 }
//                                       # agreed mean per call (max over ranks), per algorithm
//
// An algorithm tried at another segment than the model's (selector/adapt.hpp, try_segments) is
// named with that segment in bytes: "bcast.chain_segmented@6144", in `chosen` and `measured_s`.
// Format 1 (before 2026-11-27) had no such names and is still read.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/diagnostic.hpp"
#include "selector/collective.hpp"

namespace collsel {

inline constexpr int kLearnedFormatVersion = 2;

// An entry's name in the table: the algorithm, and the segment when a trial moved it.
struct LearnedLabel {
  std::string algorithm;
  std::optional<std::uint64_t> segment_bytes;
};
std::string learned_label(std::string_view algorithm, std::optional<std::uint64_t> segment_bytes);
// The label of an algorithm run at `segment_bytes`: with the segment only where it moved it from
// the model's (a trial's variant, or a learned one), which is what a later run must reproduce.
std::string learned_label(std::string_view algorithm, bool moved_segment,
                          std::uint64_t segment_bytes);
// Nothing unless `label` names an algorithm of `coll`, with a segment only for a segmented one
// and then a positive integer.
std::optional<LearnedLabel> parse_learned_label(Collective coll, std::string_view label);

struct LearnedShape {
  CallShape shape;
  std::string model_choice;
  std::string chosen;
  std::uint64_t calls = 0;
  std::uint64_t explore_calls = 0;
  std::vector<std::pair<std::string, double>> measured_s;  // algorithm -> agreed mean per call

  // The agreed mean of `algorithm`, if it was measured.
  [[nodiscard]] std::optional<double> measured(std::string_view algorithm) const;
};

struct LearnedTable {
  std::string model;  // the name of the model the choices were measured against
  std::vector<LearnedShape> shapes;

  [[nodiscard]] const LearnedShape* find(const CallShape& shape) const;
  // Adds or replaces the shape's entry; of two measurements of one shape (several communicators
  // of one size), the one over more calls is kept.
  void merge(LearnedShape entry);
  // Adds or replaces the shape's entry: a newer run's measurement supersedes the table it started
  // from.
  void put(LearnedShape entry);
};

struct LearnedLoad {
  std::optional<LearnedTable> table;  // nothing when the file cannot be used at all
  Diagnostics diagnostics;
};

// Reads a learned table. Anything wrong (not TOML, another format_version, a shape naming an
// unknown collective or algorithm, a root outside the communicator, a table measured against
// another model than `model_in_use`) makes the whole file unusable: one error that names the file,
// the line and the fix; the job then runs on the model. Empty `model_in_use` skips the model check.
LearnedLoad parse_learned(std::string_view text, std::string_view source,
                          std::string_view model_in_use);

std::string format_learned(const LearnedTable& table);

}  // namespace collsel
