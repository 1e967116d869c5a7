#include "models/model_file.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <span>
#include <sstream>

namespace collsel::models {
namespace {

// Model files are written by collsel-calibrate, so regenerating is the fix that always works.
constexpr std::string_view kRegenerate = "re-run collsel-calibrate to regenerate the file";

enum class Kind { integer, number, string, date, strings, integers, numbers, table };

struct KeySpec {
  std::string_view key;
  Kind kind;
  bool required;
  std::string_view example;  // a valid value, shown in fixes
};

// The single list of keys per table: reading, the valid-key lists of warnings and the fixes all
// come from here.
constexpr KeySpec kTopKeys[] = {
    {"format_version", Kind::integer, true, "1"},
    {"name", Kind::string, true, "\"my cluster\""},
    {"description", Kind::string, false, "\"free text\""},
    {"provenance", Kind::table, false, ""},
    {"plogp", Kind::table, true, ""},
    {"intra_node", Kind::table, false, ""},
    {"alltoall", Kind::table, false, ""},
};

constexpr KeySpec kProvenanceKeys[] = {
    {"command", Kind::string, false, "\"mpiexec -n 2 collsel-calibrate -o model.toml\""},
    {"date", Kind::date, false, "\"2026-11-23T07:00:00Z\""},
    {"mpi_library", Kind::string, false, "\"MPICH 4.0.2\""},
    {"hosts", Kind::strings, false, "[\"node1\", \"node2\"]"},
    {"ranks", Kind::integer, false, "2"},
    {"ranks_per_node", Kind::integer, false, "1"},
    {"duration_s", Kind::number, false, "42.5"},
    {"notes", Kind::string, false, "\"free text\""},
};

constexpr KeySpec kPlogpKeys[] = {
    {"latency_s", Kind::number, true, "1.5e-6"},
    {"eager_limit_bytes", Kind::integer, false, "16384"},
    {"sizes_bytes", Kind::integers, true, "[0, 1, 1024]"},
    {"gap_s", Kind::numbers, true, "[1e-6, 1e-6, 2e-6]"},
    {"send_overhead_s", Kind::numbers, true, "[1e-7, 1e-7, 3e-7]"},
    {"recv_overhead_s", Kind::numbers, true, "[1e-7, 1e-7, 3e-7]"},
    {"latency_spread", Kind::number, false, "0.02"},
    {"gap_spread", Kind::numbers, false, "[0.01, 0.02, 0.01]"},
    {"send_overhead_spread", Kind::numbers, false, "[0.01, 0.02, 0.01]"},
    {"recv_overhead_spread", Kind::numbers, false, "[0.01, 0.02, 0.01]"},
};

// [alltoall]: seed 000's contention signature and throughput parameters (models/alltoall/
// contention.hpp, Contention). Optional keys default as docs/MODELS.md, "Model file" says.
constexpr KeySpec kAlltoallKeys[] = {
    {"sample_ranks", Kind::integer, false, "16"},
    {"alpha_s", Kind::number, true, "6e-5"},
    {"beta_s_per_byte", Kind::number, true, "8.5e-9"},
    {"gamma", Kind::number, true, "1.0195"},
    {"delta_s", Kind::number, false, "8.23e-3"},
    {"delta_from_bytes", Kind::integer, false, "2048"},
    {"fit_points", Kind::integer, false, "12"},
    {"fit_rms_rel", Kind::number, false, "0.03"},
    {"fit_max_abs_rel", Kind::number, false, "0.08"},
    {"beta_free_s_per_byte", Kind::number, false, "8.502e-9"},
    {"beta_contention_s_per_byte", Kind::number, false, "8.498189e-8"},
    {"rho_single", Kind::number, false, "0.1"},
    {"rho_flood", Kind::number, false, "0.5"},
    {"copy_s_per_byte", Kind::number, false, "2.5e-10"},
};

// A TOML table together with how messages name it.
struct Section {
  const toml::table& table;
  std::string_view where;  // "at the top level", "in [plogp]"
  std::span<const KeySpec> keys;
  int line;  // for a missing key; 0 for the top level, which has no line of its own
};

struct Reader {
  std::string_view source;
  Diagnostics& out;

