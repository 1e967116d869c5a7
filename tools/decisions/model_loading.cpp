#include "tools/decisions/model_loading.hpp"


#include "conf/embedded.hpp"

namespace collsel::tools {

Diagnostic error_in(std::string file, std::string problem, std::string fix) {
  return {Diagnostic::Severity::error, std::move(file), 0, std::move(problem), std::move(fix)};
}

std::optional<models::ModelFile> load_model(const std::string& path, Diagnostics& out) {
  models::ModelLoad load = models::load_model_file(path);
  out.insert(out.end(), load.diagnostics.begin(), load.diagnostics.end());
  if (load.model) {
    if (const auto reason = load.model->plogp.invalid_reason()) {
      out.push_back(error_in(path, *reason, "recalibrate, or fix the [plogp] tables"));
      return std::nullopt;
    }
    return load.model;
  }
  if (!has_errors(load.diagnostics)) {
    out.push_back(error_in(path, "the model file is unusable", "see docs/MODELS.md"));
  }
  return std::nullopt;
}

std::optional<models::ModelFile> load_embedded(Diagnostics& out) {
  models::ModelLoad load = models::parse_model(conf::embedded_default_model(),
                                               conf::kEmbeddedModelName);
  out.insert(out.end(), load.diagnostics.begin(), load.diagnostics.end());
  if (!load.model) {
    out.push_back(error_in(std::string(conf::kEmbeddedModelName),
                           "the embedded default model does not parse",
                           "this is a build problem: rebuild collsel from a clean tree"));
  }
  return load.model;
}

std::optional<Config> load_config(const std::optional<std::string>& path, Diagnostics& out) {
  if (!path) return Config{};
  std::string read_error;
  const std::optional<std::string> text = read_text_file(*path, read_error);
  if (!text) {
    out.push_back(error_in(*path, "cannot read the config file",
                           "check the path given to --config"));
    return std::nullopt;
  }
  ConfigLoad load = parse_config(*text, *path);
  // Bad settings keep their defaults, as in the shim; the diagnostics say which.
  out.insert(out.end(), load.diagnostics.begin(), load.diagnostics.end());
  return std::move(load.config);
}

bool names_a_file(std::string_view source) {
  return !source.empty() && source.front() != '<' && source != "none";
}

std::string LoadedModels::in_use_source() const {
  return calibrated ? calibrated_source : std::string(conf::kEmbeddedModelName);
}

std::optional<LoadedModels> load_models(const std::optional<std::string>& model_path,
                                        const std::optional<std::string>& config_path,
                                        Diagnostics& out) {
  std::optional<Config> config = load_config(config_path, out);
  std::optional<models::ModelFile> fallback = load_embedded(out);
  if (!config || !fallback) return std::nullopt;
  LoadedModels loaded;
  const std::optional<std::string> path = model_path ? model_path : config->model_path;
  if (path && !path->empty()) {
    loaded.calibrated = load_model(*path, out);
    if (!loaded.calibrated) return std::nullopt;
    loaded.calibrated_source = *path;
  }
  loaded.fallback = std::move(fallback);
  loaded.config = std::move(*config);
  return loaded;
}

}  // namespace collsel::tools
