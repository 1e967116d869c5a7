#include "tools/decisions/native_choice.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "conf/embedded.hpp"
#include "selector/decide.hpp"
#include "tools/decisions/native_choice_mpich.hpp"
#include "tools/decisions/native_choice_openmpi.hpp"

namespace collsel::native {
namespace {

bool readable_file(const std::string& path) {
  std::ifstream in(path);
  return static_cast<bool>(in);
}

}  // namespace

std::string_view library_name(NativeLibrary library) {
  return library == NativeLibrary::openmpi ? "Open MPI" : "MPICH";
}

std::string_view rules_title(NativeLibrary library) {
  return library == NativeLibrary::openmpi
             ? "Open MPI 4.1.4's coll/tuned fixed rules "
               "(ompi/mca/coll/tuned/coll_tuned_decision_fixed.c)"
             : "MPICH 4.0's default selection (src/mpi/coll/coll_selection.json)";
}

std::string_view rules_limits(NativeLibrary library) {
  return library == NativeLibrary::openmpi
             ? "Not modelled: in-place Alltoalls (Open MPI runs basic_inplace), a rules file\n"
               "  or forced algorithm (coll_tuned_*), and other components (han, hcoll, ucc)."
             : "Not modelled: MPICH's node-aware splitting of communicators spanning several "
               "nodes, and\n  in-place Alltoalls (MPICH runs sendrecv_replace).";
}

NativeRules rules_for_run(const std::vector<std::string>& run_mpis) {
  std::set<std::string> said(run_mpis.begin(), run_mpis.end());
  const bool unsaid = said.erase("") > 0;
  if (said.size() > 1) {
    return {NativeLibrary::mpich,
            fmt::format("the ranks' logs name different MPIs ({}): MPICH's rules assumed",
                        fmt::join(said, ", "))};
  }
  if (said.empty()) {
    return {NativeLibrary::mpich,
            "the log does not say which MPI ran (written before the run record's `mpi` field): "
            "MPICH's rules assumed"};
  }
  const std::string& mpi = *said.begin();
  const std::string partly = unsaid ? " (some ranks' logs do not say)" : "";
  if (mpi == "openmpi") {
    return {NativeLibrary::openmpi, "the run's shim was built for Open MPI" + partly};
  }
  if (mpi == "mpich") return {NativeLibrary::mpich, "the run's shim was built for MPICH" + partly};
  return {NativeLibrary::mpich,
          fmt::format("the run's shim was built for {}, whose defaults are not encoded: MPICH's "
                      "rules assumed",
                      mpi)};
}

NativeChoice native_choice(NativeLibrary library, Collective coll, int comm_size,
                           std::uint64_t bytes) {
  return library == NativeLibrary::openmpi ? openmpi::choice(coll, comm_size, bytes)
                                           : mpich::choice(coll, comm_size, bytes);
}

NativeEstimator::NativeEstimator(tools::LoadedModels loaded, std::string source,
                                 NativeRules rules)
    : loaded_(std::move(loaded)), source_(std::move(source)), rules_(std::move(rules)) {}

std::optional<std::string> NativeEstimator::model_path() const {
  if (!loaded_.calibrated) return std::nullopt;
  return loaded_.calibrated_source;
}

NativePrice NativeEstimator::price(Collective coll, int comm_size, std::uint64_t bytes,
                                   std::string_view algorithm, std::optional<int> window) const {
  Policy policy;
  policy.window = window;
  const Decision decision = decide({coll, comm_size, bytes, 0}, loaded_.set(), policy);
  for (const CostEntry& entry : decision.table) {
    if (entry.name != algorithm) continue;
    if (entry.not_applicable) {
      return {std::nullopt, fmt::format("{} cannot serve this shape: {}", algorithm,
                                        *entry.not_applicable)};
    }
    if (std::isnan(entry.predicted_s)) {
      return {std::nullopt, fmt::format("the model has no prediction for {}", algorithm)};
    }
    return {entry.predicted_s, {}};
  }
  return {std::nullopt, fmt::format("{} is not a registered algorithm", algorithm)};
}

NativeEstimate NativeEstimator::estimate(Collective coll, int comm_size,
                                         std::uint64_t bytes) const {
  const NativeChoice choice = native_choice(rules_.library, coll, comm_size, bytes);
  const std::string_view library = library_name(rules_.library);
  NativeEstimate out;
  if (!choice.algorithm) {
    out.note = choice.note;
    return out;
  }
  out.algorithm = *choice.algorithm;
  // The stand-in is priced as the library runs it (MPICH's window), not as the run's config would
  // tune it.
  const NativePrice price = this->price(coll, comm_size, bytes, out.algorithm, choice.window);
  out.predicted_s = price.predicted_s;
  out.note = price.predicted_s
                 ? fmt::format("{} runs {}: {}", library, choice.library_algorithm, choice.note)
                 : fmt::format("{} runs {}; {}", library, choice.library_algorithm, price.why_not);
  return out;
}

std::optional<NativeEstimator> load_estimator(const std::optional<std::string>& model_path,
                                              const std::vector<std::string>& run_models,
                                              NativeRules rules, Diagnostics& diagnostics,
                                              std::vector<std::string>& notes) {
  if (model_path) {
    auto loaded = tools::load_models(model_path, std::nullopt, diagnostics);
    if (!loaded) return std::nullopt;
    return NativeEstimator(std::move(*loaded), fmt::format("{} (--model)", *model_path),
                           std::move(rules));
  }
  for (const std::string& model : run_models) {
    if (!tools::names_a_file(model)) continue;
    if (!readable_file(model)) {
      notes.push_back(fmt::format("the run's model {} is not readable here; the native estimates "
                                  "use the embedded default model (give --model FILE)",
                                  model));
      continue;
    }
    Diagnostics load_problems;
    if (auto loaded = tools::load_models(model, std::nullopt, load_problems)) {
      return NativeEstimator(std::move(*loaded), fmt::format("{} (the run's model)", model),
                             std::move(rules));
    }
    notes.push_back(fmt::format(
        "the run's model {} does not load ({}); the native estimates use the embedded default "
        "model",
        model, load_problems.empty() ? std::string("unusable") : load_problems.front().format()));
  }
  auto loaded = tools::load_models(std::nullopt, std::nullopt, diagnostics);
  if (!loaded) return std::nullopt;  // only a broken build
  const bool calibrated_run =
      std::any_of(run_models.begin(), run_models.end(),
                  [](const std::string& m) { return tools::names_a_file(m); });
  return NativeEstimator(std::move(*loaded),
                         fmt::format("{} ({})", conf::kEmbeddedModelName,
                                     calibrated_run ? "the run's model is unavailable"
                                                    : "the run used no calibrated model"),
                         std::move(rules));
}

}  // namespace collsel::native
