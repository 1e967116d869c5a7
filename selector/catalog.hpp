// The collective-independent view of the algorithm registry: what decide(), `collsel explain`,
// the docs check and the tests need. No MPI here; the run functions live in registry.hpp.
#pragma once

#include <cstdint>

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "models/contention/schedule.hpp"
#include "models/model_file.hpp"
#include "selector/algo_params.hpp"
#include "selector/collective.hpp"
#include "selector/policy.hpp"

namespace collsel {

struct Prediction {
  double seconds = 0.0;
  AlgoParams params;  // e.g. the segment size the model chose
};

// The algorithm's model: predicted completion time of the whole collective (seconds) and the
// parameters that achieve it. Pure; the policy supplies a fixed segment size if the user set one.
// The model file is passed whole: Bcast and Scatter read its pLogP table, All-to-All its
// contention section.
using ModelFn = Prediction (*)(const models::ModelFile&, const CallShape&, const Policy&);
// Empty if the algorithm can run this call; otherwise why not. Depends on rank-invariant inputs
// only, and is checked before any message is sent (STYLE.md 8.5 #18).
using ApplicableFn = std::optional<std::string> (*)(const CallShape&);
// The algorithm's communication schedule for a call of this shape with these parameters (every
// point-to-point message, between ranks, with its dependencies), for the contention simulator.
using ScheduleFn = models::contention::Schedule (*)(const CallShape&, const AlgoParams&);
// How many messages `schedule` will emit, for a schedule that grows faster than decide()'s
// general bounds, so that a schedule past the simulation's cap is never built.
using ScheduleSizeFn = std::uint64_t (*)(const CallShape&, const AlgoParams&);

struct AlgorithmView {
  std::string_view name;     // stable: "bcast.binomial_segmented"
  std::string_view summary;  // one line, for --help, error messages and docs
  ModelFn model = nullptr;
  ApplicableFn applicable = nullptr;
  bool segmented = false;    // takes AlgoParams::segment_bytes
  ScheduleFn schedule = nullptr;
  ScheduleSizeFn schedule_size = nullptr;  // absent: decide()'s general bounds only
  // A segmented algorithm: how many segments a rank may have in flight to one child at once (the
  // receives it keeps posted ahead). A schedule past the simulation's cap is extrapolated from
  // prefixes longer than this, which hold the pipeline's whole fill (decide.cpp).
  std::uint32_t segments_in_flight = 2;
};

// Registry order: ties in predicted time go to the earlier entry.
std::span<const AlgorithmView> catalog(Collective c);
const AlgorithmView* find_algorithm(Collective c, std::string_view name);
// "bcast.flat, bcast.chain, ..." for messages.
std::string algorithm_names(Collective c);

}  // namespace collsel