  void error(int line, std::string problem, std::string fix) {
    out.push_back({Diagnostic::Severity::error, std::string(source), line, std::move(problem),
                   std::move(fix)});
  }
  void warn(int line, std::string problem, std::string fix) {
    out.push_back({Diagnostic::Severity::warning, std::string(source), line, std::move(problem),
                   std::move(fix)});
  }
};

int line_of(const toml::node& n) { return static_cast<int>(n.source().begin.line); }

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
  }
  return "a value";
}

std::string_view actual_name(const toml::node& n) {
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
  }
  return false;
}

std::string write_it_as(const KeySpec& k) {
  if (k.kind == Kind::table) return or_regenerate(fmt::format("write it as a [{}] section", k.key));
  return or_regenerate(fmt::format("write it as {} = {}", k.key, k.example));
}

void warn_unknown_keys(Reader& r, const Section& s) {
  std::string valid;
  for (const KeySpec& k : s.keys) valid += fmt::format("{}{}", valid.empty() ? "" : ", ", k.key);
  for (const auto& [key, node] : s.table) {
    const bool known = std::any_of(s.keys.begin(), s.keys.end(),
                                   [&](const KeySpec& k) { return k.key == key.str(); });
    if (known) continue;
    r.warn(line_of(node), fmt::format("unknown key '{}' {}", key.str(), s.where),
           fmt::format("remove it; valid keys {}: {}", s.where, valid));
  }
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
                        actual_name(*n)),
            write_it_as(k));
    return nullptr;
  }
  return n;
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
              fmt::format("{} must be {}, not {}", what, expected_name(element), actual_name(e)),
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

const toml::table* read_table(Reader& r, const Section& s, std::string_view key) {
  const toml::node* n = find(r, s, key);
  return n == nullptr ? nullptr : n->as_table();
}

// format_version decides how the rest reads, so a missing, mistyped or other version stops here.
bool read_version(Reader& r, const Section& top) {
  const toml::node* n = find(r, top, "format_version");
  if (n == nullptr) return false;
  const std::int64_t v = n->as_integer()->get();
  if (v == kModelFormatVersion) return true;
  r.error(
      line_of(*n),
      fmt::format("format_version = {} is not supported; this collsel reads format_version = {}", v,
                  kModelFormatVersion),
      "re-run this collsel's collsel-calibrate to regenerate the file");
  return false;
}

void read_provenance(Reader& r, const toml::table& t, Provenance& p) {
  const Section s{t, "in [provenance]", kProvenanceKeys, line_of(t)};
  warn_unknown_keys(r, s);
  read_string(r, s, "command", p.command);
  read_string(r, s, "date", p.date);
  read_string(r, s, "mpi_library", p.mpi_library);
  if (auto hosts = read_strings(r, s, "hosts"); hosts.ok) p.hosts = std::move(hosts.values);
  if (auto ranks =
          read_integer(r, s, "ranks", 0, INT_MAX, fmt::format("between 0 and {}", INT_MAX))) {
    p.ranks = static_cast<int>(*ranks);
  }
  if (auto rpn = read_integer(r, s, "ranks_per_node", 0, INT_MAX,
                              fmt::format("between 0 and {}", INT_MAX))) {
    p.ranks_per_node = static_cast<int>(*rpn);
  }
  if (const toml::node* n = find(r, s, "duration_s")) {
    p.duration_s = number_of(*n);
    if (!usable_time(p.duration_s)) bad_time(r, line_of(*n), "duration_s in [provenance]", p.duration_s);
  }
  read_string(r, s, "notes", p.notes);
}

void read_latency(Reader& r, const Section& s, plogp::Params& p) {
  const toml::node* n = find(r, s, "latency_s");
  if (n == nullptr) return;
  p.latency_s = number_of(*n);
  if (!usable_time(p.latency_s)) {
    bad_time(r, line_of(*n), fmt::format("latency_s {}", s.where), p.latency_s);
  }
}

