// The report's self-correction section (docs/ADAPT.md): per call shape the monitors watched, what
// the model chose, what the measurements chose, and what the correction saved or cost in this run.
// Its source is the run's learned table (LOG_DIR/RUN/learned.toml, written when [adapt] was on)
// and the run's merged calls; every figure is a measured time or a product of measured times,
// and the section says which.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "tools/report/report.hpp"

namespace collsel::report {

struct CorrectionRow {
  std::string coll;
  int comm_size = 0;
  std::uint64_t bytes = 0;
  int root = 0;
  std::string model_choice;
  std::string chosen;              // equal to model_choice when nothing better was measured
  std::int64_t calls = 0;          // of the shape in this run (the learned table's count)
  std::int64_t trial_calls = 0;    // rung "explore" in this run's logs
  std::int64_t measured_calls = 0; // rung "measured": the kept runner-up ran
  std::optional<double> model_s;   // the model's choice: agreed mean per call (max over ranks)
  std::optional<double> chosen_s;  // the chosen algorithm: agreed mean per call
  // measured_calls x model_s - the measured calls' time (slowest rank): what running the measured
  // choice saved against running the model's choice at its measured mean. Absent without model_s.
  std::optional<double> saved_s;
  // The trial calls' time - trial_calls x model_s: what trying the runners-up cost.
  std::optional<double> trial_cost_s;
};

struct SelfCorrection {
  std::string source;                // the learned table read
  std::string mode_note;             // one sentence: what ran (monitor only, or explore)
  std::vector<CorrectionRow> rows;   // by coll, comm_size, bytes, root
  std::vector<std::string> problems; // the table could not be read: why
};

// Nothing when the run has no learned table (adapt was off, or an older collsel).
std::optional<SelfCorrection> self_correction(const std::filesystem::path& run_dir,
                                              const std::vector<MergedCall>& calls);

std::string format_self_correction_text(const SelfCorrection& s);

}  // namespace collsel::report
