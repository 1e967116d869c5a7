#include "models/model_file/reading.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace collsel::models::model_file {

std::string or_regenerate(std::string_view what_to_do) {
  return fmt::format("{}, or {}", what_to_do, kRegenerate);
}

const KeySpec& spec_of(const Section& s, std::string_view key) {
  for (const KeySpec& k : s.keys) {
    if (k.key == key) return k;
  }
  return s.keys.front();  // unreachable: callers pass keys from the same table
}

std::string_view expected_name(Kind k) {
  switch (k) {
    case Kind::integer: return "an integer";
    case Kind::number: return "a number";
    case Kind::string: return "a string";
    case Kind::date: return "a string or a date-time";
    case Kind::strings: return "an array of strings";
    case Kind::integers: return "an array of integers";
    case Kind::numbers: return "an array of numbers";
    case Kind::table: return "a table";
    case Kind::tables: return "an array of tables";
    case Kind::edges: return "a string of SRC>DST edges or an array of [src, dst] pairs";
  }
  return "a value";
}

bool matches(const toml::node& n, Kind k) {
  switch (k) {
    case Kind::integer: return n.is_integer();
    case Kind::number: return n.is_number();  // integers are accepted where floats are expected
    case Kind::string: return n.is_string();
    case Kind::date: return n.is_string() || n.is_date_time();
    case Kind::strings:
    case Kind::integers:
    case Kind::numbers: return n.is_array();
    case Kind::table: return n.is_table();
    case Kind::tables: return n.is_array_of_tables();
    case Kind::edges: return n.is_string() || n.is_array();
  }
  return false;
}

std::string write_it_as(const KeySpec& k) {
  if (k.kind == Kind::table) return or_regenerate(fmt::format("write it as a [{}] section", k.key));
  if (k.kind == Kind::tables) {
    return or_regenerate(fmt::format("write each entry as a {} section", k.example));
  }
  return or_regenerate(fmt::format("write it as {} = {}", k.key, k.example));
}

void warn_unknown_keys(Reader& r, const Section& s) {
  std::vector<std::string_view> valid;
  for (const KeySpec& k : s.keys) valid.push_back(k.key);
  toml_input::warn_unknown_keys(r, s.table, s.where, valid);
}

// The node of `key` when present and of the right kind; otherwise reports a missing required key
// or a wrong type and returns nullptr.
const toml::node* find(Reader& r, const Section& s, std::string_view key) {
  const KeySpec& k = spec_of(s, key);
  const toml::node* n = s.table.get(key);
  if (n == nullptr) {
    if (!k.required) return nullptr;
    if (k.kind == Kind::table) {
      r.error(
          s.line, fmt::format("missing required table [{}]", key),
          or_regenerate(fmt::format("add a [{}] section (docs/MODELS.md, \"Model file\")", key)));
    } else {
      r.error(s.line, fmt::format("missing required key '{}' {}", key, s.where),
              or_regenerate(fmt::format("add {} = {} {}", key, k.example, s.where)));
    }
    return nullptr;
  }
  if (!matches(*n, k.kind)) {
    r.error(line_of(*n),
            fmt::format("{} {} must be {}, not {}", key, s.where, expected_name(k.kind),
                        toml_input::type_name(*n)),
            write_it_as(k));
    return nullptr;
  }
  return n;
}

const toml::table* read_table(Reader& r, const Section& s, std::string_view key) {
  const toml::node* n = find(r, s, key);
  return n == nullptr ? nullptr : n->as_table();
}

double number_of(const toml::node& n) {
  if (const auto* i = n.as_integer()) return static_cast<double>(i->get());
  return n.as_floating_point()->get();
}

bool usable_time(double v) { return std::isfinite(v) && v >= 0.0; }

void bad_time(Reader& r, int line, std::string_view what, double v) {
  r.error(line, fmt::format("{} is {}; times must be finite and >= 0", what, v),
          or_regenerate("correct it"));
}

void read_string(Reader& r, const Section& s, std::string_view key, std::string& target) {
  const toml::node* n = find(r, s, key);
  if (n == nullptr) return;
  if (const auto* str = n->as_string()) {
    target = str->get();
    return;
  }
  // A date-time written without quotes is still a date; keep it as the text TOML would print.
  std::ostringstream text;
  text << *n->as_date_time();
  target = text.str();
}