// The four arrays must have one entry per size; the first one that differs from sizes_bytes is
// reported with both lengths.
bool same_lengths(
    Reader& r, std::string_view where, const ArrayRead<std::uint64_t>& sizes,
    std::initializer_list<std::pair<std::string_view, const ArrayRead<double>*>> cols) {
  for (const auto& [name, col] : cols) {
    if (col->values.size() == sizes.values.size()) continue;
    r.error(col->line,
            fmt::format("{} {} has {} values but sizes_bytes has {}", name, where,
                        col->values.size(), sizes.values.size()),
            or_regenerate("give one value per entry of sizes_bytes"));
    return false;
  }
  return true;
}

void read_plogp(Reader& r, const toml::table& t, plogp::Params& p,
                std::string_view where = "in [plogp]") {
  const Section s{t, where, kPlogpKeys, line_of(t)};
  warn_unknown_keys(r, s);
  read_latency(r, s, p);
  if (auto e = read_integer(r, s, "eager_limit_bytes", 0, INT64_MAX, ">= 0")) {
    p.eager_limit_bytes = static_cast<std::uint64_t>(*e);
  }
  const auto sizes = read_sizes(r, s, "sizes_bytes");
  const auto gap = read_times(r, s, "gap_s");
  const auto send = read_times(r, s, "send_overhead_s");
  const auto recv = read_times(r, s, "recv_overhead_s");
  if (!(sizes.ok && gap.ok && send.ok && recv.ok)) return;
  if (!same_lengths(r, s.where, sizes,
                    {{"gap_s", &gap}, {"send_overhead_s", &send}, {"recv_overhead_s", &recv}})) {
    return;
  }
  for (std::size_t i = 0; i < sizes.values.size(); ++i) {
    p.table.push_back({sizes.values[i], gap.values[i], send.values[i], recv.values[i]});
  }
  // Optional spreads: when present, one per size like the values they qualify.
  if (const toml::node* n = find(r, s, "latency_spread")) {
    p.latency_spread = number_of(*n);
    if (!usable_time(p.latency_spread)) {
      bad_time(r, line_of(*n), fmt::format("latency_spread {}", s.where), p.latency_spread);
    }
  }
  using Field = double plogp::SizePoint::*;
  const std::pair<std::string_view, Field> spreads[] = {
      {"gap_spread", &plogp::SizePoint::gap_spread},
      {"send_overhead_spread", &plogp::SizePoint::send_overhead_spread},
      {"recv_overhead_spread", &plogp::SizePoint::recv_overhead_spread}};
  for (const auto& [key, field] : spreads) {
    if (t.get(key) == nullptr) continue;
    const auto values = read_times(r, s, key);
    if (!values.ok || !same_lengths(r, s.where, sizes, {{key, &values}})) continue;
    for (std::size_t i = 0; i < values.values.size(); ++i) p.table[i].*field = values.values[i];
  }
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

std::optional<alltoall::Contention> read_alltoall(Reader& r, const toml::table& t) {
  const Section s{t, "in [alltoall]", kAlltoallKeys, line_of(t)};
  const auto errors_before = std::count_if(r.out.begin(), r.out.end(), [](const Diagnostic& d) {
    return d.severity == Diagnostic::Severity::error;
  });
  warn_unknown_keys(r, s);
  alltoall::Contention c;
  const std::string nonneg = "a finite number >= 0";
  if (auto v = read_integer(r, s, "sample_ranks", 0, INT_MAX,
                            fmt::format("0 (not measured) or between 2 and {}", INT_MAX))) {
    if (*v == 1) {
      r.error(line_of(*t.get("sample_ranks")),
              fmt::format("sample_ranks in [alltoall] is 1; it must be 0 (not measured) or "
                          "between 2 and {}",
                          INT_MAX),
              or_regenerate("correct it"));
    }
    c.sample_ranks = static_cast<int>(*v);
  }
  if (auto v = read_checked_number(r, s, "alpha_s", finite_nonneg, nonneg)) c.hockney.alpha_s = *v;
  if (auto v = read_checked_number(r, s, "beta_s_per_byte", finite_nonneg, nonneg)) {
    c.hockney.beta_s_per_byte = *v;
  }
  if (auto v = read_checked_number(r, s, "gamma", finite_positive, "a finite number > 0")) {
    c.signature.gamma = *v;
  }
  if (auto v = read_checked_number(r, s, "delta_s", finite_nonneg, nonneg)) {
    c.signature.delta_s = *v;
  }
  if (auto v = read_integer(r, s, "delta_from_bytes", 0, INT64_MAX, ">= 0")) {
    c.signature.threshold_bytes = static_cast<std::uint64_t>(*v);
  } else if (t.get("delta_from_bytes") == nullptr && c.signature.delta_s > 0.0) {
    r.warn(line_of(*t.get("delta_s")),
           fmt::format("delta_s in [alltoall] is {} but there is no delta_from_bytes, so delta "
                       "never applies",
                       c.signature.delta_s),
           "add delta_from_bytes = M (the smallest message size it applies to), or remove "
           "delta_s");
  }
  if (auto v = read_integer(r, s, "fit_points", 0, INT_MAX,
                            fmt::format("between 0 and {}", INT_MAX))) {
    c.signature_fit.points = static_cast<int>(*v);
  }
  if (auto v = read_checked_number(r, s, "fit_rms_rel", finite_nonneg, nonneg)) {
    c.signature_fit.rms_rel = *v;
  }
  if (auto v = read_checked_number(r, s, "fit_max_abs_rel", finite_nonneg, nonneg)) {
    c.signature_fit.max_abs_rel = *v;
  }
  // Absent throughput keys leave the contention-free reading: beta_C = beta_F = beta, rho 0.
  c.beta_free_s_per_byte = c.hockney.beta_s_per_byte;
  if (auto v = read_checked_number(r, s, "beta_free_s_per_byte", finite_nonneg, nonneg)) {
    c.beta_free_s_per_byte = *v;
  }
  c.beta_contention_s_per_byte = c.beta_free_s_per_byte;
  if (auto v = read_checked_number(r, s, "beta_contention_s_per_byte", finite_nonneg, nonneg)) {
    c.beta_contention_s_per_byte = *v;
  }
  const std::string_view between = "between 0 and 1";
  if (auto v = read_checked_number(r, s, "rho_single", fraction, between)) c.rho_single = *v;
  c.rho_flood = c.rho_single;
  if (auto v = read_checked_number(r, s, "rho_flood", fraction, between)) c.rho_flood = *v;
  c.copy_s_per_byte = alltoall::kDefaultCopySecondsPerByte;
  if (auto v = read_checked_number(r, s, "copy_s_per_byte", finite_nonneg, nonneg)) {
    c.copy_s_per_byte = *v;
  }
  const auto errors_after = std::count_if(r.out.begin(), r.out.end(), [](const Diagnostic& d) {
    return d.severity == Diagnostic::Severity::error;
  });
  if (errors_after != errors_before) return std::nullopt;
  // Every condition is checked above with its line; this catches a gap between the two lists.
  if (auto reason = c.invalid_reason()) {
    r.error(s.line, fmt::format("[alltoall]: {}", *reason), or_regenerate("correct it"));
    return std::nullopt;
  }
  return c;
}

ModelLoad parse_root(const toml::table& root, std::string_view source) {
  ModelLoad load;
  Reader r{source, load.diagnostics};
  const Section top{root, "at the top level", kTopKeys, 0};
  if (root.empty()) {
    r.error(0, "the file is empty", std::string(kRegenerate));
    return load;
  }
  warn_unknown_keys(r, top);
  if (!read_version(r, top)) return load;
  ModelFile model;
  read_string(r, top, "name", model.name);
  read_string(r, top, "description", model.description);
  if (const auto* t = read_table(r, top, "provenance")) read_provenance(r, *t, model.provenance);
  if (const auto* t = read_table(r, top, "plogp")) read_plogp(r, *t, model.plogp);
  if (const auto* t = read_table(r, top, "intra_node")) {
    plogp::Params intra;
    read_plogp(r, *t, intra, "in [intra_node]");
    if (auto reason = intra.invalid_reason(); !reason) model.intra_node = std::move(intra);
  }
  if (const auto* t = read_table(r, top, "alltoall")) model.alltoall = read_alltoall(r, *t);
  if (has_errors(load.diagnostics)) return load;
  // Every condition is checked above with its line; this catches a gap between the two lists.
  if (auto reason = model.plogp.invalid_reason()) {
    r.error(0, *reason, std::string(kRegenerate));
    return load;
  }
  load.model = std::move(model);
  return load;
}

// --- writing ---

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

template <class T, class Format>
std::string toml_array(const std::vector<T>& values, Format format) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ", ";
    out += format(values[i]);
  }
  return out + "]";
}

