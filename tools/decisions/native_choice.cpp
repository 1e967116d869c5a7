#include "tools/decisions/native_choice.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <fstream>
#include <utility>

#include <fmt/format.h>

#include "conf/embedded.hpp"
#include "selector/decide.hpp"

namespace collsel::native {
namespace {

NativeChoice bcast_choice(int comm_size, std::uint64_t bytes) {
  if (comm_size < kBcastMinProcs || bytes <= kBcastShortMsgBytes) {
    return {"MPIR_Bcast_intra_binomial", "bcast.binomial", std::nullopt,
            "the same binomial tree"};
  }
  const bool pow2 = std::has_single_bit(static_cast<unsigned>(comm_size));
  if (pow2 && bytes <= kBcastLongMsgBytes) {
    return {"MPIR_Bcast_intra_scatter_recursive_doubling_allgather", std::nullopt, std::nullopt,
            "MPICH broadcasts this shape as a binomial scatter then a recursive-doubling "
            "allgather, which collsel does not implement: no estimate"};
  }
  return {"MPIR_Bcast_intra_scatter_ring_allgather", std::nullopt, std::nullopt,
          "MPICH broadcasts this shape as a binomial scatter then a ring allgather, which collsel "
          "does not implement: no estimate"};
}

NativeChoice alltoall_choice(int comm_size, std::uint64_t bytes) {
  if (comm_size >= kAlltoallMinProcs && bytes <= kAlltoallShortMsgBytes) {
    return {"MPIR_Alltoall_intra_brucks", "alltoall.bruck", std::nullopt,
            "the same Bruck exchange"};
  }
  if (bytes <= kAlltoallMediumMsgBytes) {
    return {"MPIR_Alltoall_intra_scattered", "alltoall.windowed", kAlltoallThrottle,
            comm_size <= kAlltoallThrottle
                ? "every exchange posted at once, as MPICH does up to 32 ranks"
                : "MPICH waits for each batch of 32 exchanges; the stand-in keeps 32 in flight"};
  }
  return {"MPIR_Alltoall_intra_pairwise", "alltoall.pairwise", std::nullopt,
          "the same pairwise exchange"};
}

bool readable_file(const std::string& path) {
  std::ifstream in(path);
  return static_cast<bool>(in);
}

}  // namespace

NativeChoice native_choice(Collective coll, int comm_size, std::uint64_t bytes) {
  switch (coll) {
    case Collective::bcast: return bcast_choice(comm_size, bytes);
    case Collective::alltoall: return alltoall_choice(comm_size, bytes);
    case Collective::scatter: break;
  }
  return {"MPIR_Scatter_intra_binomial", "scatter.binomial", std::nullopt,
          "the same binomial tree"};
}

NativeEstimator::NativeEstimator(tools::LoadedModels loaded, std::string source)
    : loaded_(std::move(loaded)), source_(std::move(source)) {}

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
  const NativeChoice choice = native_choice(coll, comm_size, bytes);
  NativeEstimate out;
  if (!choice.algorithm) {
    out.note = choice.note;
    return out;
  }
  out.algorithm = *choice.algorithm;
  // The stand-in is priced as MPICH runs it (its window), not as the run's config would tune it.
  const NativePrice price = this->price(coll, comm_size, bytes, out.algorithm, choice.window);
  out.predicted_s = price.predicted_s;
  out.note = price.predicted_s
                 ? fmt::format("MPICH runs {}: {}", choice.mpich_algorithm, choice.note)
                 : fmt::format("MPICH runs {}; {}", choice.mpich_algorithm, price.why_not);
  return out;
}

std::optional<NativeEstimator> load_estimator(const std::optional<std::string>& model_path,
                                              const std::vector<std::string>& run_models,
                                              Diagnostics& diagnostics,
                                              std::vector<std::string>& notes) {
  if (model_path) {
    auto loaded = tools::load_models(model_path, std::nullopt, diagnostics);
    if (!loaded) return std::nullopt;
    return NativeEstimator(std::move(*loaded), fmt::format("{} (--model)", *model_path));
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
      return NativeEstimator(std::move(*loaded), fmt::format("{} (the run's model)", model));
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
                                                    : "the run used no calibrated model"));
}

}  // namespace collsel::native
