// [corrections]: per-algorithm factors on the predictions, fitted by `collsel refit`. The keys are
// algorithm names; the models layer does not know the registry, so a name no algorithm has is
// kept and simply never matches (decide() multiplies by the factor of the algorithm it prices).
#include <algorithm>

#include "models/model_file/sections.hpp"

namespace collsel::models::model_file {

std::vector<std::pair<std::string, double>> read_corrections(Reader& r, const toml::table& t) {
  std::vector<std::pair<std::string, double>> out;
  for (const auto& [key, node] : t) {
    const std::optional<double> v = node.value<double>();
    const std::string name(key.str());
    // A factor outside [1e-3, 1e3] says the model is wrong by more than any correction can
    // honestly cover: recalibrate instead.
    if (name.find('.') == std::string::npos || !v || !(*v >= 1e-3 && *v <= 1e3)) {
      r.error(line_of(node),
              fmt::format("[corrections] {}: must be an algorithm name (e.g. bcast.binomial) = "
                          "a factor from 0.001 to 1000",
                          name),
              or_regenerate("correct it, or run collsel refit again"));
      continue;
    }
    out.emplace_back(name, *v);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string corrections_body(const std::vector<std::pair<std::string, double>>& c) {
  std::string out;
  for (const auto& [name, factor] : c) out += fmt::format("\"{}\" = {}\n", name, toml_float(factor));
  return out;
}

}  // namespace collsel::models::model_file