template <class Field>
std::string column(const plogp::Params& p, Field field) {
  std::vector<double> values;
  for (const auto& point : p.table) values.push_back(point.*field);
  return toml_array(values, toml_float);
}

}  // namespace

ModelLoad parse_model(std::string_view text, std::string_view source) {
  try {
    return parse_root(toml::parse(text, source), source);
  } catch (const toml::parse_error& e) {
    ModelLoad load;
    Reader{source, load.diagnostics}.error(static_cast<int>(e.source().begin.line),
                                           fmt::format("not valid TOML: {}", e.description()),
                                           or_regenerate("fix the syntax"));
    return load;
  }
}

ModelLoad load_model_file(const std::string& path) {
  struct Closer {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };
  const auto cannot_read = [&path](int err) {
    ModelLoad load;
    load.diagnostics.push_back({Diagnostic::Severity::error, path, 0,
                                fmt::format("cannot read the model file ({})", std::strerror(err)),
                                "check COLLSEL_MODEL or [model] path in the config"});
    return load;
  };
  errno = 0;
  const std::unique_ptr<std::FILE, Closer> f(std::fopen(path.c_str(), "rb"));
  if (!f) return cannot_read(errno);
  std::string text;
  char buffer[1 << 16];
  std::size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, f.get())) > 0) text.append(buffer, n);
  // A directory opens fine and fails here, with EISDIR.
  if (std::ferror(f.get())) return cannot_read(errno);
  return parse_model(text, path);
}