// An integer in [min, max], or nothing (reported) when absent, mistyped or out of range.
std::optional<std::int64_t> read_integer(Reader& r, const Section& s, std::string_view key,
                                         std::int64_t min, std::int64_t max,
                                         std::string_view range_text) {
  const toml::node* n = find(r, s, key);
  if (n == nullptr) return std::nullopt;
  const std::int64_t v = n->as_integer()->get();
  if (v < min || v > max) {
    r.error(line_of(*n), fmt::format("{} {} is {}; it must be {}", key, s.where, v, range_text),
            or_regenerate("correct it"));
    return std::nullopt;
  }
  return v;
}

// A number key checked against a range: `ok` says whether v is inside, `range_text` how to say it.
std::optional<double> read_checked_number(Reader& r, const Section& s, std::string_view key,
                                          bool (*ok)(double), std::string_view range_text) {
  const toml::node* n = find(r, s, key);
  if (n == nullptr) return std::nullopt;
  const double v = number_of(*n);
  if (!ok(v)) {
    r.error(line_of(*n), fmt::format("{} {} is {}; it must be {}", key, s.where, v, range_text),
            or_regenerate("correct it"));
    return std::nullopt;
  }
  return v;
}

bool finite_nonneg(double v) { return std::isfinite(v) && v >= 0.0; }
bool finite_positive(double v) { return std::isfinite(v) && v > 0.0; }
bool fraction(double v) { return v >= 0.0 && v <= 1.0; }  // false for NaN

bool finite_any(double v) { return std::isfinite(v); }

int error_count(const Reader& r) {
  return static_cast<int>(std::count_if(r.out.begin(), r.out.end(), [](const Diagnostic& d) {
    return d.severity == Diagnostic::Severity::error;
  }));
}

ArrayRead<std::string> read_strings(Reader& r, const Section& s, std::string_view key) {
  return read_array<std::string>(r, s, key, Kind::string, Empty::allowed,
                                 [](Reader&, const toml::node& e, const std::string&) {
                                   return std::optional<std::string>(e.as_string()->get());
                                 });
}

ArrayRead<double> read_times(Reader& r, const Section& s, std::string_view key) {
  return read_array<double>(
      r, s, key, Kind::number, Empty::rejected,
      [](Reader& rr, const toml::node& e, const std::string& what) -> std::optional<double> {
        const double v = number_of(e);
        if (usable_time(v)) return v;
        bad_time(rr, line_of(e), what, v);
        return std::nullopt;
      });
}

ArrayRead<std::uint64_t> read_sizes(Reader& r, const Section& s, std::string_view key) {
  ArrayRead<std::uint64_t> sizes = read_array<std::uint64_t>(
      r, s, key, Kind::integer, Empty::rejected,
      [](Reader& rr, const toml::node& e, const std::string& what) -> std::optional<std::uint64_t> {
        const std::int64_t v = e.as_integer()->get();
        if (v >= 0) return static_cast<std::uint64_t>(v);
        rr.error(line_of(e), fmt::format("{} is {}; sizes must be >= 0", what, v),
                 or_regenerate("correct it"));
        return std::nullopt;
      });
  if (!sizes.ok) return sizes;
  const toml::array& a = *s.table.get(key)->as_array();
  for (std::size_t i = 1; i < sizes.values.size(); ++i) {
    if (sizes.values[i] > sizes.values[i - 1]) continue;
    r.error(line_of(a[i]),
            fmt::format("{} {} is not strictly increasing at index {} ({} after {})", key, s.where,
                        i, sizes.values[i], sizes.values[i - 1]),
            or_regenerate("list each size once, in increasing order, with gap_s, send_overhead_s "
                          "and recv_overhead_s in the same order"));
    sizes.ok = false;
    return sizes;
  }
  return sizes;
}

std::string toml_string(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\f': out += "\\f"; break;
      case '\r': out += "\\r"; break;
      default:
        // TOML forbids raw control characters (and DEL) in basic strings.
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          out += fmt::format("\\u{:04X}", static_cast<unsigned char>(c));
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

// Shortest text that reads back to the same double; "1" gets ".0" so it stays a TOML float.
std::string toml_float(double v) {
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

}  // namespace collsel::models::model_file
