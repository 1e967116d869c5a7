#include "models/toml_input.hpp"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

namespace collsel::toml_input {

void Reader::error(int line, std::string problem, std::string fix) {
  out.push_back({Diagnostic::Severity::error, std::string(source), line, std::move(problem),
                 std::move(fix)});
}

void Reader::warn(int line, std::string problem, std::string fix) {
  out.push_back({Diagnostic::Severity::warning, std::string(source), line, std::move(problem),
                 std::move(fix)});
}

int line_of(const toml::node& n) { return static_cast<int>(n.source().begin.line); }

std::string_view type_name(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a float";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::date: return "a date";
    case toml::node_type::time: return "a time";
    case toml::node_type::date_time: return "a date-time";
    case toml::node_type::none: break;
  }
  return "nothing";
}

std::optional<toml::table> parse(Reader& r, std::string_view text, std::string_view fix) {
  try {
    return toml::parse(text, r.source);
  } catch (const toml::parse_error& e) {
    r.error(static_cast<int>(e.source().begin.line),
            fmt::format("not valid TOML: {}", e.description()), std::string(fix));
    return std::nullopt;
  }
}

void warn_unknown_keys(Reader& r, const toml::table& table, std::string_view where,
                       std::span<const std::string_view> valid) {
  std::string list;
  for (const std::string_view k : valid) list += fmt::format("{}{}", list.empty() ? "" : ", ", k);
  for (const auto& [key, node] : table) {
    if (std::find(valid.begin(), valid.end(), key.str()) != valid.end()) continue;
    r.warn(line_of(node), fmt::format("unknown key '{}' {}", key.str(), where),
           fmt::format("remove it; valid keys {}: {}", where, list));
  }
}

}  // namespace collsel::toml_input