namespace {

std::string plogp_body(const plogp::Params& p) {
  std::string out;
  out += fmt::format("latency_s = {}  # L, seconds\n", toml_float(p.latency_s));
  if (p.eager_limit_bytes) {
    out += fmt::format("eager_limit_bytes = {}  # the MPI library's eager/rendezvous switch\n",
                       *p.eager_limit_bytes);
  }
  std::vector<std::uint64_t> sizes;
  for (const auto& point : p.table) sizes.push_back(point.bytes);
  out += fmt::format("sizes_bytes = {}\n",
                     toml_array(sizes, [](std::uint64_t b) { return fmt::format("{}", b); }));
  out += fmt::format("gap_s = {}  # g(m), seconds\n", column(p, &plogp::SizePoint::gap_s));
  out += fmt::format("send_overhead_s = {}  # o_s(m), seconds\n",
                     column(p, &plogp::SizePoint::send_overhead_s));
  out += fmt::format("recv_overhead_s = {}  # o_r(m), seconds\n",
                     column(p, &plogp::SizePoint::recv_overhead_s));
  const bool spreads = p.latency_spread > 0 ||
                       std::any_of(p.table.begin(), p.table.end(), [](const auto& x) {
                         return x.gap_spread > 0 || x.send_overhead_spread > 0 ||
                                x.recv_overhead_spread > 0;
                       });
  if (spreads) {
    out += "# spreads: half-width of the 95 % confidence interval of the median, relative\n";
    out += fmt::format("latency_spread = {}\n", toml_float(p.latency_spread));
    out += fmt::format("gap_spread = {}\n", column(p, &plogp::SizePoint::gap_spread));
    out += fmt::format("send_overhead_spread = {}\n",
                       column(p, &plogp::SizePoint::send_overhead_spread));
    out += fmt::format("recv_overhead_spread = {}\n",
                       column(p, &plogp::SizePoint::recv_overhead_spread));
  }
  return out;
}

std::string alltoall_body(const alltoall::Contention& c) {
  std::string out;
  out += fmt::format("sample_ranks = {}  # n', the ranks the signature was fitted at (0: not "
                     "measured)\n",
                     c.sample_ranks);
  out += fmt::format("alpha_s = {}  # Hockney start-up, seconds\n", toml_float(c.hockney.alpha_s));
  out += fmt::format("beta_s_per_byte = {}  # Hockney 1 / bandwidth\n",
                     toml_float(c.hockney.beta_s_per_byte));
  out += fmt::format("gamma = {}  # contention ratio (eq. 4, 5)\n", toml_float(c.signature.gamma));
  out += fmt::format("delta_s = {}  # added per round for m >= delta_from_bytes (eq. 5)\n",
                     toml_float(c.signature.delta_s));
  if (c.signature.threshold_bytes != alltoall::kNoThreshold) {
    out += fmt::format("delta_from_bytes = {}  # M\n", c.signature.threshold_bytes);
  }
  out += fmt::format("fit_points = {}\n", c.signature_fit.points);
  out += fmt::format("fit_rms_rel = {}\n", toml_float(c.signature_fit.rms_rel));
  out += fmt::format("fit_max_abs_rel = {}\n", toml_float(c.signature_fit.max_abs_rel));
  out += fmt::format("beta_free_s_per_byte = {}  # beta_F (eq. 3)\n",
                     toml_float(c.beta_free_s_per_byte));
  out += fmt::format("beta_contention_s_per_byte = {}  # beta_C (eq. 3)\n",
                     toml_float(c.beta_contention_s_per_byte));
  out += fmt::format("rho_single = {}  # rho with 1 exchange in flight\n",
                     toml_float(c.rho_single));
  out += fmt::format("rho_flood = {}  # rho with sample_ranks - 1 in flight\n",
                     toml_float(c.rho_flood));
  out += fmt::format("copy_s_per_byte = {}  # local memory copy\n",
                     toml_float(c.copy_s_per_byte));
  return out;
}

}  // namespace

