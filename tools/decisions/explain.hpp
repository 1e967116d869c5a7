// `collsel explain`: what collsel would choose for one call shape, and why. It loads the same
// model and config the shim would and calls the same decide() (STYLE.md 8.5 #15), so what it
// prints is the decision, not a re-implementation of it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/contention/schedule.hpp"
#include "models/diagnostic.hpp"
#include "selector/collective.hpp"
#include "selector/decide.hpp"

namespace collsel::explain {

struct Request {
  std::optional<std::string> model_path;   // calibrated model; else the config's, else none
  std::optional<std::string> config_path;  // none: the built-in defaults
  CallShape shape;
  std::optional<std::string> force;        // replaces the config's override for shape.coll
  // Rank -> node, as the shim gathers it; none: unknown, the closed forms decide.
  std::optional<models::contention::Placement> placement;
  models::contention::PlacementKind placement_kind = models::contention::PlacementKind::filled;
};

struct ModelInfo {
  std::string name;
  std::string source;   // the file, or "<embedded default model>"
  std::string command;  // provenance: what measured it (may be empty)
  std::string description;
};

struct Explanation {
  std::optional<ModelInfo> calibrated;  // the model file, when one was given and loaded
  ModelInfo fallback;                   // the embedded default model
  std::string config_source;
  CallShape shape;
  std::string placement;  // "filled, 64 ranks on 8 nodes, at most 8 per node"; empty: none
  Decision decision;
  // Per table entry: its repetition interval (predict_interval(), docs/MODELS.md), what a loop of
  // back-to-back calls pays per call; NaN when it has none (n/a, no schedule, too long).
  std::vector<double> interval_s;
  std::string why;  // one line: the winner against the runner-up (or why there is no winner)
  // With [adapt] mode = "explore": what a shape's monitor may try (plan_adapt(), docs/ADAPT.md),
  // the runners-up in the order tried, and the loop runners-up, tried only when the calls come
  // back to back (loop_runners_up()). Not explore mode: nothing.
  bool explore = false;
  std::vector<std::string> runners_up;
  std::vector<std::string> loop_runners_up;

  // The model that filled the cost table: decide() uses the calibrated one when there is one.
  [[nodiscard]] const ModelInfo& model_used() const { return calibrated ? *calibrated : fallback; }
};

struct Outcome {
  std::optional<Explanation> explanation;  // empty: a file the user named is unusable
  Diagnostics diagnostics;                 // everything to show the user, in order
};

Outcome explain(const Request& request);

// "bcast.binomial wins: 12.3 us, 1.80x faster than bcast.chain_segmented (22.1 us)".
std::string why_line(const Decision& decision);

std::string format_text(const Explanation& e);
std::string format_json(const Explanation& e);  // keys: docs/TOOLS.md, "collsel explain"

}  // namespace collsel::explain
