// Reads the parameter files of Kielmann's logp_mpi tool ("Fast Measurement of LogP Parameters for
// Message Passing Platforms", the method seed 001 cites), so a cluster measured with it needs no
// new calibration run. Accepted layout (docs/MODELS.md, "Importing logp_mpi files"):
//
//   # LogP network performance data: DESCRIPTION
//   # Latency = L
//   # time      bytes os        os_min    os_cnfint or        or_min    or_cnfint g
//   TIME BYTES OS OS_MIN OS_CNFINT OR OR_MIN OR_CNFINT G        (one line per size)
//
// Times in seconds; TIME is the Unix time the size was measured. Other '#' lines and blank lines
// are ignored. Rows may come in any order; equal sizes are an error.
#pragma once

#include <string>
#include <string_view>

#include "models/model_file.hpp"

namespace collsel::models {

// `source` names the input in diagnostics. The model takes L, g = G, o_s = OS, o_r = OR; the
// description is the header's; the provenance notes record the import and the confidence
// intervals' largest relative width.
ModelLoad import_logp_mpi(std::string_view text, std::string_view source);

}  // namespace collsel::models