std::string write_model(const ModelFile& m) {
  const Provenance& pv = m.provenance;
  std::string out;
  out += fmt::format("# collsel model file; every key is described in docs/MODELS.md\n");
  out += fmt::format("format_version = {}\n", kModelFormatVersion);
  out += fmt::format("name = {}\n", toml_string(m.name));
  out += fmt::format("description = {}\n", toml_string(m.description));
  out += "\n[provenance]\n";
  out += fmt::format("command = {}\n", toml_string(pv.command));
  out += fmt::format("date = {}\n", toml_string(pv.date));
  out += fmt::format("mpi_library = {}\n", toml_string(pv.mpi_library));
  out += fmt::format("hosts = {}\n", toml_array(pv.hosts, toml_string));
  out += fmt::format("ranks = {}\n", pv.ranks);
  if (pv.ranks_per_node > 0) out += fmt::format("ranks_per_node = {}\n", pv.ranks_per_node);
  if (pv.duration_s > 0) out += fmt::format("duration_s = {}\n", toml_float(pv.duration_s));
  out += fmt::format("notes = {}\n", toml_string(pv.notes));
  out += "\n[plogp]\n";
  out += plogp_body(m.plogp);
  if (m.intra_node) {
    out += "\n# between two ranks of one node; the selection uses [plogp] (docs/MODELS.md)\n";
    out += "[intra_node]\n";
    out += plogp_body(*m.intra_node);
  }
  if (m.alltoall) {
    out += "\n# All-to-All contention (seed 000; docs/MODELS.md, \"All-to-All (seed 000)\")\n";
    out += "[alltoall]\n";
    out += alltoall_body(*m.alltoall);
  }
  return out;
}

std::optional<std::string> save_model_file(const ModelFile& model, const std::string& path) {
  const std::string tmp = fmt::format("{}.tmp.{}", path, static_cast<long>(getpid()));
  {
    std::ofstream out(tmp, std::ios::binary);
    out << write_model(model);
    if (!out.flush()) {
      const std::string why = std::strerror(errno);
      std::remove(tmp.c_str());
      return fmt::format("cannot write {} ({}); check the folder exists and is writable", tmp,
                         why);
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(tmp.c_str());
    return fmt::format("cannot rename {} to {} ({}); check the folder is writable", tmp, path,
                       why);
  }
  return std::nullopt;
}

}  // namespace collsel::models
