#include "selector/learned.hpp"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

#include <toml++/toml.h>

#include "models/toml_input.hpp"
#include "selector/catalog.hpp"

namespace collsel {
namespace {

using toml_input::line_of;
using toml_input::Reader;

constexpr std::string_view kIgnored = "; the learned table is ignored and the model decides";

// One shape, or the first problem found in it.
struct ShapeRead {
  std::optional<LearnedShape> shape;
  int line = 0;
  std::string problem;
};

ShapeRead read_shape(const toml::table& t) {
  ShapeRead out;
  out.line = line_of(t);
  const auto fail = [&](std::string problem) {
    out.problem = std::move(problem);
    return out;
  };
  LearnedShape s;
  const auto coll_name = t["coll"].value<std::string>();
  const auto coll = coll_name ? collective_from_name(*coll_name) : std::nullopt;
  if (!coll) return fail("a [[shape]] needs coll = \"bcast\", \"scatter\" or \"alltoall\"");
  s.shape.coll = *coll;
  const auto size = t["comm_size"].value<std::int64_t>();
  const auto bytes = t["bytes"].value<std::int64_t>();
  const auto root = t["root"].value<std::int64_t>();
  if (!size || *size < 1 || *size > (1 << 30)) return fail("comm_size must be a positive integer");
  if (!bytes || *bytes < 0) return fail("bytes must be an integer >= 0");
  if (!root || *root < 0 || *root >= *size) return fail("root must lie in 0 .. comm_size - 1");
  s.shape.comm_size = static_cast<int>(*size);
  s.shape.bytes = static_cast<std::uint64_t>(*bytes);
  s.shape.root = static_cast<int>(*root);
  for (auto [key, target] : {std::pair{"model_choice", &s.model_choice}, {"chosen", &s.chosen}}) {
    const auto name = t[key].value<std::string>();
    if (!name || !parse_learned_label(*coll, *name)) {
      return fail(fmt::format("{} must name an algorithm of {} ({}), a segmented one possibly "
                              "with @SEGMENT_BYTES",
                              key, *coll_name, algorithm_names(*coll)));
    }
    *target = *name;
  }
  const auto calls = t["calls"].value<std::int64_t>();
  const auto explore = t["explore_calls"].value<std::int64_t>();
  if (!calls || *calls < 0 || !explore || *explore < 0) {
    return fail("calls and explore_calls must be integers >= 0");
  }
  s.calls = static_cast<std::uint64_t>(*calls);
  s.explore_calls = static_cast<std::uint64_t>(*explore);
  const toml::table* measured = t["measured_s"].as_table();
  if (measured == nullptr) return fail("measured_s must be a table of algorithm = seconds");
  for (const auto& [key, node] : *measured) {
    const auto seconds = node.value<double>();
    if (!parse_learned_label(*coll, key.str()) || !seconds || !(*seconds >= 0.0)) {
      return fail(fmt::format("measured_s: '{}' must be an algorithm of {} with seconds >= 0",
                              key.str(), *coll_name));
    }
    s.measured_s.emplace_back(std::string(key.str()), *seconds);
  }
  if (!s.measured(s.chosen)) return fail("measured_s has no time for the chosen algorithm");
  out.shape = std::move(s);
  return out;
}

// A TOML basic string.
std::string quoted(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
      continue;
    }
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::string learned_label(std::string_view algorithm, std::optional<std::uint64_t> segment_bytes) {
  return segment_bytes ? fmt::format("{}@{}", algorithm, *segment_bytes) : std::string(algorithm);
}

std::string learned_label(std::string_view algorithm, bool moved_segment,
                          std::uint64_t segment_bytes) {
  return learned_label(algorithm, moved_segment ? std::optional(segment_bytes) : std::nullopt);
}

std::optional<LearnedLabel> parse_learned_label(Collective coll, std::string_view label) {
  LearnedLabel out;
  const std::size_t at = label.find('@');
  out.algorithm = std::string(label.substr(0, at));
  const AlgorithmView* a = find_algorithm(coll, out.algorithm);
  if (a == nullptr) return std::nullopt;
  if (at == std::string_view::npos) return out;
  const std::string_view digits = label.substr(at + 1);
  std::uint64_t bytes = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), bytes);
  if (!a->segmented || ec != std::errc{} || end != digits.data() + digits.size() || bytes == 0) {
    return std::nullopt;
  }
  out.segment_bytes = bytes;
  return out;
}

