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

#include "models/contention/rules.hpp"

namespace collsel::models {
namespace {

// Model files are written by collsel-calibrate, so regenerating is the fix that always works.
constexpr std::string_view kRegenerate = "re-run collsel-calibrate to regenerate the file";

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
    {"contention", Kind::table, false, ""},
    {"logfp", Kind::table, false, ""},
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

// [contention]: the penalty rule and what the calibration measured (models/contention/params.hpp).
constexpr KeySpec kContentionKeys[] = {
    {"rule", Kind::string, true, "\"gige\""},
    {"use", Kind::string, false, "\"auto\""},
    {"alpha_s_per_byte", Kind::number, true, "8.5e-9"},
    {"intra_alpha_s_per_byte", Kind::number, false, "2.5e-10"},
    {"reference_bytes", Kind::number, false, "1048576"},
    {"gige_beta", Kind::number, false, "0.75"},
    {"gige_gamma_i", Kind::number, false, "0.036"},
    {"gige_gamma_o", Kind::number, false, "0.115"},
    {"graph", Kind::tables, false, "[[contention.graph]]"},
};

// One [[contention.graph]]: a measured static-synchronous graph and its first-step penalties.
constexpr KeySpec kGraphKeys[] = {
    {"name", Kind::string, false, "\"out-star-2\""},
    {"edges", Kind::edges, true, "\"0>1 0>2\""},
    {"penalties", Kind::numbers, true, "[1.5, 1.5]"},
};

// [logfp]: seed 004's parameters from the 1:P-P:1 benchmark (models/logfp/logfp.hpp).
constexpr KeySpec kLogfpKeys[] = {
    {"latency_s", Kind::number, true, "4.6e-6"},
    {"o_min_s", Kind::number, true, "1.8e-7"},
    {"o_max_s", Kind::number, true, "1.6e-6"},
    {"gap_s", Kind::number, true, "2e-6"},
    {"f", Kind::integer, true, "8"},
    {"max_bytes", Kind::integer, true, "1"},
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
    case Kind::tables: return "an array of tables";
    case Kind::edges: return "a string of SRC>DST edges or an array of [src, dst] pairs";
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

int error_count(const Reader& r) {
  return static_cast<int>(std::count_if(r.out.begin(), r.out.end(), [](const Diagnostic& d) {
    return d.severity == Diagnostic::Severity::error;
  }));
}

bool finite_any(double v) { return std::isfinite(v); }

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

constexpr std::pair<contention::Use, std::string_view> kUseNames[] = {
    {contention::Use::automatic, "auto"},
    {contention::Use::always, "always"},
    {contention::Use::never, "never"},
};
constexpr std::string_view kUseNameList = "auto, always, never";

std::string_view use_name(contention::Use use) {
  for (const auto& [u, name] : kUseNames) {
    if (u == use) return name;
  }
  return "auto";
}

std::optional<contention::Use> use_from_name(std::string_view name) {
  for (const auto& [u, n] : kUseNames) {
    if (n == name) return u;
  }
  return std::nullopt;
}

// A node index: decimal digits only, within int.
std::optional<int> node_index(std::string_view text) {
  if (text.empty() || text.size() > 9) return std::nullopt;  // 9 digits always fit in int
  int v = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

// edges = "0>1 0>2" (whitespace-separated SRC>DST) or [[0, 1], [0, 2]]: what people write by
// hand, and what the writer uses (the string: one line, readable as the graph).
std::optional<std::vector<contention::Edge>> read_edges(Reader& r, const Section& s) {
  const toml::node* n = find(r, s, "edges");
  if (n == nullptr) return std::nullopt;
  const auto bad = [&](int line, const std::string& problem) {
    r.error(line, fmt::format("edges {} {}", s.where, problem),
            or_regenerate("write edges as \"0>1 0>2\" or [[0, 1], [0, 2]] (node indices)"));
    return std::optional<std::vector<contention::Edge>>();
  };
  std::vector<contention::Edge> edges;
  if (const auto* text = n->as_string()) {
    std::istringstream words(text->get());
    std::string w;
    while (words >> w) {
      const auto gt = w.find('>');
      const auto src = gt == std::string::npos ? std::nullopt : node_index(w.substr(0, gt));
      const auto dst = gt == std::string::npos ? std::nullopt : node_index(w.substr(gt + 1));
      if (!src || !dst) {
        return bad(line_of(*n), fmt::format("has '{}', which is not SRC>DST with node indices "
                                            "(e.g. 0>1)", w));
      }
      edges.push_back({*src, *dst});
    }
  } else {
    const toml::array& a = *n->as_array();
    for (std::size_t i = 0; i < a.size(); ++i) {
      const toml::array* pair = a[i].as_array();
      const bool ok = pair != nullptr && pair->size() == 2 && (*pair)[0].is_integer() &&
                      (*pair)[1].is_integer();
      const auto get = [&](std::size_t k) { return (*pair)[k].as_integer()->get(); };
      if (!ok || get(0) < 0 || get(1) < 0 || get(0) > INT_MAX || get(1) > INT_MAX) {
        return bad(line_of(a[i]), fmt::format("[{}] is not a [src, dst] pair of node indices "
                                              "(integers >= 0)", i));
      }
      edges.push_back({static_cast<int>(get(0)), static_cast<int>(get(1))});
    }
  }
  if (edges.empty()) return bad(line_of(*n), "is empty; a measured graph has at least one edge");
  for (const contention::Edge& e : edges) {
    if (e.src == e.dst) {
      return bad(line_of(*n), fmt::format("has the self-loop {}>{}; an edge joins two different "
                                          "nodes", e.src, e.dst));
    }
  }
  return edges;
}

std::optional<contention::MeasuredGraph> read_graph(Reader& r, const toml::table& t) {
  const Section s{t, "in [[contention.graph]]", kGraphKeys, line_of(t)};
  warn_unknown_keys(r, s);
  contention::MeasuredGraph g;
  read_string(r, s, "name", g.name);
  auto edges = read_edges(r, s);
  // A measured penalty may be below 1 (noise); it is a time ratio, so it is positive.
  const auto penalties = read_array<double>(
      r, s, "penalties", Kind::number, Empty::rejected,
      [](Reader& rr, const toml::node& e, const std::string& what) -> std::optional<double> {
        const double v = number_of(e);
        if (finite_positive(v)) return v;
        rr.error(line_of(e), fmt::format("{} is {}; it must be a finite number > 0", what, v),
                 or_regenerate("correct it"));
        return std::nullopt;
      });
  if (!edges || !penalties.ok) return std::nullopt;
  if (penalties.values.size() != edges->size()) {
    r.error(penalties.line,
            fmt::format("penalties {} has {} values but edges has {} edges", s.where,
                        penalties.values.size(), edges->size()),
            or_regenerate("give one penalty per edge, in the order of edges"));
    return std::nullopt;
  }
  g.edges = std::move(*edges);
  g.penalties = penalties.values;
  return g;
}

std::optional<contention::Params> read_contention(Reader& r, const toml::table& t) {
  const Section s{t, "in [contention]", kContentionKeys, line_of(t)};
  const int errors_before = error_count(r);
  warn_unknown_keys(r, s);
  contention::Params p;
  if (auto v = read_named<contention::RuleKind>(r, s, "rule", contention::rule_from_name,
                                                contention::rule_names())) {
    p.rule = *v;
  }
  if (auto v = read_named<contention::Use>(r, s, "use", use_from_name, kUseNameList)) p.use = *v;
  const std::string_view positive = "a finite number > 0", nonneg = "a finite number >= 0";
  if (auto v = read_checked_number(r, s, "alpha_s_per_byte", finite_positive, positive)) {
    p.alpha_s_per_byte = *v;
  }
  if (auto v = read_checked_number(r, s, "intra_alpha_s_per_byte", finite_nonneg, nonneg)) {
    p.intra_alpha_s_per_byte = *v;
  }
  if (auto v = read_checked_number(r, s, "reference_bytes", finite_nonneg, nonneg)) {
    p.reference_bytes = *v;
  }
  if (auto v = read_checked_number(r, s, "gige_beta", finite_positive, positive)) {
    p.gige.beta = *v;
  }
  if (auto v = read_checked_number(r, s, "gige_gamma_i", finite_any, "a finite number")) {
    p.gige.gamma_i = *v;
  }
  if (auto v = read_checked_number(r, s, "gige_gamma_o", finite_any, "a finite number")) {
    p.gige.gamma_o = *v;
  }
  if (const toml::node* n = find(r, s, "graph")) {
    for (const toml::node& g : *n->as_array()) {
      if (auto graph = read_graph(r, *g.as_table())) p.measured.push_back(std::move(*graph));
    }
  }
  if (error_count(r) != errors_before) return std::nullopt;
  // Every condition is checked above with its line; this catches a gap between the two lists.
  if (auto reason = p.invalid_reason()) {
    r.error(s.line, fmt::format("[contention]: {}", *reason), or_regenerate("correct it"));
    return std::nullopt;
  }
  return p;
}

std::optional<logfp::Params> read_logfp(Reader& r, const toml::table& t) {
  const Section s{t, "in [logfp]", kLogfpKeys, line_of(t)};
  const int errors_before = error_count(r);
  warn_unknown_keys(r, s);
  logfp::Params p;
  const std::string_view nonneg = "a finite number >= 0";
  using Field = double logfp::Params::*;
  const std::pair<std::string_view, Field> times[] = {{"latency_s", &logfp::Params::latency_s},
                                                      {"o_min_s", &logfp::Params::o_min_s},
                                                      {"o_max_s", &logfp::Params::o_max_s},
                                                      {"gap_s", &logfp::Params::gap_s}};
  for (const auto& [key, field] : times) {
    if (auto v = read_checked_number(r, s, key, finite_nonneg, nonneg)) p.*field = *v;
  }
  if (auto v = read_integer(r, s, "f", 1, INT_MAX, fmt::format("between 1 and {}", INT_MAX))) {
    p.f = static_cast<int>(*v);
  }
  if (auto v = read_integer(r, s, "max_bytes", 0, INT64_MAX, ">= 0")) {
    p.max_bytes = static_cast<std::uint64_t>(*v);
  }
  if (error_count(r) != errors_before) return std::nullopt;
  if (auto reason = p.invalid_reason()) {
    r.error(s.line, fmt::format("[logfp]: {}", *reason), or_regenerate("correct it"));
    return std::nullopt;
  }
  return p;
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
  if (const auto* t = read_table(r, top, "contention")) model.contention = read_contention(r, *t);
  if (const auto* t = read_table(r, top, "logfp")) model.logfp = read_logfp(r, *t);
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

std::string edges_text(const std::vector<contention::Edge>& edges) {
  std::string out;
  for (const contention::Edge& e : edges) {
    out += fmt::format("{}{}>{}", out.empty() ? "" : " ", e.src, e.dst);
  }
  return out;
}

std::string contention_body(const contention::Params& c) {
  std::string out;
  out += fmt::format("rule = {}  # penalty rule: {}\n", toml_string(contention::rule_name(c.rule)),
                     contention::rule_names());
  out += fmt::format("use = {}  # schedule simulation: {}\n", toml_string(use_name(c.use)),
                     kUseNameList);
  out += fmt::format("alpha_s_per_byte = {}  # 1 / effective bandwidth between nodes\n",
                     toml_float(c.alpha_s_per_byte));
  out += fmt::format("intra_alpha_s_per_byte = {}  # between two ranks of one node (0: unknown)\n",
                     toml_float(c.intra_alpha_s_per_byte));
  out += fmt::format("reference_bytes = {}  # message size of the measured graphs\n",
                     toml_float(c.reference_bytes));
  out += fmt::format("gige_beta = {}  # seed 002 section V.A\n", toml_float(c.gige.beta));
  out += fmt::format("gige_gamma_i = {}\n", toml_float(c.gige.gamma_i));
  out += fmt::format("gige_gamma_o = {}\n", toml_float(c.gige.gamma_o));
  for (const contention::MeasuredGraph& g : c.measured) {
    out += "\n[[contention.graph]]\n";
    out += fmt::format("name = {}\n", toml_string(g.name));
    out += fmt::format("edges = {}\n", toml_string(edges_text(g.edges)));
    out += fmt::format("penalties = {}  # first step, per edge\n",
                       toml_array(g.penalties, toml_float));
  }
  return out;
}

std::string logfp_body(const logfp::Params& p) {
  std::string out;
  out += fmt::format("latency_s = {}  # L, seconds\n", toml_float(p.latency_s));
  out += fmt::format("o_min_s = {}  # o(P) = o_min + o_max / P\n", toml_float(p.o_min_s));
  out += fmt::format("o_max_s = {}\n", toml_float(p.o_max_s));
  out += fmt::format("gap_s = {}  # g, paid by every message after the first f\n",
                     toml_float(p.gap_s));
  out += fmt::format("f = {}  # messages sent without paying g\n", p.f);
  out += fmt::format("max_bytes = {}  # the model serves messages up to this size\n",
                     p.max_bytes);
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
  if (m.contention) {
    out += "\n# contention graphs (seeds 002, 003; docs/MODELS.md, \"Model file\")\n";
    out += "[contention]\n";
    out += contention_body(*m.contention);
  }
  if (m.logfp) {
    out += "\n# LogfP for small messages (seed 004; docs/MODELS.md, \"Model file\")\n";
    out += "[logfp]\n";
    out += logfp_body(*m.logfp);
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
