// Reading a TOML input written for people (the model file, the config): the layer both share.
// Every problem becomes one diagnostic naming the file, the line, the problem and the fix
// (STYLE.md 8.7 #26); nothing throws and nothing stops at the first problem.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include <toml++/toml.h>

#include "models/diagnostic.hpp"

namespace collsel::toml_input {

// Where the diagnostics of one file go.
struct Reader {
  std::string_view source;  // the file, as messages name it
  Diagnostics& out;

  void error(int line, std::string problem, std::string fix);
  void warn(int line, std::string problem, std::string fix);
};

int line_of(const toml::node& n);

// "a table", "an integer", "a float"...: what a node is, for messages.
std::string_view type_name(const toml::node& n);

// The document, or nothing after one error "not valid TOML: ..." at its line with `fix`.
std::optional<toml::table> parse(Reader& r, std::string_view text, std::string_view fix);

// One warning per key of `table` that is not in `valid`: "unknown key 'k' WHERE", with the fix
// listing the valid keys. `where`: "at the top level", "in [log]"...
void warn_unknown_keys(Reader& r, const toml::table& table, std::string_view where,
                       std::span<const std::string_view> valid);

}  // namespace collsel::toml_input