std::optional<double> LearnedShape::measured(std::string_view algorithm) const {
  for (const auto& [name, seconds] : measured_s) {
    if (name == algorithm) return seconds;
  }
  return std::nullopt;
}

const LearnedShape* LearnedTable::find(const CallShape& shape) const {
  for (const LearnedShape& s : shapes) {
    if (s.shape == shape) return &s;
  }
  return nullptr;
}

void LearnedTable::merge(LearnedShape entry) {
  for (LearnedShape& s : shapes) {
    if (s.shape == entry.shape) {
      if (entry.calls > s.calls) s = std::move(entry);
      return;
    }
  }
  shapes.push_back(std::move(entry));
}

void LearnedTable::put(LearnedShape entry) {
  for (LearnedShape& s : shapes) {
    if (s.shape == entry.shape) {
      s = std::move(entry);
      return;
    }
  }
  shapes.push_back(std::move(entry));
}

LearnedLoad parse_learned(std::string_view text, std::string_view source,
                          std::string_view model_in_use) {
  LearnedLoad load;
  Diagnostics all;
  Reader r{source, all};
  const auto unusable = [&](int line, std::string problem, std::string fix) {
    load.diagnostics.push_back({Diagnostic::Severity::error, std::string(source), line,
                                std::move(problem), std::move(fix) + std::string(kIgnored)});
    return std::move(load);
  };
  const std::optional<toml::table> parsed =
      toml_input::parse(r, text, "regenerate it with a run that has [adapt] mode on");
  if (!parsed) {
    const Diagnostic& d = all.front();
    return unusable(d.line, d.problem, d.fix);
  }
  const toml::table& root = *parsed;
  const auto version = root["format_version"].value<std::int64_t>();
  // Format 1 is format 2 without segment labels: read alike.
  if (!version || *version < 1 || *version > kLearnedFormatVersion) {
    return unusable(line_of(root),
                    fmt::format("format_version must be 1 to {}", kLearnedFormatVersion),
                    "regenerate the file with this collsel");
  }
  LearnedTable table;
  table.model = root["model"].value_or(std::string());
  if (!model_in_use.empty() && table.model != model_in_use) {
    return unusable(root.get("model") ? line_of(*root.get("model")) : 1,
                    fmt::format("learned with model '{}', but this run uses model '{}'",
                                table.model, model_in_use),
                    "point [adapt] learned at a table learned with this model, or remove it");
  }
  if (const toml::node* shapes = root.get("shape")) {
    const toml::array* list = shapes->as_array();
    if (list == nullptr) {
      return unusable(line_of(*shapes), "'shape' must be an array of tables ([[shape]])",
                      "write each entry as a [[shape]] section");
    }
    for (const toml::node& n : *list) {
      const toml::table* t = n.as_table();
      if (t == nullptr) return unusable(line_of(n), "a [[shape]] entry must be a table", "fix it");
      ShapeRead s = read_shape(*t);
      if (!s.shape) return unusable(s.line, s.problem, "fix or delete that [[shape]]");
      table.shapes.push_back(std::move(*s.shape));
    }
  }
  load.table = std::move(table);
  return load;
}

std::string format_learned(const LearnedTable& table) {
  std::string out = fmt::format(
      "# collsel learned table (docs/ADAPT.md): per call shape, what measurement chose.\n"
      "# Start a later run from it with [adapt] learned = \"THIS FILE\" or COLLSEL_LEARNED.\n"
      "format_version = {}\nmodel = {}\n",
      kLearnedFormatVersion, quoted(table.model));
  for (const LearnedShape& s : table.shapes) {
    out += fmt::format(
        "\n[[shape]]\ncoll = \"{}\"\ncomm_size = {}\nbytes = {}\nroot = {}\nmodel_choice = \"{}\"\n"
        "chosen = \"{}\"\ncalls = {}\nexplore_calls = {}\nmeasured_s = {{ ",
        collective_name(s.shape.coll), s.shape.comm_size, s.shape.bytes, s.shape.root,
        s.model_choice, s.chosen, s.calls, s.explore_calls);
    // In name order: the order a TOML reader gives the keys back.
    auto measured = s.measured_s;
    std::sort(measured.begin(), measured.end());
    for (std::size_t i = 0; i < measured.size(); ++i) {
      out += fmt::format("{}\"{}\" = {}", i ? ", " : "", measured[i].first,
                         measured[i].second);
    }
    out += " }\n";
  }
  return out;
}

}  // namespace collsel
