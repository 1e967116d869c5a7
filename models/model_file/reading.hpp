// How the model file's sections read and write their keys: each key's kind, whether it is
// required and a valid example (KeySpec, one list per section, in the section's own unit), and
// the checked reading of each kind, so every section reports problems alike. Internal to
// models/model_file/.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "models/model_file.hpp"
#include "models/toml_input.hpp"

namespace collsel::models::model_file {

using toml_input::line_of;
using toml_input::Reader;

// Model files are written by collsel-calibrate, so regenerating is the fix that always works.
inline constexpr std::string_view kRegenerate = "re-run collsel-calibrate to regenerate the file";

enum class Kind {
  integer, number, string, date, strings, integers, numbers, table,
  tables,  // an array of tables ([[contention.graph]])
  edges,   // a string "0>1 0>2" or an array of [src, dst] pairs
};

struct KeySpec {
  std::string_view key;
  Kind kind;
  bool required;
  std::string_view example;  // a valid value, shown in fixes
};

// A TOML table together with how messages name it.
struct Section {
  const toml::table& table;
  std::string_view where;  // "at the top level", "in [plogp]"
  std::span<const KeySpec> keys;
  int line;  // for a missing key; 0 for the top level, which has no line of its own
};

std::string or_regenerate(std::string_view what_to_do);
const KeySpec& spec_of(const Section& s, std::string_view key);
std::string_view expected_name(Kind k);
bool matches(const toml::node& n, Kind k);
std::string write_it_as(const KeySpec& k);
void warn_unknown_keys(Reader& r, const Section& s);
// The node of `key` when present and of the right kind; otherwise reports a missing required key
// or a wrong type and returns nullptr.
const toml::node* find(Reader& r, const Section& s, std::string_view key);
const toml::table* read_table(Reader& r, const Section& s, std::string_view key);
double number_of(const toml::node& n);
bool usable_time(double v);
void bad_time(Reader& r, int line, std::string_view what, double v);
void read_string(Reader& r, const Section& s, std::string_view key, std::string& target);
// An integer in [min, max], or nothing (reported) when absent, mistyped or out of range.
std::optional<std::int64_t> read_integer(Reader& r, const Section& s, std::string_view key,
                                         std::int64_t min, std::int64_t max,
                                         std::string_view range_text);
// A number key checked against a range: `ok` says whether v is inside, `range_text` how to say it.
std::optional<double> read_checked_number(Reader& r, const Section& s, std::string_view key,
                                          bool (*ok)(double), std::string_view range_text);
bool finite_nonneg(double v);
bool finite_positive(double v);
bool fraction(double v);  // in [0, 1]; false for NaN
bool finite_any(double v);
int error_count(const Reader& r);

// A host list may be empty (nothing known); a table column may not (nothing to interpolate).
enum class Empty { allowed, rejected };

template <class T>
struct ArrayRead {
  std::vector<T> values;
  int line = 0;
  bool ok = false;
};

// The elements of an array key, checked one by one; stops at the first bad element, since one
// message per array is enough to send the user to it.
template <class T, class Convert>
ArrayRead<T> read_array(Reader& r, const Section& s, std::string_view key, Kind element,
                        Empty empty, Convert convert) {
  ArrayRead<T> out;
  const toml::node* n = find(r, s, key);
  if (n == nullptr) return out;
  const toml::array& a = *n->as_array();
  out.line = line_of(*n);
  if (a.empty() && empty == Empty::rejected) {
    r.error(out.line, fmt::format("{} {} is empty", key, s.where),
            or_regenerate(fmt::format("give at least one value, as in {} = {}", key,
                                      spec_of(s, key).example)));
    return out;
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    const toml::node& e = a[i];
    const std::string what = fmt::format("{}[{}] {}", key, i, s.where);
    if (!matches(e, element)) {
      r.error(line_of(e),
              fmt::format("{} must be {}, not {}", what, expected_name(element), toml_input::type_name(e)),
              write_it_as(spec_of(s, key)));
      return out;
    }
    std::optional<T> v = convert(r, e, what);
    if (!v) return out;
    out.values.push_back(std::move(*v));
  }
  out.ok = true;
  return out;
}

ArrayRead<std::string> read_strings(Reader& r, const Section& s, std::string_view key);
ArrayRead<double> read_times(Reader& r, const Section& s, std::string_view key);
ArrayRead<std::uint64_t> read_sizes(Reader& r, const Section& s, std::string_view key);

// A string key naming one of a fixed set of values (`names` lists them for the message).
template <class T, class Parse>
std::optional<T> read_named(Reader& r, const Section& s, std::string_view key, Parse parse,
                            std::string_view names) {
  const toml::node* n = find(r, s, key);
  if (n == nullptr) return std::nullopt;
  const std::string v = n->as_string()->get();
  if (std::optional<T> t = parse(v)) return t;
  r.error(line_of(*n),
          fmt::format("{} {} is \"{}\"; it must be one of {}", key, s.where, v, names),
          or_regenerate("correct it"));
  return std::nullopt;
}

// --- writing

// A TOML basic string: quotes, backslashes and control characters escaped.
std::string toml_string(std::string_view s);
// Shortest text that reads back to the same double; "1" gets ".0" so it stays a TOML float.
std::string toml_float(double v);

template <class T, class Format>
std::string toml_array(const std::vector<T>& values, Format format) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ", ";
    out += format(values[i]);
  }
  return out + "]";
}

}  // namespace collsel::models::model_file
