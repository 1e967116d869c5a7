// Loading the model and config files the tools reason about (`collsel explain`, the decision grid
// of `collsel report --html`, `collsel plot` and `collsel export`). Unlike the shim, a file the
// user named must be usable: answering from another model than the one asked for would answer a
// different question, so these return nothing (with diagnostics) rather than fall back.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "models/diagnostic.hpp"
#include "models/model_file.hpp"
#include "selector/config.hpp"
#include "selector/decide.hpp"

namespace collsel::tools {

Diagnostic error_in(std::string file, std::string problem, std::string fix);

// The model file at `path`, checked like the shim checks it; empty on any error.
std::optional<models::ModelFile> load_model(const std::string& path, Diagnostics& out);
// The embedded default model; empty only when the build is broken.
std::optional<models::ModelFile> load_embedded(Diagnostics& out);
// The config file at `path` (none: the built-in defaults). Bad settings keep their defaults, as in
// the shim; the diagnostics say which.
std::optional<Config> load_config(const std::optional<std::string>& path, Diagnostics& out);

// Whether a run record's `model` or `config` field names a file, rather than one of the shim's
// labels ("<embedded default model>", "<built-in defaults>", "none").
bool names_a_file(std::string_view source);

// Everything decide() needs, loaded once. `calibrated` empty means the embedded default model
// decides (the shim's behaviour without a calibration).
struct LoadedModels {
  std::optional<models::ModelFile> calibrated;
  std::optional<models::ModelFile> fallback;
  std::string calibrated_source;  // the path, or empty
  Config config;

  [[nodiscard]] ModelSet set() const {
    return {calibrated ? &*calibrated : nullptr, fallback ? &*fallback : nullptr};
  }
  // The model decide() uses first: the calibrated one when there is one.
  [[nodiscard]] const models::ModelFile& in_use() const {
    return calibrated ? *calibrated : *fallback;
  }
  [[nodiscard]] std::string in_use_source() const;  // the path or "<embedded default model>"
};

// `model_path` wins over the config's [model] path, as COLLSEL_MODEL does in the shim. Empty on
// any error in a file the user named (the diagnostics say which and how to fix it).
std::optional<LoadedModels> load_models(const std::optional<std::string>& model_path,
                                        const std::optional<std::string>& config_path,
                                        Diagnostics& out);

}  // namespace collsel::tools
